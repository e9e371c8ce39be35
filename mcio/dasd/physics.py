"""Positional physics of a rotating DASD: seek time by distance, rotational latency, media and
channel transfer, and the disconnect distribution built from them.

RMF's definitions (shared/domain.md §1): **disconnect** is the time the device is busy off the
channel — seek, rotational latency, cache-miss staging; **connect** is commands and data on the
channel. Which parts of a cache miss fall in which depends on the controller (read-through or
staging: :mod:`mcio.dasd.control_unit`); this module gives the parts.

Seek: ``seek_ms(d) = 0`` for ``d = 0`` (same cylinder: a head switch, no arm motion) and
``settle_ms + sqrt_coeff_ms * sqrt(d)`` for ``d >= 1`` cylinders — the usual short-seek form
(shared/domain.md §2). :func:`seek_curve_for_average` sets the coefficient from an average
random seek over a given number of cylinders.

Rotational latency: the record (or the track's index point) is uniformly placed relative to the
head when the seek ends, so latency ~ Uniform(0, revolution) with mean half a revolution.

An emulated device (``Geometry.positional`` False) has neither: its miss is back-end service.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import McioError
from ..model import Dist
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
        """Seek time (ms) for ``distance_cyl`` (scalar or array of non-negative cylinders)."""
        d = np.asarray(distance_cyl, float)
        if np.any(d < 0):
            raise McioError("distance_cyl", float(d.min()), "must be >= 0 cylinders")
        t = np.where(d > 0, self.settle_ms + self.sqrt_coeff_ms * np.sqrt(d), 0.0)
        return float(t) if t.ndim == 0 else t

    def mean_ms(self, distance_pmf) -> float:
        """Mean seek time over a distance distribution (pmf indexed by cylinders)."""
        p = np.asarray(distance_pmf, float)
        return float(np.dot(p / p.sum(), self.seek_ms(np.arange(p.size))))


def random_distance_pmf(cylinders: int) -> np.ndarray:
    """Distance between two independent uniform cylinders of ``cylinders``: P(0) = 1/n,
    P(d) = 2 (n - d) / n**2 for d >= 1 (the stationary distance of purely random access)."""
    n = int(cylinders)
    if n < 1:
        raise McioError("cylinders", cylinders, "must be >= 1")
    d = np.arange(n, dtype=float)
    p = 2.0 * (n - d) / n**2
    p[0] = 1.0 / n
    return p


def seek_curve_for_average(average_ms: float, settle_ms: float, cylinders: int) -> SeekCurve:
    """The curve with ``settle_ms`` whose mean over random access on ``cylinders`` is
    ``average_ms`` (the way drive literature quotes an 'average seek')."""
    p = random_distance_pmf(cylinders)
    d = np.arange(p.size)
    p_move = p[1:].sum()
    e_sqrt = float(np.dot(p[1:], np.sqrt(d[1:])))
    coeff = (average_ms - settle_ms * p_move) / e_sqrt
    if coeff < 0:
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
