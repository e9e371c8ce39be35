"""One point of a sweep: its model simulated (a fixed run, or precision rounds until a target CI),
its Part (:mod:`mcio.part`) labelled with the point's coordinates, blanked where the point is
unstable and checked where it is stable.
"""
from __future__ import annotations

import math

import numpy as np

from .. import interrupt
from ..kernelcache import cache_errors
from ..model import Model
from .grid import dim_attrs


def _simulate(model: Model, **kw):
    """The engine's simulate_part (a :class:`mcio.part.Part`), imported late (tests may
    substitute a fake here)."""
    from ..engine import simulate_part
    return simulate_part(model, **kw)


def _simulate_ds(model: Model, **kw):
    """:func:`_simulate` as a Dataset (the precision rounds read theirs by name)."""
    from ..part import Part
    got = _simulate(model, **kw)
    return got.to_dataset() if isinstance(got, Part) else got


@cache_errors
def run_point(spec, p: int):
    """Simulate point ``p`` of ``spec``: :func:`point_part` as a Dataset, with the point's
    model as TOML (attribute ``model_toml``)."""
    return point_part(spec, p, describe=True).to_dataset()


def point_part(spec, p: int, describe: bool = False, coords: dict | None = None):
    """Simulate point ``p`` of ``spec``; the Part (plain arrays, :mod:`mcio.part`) carries the
    point's sweep coordinates as scalar coordinates (one entry per axis). An unstable point keeps
    ``unstable_reason`` (attr) and NaN for every figure that needs a steady state; a result that is
    not finite where it must be, or fewer I/Os measured than asked without the point being
    flagged, is a bug: AssertionError. ``describe``: keep the point's ``model_toml`` (a sweep's
    file has the spec and base model instead). ``coords``: ``spec.coords(p)``, if made already."""
    from ..part import Part
    r = spec.run
    c, attrs_of = spec.coords(p) if coords is None else coords, dim_attrs(spec)
    if r.get("precision") is not None:
        # rounds until the target CI is met or max_ios spent (mcio/batch/precision.py)
        from .precision import simulate_to_precision
        ds = simulate_to_precision(spec.point_model(p), r["precision"], r["precision_of"], ios=r["ios"],
                                   max_ios=r["max_ios"], replications=r["replications"], seed=r["seed"],
                                   point=spec.stream_index(p), warmup=r["warmup"], simulate=_simulate_ds,
                                   allow_unstable=True, describe=describe)
        part = Part.from_dataset(ds)
        part = _checked(part, int(part.data("ios_used")), p)
    else:
        part = _simulate(spec.point_model(p), ios=r["ios"], replications=r["replications"], seed=r["seed"],
                         warmup=r["warmup"], point=spec.stream_index(p), allow_unstable=True, describe=describe,
                         coords={dim: (c[dim], attrs) for dim, attrs in attrs_of.items()})
        if not isinstance(part, Part):   # (a substitute that returns a Dataset)
            part = Part.from_dataset(part)
        part = _checked(part, r["ios"], p)
    for dim, attrs in attrs_of.items():
        if dim not in part.vars:   # (the engine's own Part has them, in its buffer)
            part.vars[dim] = ((), np.asarray(c[dim]), dict(attrs), True)
    part.attrs["point"] = p
    part.point = p
    part.coords = dict(c)
    return part


#: Figures that exist only at a steady state: NaN at an unstable point (its queue kept growing, so
#: a mean, a quantile or a CI of it describes the run's length, not the system). Every variable in
#: ms is one; these are the others.
STEADY_STATE_ONLY = ("in_system_mean", "iosq_queue_mean", "mp_queue_mean", "open_exchanges_mean")
#: Figures a stable point must have finite (every replication).
MUST_BE_FINITE = ("response_ms", "iosq_ms", "pend_ms", "cmr_ms", "disconnect_ms", "connect_ms",
                  "response_ci95_ms", "throughput_iops", "throughput_ci95_iops", "device_busy",
                  "in_system_mean", "ios_measured", "sim_time_s")


def _checked(part, ios_asked: int, p: int):
    """The engine's Part of point ``p``, blanked where unstable and checked where stable."""
    var = part.vars
    unstable = bool(int(var["unstable"][1])) if "unstable" in var else False
    if unstable:
        if not part.attrs.get("unstable_reason"):
            part.attrs["unstable_reason"] = "unstable (the engine gave no reason)"
        for name, (dims, a, attrs, is_coord) in list(var.items()):
            if not is_coord and a.dtype.kind == "f" and (attrs.get("units") == "ms" or name in STEADY_STATE_ONLY):
                var[name] = (dims, np.full(a.shape, np.nan), attrs, is_coord)
        return part
    part.attrs["unstable_reason"] = ""
    if "ios_measured" in var:
        n = np.asarray(var["ios_measured"][1])
        if (n < ios_asked).any():
            if interrupt.requested():
                raise PointCut(p)
            raise AssertionError(f"sweep point {p}: {int(n.min())} I/Os measured in a replication, "
                                 f"{ios_asked} asked, and the point is not flagged unstable (an engine bug)")
    for name in MUST_BE_FINITE:
        if name in var and not _finite(np.asarray(var[name][1], dtype=float)):
            raise AssertionError(f"sweep point {p}: {name} is not finite ({var[name][1]!r}) at a point "
                                 "not flagged unstable (an engine bug; nothing was stored)")
    return part


def _finite(a: np.ndarray) -> bool:
    """Every element of ``a`` finite (a point's figures: a few values a replication, for which
    Python's math.isfinite costs less than NumPy's isfinite and all)."""
    if a.size > 64:
        return bool(np.isfinite(a).all())
    return all(map(math.isfinite, a.ravel().tolist()))


class PointCut(Exception):
    """A point the kernels stopped short on request (Ctrl-C): not a result, not saved."""


def ios_simulated(part) -> int:
    """I/Os a point pushed through the engine, warm-up included (for the progress rate)."""
    a = part.attrs
    try:
        return int(a.get("replications", 1)) * (int(a.get("ios", 0)) + int(a.get("warmup_ios", 0)))
    except (TypeError, ValueError):
        return 0
