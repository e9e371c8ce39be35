"""A point's results (mcio/engine/results.py): every figure is its normalisation of its
accumulator slot (mcio/kernels/stats.py) to the bit, computed a block at a time into one buffer
(mcio.part.Layout) that a part record takes whole; a Part changed after assembly is recorded as
changed."""
import numpy as np
import pytest
from oracle_models import single_server_open

from mcio import store
from mcio.engine.results import (
    QUANTILES,
    _ci95_fast,
    _ci_name,
    _field,
    _var,
    assemble,
    ci95_halfwidth,
    flag_var,
)
from mcio.kernels import stats as S
from mcio.kernels.histogram import HIST_BUCKETS, hist_quantiles
from mcio.part import Part


def _model():
    return single_server_open(300.0, {"dist": "exponential", "mean": 1.0}, servers=3)


def _accumulators(rng, R=4, C=3, D=5):
    acc = rng.uniform(0.0, 1e4, (R, S.N_ACC))
    acc[:, S.A_N] = rng.integers(0, 5000, R)
    acc[0, S.A_N] = 0.0                                    # n is taken as at least 1
    acc[:, S.A_TIME_MS] = rng.uniform(1e2, 1e6, R)
    acc[:, S.A_UNSTABLE] = 0.0
    acc[-1, S.A_UNSTABLE] = 1.0
    acc[1, S.A_SQ_RESP] = 0.0                              # a negative variance, clipped to 0
    chs = rng.uniform(0.0, 1e3, (R, C, S.N_CH))
    devs = rng.uniform(0.0, 1e3, (R, D, S.N_DEV))
    hist = np.zeros((R, HIST_BUCKETS), np.int64)
    for r in range(R):
        np.add.at(hist[r], rng.integers(900, 1400, 300), 1)
    return acc, chs, devs, hist


def _extras(rng, R):
    return {"warmup_mser_ios": _var(rng.integers(-1, 900, R), ("replication",), "1", "MSER"),
            "warmup_adequate": flag_var(True, "adequate", "warmup_too_short warmup_adequate")}


def _expected(model, acc, chs, devs, hist, per_device):
    """Each figure the plain way: one NumPy expression per OUTPUTS row (what assemble did before
    it computed a block at a time)."""
    n = np.maximum(acc[:, S.A_N], 1.0)
    T = np.maximum(acc[:, S.A_TIME_MS], 1e-300)
    src = {"acc": acc, "chs": chs, "devs": devs}
    rows = np.array([hist_quantiles(h, QUANTILES) for h in np.vstack([hist, hist.sum(axis=0)])])
    out = {}
    for st in S.OUTPUTS:
        if st.per_device and not per_device:
            continue
        if st.norm == S.QUANTILES:
            out[st.var] = rows[-1]
            continue
        if st.norm == S.QUANTILES_REP:
            out[st.var] = rows[:-1]
            continue
        if st.norm == S.QUANTILES_CI:
            out[st.var] = ci95_halfwidth(rows[:-1], axis=0)
            continue
        a = src[st.src]
        x = a[..., st.slot]
        t = T if a.ndim == 2 else T[:, None]
        nn = n if a.ndim == 2 else n[:, None]
        if st.norm == S.FLAG:
            out[st.var] = np.int8(x.any())
            continue
        if st.norm == S.PER_IO:
            data = x / nn
        elif st.norm == S.PER_MS:
            data = x / t
        elif st.norm == S.PER_S:
            data = x / t * 1000.0
        elif st.norm == S.COUNT:
            data = x.copy()
        elif st.norm == S.INTERVAL_S:
            data = T / 1000.0
        else:
            assert st.norm == S.STD_PER_IO, st.norm
            data = np.sqrt(np.maximum(x / nn - (a[..., st.of] / nn) ** 2, 0.0))
        if st.per is not None:
            data = data / _field(model, st.per)
        out[st.var] = data
        if st.ci is not None:
            out[_ci_name(st.var)] = ci95_halfwidth(data)
    return out


@pytest.mark.parametrize("per_device", [False, True])
def test_every_figure_is_its_normalisation_of_its_slot_to_the_bit(per_device):
    rng = np.random.default_rng(7)
    model = _model()
    for R, C, D in ((4, 3, 5), (2, 1, 1), (9, 2, 3)):
        acc, chs, devs, hist = _accumulators(rng, R, C, D)
        extra = _extras(rng, R)
        part = assemble(model, acc, chs, devs, hist, per_device, extra=extra)
        want = _expected(model, acc, chs, devs, hist, per_device)
        names = list(part.vars)
        assert names[:len(want)] == list(want), "the Dataset's order: OUTPUTS, each CI after its figure"
        assert names[len(want):] == list(extra) + ["replication", "channel", "quantile"] + (["device"] if per_device else [])
        for name, w in want.items():
            got = part.data(name)
            w = np.asarray(w)
            assert got.dtype == w.dtype and got.shape == w.shape, name
            assert got.tobytes() == w.tobytes(), name
        for name, (dims, a, attrs, is_coord) in extra.items():
            assert part.data(name).tobytes() == a.tobytes() and part.vars[name][2] == attrs
        np.testing.assert_array_equal(part.data("replication"), np.arange(R))
        np.testing.assert_array_equal(part.data("quantile"), QUANTILES)
        assert part.data("unstable").dtype == np.int8 and int(part.data("unstable")) == 1


def test_the_fast_ci_is_numpys_to_the_bit():
    rng = np.random.default_rng(2)
    for _ in range(300):
        R, k = int(rng.integers(2, 70)), int(rng.integers(1, 20))
        x = rng.standard_normal((k, R)) * 10 ** rng.uniform(-5, 5)
        x[0, 0] = np.nan if rng.random() < 0.1 else x[0, 0]
        assert _ci95_fast(x).tobytes() == ci95_halfwidth(x).tobytes()
        y = np.ascontiguousarray(x.T)
        assert _ci95_fast(y, axis=0).tobytes() == ci95_halfwidth(y, axis=0).tobytes()


def _point(rng, R=4, C=3, D=5, per_device=False):
    return assemble(_model(), *_accumulators(rng, R, C, D), per_device, extra=_extras(rng, R))


def test_a_points_variables_are_views_of_one_buffer_where_its_layout_says():
    part = _point(np.random.default_rng(1))
    layout, buf, entries = part.packed
    assert len(buf) == layout.nbytes and entries == tuple(part.vars.values())
    assert layout.names == tuple(part.vars)
    spans = []
    for name, dt, shape, off in zip(layout.names, layout.dtypes, layout.shapes, layout.offsets):
        a = part.data(name)
        assert a.dtype == dt and a.shape == shape and a.flags.c_contiguous and a.flags.aligned, name
        assert a.base is not None and np.shares_memory(a, np.frombuffer(buf, np.uint8)), name
        assert a.tobytes() == bytes(buf[off:off + a.nbytes]), name
        spans.append((off, off + a.nbytes))
    spans.sort()
    assert spans[0][0] == 0 and spans[-1][1] == layout.nbytes
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:])), "the buffer is the variables, no gaps"


def test_points_of_one_structure_share_a_layout_and_others_get_their_own():
    rng = np.random.default_rng(3)
    a, b = _point(rng), _point(rng)
    assert a.packed[0] is b.packed[0] and a.packed[1] is not b.packed[1]
    for other in (_point(rng, R=5), _point(rng, C=2), _point(rng, per_device=True)):
        assert other.packed[0] is not a.packed[0]
    # an extra of another dtype is another structure
    acc, chs, devs, hist = _accumulators(rng)
    ex = _extras(rng, 4)
    ex["warmup_mser_ios"] = (("replication",), ex["warmup_mser_ios"][1].astype(np.float64)) + ex["warmup_mser_ios"][2:]
    c = assemble(_model(), acc, chs, devs, hist, False, extra=ex)
    assert c.packed[0] is not a.packed[0] and c.data("warmup_mser_ios").dtype == np.float64


def test_an_extras_plain_attributes_are_copied_read_only():
    rng = np.random.default_rng(4)
    acc, chs, devs, hist = _accumulators(rng)
    attrs = {"units": "1", "long_name": "mine"}
    part = assemble(_model(), acc, chs, devs, hist, False, extra={"x": ((), np.asarray(2.5), attrs, False)})
    attrs["long_name"] = "changed afterwards"
    assert dict(part.vars["x"][2]) == {"units": "1", "long_name": "mine"}
    with pytest.raises(TypeError):
        part.vars["x"][2]["units"] = "ms"


def _plain(part):
    """The same Part without its buffer: every array a copy of its own."""
    return Part(part.point, dict(part.coords), dict(part.attrs),
                {k: (d, np.array(a), at, c) for k, (d, a, at, c) in part.vars.items()})


def _decoded(rec, spec, point, layouts=None):
    q = store.read_part(rec, spec, point, layouts=layouts)
    return [(k, d, a.dtype.str, a.shape, a.tobytes(), dict(at), c) for k, (d, a, at, c) in q.vars.items()], q.attrs


def _both_formats(part, spec, point):
    """(format-1 record, format-2 records with the layout record, its layouts mapping)."""
    one = store.encode_part(part, spec, point, part.coords, None)[0]
    two, _ = store.encode_part(part, spec, point, part.coords, set())
    recs = [r for _, r, why in store.split_log(two) if not why]
    layouts = {store.read_layout(r)[0]: (store.read_layout(r)[1],) for r in recs if store.is_layout_record(r)}
    point_rec = next(r for r in recs if not store.is_layout_record(r))
    return one, point_rec, layouts


def _same_records(part, spec, point):
    """The packed Part's records decode as the plain Part's, in both formats (a format-2 point
    record the same size: only its table's offsets, in the layout record, differ)."""
    plain = _plain(part)
    assert plain.packed is None
    for fmt in range(2):
        got, want = _both_formats(part, spec, point), _both_formats(plain, spec, point)
        if fmt == 0:
            assert _decoded(got[0], spec, point) == _decoded(want[0], spec, point)
        else:
            assert len(got[1]) == len(want[1])
            assert _decoded(got[1], spec, point, got[2]) == _decoded(want[1], spec, point, want[2])


def test_a_packed_points_record_decodes_as_the_same_point_made_plainly():
    rng = np.random.default_rng(5)
    spec = store.spec_hash("test")
    part = _point(rng)
    part.attrs.update({"point": 3, "title": "t"})
    part.vars["rate_iops"] = ((), np.asarray(250.0), {"units": "s-1"}, True)   # a sweep's coordinate, after
    assert part.packed_prefix() is not None
    _same_records(part, spec, 3)


@pytest.mark.parametrize("change", ["replace", "rename", "remove", "append", "in_place", "reorder"])
def test_a_packed_point_changed_after_assembly_is_recorded_as_changed(change):
    rng = np.random.default_rng(6)
    spec = store.spec_hash("test")
    part = _point(rng)
    v = part.vars
    if change == "replace":     # (as an unstable point's figures are blanked)
        d, a, at, c = v["response_ms"]
        v["response_ms"] = (d, np.full(a.shape, np.nan), at, c)
    elif change == "rename":
        v["resp_ms"] = v.pop("channel_busy")
    elif change == "remove":
        del v["pend_ms"]
    elif change == "append":
        v["extra_after"] = (("replication",), np.arange(4.0), {"units": "1"}, False)
    elif change == "in_place":
        v["connect_ms"][1][...] = 42.0
    else:
        v["response_ms"] = v.pop("response_ms")
    assert (part.packed_prefix() is not None) == (change in ("append", "in_place"))
    _same_records(part, spec, 0)
    q = store.read_part(store.encode_part(part, spec, 0, {}, None)[0], spec, 0)
    assert list(q.vars) == list(part.vars)
    for k, (d, a, at, c) in part.vars.items():
        assert q.vars[k][1].tobytes() == np.asarray(a).tobytes(), k


def test_a_copied_point_has_no_buffer_and_records_its_own_arrays():
    """copy.copy (the Part's own state, packed left out): the copy is encoded from its variables."""
    import copy
    rng = np.random.default_rng(8)
    spec = store.spec_hash("test")
    part = _point(rng)
    other = copy.copy(part)
    assert other.packed is None and other.packed_prefix() is None and part.packed_prefix() is not None
    other.vars["response_ms"] = (("replication",), np.full(4, 7.0), other.vars["response_ms"][2], False)
    q = store.read_part(store.encode_part(other, spec, 0, {}, None)[0], spec, 0)
    assert (q.data("response_ms") == 7.0).all() and list(q.vars) == list(part.vars)


def test_a_sweep_points_coordinates_lie_in_its_buffer_and_its_record_takes_it_whole():
    """point_part hands the engine the point's coordinates (the variant's name, a text, and the
    axes' values): they are the Part's last variables, in its one buffer, so its record is the
    buffer and nothing after; its decoded record is the plain Part's."""
    from sweep_specs import VARIANT_GRID
    from mcio.sweep import dim_attrs, load_spec, point_part
    spec = load_spec(VARIANT_GRID.replace("ios = ", "ios = 200 #").replace("warmup = ", "warmup = 50 #"))
    sha = store.spec_hash("t")
    for p in (0, spec.n_points - 1):
        part = point_part(spec, p)
        dims = list(dim_attrs(spec))
        assert list(part.vars)[-len(dims):] == dims
        layout, buf, names, entries = part.packed_prefix()
        assert layout.names == names, "every variable in the buffer"
        for d in dims:
            assert part.data(d).tobytes() == np.asarray(spec.coords(p)[d]).tobytes()
            assert dict(part.vars[d][2]) == dim_attrs(spec)[d] and part.vars[d][3] is True
        _same_records(part, sha, p)


def test_a_sweeps_dataset_stacked_from_the_buffers_is_the_one_stacked_variable_by_variable(monkeypatch):
    """sweep.assemble stacks the points' buffers (one copy, then one per variable): the same
    Dataset as variable by variable, also with points whose figures were replaced after assembly
    (an unstable point's, blanked) and, falling back, with a point whose variables were renamed."""
    from sweep_specs import VARIANT_GRID
    from mcio import sweep as S
    from mcio.batch import assembly   # where assemble looks _stacked_buffers up
    from mcio.store import cf
    # one creation time for both assemblies (they may fall either side of a second's tick)
    monkeypatch.setattr(cf, "_now", lambda: "2026-12-03T00:00:00+00:00")
    spec = S.load_spec("""
scenario = "mm1-demo"
[sweep]
"workload.rate_iops" = {start = 100, stop = 800, num = 6}
[run]
replications = 3
ios = 400
warmup = 50
seed = 3
""")
    parts = [S.point_part(spec, p) for p in range(spec.n_points)]
    assert assembly._stacked_buffers(parts) is not None
    variants = S.load_spec(VARIANT_GRID.replace("ios = ", "ios = 200 #").replace("warmup = ", "warmup = 50 #"))
    assert assembly._stacked_buffers([S.point_part(variants, p) for p in range(variants.n_points)]) is None, \
        "points of several layouts (channel counts, variant names) are stacked variable by variable"
    d, a, at, c = parts[1].vars["response_ms"]
    parts[1].vars["response_ms"] = (d, np.full(a.shape, np.nan), at, c)   # (as _checked blanks)
    fast = S.assemble(spec, parts)
    real = assembly._stacked_buffers
    monkeypatch.setattr(assembly, "_stacked_buffers", lambda parts: None)
    plain = S.assemble(spec, parts)
    assert fast.identical(plain) and np.isnan(fast.response_ms.values.reshape(spec.n_points, -1)[1]).all()
    one = S.load_spec(spec.text.replace("num = 6", "num = 1"))   # one point: one row, still a copy
    q = [S.point_part(one, 0)]
    d, a, at, c = q[0].vars["pend_ms"]
    q[0].vars["pend_ms"] = (d, np.full(a.shape, 2.5), at, c)
    got = real(q)
    buf = np.frombuffer(q[0].packed[1], np.uint8)
    assert all(v.flags.writeable and not np.shares_memory(v, buf) for v in got.values())
    assert (got["pend_ms"] == 2.5).all()
    parts[2].vars["resp_ms"] = parts[2].vars.pop("connect_ms")
    monkeypatch.setattr(assembly, "_stacked_buffers", real)
    assert assembly._stacked_buffers(parts) is None
