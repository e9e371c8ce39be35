"""--resume checks a record's shapes and dtypes too: a whole, checksummed record of the right spec,
point and coordinates whose arrays are not laid out as the sweep's points are (another number of
replications, another dtype, a table whose dims and shape disagree) is a damaged record,
recomputed with a warning naming it, and the final file is the uninterrupted run's."""
import numpy as np
import pytest

from mcio.errors import McioError
from mcio.part import Part
from mcio.store import PartError, part_bytes, read_log, read_part, spec_hash
from mcio.store.log import _unlike_the_others
from test_reliability_resume import (SPEC, _interrupted, _log, _records, _resume_counting, reference,  # noqa: F401
                                     same_results)


def _splice(out, spec, p, change):
    """Replace point ``p``'s record in the log by a whole, checksummed format-1 record of the same
    spec, point and coordinates, its variables changed by ``change(vars)``."""
    data = _log(out).read_bytes()
    layouts, _ = read_log(data)
    o, n = _records(out)[p]
    part = read_part(data[o:o + n], layouts=layouts)
    new_vars = {k: (d, np.array(a), dict(at), c) for k, (d, a, at, c) in part.vars.items()}
    change(new_vars)
    rec = part_bytes(Part(p, part.coords, part.attrs, new_vars), spec_hash(spec.read_text()), p, part.coords)
    _log(out).write_bytes(data[:o] + rec + data[o + n:])


def _more_replications(v):
    for k, (d, a, at, c) in list(v.items()):
        if "replication" in d:
            i = d.index("replication")
            v[k] = (d, np.concatenate([a, a.take([0], axis=i)], axis=i), at, c)


def _float32_response(v):
    d, a, at, c = v["response_ms"]
    v["response_ms"] = (d, a.astype(np.float32), at, c)


@pytest.mark.parametrize("change, says", [
    (_more_replications, "dimension replication has size 5, this sweep's points have 4"),
    (_float32_response, "its variables differ from the other points' in dims or dtype (response_ms)"),
])
def test_a_record_with_other_shapes_or_dtypes_is_recomputed_not_merged(tmp_path, monkeypatch, reference,
                                                                       change, says):
    spec, out = _interrupted(tmp_path)
    _splice(out, spec, 1, change)
    ds, computed, msg = _resume_counting(spec, out, monkeypatch)
    assert computed == [1, 3] and f"point 1: {says}" in msg, msg
    same_results(ds, reference)


GOOD_ENTRY = {"name": "response_ms", "dims": ["replication"], "shape": [3], "dtype": "<f8", "nbytes": 24}


@pytest.mark.parametrize("change, says", [
    ({"shape": [3, 1]}, "do not match"),
    ({"dims": ["replication", "replication"], "shape": [3, 1], "nbytes": 24}, "do not match"),
    ({"shape": [-3]}, "do not match"),
    ({"shape": [4]}, "bytes for shape"),
    ({"dtype": "|O"}, "not one a part holds"),
])
def test_read_part_refuses_a_table_whose_dims_shape_and_bytes_disagree(change, says):
    from mcio.store.record import _checked_entry
    _checked_entry(GOOD_ENTRY, {})
    with pytest.raises(PartError, match=says):
        _checked_entry({**GOOD_ENTRY, **change}, {})


def test_one_dim_of_two_sizes_in_a_record_is_refused():
    from mcio.store.record import _checked_entry
    sizes = {}
    _checked_entry({"name": "a", "dims": ["replication"], "shape": [3], "dtype": "<f8", "nbytes": 24}, sizes)
    with pytest.raises(PartError, match="dimension replication has sizes 3 and 4"):
        _checked_entry({"name": "b", "dims": ["replication"], "shape": [4], "dtype": "<f8", "nbytes": 32}, sizes)


def _part(reps, channels, dtype=np.float64):
    return Part(0, {}, {}, {"response_ms": (("replication",), np.zeros(reps, dtype), {}, False),
                            "channel_busy": (("replication", "channel"), np.zeros((reps, channels)), {}, False)})


def test_points_may_differ_in_channels_but_not_in_replications_or_expected_sizes():
    # a channels.count axis: channel sizes differ between points, as they may
    assert _unlike_the_others({0: _part(2, 1), 1: _part(2, 2), 2: _part(2, 4)}, None) == {}
    got = _unlike_the_others({0: _part(2, 1), 1: _part(3, 2), 2: _part(2, 4)}, None)
    assert list(got) == [1] and "replication has size 3" in got[1]
    got = _unlike_the_others({0: _part(2, 1), 1: _part(2, 1, np.float32)}, None)   # a tie: the earliest wins
    assert list(got) == [1]
    # the spec's own figure, when the caller gives it, beats the majority
    got = _unlike_the_others({0: _part(3, 1), 1: _part(3, 1), 2: _part(2, 1)}, lambda p: {"replication": 2})
    assert sorted(got) == [0, 1] and "this sweep's points have 2" in got[0]


def test_a_record_read_alone_is_still_accepted_by_read_part():
    # the shape check across points lives in PartStore.validate; one good record decodes as before
    part = _part(2, 1)
    part.vars.update({"throughput_iops": part.vars["response_ms"], "ios_measured": part.vars["response_ms"],
                      "unstable": ((), np.int8(0), {}, False)})
    got = read_part(part_bytes(part, "h", 0, {}))
    assert got.vars["channel_busy"][1].shape == (2, 1)
    with pytest.raises(McioError):   # (a dtype a part cannot hold is refused when writing, too)
        part_bytes(Part(0, {}, {}, {"x": ((), np.array(None, dtype=object), {}, False)}), "h", 0, {})


def test_text_of_other_lengths_at_other_points_is_not_a_difference():
    # a variant axis: the coordinate's text (and so its numpy dtype <U4, <U6) differs by point
    parts = {p: Part(p, {}, {}, {"variant": ((), np.array(v), {}, True),
                                 "response_ms": (("replication",), np.zeros(2), {}, False)})
             for p, v in enumerate(["base", "faster", "x"])}
    assert _unlike_the_others(parts, None) == {}


def test_a_variable_some_points_lack_is_no_difference_but_other_dims_are():
    a = _part(2, 1)
    b = _part(2, 1)
    del b.vars["channel_busy"]
    assert _unlike_the_others({0: a, 1: b}, None) == {}
    c = _part(2, 1)
    c.vars["channel_busy"] = (("channel", "replication"), np.zeros((1, 2)), {}, False)
    got = _unlike_the_others({0: a, 1: _part(2, 3), 2: c}, None)
    assert list(got) == [2] and "(channel_busy)" in got[2]
