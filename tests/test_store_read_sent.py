"""What a Dask worker sends (format-2 part records, each layout's record before its first use in
a task) is read by the client as the same Part as the in-process record, and stored with each
layout record once; anything else is one PartError."""
import numpy as np
import pytest

from mcio import store
from mcio.batch.points import point_part
from mcio.batch.spec import load_spec

SPEC = ('title = "t"\nscenario = "mm1-demo"\n[sweep]\n"workload.rate_iops" = [200, 400, 600]\n'
        '[run]\nreplications = 2\nios = 200\nwarmup = 100\nseed = 1\n')


@pytest.fixture(scope="module")
def parts():
    spec = load_spec(SPEC)
    return [point_part(spec, p) for p in range(3)]


def _same(a, b):
    assert a.point == b.point and a.coords == b.coords and a.attrs == b.attrs and list(a.vars) == list(b.vars)
    for k, (d, x, at, c) in a.vars.items():
        d2, y, at2, c2 = b.vars[k]
        assert (d, at, c) == (d2, at2, c2) and np.asarray(x).tobytes() == np.asarray(y).tobytes(), k


def test_a_task_sends_each_layout_once_and_the_log_keeps_it_once(parts):
    sha = store.spec_hash(SPEC)
    sent, task_layouts = [], set()
    for p, part in enumerate(parts):        # one worker task of three points
        data, lid = store.encode_part(part, sha, p, part.coords, task_layouts)
        if lid is not None:
            task_layouts.add(lid)
        sent.append(data)
    assert store.is_layout_record(sent[0]) and not any(store.is_layout_record(d) for d in sent[1:])
    again, _ = store.encode_part(parts[0], sha, 0, parts[0].coords, set())   # a second task: sent again
    client: dict = {}
    kept = []
    for p, data in [*enumerate(sent), (0, again)]:
        keep, got = store.read_sent(data, p, client)
        kept.append(keep)
        _same(got, store.read_part(store.part_bytes(parts[p], sha, p, parts[p].coords), sha, p))
    assert kept[:3] == sent     # the first time, layout record and all
    assert kept[3] == [r for _, r, _ in store.split_log(again)][1]    # known already: the part record alone
    assert len(client) == 1
    # the stored bytes are a log the store reads: one layout record, every point
    layouts, records = store.read_log(b"".join(kept))
    assert len(layouts) == 1 and sum(store.is_layout_record(r) for _, r, _ in records) == 1
    pts = [store.read_part(r, sha, layouts=layouts).point for _, r, why in records if not store.is_layout_record(r)]
    assert pts == [0, 1, 2, 0]


def test_a_format_1_record_is_read_too(parts):
    data = store.part_bytes(parts[1], "s", 1, parts[1].coords)
    keep, got = store.read_sent(data, 1, {})
    assert keep == data and got.point == 1


@pytest.mark.parametrize("what", ["empty", "garbage", "two parts", "layout alone", "layout last", "cut"])
def test_anything_else_is_one_part_error(parts, what):
    lay_and_rec, _ = store.encode_part(parts[0], "s", 0, parts[0].coords, set())
    recs = [r for _, r, _ in store.split_log(lay_and_rec)]
    one = store.part_bytes(parts[0], "s", 0, parts[0].coords)
    data = {"empty": b"", "garbage": b"not a record", "two parts": one + one, "layout alone": recs[0],
            "layout last": recs[1] + recs[0], "cut": lay_and_rec[:-3]}[what]
    with pytest.raises(store.PartError):
        store.read_sent(data, 0, {})


def test_a_format_2_part_is_packed_and_stacks_as_the_engines_own(parts):
    """Read back, a format-2 record's Part is packed (its variables views of the record's bytes,
    as its layout places them), so a sweep stacks it a block at a time; the stacked results are
    those of the engine's own Parts."""
    from mcio.batch.collect import Collected
    spec = load_spec(SPEC)
    sha = store.spec_hash(SPEC)
    client, back, task_layouts = {}, [], set()
    for p, part in enumerate(parts):
        data, lid = store.encode_part(part, sha, p, part.coords, task_layouts)
        task_layouts.add(lid) if lid is not None else None
        back.append(store.read_sent(data, p, client)[1])
    assert all(b.packed_prefix() is not None for b in back)
    assert store.read_part(store.part_bytes(parts[0], sha, 0, parts[0].coords)).packed is None   # (format 1)
    a, b = Collected(spec), Collected(spec)
    for p in range(3):
        a.add(p, parts[p])
        b.add(p, back[p])
    da, db = a.dataset(), b.dataset()
    assert list(da.variables) == list(db.variables)
    for k in da.variables:
        assert da[k].dtype == db[k].dtype and np.array_equal(da[k].values, db[k].values), k
        assert da[k].attrs.keys() == db[k].attrs.keys(), k
