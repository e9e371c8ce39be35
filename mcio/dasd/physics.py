"""Positional physics of a rotating DASD: seek time by distance, rotational latency, media and
channel transfer, and the disconnect distribution built from them.

RMF's definitions (shared/domain.md §1): **disconnect** is the time the device is busy off the
channel — seek, rotational latency, cache-miss staging; **connect** is commands and data on the
channel. Which parts of a cache miss fall in which depends on the controller (read-through or
staging: :mod:`mcio.dasd.control_unit`); this module gives the parts.

Seek: ``seek_ms(d) = 0`` for ``d = 0`` (same cylinder: a head switch, no arm motion) and
``settle_ms + sqrt_coeff_ms * sqrt(d)`` for ``d >= 1`` cylinders — the usual short-seek form
(shared/domain.md §2). :meth:`SeekCurve.seek_ms` runs the engine's own kernel
(:func:`mcio.kernels.seek.seek_ms`), so the curve here and the engine's positional device are one
implementation. :func:`seek_curve_for_average` sets the coefficient from an average random seek
over a given number of cylinders; that formula and the random-access distance law
(``random_distance_pmf``) live in :mod:`mcio.model.positional`, which the model's default
coefficient comes from too.

Rotational latency: the record (or the track's index point) is uniformly placed relative to the
head when the seek ends, so latency ~ Uniform(0, revolution) with mean half a revolution.

:func:`positional_disconnect` is a miss's disconnect as one distribution (seek distance drawn
from a pmf, i.i.d. per miss): what the pass-through mapping (:mod:`mcio.dasd.control_unit`)
gives the engine. An emulated device (``Geometry.positional`` False) has neither seek nor
latency: its miss is back-end service.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import McioError
from ..kernels.seek import seek_ms_into
from ..model import Dist
from ..model.positional import random_access_moments, seek_coefficient_for_average
from .geometry import Geometry


@dataclass(frozen=True)
class SeekCurve:
    """Seek time by distance in cylinders: 0 at distance 0, ``settle_ms + sqrt_coeff_ms * sqrt(d)``
    beyond (ms)."""

    settle_ms: float
    sqrt_coeff_ms: float

    def __post_init__(self):
        for k in ("settle_ms", "sqrt_coeff_ms"):
            v = getattr(self, k)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0):
                raise McioError(f"seek.{k}", v, "must be a finite number >= 0 ms")

    def seek_ms(self, distance_cyl):
        """Seek time (ms) for ``distance_cyl`` (scalar or array of non-negative cylinders): the
        engine's own curve, :func:`mcio.kernels.seek.seek_ms`, on each distance."""
        d = np.asarray(distance_cyl, float)
        if not np.all(d >= 0):
            raise McioError("distance_cyl", float(np.min(d[~(d >= 0)])), "must be >= 0 cylinders")
        flat = np.ascontiguousarray(d.ravel())
        t = np.empty_like(flat)
        seek_ms_into(flat, float(self.settle_ms), float(self.sqrt_coeff_ms), t)
        return float(t[0]) if d.ndim == 0 else t.reshape(d.shape)

    def mean_ms(self, distance_pmf) -> float:
        """Mean seek time over a distance distribution (pmf indexed by cylinders)."""
        p = np.asarray(distance_pmf, float)
        return float(np.dot(p / p.sum(), self.seek_ms(np.arange(p.size))))


def seek_curve_for_average(average_ms: float, settle_ms: float, cylinders: int) -> SeekCurve:
    """The curve with ``settle_ms`` whose mean over random access on ``cylinders`` is
    ``average_ms`` (the way drive literature quotes an 'average seek'; the coefficient:
    :func:`mcio.model.positional.seek_coefficient_for_average`)."""
    coeff = seek_coefficient_for_average(average_ms, settle_ms, cylinders)
    if coeff < 0:
        p_move = random_access_moments(cylinders)[0]
        raise McioError("seek.average_ms", average_ms, f"must be >= the settle time's share ({settle_ms * p_move:.3g} ms)")
    return SeekCurve(settle_ms, coeff)


def rotational_latency_bounds_ms(geom: Geometry) -> tuple[float, float]:
    """(lo, hi) of the uniform rotational latency (ms); (0, 0) on an emulated device."""
    return (0.0, geom.revolution_ms if geom.positional else 0.0)


def channel_transfer_ms(nbytes: float, link_mb_s: float) -> float:
    """Time to move ``nbytes`` over a link of ``link_mb_s`` alone (ms)."""
    if link_mb_s <= 0:
        raise McioError("link_mb_s", link_mb_s, "must be > 0")
    return nbytes / (link_mb_s * 1000.0)


def positional_disconnect(distance_pmf, seek: SeekCurve, geom: Geometry, extra_ms: float = 0.0,
                          latency_points: int = 16, max_seek_bins: int = 48) -> Dist:
    """The disconnect of a media access as an empirical :class:`~mcio.model.Dist` (ms): seek
    (distance drawn from ``distance_pmf``, cylinders) + rotational latency (uniform over one
    revolution) + ``extra_ms`` (e.g. staging the data into cache).

    Exact discretisation with the mean preserved: the latency is taken at the ``latency_points``
    midpoints of equal-probability slices (their mean is exactly half a revolution); distances
    are grouped into at most ``max_seek_bins`` bins of equal probability mass, each bin at the
    probability-weighted mean seek time of its distances (so the mean seek is exact too). On an
    emulated device the result is ``extra_ms`` alone.
    """
    p = np.asarray(distance_pmf, float)
    if p.ndim != 1 or p.size == 0 or np.any(p < 0) or p.sum() <= 0:
        raise McioError("distance_pmf", "…", "must be a non-empty list of non-negative weights with a positive sum")
    p = p / p.sum()
    if not geom.positional:
        return Dist("deterministic", float(extra_ms))
    t = seek.seek_ms(np.arange(p.size))
    # bins of (roughly) equal mass over distances with positive probability, in distance order
    nz = np.flatnonzero(p > 0)
    cum = np.cumsum(p[nz])
    edges = np.minimum((cum * max_seek_bins - 1e-12).astype(int), max_seek_bins - 1)
    seek_vals, seek_w = [], []
    for b in np.unique(edges):
        sel = nz[edges == b]
        w = p[sel].sum()
        seek_vals.append(float(np.dot(p[sel], t[sel]) / w))
        seek_w.append(float(w))
    rev = geom.revolution_ms
    lat = (np.arange(latency_points) + 0.5) / latency_points * rev
    values = (np.add.outer(np.asarray(seek_vals), lat) + extra_ms).ravel()
    weights = np.repeat(np.asarray(seek_w) / latency_points, latency_points)
    return Dist.parse("backend_service_ms", {"dist": "empirical", "values": values.tolist(),
                                             "weights": weights.tolist()})
