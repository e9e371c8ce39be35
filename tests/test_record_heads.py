"""A sweep formats its points' record headers' starts (spec hash, point, coordinates) a batch of
points ahead of their runs: the records are the same bytes as those formatted at each write, and
every point's record names its own point and coordinates across batches."""
import importlib

from mcio import store
from mcio.sweep import load_spec, point_part, sweep
from sweep_specs import MM1_RATES

run_mod = importlib.import_module("mcio.batch.run")

SPEC = MM1_RATES.replace('[200.0, 500.0, 700.0]', '[100.0, 200.0, 300.0, 400.0, 500.0]') \
    .replace("ios = 40000", "ios = 2000").replace("warmup = 4000", "warmup = 200")


def _log(out):
    return (store.parts_dir(out) / store.PartStore.LOG).read_bytes()


def test_a_record_with_its_head_made_ahead_is_the_same_bytes(tmp_path):
    spec = load_spec(SPEC)
    for p in (0, 3):
        part = point_part(spec, p)
        made_here = store.PartStore(tmp_path / f"a{p}.h5", spec.text)
        ahead = store.PartStore(tmp_path / f"b{p}.h5", spec.text)
        made_here.write(p, part, part.coords)
        ahead.write(p, part, part.coords, ahead.heads([p], [spec.coords(p)])[0])
        made_here.close()
        ahead.close()
        assert _log(tmp_path / f"a{p}.h5") == _log(tmp_path / f"b{p}.h5")


def test_every_points_record_names_its_own_point_and_coordinates_across_batches(tmp_path, monkeypatch):
    """Batches of 2 over 5 points (3 batches, the last of one point): each record decodes as its
    point with its coordinates (read_part checks both), and the file equals the sweep in memory."""
    monkeypatch.setattr(run_mod, "HEADS_AHEAD", 2)
    monkeypatch.setattr(store.PartStore, "remove", lambda self: self.close())   # keep the log to read
    spec = load_spec(SPEC)
    out = tmp_path / "o.h5"
    ds = sweep(spec, out=out)
    layouts, records = store.read_log(_log(out))
    points = [store.read_part(rec, point=p, coords=spec.coords(p), layouts=layouts).point
              for p, rec in zip(range(5), [r for _, r, why in records if not store.is_layout_record(r)])]
    assert points == [0, 1, 2, 3, 4]
    mem = sweep(spec)
    for name in ds.variables:   # (the attributes differ in their creation times only)
        assert ds[name].equals(mem[name]), name
