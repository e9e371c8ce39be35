"""Raw accumulators -> the labelled results (docs/design.md §4) as a :class:`mcio.part.Part`
(plain arrays; ``Part.to_dataset`` makes the xarray Dataset), and confidence intervals."""
from __future__ import annotations

import functools
import math
from types import MappingProxyType

import numpy as np

from ..kernels import normalise as NZ
from ..kernels import stats as S
from ..kernels.histogram import hist_quantiles_into
from ..model import Model
from ..part import Layout, Part

QUANTILES = (0.5, 0.9, 0.95, 0.99)
_QUANTILES = np.array(QUANTILES)


#: ``scipy.special.stdtrit(dof, 0.975)`` for dof = 1 ... 64 (scipy 1.17.1, written exactly): a
#: simulation's CI needs one of these, and importing scipy.special is a large part of a warm
#: command's start (benchmarks/README.md, "issue 29: start-up").
_T975 = (
    12.706204736174694, 4.302652729749462, 3.1824463052837078, 2.7764451051977934,
    2.5705818356363146, 2.4469118511449786, 2.364624251592784, 2.306004135204166,
    2.262157162798205, 2.228138851986274, 2.200985160091639, 2.1788128296672284,
    2.1603686564627913, 2.144786687917804, 2.131449545559776, 2.1199052992212546,
    2.1098155778333156, 2.1009220402410382, 2.0930240544083087, 2.085963447265864,
    2.0796138447276795, 2.0738730679040254, 2.0686576104190486, 2.0638985616280245,
    2.0595385527532972, 2.0555294386428735, 2.0518305164802846, 2.0484071417952454,
    2.045229642132703, 2.0422724563012378, 2.039513446396408, 2.0369333434601016,
    2.0345152974493383, 2.0322445093177186, 2.030107928250343, 2.0280940009804502,
    2.0261924630291093, 2.0243941639119694, 2.022690920036761, 2.021075390306273,
    2.019540970441376, 2.0180817028184443, 2.016692199227824, 2.0153675744437636,
    2.014103388880846, 2.012895598919429, 2.0117405137297655, 2.010634757624232,
    2.0095752371292392, 2.008559112100761, 2.007583770315836, 2.006646805061688,
    2.0057459953178687, 2.0048792881880564, 2.0040447832891455, 2.003240718847872,
    2.002465459291007, 2.0017174841452356, 2.000995378088267, 2.0002978220142604,
    1.999623584994939, 1.9989715170333788, 1.998340542520741, 1.997729654317693,
)


@functools.lru_cache(maxsize=64)
def t975(dof: float) -> float:
    """Student-t 97.5 % quantile with ``dof`` degrees of freedom (NaN for dof <= 0): scipy's
    inverse of the t distribution function, ``special.stdtrit``, the function
    ``stats.t.ppf`` calls (the same values, to the bit) without importing scipy.stats; from
    :data:`_T975` for whole dof up to 64, without importing scipy at all. Cached: a Dataset
    needs a dozen."""
    if 1 <= dof <= len(_T975) and dof == int(dof):   # (NaN and inf fail the first test)
        return np.float64(_T975[int(dof) - 1])
    from scipy import special
    return special.stdtrit(dof, 0.975)


def ci95_halfwidth(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Student-t 95 % half-width of the mean of ``x`` along ``axis`` (replications)."""
    n = x.shape[axis]
    return t975(n - 1) * np.std(x, axis=axis, ddof=1) / math.sqrt(n)


def _ci95_fast(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """:func:`ci95_halfwidth` of float64 ``x`` with at least 2 replications along ``axis``, the
    same values to the bit: NumPy's ``std(ddof=1)`` step by step (its ``_var``: the sum, divided
    by the count; the deviations, squared; their sum, divided by count - 1; the square root)
    without its Python layer (two calls a point)."""
    n = x.shape[axis]
    mean = np.add.reduce(x, axis, None, None, True)
    np.true_divide(mean, n, out=mean)
    d = np.subtract(x, mean)
    np.square(d, out=d)
    var = np.add.reduce(d, axis)
    np.true_divide(var, n - 1, out=var)
    np.sqrt(var, out=var)
    return t975(n - 1) * var / math.sqrt(n)


#: CF flag_meanings of the flag variables (value 0 first, then 1)
FLAG_MEANINGS = {"unstable": "stable unstable", "warmup_adequate": "warmup_too_short warmup_adequate"}


@functools.lru_cache(maxsize=1024)
def _attrs(units: str, long_name: str, meanings: str | None = None) -> MappingProxyType:
    """A variable's attributes, one read-only mapping per distinct value: every point shares
    them (one object per distinct value, made once)."""
    a = {"units": units, "long_name": long_name}
    if meanings is not None:   # a 0/1 flag as CF wants it
        flags = np.array([0, 1], np.int8)
        flags.flags.writeable = False
        a.update(flag_values=flags, flag_meanings=meanings)
    return MappingProxyType(a)


def flag_var(value: bool, long_name: str, meanings: str):
    """A 0/1 flag as CF wants it: int8 with flag_values and flag_meanings; a Part entry
    (dims, array, attrs, is_coord)."""
    return ((), np.asarray(np.int8(value)), _attrs("1", long_name, meanings), False)


def _var(data, dims, units, long_name):
    """A data variable as a Part entry (dims, array, attrs, is_coord)."""
    return (tuple(dims), np.asarray(data), _attrs(units, long_name), False)


def _ci_name(var: str) -> str:
    """``response_ms`` -> ``response_ci95_ms``: the CI goes before the unit suffix."""
    stem, unit = var.rsplit("_", 1)
    return f"{stem}_ci95_{unit}"


def _field(model: Model, dotted: str):
    section, key = dotted.split(".")
    return getattr(model, section)[key]


#: The normalisations of per-replication figures, as kernels/normalise.py numbers them.
_NORM_CODES = {S.PER_IO: NZ.N_PER_IO, S.STD_PER_IO: NZ.N_STD_PER_IO, S.PER_MS: NZ.N_PER_MS,
               S.PER_S: NZ.N_PER_S, S.COUNT: NZ.N_COUNT, S.INTERVAL_S: NZ.N_INTERVAL_S}
_F8 = np.dtype(np.float64)
_I8 = np.dtype(np.int64)


class _Plan:
    """How :func:`assemble` fills the results of one structure (replications R, channels C,
    devices D, per-device or not, the extras' names, dtypes, shapes and attributes): the
    :class:`mcio.part.Layout` of its one buffer, the buffer's constant bytes (the coordinates),
    and the computing steps, each writing a block of rows.

    Buffer order: the float64 blocks (per replication from ``acc``; the scalar CIs; the three
    quantile variables; per channel; per device), then the other variables by alignment (8-byte
    types first), so every view is aligned. Variables keep the Dataset's order (the
    ``OUTPUTS`` table's, each CI right after its variable, then the extras, then the coordinates)."""

    def __init__(self, R: int, C: int, D: int, per_device: bool, extra: dict, scalars: dict):
        groups = []            # (dtype, shape) of each block, in buffer order
        where = {}             # variable -> (block, index into the block; None: the block itself)
        meta = {}              # variable -> (dims, attrs, is_coord)
        order = []             # the variables' order
        rows = {"acc": [], "chs": [], "devs": []}
        ci, flags, quantiles = [], [], {}
        dims = {"acc": ("replication",), "chs": ("replication", "channel"), "devs": ("replication", "device")}
        for st in S.OUTPUTS:
            if st.per_device and not per_device:
                continue
            order.append(st.var)
            if st.norm in (S.QUANTILES, S.QUANTILES_REP, S.QUANTILES_CI):
                quantiles[st.norm] = st.var
                meta[st.var] = (("replication", "quantile") if st.norm == S.QUANTILES_REP else ("quantile",),
                                _attrs(st.units, st.long_name), False)
            elif st.norm == S.FLAG:
                flags.append(st)
                meta[st.var] = ((), _attrs("1", st.long_name, FLAG_MEANINGS.get(st.var, "no yes")), False)
            elif st.norm in _NORM_CODES:
                rows[st.src].append(st)
                meta[st.var] = (dims[st.src], _attrs(st.units, st.long_name), False)
                if st.ci is not None:
                    if st.src != "acc":   # (a CI over replications of a per-channel figure: none yet)
                        raise ValueError(f"{st.var}: a CI is made for per-replication figures only")
                    order.append(_ci_name(st.var))
                    ci.append(st.var)
                    meta[order[-1]] = ((), _attrs(st.units, st.ci), False)
            else:
                raise ValueError(f"{st.var}: unknown normalisation {st.norm!r}")
        size = {"acc": (R,), "chs": (R, C), "devs": (R, D)}
        #: per source: (its name, block, slots, norms, ofs, divisors (1.0: none), [(row, model field)])
        self.steps = []
        for src in ("acc", "chs", "devs"):
            stats = rows[src]
            if not stats:
                continue
            g = len(groups)
            groups.append((_F8, (len(stats),) + size[src]))
            for i, st in enumerate(stats):
                where[st.var] = (g, i)
            self.steps.append((src, g, np.array([st.slot for st in stats], np.int64),
                               np.array([_NORM_CODES[st.norm] for st in stats], np.int64),
                               np.array([-1 if st.of is None else st.of for st in stats], np.int64),
                               np.ones(len(stats)), [(i, st.per) for i, st in enumerate(stats) if st.per is not None]))
        self.ci_rows = [where[v][1] for v in ci]
        self.ci_block = None
        if ci:
            self.ci_block = len(groups)
            groups.append((_F8, (len(ci),)))
            for i, v in enumerate(ci):
                where[_ci_name(v)] = (self.ci_block, (i, Ellipsis))   # (a 0-d view)
        if quantiles and len(quantiles) != 3:   # (computed together: the contract has all three)
            raise ValueError(f"quantile variables {sorted(quantiles.values())}: all three or none")
        P = len(QUANTILES)
        self.q_blocks = {}
        for norm, shape in ((S.QUANTILES, (P,)), (S.QUANTILES_REP, (R, P)), (S.QUANTILES_CI, (P,))):
            if norm in quantiles:
                self.q_blocks[norm] = len(groups)
                where[quantiles[norm]] = (len(groups), None)
                groups.append((_F8, shape))
        # the rest, one block each: the extras, the flags, the coordinates (constant)
        rest = {}
        for name, (d, a, at, is_coord) in extra.items():
            a = np.asarray(a)
            order.append(name)
            meta[name] = (tuple(d), _read_only(at), bool(is_coord))
            rest[name] = (a.dtype, a.shape)
        for st in flags:
            rest[st.var] = (np.dtype(np.int8), ())
        coords = {"replication": (np.arange(R), "independent replication"),
                  "channel": (np.arange(C), "channel (CHPID) index"),
                  "quantile": (np.array(QUANTILES), "probability of the response-time quantile")}
        if per_device:
            coords["device"] = (np.arange(D), "device index")
        for name, (values, long_name) in coords.items():
            order.append(name)
            meta[name] = ((name,), _attrs("1", long_name), True)
            rest[name] = (values.dtype, values.shape)
        for name, (value, at) in scalars.items():   # (a sweep point's coordinates: last)
            order.append(name)
            meta[name] = ((), _read_only(at), True)
            rest[name] = (np.asarray(value).dtype, ())
        self.extras = [name for name in extra]
        self.scalars = [name for name in scalars]
        self.flags = [(st.var, st.src, st.slot) for st in flags]
        self.ci_block_of = where[ci[0]][0] if ci else None   # (the block of the rows they are of)
        for name in sorted(rest, key=lambda k: -rest[k][0].alignment):   # (stable: ties keep their order)
            where[name] = (len(groups), None)
            groups.append(rest[name])
        offsets, off = [], 0
        for dt, shape in groups:
            offsets.append(off)
            off += dt.itemsize * math.prod(shape)
        template = bytearray(off)
        for name, (values, _) in coords.items():
            g = where[name][0]
            np.ndarray(values.shape, values.dtype, template, offsets[g])[...] = values
        self.groups = [(dt, shape, o) for (dt, shape), o in zip(groups, offsets)]
        self.template = bytes(template)
        self.where = [where[name] for name in order]
        self.blocks = {name: where[name][0] for name in self.extras + self.scalars + [f[0] for f in self.flags]}
        g_off = {g: o for g, (_, _, o) in enumerate(self.groups)}
        self.layout = Layout(order, [meta[n] for n in order],
                             [groups[where[n][0]][0] for n in order],
                             [_view_shape(groups[where[n][0]][1], where[n][1]) for n in order],
                             [g_off[where[n][0]] + _view_offset(groups[where[n][0]], where[n][1]) for n in order],
                             off)


def _read_only(attrs):
    """``attrs`` as a read-only mapping: the one given, or a copy."""
    return attrs if isinstance(attrs, MappingProxyType) else MappingProxyType(dict(attrs))


def _attrs_key(at):
    """A plan key's part for a variable's attributes: a read-only mapping by identity (the plan
    keeps it alive, so its id is not reused), any other by value (TypeError if unhashable)."""
    return ("id", id(at)) if isinstance(at, MappingProxyType) else ("items", tuple(at.items()))


def _view_shape(shape: tuple, index) -> tuple:
    if index is None:
        return shape
    return shape[1:]   # (a row, or a 0-d element, of a block)


def _view_offset(group: tuple, index) -> int:
    if index is None:
        return 0
    dt, shape = group
    i = index[0] if isinstance(index, tuple) else index
    return i * dt.itemsize * math.prod(shape[1:])


_PLANS: dict = {}   # _Plan by structure (see _plan_key)


def _plan_key(acc, chs, devs, hist, per_device: bool, extra: dict, scalars: dict):
    """What a plan depends on: the accumulators' shapes and dtypes, per-device or not, per extra
    its name, dims, dtype, shape, is_coord and attributes, and per scalar coordinate its name,
    dtype and attributes (:func:`_attrs_key`). None if an attribute value cannot be hashed (then
    the plan is made for that call alone)."""
    try:
        sig = tuple((name, tuple(d), np.asarray(a).dtype, np.shape(a), bool(c), _attrs_key(at))
                    for name, (d, a, at, c) in extra.items())
        sc = tuple((name, np.asarray(v).dtype, _attrs_key(at)) for name, (v, at) in scalars.items())
        key = (acc.shape, chs.shape, devs.shape, hist.shape, acc.dtype, chs.dtype, devs.dtype, hist.dtype,
               bool(per_device), sig, sc)
        hash(key)
    except TypeError:
        return None
    return key


def _plan(acc, chs, devs, hist, per_device: bool, extra: dict, scalars: dict) -> _Plan:
    key = _plan_key(acc, chs, devs, hist, per_device, extra, scalars)
    plan = _PLANS.get(key) if key is not None else None
    if plan is None:
        for a, what, dt in ((acc, "acc", _F8), (chs, "chs", _F8), (devs, "devs", _F8), (hist, "hist", _I8)):
            if a.dtype != dt:   # (what the kernels make: a bug otherwise)
                raise AssertionError(f"{what}: {dt} accumulators expected, got {a.dtype}")
        plan = _Plan(chs.shape[0], chs.shape[1], devs.shape[1], per_device, extra, scalars)
        if key is not None:
            if len(_PLANS) >= 64:
                _PLANS.clear()
            _PLANS[key] = plan
    return plan


def assemble(model: Model, acc, chs, devs, hist, per_device: bool, extra: dict | None = None,
             coords: dict | None = None) -> Part:
    """Turn raw accumulators (acc[R, N_ACC], chs[R, C, N_CH], devs[R, D, N_DEV], float64;
    hist[R, HIST_BUCKETS]) into the labelled results, by the one output contract
    (``mcio.kernels.stats.OUTPUTS``: variable, units, long name, normalisation), in its order,
    then ``extra`` (Part entries, copied in), then the coordinates, then ``coords`` (a sweep
    point's: name -> (value, attrs), 0-d coordinate variables). Returns a Part without
    attributes, every array a view of one buffer (``Part.packed``), computed a block of rows at a
    time: the same values, operation for operation, as one variable at a time."""
    extra = extra or {}
    coords = coords or {}
    plan = _plan(acc, chs, devs, hist, per_device, extra, coords)
    buf = bytearray(plan.template)
    blocks = [np.ndarray(shape, dt, buf, off) for dt, shape, off in plan.groups]
    n = np.maximum(acc[:, S.A_N], 1.0)
    T = np.maximum(acc[:, S.A_TIME_MS], 1e-300)
    src = {"acc": acc, "chs": chs, "devs": devs}
    for name, g, slots, norms, ofs, div, per in plan.steps:
        a = src[name]
        out = blocks[g]
        if per:
            div = div.copy()
            for i, field in per:
                div[i] = _field(model, field)
        if a.ndim == 2:   # (one column: R x 1 x N in, K x R x 1 out)
            NZ.normalise_rows(a.reshape(a.shape[0], 1, a.shape[1]), n, T, slots, norms, ofs, div,
                              out.reshape(out.shape + (1,)))
        else:
            NZ.normalise_rows(a, n, T, slots, norms, ofs, div, out)
    if plan.ci_block is not None:
        blocks[plan.ci_block][...] = _ci95_fast(blocks[plan.ci_block_of][plan.ci_rows])
    if plan.q_blocks:
        q = plan.q_blocks   # (the engine's outputs have all three)
        rep, pooled = blocks[q[S.QUANTILES_REP]], blocks[q[S.QUANTILES]]
        hist_quantiles_into(hist, _QUANTILES, rep, pooled)
        blocks[q[S.QUANTILES_CI]][...] = _ci95_fast(rep, axis=0)
    for name, of, slot in plan.flags:
        blocks[plan.blocks[name]][...] = bool(src[of][..., slot].any())
    for name in plan.extras:
        blocks[plan.blocks[name]][...] = extra[name][1]
    for name in plan.scalars:
        blocks[plan.blocks[name]][...] = coords[name][0]
    layout = plan.layout
    views = [blocks[g] if i is None else blocks[g][i] for g, i in plan.where]
    v = {name: (m[0], a, m[1], m[2]) for name, m, a in zip(layout.names, layout.metas, views)}
    return Part(0, {}, {}, v, packed=(layout, buf, tuple(v.values())))
