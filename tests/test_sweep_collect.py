"""A sweep's finished points held stacked (mcio/batch/collect.py) give the Dataset that
assemble() makes of the same Parts: engine points in any order, an unstable point's blanked
figures, a point read back from its record, a point of another structure (then Parts)."""
import random
import tomllib

import numpy as np
import pytest

from mcio.batch import assemble, parse_spec, point_part
from mcio.batch.collect import Collected
from mcio.part import Part

SPEC = """title = "collect"
scenario = "mm1-demo"
[sweep]
"workload.rate_iops" = {start = 100, stop = 800, num = 7}
"control_unit.backend_service_ms.mean" = [1.0, 1.2]
[run]
replications = 3
ios = 300
warmup = 50
seed = 5
"""
TIMESTAMPS = ("history", "date_created")


@pytest.fixture(scope="module")
def grid():
    spec = parse_spec(tomllib.loads(SPEC), text=SPEC)
    return spec, [point_part(spec, p) for p in range(spec.n_points)]


def _same(a, b):
    """The same variables, coordinates, dims, dtypes, values (NaN where NaN) and attributes."""
    assert list(a.variables) == list(b.variables)
    assert list(a.coords) == list(b.coords)
    for name in a.variables:
        va, vb = a.variables[name], b.variables[name]
        assert va.dims == vb.dims and va.dtype == vb.dtype, name
        assert va.attrs.keys() == vb.attrs.keys(), name
        for k in va.attrs:
            assert np.array_equal(np.asarray(va.attrs[k]), np.asarray(vb.attrs[k])), (name, k)
        if va.dtype.kind == "f":
            assert np.array_equal(va.values, vb.values, equal_nan=True), name
        else:
            assert (va.values == vb.values).all(), name
    assert {k: v for k, v in a.attrs.items() if k not in TIMESTAMPS} == \
        {k: v for k, v in b.attrs.items() if k not in TIMESTAMPS}


def _collected(spec, parts, order):
    c = Collected(spec)
    for p in order:
        c.add(p, parts[p])
    return c


def test_engine_points_in_any_order_are_stacked_and_assemble_the_same(grid, monkeypatch):
    spec, parts = grid
    monkeypatch.setattr("mcio.batch.collect.BLOCK_ROWS", 4)     # several blocks, one partial
    order = list(range(spec.n_points))
    random.Random(1).shuffle(order)
    c = _collected(spec, parts, order)
    assert not c.others and list(c._plans) == [parts[0].packed[0]]
    _same(c.dataset(), assemble(spec, parts))


def test_unstable_and_read_back_points_are_copied_variable_by_variable(grid):
    spec, parts = grid
    parts = list(parts)
    q = parts[3]
    blank = dict(q.vars)
    blank["response_ms"] = (q.vars["response_ms"][0], np.full(q.vars["response_ms"][1].shape, np.nan),
                            q.vars["response_ms"][2], False)
    parts[3] = Part(3, q.coords, {**q.attrs, "unstable_reason": "unstable (test)"}, blank, packed=q.packed)
    parts[5] = Part.from_dataset(parts[5].to_dataset(), point=5)           # no buffer, as resumed
    c = _collected(spec, parts, range(spec.n_points))
    assert not c.others and c.reasons[3] == "unstable (test)"
    got = c.dataset()
    _same(got, assemble(spec, parts))
    assert np.isnan(got.response_ms.values.reshape(spec.n_points, -1)[3]).all()


def test_a_point_of_another_structure_is_kept_whole_and_assembled_as_before(grid):
    spec, parts = grid
    parts = list(parts)
    q = parts[2]
    parts[2] = Part(2, q.coords, dict(q.attrs), {k: v for k, v in q.vars.items() if k != "pend_ms"})
    c = _collected(spec, parts, reversed(range(spec.n_points)))
    assert list(c.others) == [2]
    got = c.dataset()
    _same(got, assemble(spec, parts))
    assert np.isnan(got.pend_ms.values.reshape(spec.n_points, -1)[2]).all()


def test_a_point_twice_or_missing_is_refused(grid):
    spec, parts = grid
    c = _collected(spec, parts, range(spec.n_points - 1))
    with pytest.raises(Exception, match="need all"):
        c.dataset()
    with pytest.raises(Exception, match="twice"):
        c.add(0, parts[0])



def test_variants_of_other_text_widths_each_keep_a_block():
    from sweep_specs import VARIANT_GRID       # (variant names of 3 and 7 characters: two layouts)
    spec = parse_spec(tomllib.loads(VARIANT_GRID), text=VARIANT_GRID)
    parts = [point_part(spec, p) for p in range(spec.n_points)]
    assert len({id(q.packed[0]) for q in parts}) > 1
    c = _collected(spec, parts, range(spec.n_points))
    assert not c.others and sum(q is not None for q in c._plans.values()) == len({id(q.packed[0]) for q in parts})
    _same(c.dataset(), assemble(spec, parts))
