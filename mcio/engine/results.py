"""Raw accumulators -> the labelled results (docs/design.md §4) as a :class:`mcio.part.Part`
(plain arrays; ``Part.to_dataset`` makes the xarray Dataset), and confidence intervals."""
from __future__ import annotations

import functools
import math
from types import MappingProxyType

import numpy as np
from scipy import special

from ..kernels import stats as S
from ..kernels.histogram import hist_quantiles_rows
from ..model import Model
from ..part import Part

QUANTILES = (0.5, 0.9, 0.95, 0.99)


@functools.lru_cache(maxsize=64)
def t975(dof: float) -> float:
    """Student-t 97.5 % quantile with ``dof`` degrees of freedom (NaN for dof <= 0): scipy's
    inverse of the t distribution function, ``special.stdtrit``, the function
    ``stats.t.ppf`` calls (the same values, to the bit) without importing scipy.stats, ~1-2 s
    of a command's start here. Cached: a Dataset needs a dozen."""
    return special.stdtrit(dof, 0.975)


def ci95_halfwidth(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Student-t 95 % half-width of the mean of ``x`` along ``axis`` (replications)."""
    n = x.shape[axis]
    return t975(n - 1) * np.std(x, axis=axis, ddof=1) / math.sqrt(n)


#: CF flag_meanings of the flag variables (value 0 first, then 1)
FLAG_MEANINGS = {"unstable": "stable unstable", "warmup_adequate": "warmup_too_short warmup_adequate"}


@functools.lru_cache(maxsize=1024)
def _attrs(units: str, long_name: str, meanings: str | None = None) -> MappingProxyType:
    """A variable's attributes, one read-only mapping per distinct value: every point shares
    them, so a part record's encoder knows them unchanged by identity (mcio.store._table)."""
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


def _coord(values, units: str, long_name: str):
    return (None, np.asarray(values), _attrs(units, long_name), True)


def _ci_name(var: str) -> str:
    """``response_ms`` -> ``response_ci95_ms``: the CI goes before the unit suffix."""
    stem, unit = var.rsplit("_", 1)
    return f"{stem}_ci95_{unit}"


def _field(model: Model, dotted: str):
    section, key = dotted.split(".")
    return getattr(model, section)[key]


def assemble(model: Model, acc, chs, devs, hist, per_device: bool, extra: dict | None = None) -> Part:
    """Turn raw accumulators (acc[R, N_ACC], chs[R, C, N_CH], devs[R, D, N_DEV],
    hist[R, HIST_BUCKETS]) into the labelled results, by the one output contract
    (``mcio.kernels.stats.OUTPUTS``: variable, units, long name, normalisation), in its order,
    then ``extra`` (Part entries), then the coordinates. Returns a Part without attributes."""
    R, C = chs.shape[0], chs.shape[1]
    n = np.maximum(acc[:, S.A_N], 1.0)
    T = np.maximum(acc[:, S.A_TIME_MS], 1e-300)
    per_rep = None
    src = {"acc": acc, "chs": chs, "devs": devs}
    dims = {"acc": ("replication",), "chs": ("replication", "channel"), "devs": ("replication", "device")}
    v = {}
    ci_of = []
    for st in S.OUTPUTS:
        if st.per_device and not per_device:
            continue
        if st.norm in (S.QUANTILES, S.QUANTILES_REP, S.QUANTILES_CI):
            if per_rep is None:   # each replication's, then the pooled histogram's: one call
                rows = hist_quantiles_rows(np.vstack([hist, hist.sum(axis=0)]), QUANTILES)
                per_rep, pooled = rows[:-1], rows[-1]
            if st.norm == S.QUANTILES:
                v[st.var] = _var(pooled, ("quantile",), st.units, st.long_name)
            elif st.norm == S.QUANTILES_REP:
                v[st.var] = _var(per_rep, ("replication", "quantile"), st.units, st.long_name)
            else:
                v[st.var] = _var(ci95_halfwidth(per_rep, axis=0), ("quantile",), st.units, st.long_name)
            continue
        a = src[st.src]
        x = a[..., st.slot]
        # the interval per replication, broadcast over channels or devices
        t = T if a.ndim == 2 else T[:, None]
        if st.norm == S.PER_IO:
            data = x / n
        elif st.norm == S.STD_PER_IO:
            sq = x / n - (a[..., st.of] / n) ** 2
            data = np.sqrt(np.maximum(sq, 0.0))
        elif st.norm == S.PER_MS:
            data = x / t
        elif st.norm == S.PER_S:
            data = x / t * 1000.0
        elif st.norm == S.COUNT:
            data = x.copy()   # contiguous, not a strided view of acc: a part record takes its buffer
        elif st.norm == S.INTERVAL_S:
            data = T / 1000.0
        elif st.norm == S.FLAG:
            v[st.var] = flag_var(bool(x.any()), st.long_name, FLAG_MEANINGS.get(st.var, "no yes"))
            continue
        else:
            raise ValueError(f"{st.var}: unknown normalisation {st.norm!r}")
        if st.per is not None:
            data = data / _field(model, st.per)
        v[st.var] = _var(data, dims[st.src], st.units, st.long_name)
        if st.ci is not None:
            if data.ndim == 1:   # (per replication: all such at once, below; the order is kept)
                ci_of.append((_ci_name(st.var), data, st.units, st.ci))
                v[ci_of[-1][0]] = None
            else:
                v[_ci_name(st.var)] = _var(ci95_halfwidth(data), (), st.units, st.ci)
    if ci_of:
        half = ci95_halfwidth(np.stack([c[1] for c in ci_of]))
        for (name, _, units, long_name), h in zip(ci_of, half):
            v[name] = _var(h, (), units, long_name)
    v.update(extra or {})
    coords = {"replication": _coord(np.arange(R), "1", "independent replication"),
              "channel": _coord(np.arange(C), "1", "channel (CHPID) index"),
              "quantile": _coord(np.array(QUANTILES), "1", "probability of the response-time quantile")}
    if per_device:
        coords["device"] = _coord(np.arange(model.devices["count"]), "1", "device index")
    for name, (_, a, attrs, is_coord) in coords.items():
        v[name] = ((name,), a, attrs, is_coord)
    return Part(0, {}, {}, v)
