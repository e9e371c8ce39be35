"""Resume heals: every stored point is checked before anything is computed (whole, same spec,
same point and coordinates, every variable); a damaged one is recomputed with a warning naming it
and why, and the final file is the uninterrupted run's. One sweep per output (a lock), and every
obstacle in the output's place is reported before the first point."""
import errno
import importlib
import os
import struct
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from mcio.errors import McioError
from mcio.store import MAGIC, OutputLock, PartStore, is_layout_record, open_results, parts_dir, stored_points
from mcio.store import tmp_path as final_tmp
from mcio.sweep import McioWarning, sweep
from sweep_specs import MM1_RATES, write

points_mod = importlib.import_module("mcio.batch.points")  # where the engine call _simulate lives (tests substitute it)

# 4 cheap points (fast path)
SPEC = MM1_RATES.replace('[200.0, 500.0, 700.0]', '[200.0, 400.0, 500.0, 700.0]') \
                .replace("ios = 40000", "ios = 3000").replace("warmup = 4000", "warmup = 500")
TIME_ATTRS = ("date_created", "history", "source")  # (source: the spec file's path)


def same_results(a, b):
    a, b = a.copy(), b.copy()
    for k in TIME_ATTRS:
        a.attrs.pop(k), b.attrs.pop(k)
    xr.testing.assert_identical(a, b)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    d = tmp_path_factory.mktemp("ref")
    out = d / "ref.h5"
    sweep(write(d, SPEC), out=out)
    return open_results(out)


def _interrupted(tmp_path, after: int = 3, spec_text: str = SPEC, name: str = "r.h5"):
    """A sweep stopped (as by Ctrl-C) after ``after`` points: its output path and spec file."""
    spec = write(tmp_path, spec_text, name + ".toml")
    out = tmp_path / name
    real = points_mod._simulate
    n = []

    def stop(model, **kw):
        if len(n) == after:
            raise KeyboardInterrupt
        n.append(kw["point"])
        return real(model, **kw)

    points_mod._simulate = stop
    try:
        with pytest.raises(KeyboardInterrupt):
            sweep(spec, out=out)
    finally:
        points_mod._simulate = real
    assert sorted(stored_points(out)) == list(range(after))
    return spec, out


def _log(out) -> Path:
    return parts_dir(out) / "points.log"


def _records(out, layouts: bool = False) -> list[tuple[int, int]]:
    """(offset, length) of each point record in the log (``layouts``: of each layout record)."""
    data, o, out_ = _log(out).read_bytes(), 0, []
    while o < len(data):
        (n,) = struct.unpack("<Q", data[o + len(MAGIC):o + len(MAGIC) + 8])
        if is_layout_record(data[o:o + len(MAGIC) + 8 + n]) == layouts:
            out_.append((o, len(MAGIC) + 8 + n))
        o += len(MAGIC) + 8 + n
    return out_


def _resume_counting(spec, out, monkeypatch):
    computed = []
    real = points_mod._simulate

    def spy(model, **kw):
        computed.append(kw["point"])
        return real(model, **kw)

    monkeypatch.setattr(points_mod, "_simulate", spy)
    with pytest.warns(McioWarning) as w:
        ds = sweep(spec, out=out, resume=True)
    monkeypatch.setattr(points_mod, "_simulate", real)
    return ds, sorted(computed), " ".join(str(x.message) for x in w)


@pytest.mark.parametrize("damage, bad_points, says", [
    ("truncate", [2], "truncated"),         # killed mid-write: the last record cut short
    ("flip", [1], "checksum mismatch"),              # a byte changed inside the second record
    ("garbage", [], "no part record"),      # junk appended after the last record
    ("empty", [0, 1, 2], "empty"),          # a log emptied (e.g. a disk-full truncation)
])
def test_damaged_log_is_found_at_start_and_only_bad_points_recomputed(tmp_path, monkeypatch, reference,
                                                                      damage, bad_points, says):
    spec, out = _interrupted(tmp_path)
    log = _log(out)
    data = bytearray(log.read_bytes())
    recs = _records(out)
    if damage == "truncate":
        data = data[:recs[2][0] + recs[2][1] // 2]
    elif damage == "flip":
        o, n = recs[1]
        data[o + n - 100] ^= 0xFF
    elif damage == "garbage":
        data += os.urandom(300)
    else:
        data = b""
    log.write_bytes(bytes(data))
    if damage == "empty":  # nothing left to resume: the sweep starts over, no --resume needed
        ds = sweep(spec, out=out)
        same_results(ds, reference)
        return
    ds, computed, msg = _resume_counting(spec, out, monkeypatch)
    assert computed == sorted(bad_points + [3]), msg
    assert says in msg, msg
    for p in bad_points:
        assert f"point {p}" in msg, msg
    same_results(open_results(out), reference)
    same_results(ds, reference)
    assert not parts_dir(out).exists()


def test_a_record_of_another_sweep_is_refused_not_merged(tmp_path, monkeypatch, reference):
    """A whole, readable record from a sweep of another spec (other seed), spliced in as point 1."""
    spec, out = _interrupted(tmp_path)
    other_spec, other_out = _interrupted(tmp_path, spec_text=SPEC.replace("seed = 3", "seed = 99"), name="o.h5")
    mine, theirs = _log(out).read_bytes(), _log(other_out).read_bytes()
    (o1, n1), (o2, n2) = _records(out)[1], _records(other_out)[1]
    _log(out).write_bytes(mine[:o1] + theirs[o2:o2 + n2] + mine[o1 + n1:])
    ds, computed, msg = _resume_counting(spec, out, monkeypatch)
    assert computed == [1, 3] and "point 1: written by a different spec" in msg, msg
    same_results(ds, reference)


def test_an_hdf5_file_as_the_log_is_refused(tmp_path, monkeypatch, reference):
    spec, out = _interrupted(tmp_path)
    ref_file = tmp_path / "some.h5"
    sweep(write(tmp_path, SPEC.replace("ios = 3000", "ios = 1000"), "small.toml"), out=ref_file)
    _log(out).write_bytes(ref_file.read_bytes())
    ds, computed, msg = _resume_counting(spec, out, monkeypatch)
    assert computed == [0, 1, 2, 3] and "no part record" in msg, msg
    same_results(ds, reference)


def test_second_sweep_on_the_same_output_refuses_at_once(tmp_path, monkeypatch):
    spec = write(tmp_path, SPEC)
    out = tmp_path / "busy.h5"
    monkeypatch.setattr(points_mod, "_simulate", lambda *a, **k: pytest.fail("simulated"))
    with OutputLock(out):  # (an flock: another process holding it is refused the same way)
        with pytest.raises(McioError, match=r"another sweep \(pid \d+\) is writing it"):
            sweep(spec, out=out)
        with pytest.raises(McioError, match="another sweep"):
            sweep(spec, out=out, resume=True)
    assert not parts_dir(out).exists()


def test_lock_is_released_after_a_sweep_and_after_a_failure(tmp_path, monkeypatch):
    spec = write(tmp_path, SPEC.replace("ios = 3000", "ios = 500"))
    out = tmp_path / "x.h5"
    sweep(spec, out=out)
    assert not (tmp_path / "x.h5.lock").exists()
    monkeypatch.setattr(points_mod, "_simulate", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("boom")))
    with pytest.raises(RuntimeError):
        sweep(spec, out=tmp_path / "y.h5")
    with OutputLock(tmp_path / "y.h5"):
        pass


def test_obstacles_in_the_outputs_place_are_reported_before_any_point(tmp_path, monkeypatch):
    spec = write(tmp_path, SPEC)
    monkeypatch.setattr(points_mod, "_simulate", lambda *a, **k: pytest.fail("simulated"))
    out = tmp_path / "a.h5"
    parts_dir(out).write_text("a file where the parts directory goes")
    with pytest.raises(McioError, match=r"a\.h5\.parts' is a file"):
        sweep(spec, out=out)
    out = tmp_path / "b.h5"
    final_tmp(out).mkdir()
    with pytest.raises(McioError, match=r"b\.h5\.tmp' is a directory"):
        sweep(spec, out=out)


def test_disk_full_writing_the_spec_names_the_file_and_leaves_no_tmp(tmp_path, monkeypatch):
    spec = write(tmp_path, SPEC)
    out = tmp_path / "full.h5"
    real = Path.write_text

    def full(self, *a, **k):
        if self.name.startswith("spec.toml"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, *a, **k)

    monkeypatch.setattr(Path, "write_text", full)
    with pytest.raises(McioError) as e:
        sweep(spec, out=out)
    assert "spec.toml" in str(e.value) and "No space left" in str(e.value)
    assert not list(tmp_path.glob("**/*.tmp"))


def test_disk_full_appending_a_point_keeps_the_earlier_ones(tmp_path, monkeypatch, reference):
    spec = write(tmp_path, SPEC)
    out = tmp_path / "full.h5"
    real = PartStore.write_bytes
    calls = []

    def full_at_third(self, p, data):
        calls.append(p)
        if len(calls) == 3:
            os.write(self._open(), data[:len(data) // 3])   # part of the record reached the disk
            raise McioError("output", str(self.out), "cannot write (No space left on device)")
        return real(self, p, data)

    monkeypatch.setattr(PartStore, "write_bytes", full_at_third)
    with pytest.raises(McioError, match="No space left"):
        sweep(spec, out=out)
    monkeypatch.setattr(PartStore, "write_bytes", real)
    assert stored_points(out) == [0, 1]
    ds, computed, msg = _resume_counting(spec, out, monkeypatch)
    assert computed == [2, 3] and "truncated" in msg
    same_results(ds, reference)


def test_unstable_points_store_nan_and_their_reason(tmp_path):
    """M/M/1 at 1.2 x capacity: no steady state, so no mean, quantile or CI of response."""
    ds = sweep(SPEC.replace('[200.0, 400.0, 500.0, 700.0]', '[500.0, 1200.0]'), out=tmp_path / "u.h5")
    back = open_results(tmp_path / "u.h5")
    for d in (ds, back):
        assert list(d["unstable"].values) == [0, 1]
        r = d["unstable_reason"].values
        assert r[0] == "" and "over capacity" in r[1]
        for name in ("response_ms", "response_ci95_ms", "response_quantile_ms", "iosq_ms", "in_system_mean"):
            v = d[name].sel(rate_iops=1200.0).values
            assert np.isnan(v).all(), name
            assert np.isfinite(d[name].sel(rate_iops=500.0).values).all(), name
        assert np.isfinite(d["throughput_iops"].values).all()


def test_a_nonfinite_result_of_a_stable_point_is_a_bug_not_data(tmp_path, monkeypatch):
    real = points_mod._simulate

    def broken(model, **kw):
        ds = real(model, **kw).to_dataset()   # (the sweep takes a Dataset from a substitute)
        if kw["point"] == 1:
            ds["response_ms"] = ds["response_ms"] * np.nan
        return ds

    monkeypatch.setattr(points_mod, "_simulate", broken)
    out = tmp_path / "bug.h5"
    with pytest.raises(AssertionError, match="sweep point 1: response_ms is not finite"):
        sweep(write(tmp_path, SPEC), out=out)
    assert stored_points(out) == [0]   # the bad point is not stored; the good one is kept


def test_fewer_ios_than_asked_without_a_flag_is_a_bug(tmp_path, monkeypatch):
    real = points_mod._simulate

    def short(model, **kw):
        ds = real(model, **kw).to_dataset()   # (the sweep takes a Dataset from a substitute)
        ds["ios_measured"] = ds["ios_measured"] - 1
        return ds

    monkeypatch.setattr(points_mod, "_simulate", short)
    with pytest.raises(AssertionError, match="I/Os measured in a replication, 3000 asked"):
        sweep(SPEC)


def test_the_log_holds_the_table_of_variables_once_and_each_point_names_it(tmp_path):
    """One layout record (written with the first point), then compact format-2 point records."""
    spec, out = _interrupted(tmp_path)
    lays, pts = _records(out, layouts=True), _records(out)
    assert len(lays) == 1 and lays[0][0] == 0 and len(pts) == 3
    assert all(n < lays[0][1] / 2 for _, n in pts)        # the table is most of a record's bytes


def test_a_damaged_layout_record_recomputes_the_points_that_use_it(tmp_path, monkeypatch, reference):
    spec, out = _interrupted(tmp_path)
    log = _log(out)
    data = bytearray(log.read_bytes())
    o, n = _records(out, layouts=True)[0]
    data[o + n // 2] ^= 0xFF
    log.write_bytes(bytes(data))
    ds, computed, msg = _resume_counting(spec, out, monkeypatch)
    assert computed == [0, 1, 2, 3], msg
    assert "layout record" in msg and "point 0" in msg, msg
    same_results(open_results(out), reference)
    same_results(ds, reference)


def test_self_contained_and_layout_records_mix_in_one_log(tmp_path, monkeypatch, reference):
    """A Dask worker's record (format 1, its table inside) beside this process's (format 2)."""
    from mcio import store
    from mcio.sweep import load_spec, point_part
    spec, out = _interrupted(tmp_path, after=2)
    s = load_spec(spec)
    part = point_part(s, 2)
    with open(_log(out), "ab") as f:
        f.write(store.part_bytes(part, store.spec_hash(s.text), 2, part.coords))
    assert sorted(stored_points(out)) == [0, 1, 2]
    computed = []
    real = points_mod._simulate
    monkeypatch.setattr(points_mod, "_simulate", lambda m, **kw: computed.append(kw["point"]) or real(m, **kw))
    ds = sweep(spec, out=out, resume=True)
    assert computed == [3]
    same_results(ds, reference)
