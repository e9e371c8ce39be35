"""A positional device (3390, 3380) in the model (host, NumPy): the reference geometries that fill
the [devices] positional defaults, the random-access distance law (the distance between two
independent uniform cylinders), its moments, the seek curve's coefficient that gives a published
average seek, and the mean device time per I/O. The one home of these formulas for the model
(:meth:`mcio.model.Model.positional`, :meth:`~mcio.model.Model.mean_demands_ms`) and the device
physics (:mod:`mcio.dasd.physics`, :mod:`mcio.dasd.access`); the seek time by distance itself is
the engine's kernel :func:`mcio.kernels.seek.seek_ms`.

Distance between two independent uniform cylinders of ``n``: P(0) = 1/n,
P(d) = 2 (n - d) / n**2 for 1 <= d < n. With seek(d) = settle + coefficient x sqrt(d) for d >= 1,
the mean seek of random access is settle x P(d > 0) + coefficient x E[sqrt(d)].
"""
from __future__ import annotations

from ..errors import McioError


def random_distance_pmf(cylinders: int):
    """P(distance = d cylinders), d = 0 .. cylinders - 1, between two independent uniform
    cylinders of ``cylinders`` (float64 array; the stationary distance of purely random access)."""
    import numpy as np  # here, not at module level: the CLI starts without NumPy
    n = int(cylinders)
    if n < 1:
        raise McioError("cylinders", cylinders, "must be >= 1")
    d = np.arange(n, dtype=float)
    p = 2.0 * (n - d) / n**2
    p[0] = 1.0 / n
    return p


def random_access_moments(cylinders: int) -> tuple[float, float]:
    """(P(distance > 0), E[sqrt(distance)]) of :func:`random_distance_pmf`; (0, 1) on a single
    cylinder, where the arm never moves (any coefficient will do)."""
    import numpy as np
    n = int(cylinders)
    if n < 2:
        return 0.0, 1.0
    p = random_distance_pmf(n)[1:]
    return float(p.sum()), float(np.dot(p, np.sqrt(np.arange(1, n, dtype=float))))


def seek_coefficient_for_average(average_ms: float, settle_ms: float, cylinders: int) -> float:
    """The sqrt(distance) coefficient (ms) of the seek curve with ``settle_ms`` whose mean over
    random access on ``cylinders`` is ``average_ms`` (the way drive literature quotes an 'average
    seek'); negative when the settle time alone exceeds the average."""
    p_move, e_sqrt = random_access_moments(cylinders)
    return (average_ms - settle_ms * p_move) / e_sqrt


#: The positional geometries' reference figures (defaults of the [devices] positional fields).
#: 3390: 3390-3's 3,339 cylinders, 14.2 ms revolution (7.1 ms average rotational delay), 4.2 MB/s
#: off the head (IBM 3390 literature; shared/domain.md §2), 12 x 4 KB blocks per track x 15
#: tracks; average seek 12.5 ms over the 3390-3 (3390-era literature; assumed, as in the dasd-mdc
#: scenario). 3380: 3380-K's 2,655 cylinders, 3,600 rpm (16.7 ms), 3.0 MB/s, 10 x 4 KB per track
#: (IBM 3380 literature, mcio/dasd/geometry.py); average seek 16 ms (3380-K literature; assumed).
POSITIONAL_GEOMETRIES = {
    "3390": {"cylinders": 3339, "rotation_ms": 14.2, "media_mb_s": 4.2, "cylinder_kb": 737.28,
             "average_seek_ms": 12.5},
    "3380": {"cylinders": 2655, "rotation_ms": 16.7, "media_mb_s": 3.0, "cylinder_kb": 614.4,
             "average_seek_ms": 16.0},
}


def positional_parameters(devices: dict, miss_policy: str) -> dict | None:
    """A validated [devices] section's positional-service parameters with the geometry's defaults
    (:data:`POSITIONAL_GEOMETRIES`) filled in (ms, KB, KB/ms, cylinders) and the control unit's
    ``miss_policy``, or None on an emulated device. The default seek coefficient is the curve's
    whose random-access mean is the reference model's average seek (0 if the settle time alone
    exceeds it)."""
    d = devices
    if d["geometry"] == "emulated":
        return None
    ref = POSITIONAL_GEOMETRIES[d["geometry"]]
    out = {k: (ref[k] if d.get(k) is None else d[k])
           for k in ("cylinders", "rotation_ms", "media_mb_s", "cylinder_kb")}
    out["seek_settle_ms"] = d["seek_settle_ms"]
    coeff = d["seek_ms_per_sqrt_cyl"]
    if coeff is None:
        coeff = max(0.0, seek_coefficient_for_average(ref["average_seek_ms"], d["seek_settle_ms"], ref["cylinders"]))
    out["seek_ms_per_sqrt_cyl"] = coeff
    out["p_sequential"] = d["p_sequential"]
    out["span_cylinders"] = out["cylinders"] if d["span_cylinders"] is None else d["span_cylinders"]
    out["miss_policy"] = miss_policy
    return out


def positional_demand_ms(pos: dict, shares, io: list, link_mb_s: float) -> float:
    """Mean device-side time per I/O of a positional device (ms), ``pos`` from
    :func:`positional_parameters`, ``shares`` the I/O classes' shares, ``io`` their [[io]]
    tables: over its misses, the seek of the stationary locality mix (a continuation crosses a
    cylinder with probability KB / cylinder_kb, a jump has the random-access distance over the
    span) + half a revolution + the media transfer beyond the link's (read-through: in connect;
    staging: in disconnect)."""
    settle, coeff = pos["seek_settle_ms"], pos["seek_ms_per_sqrt_cyl"]
    p_move, e_sqrt = random_access_moments(pos["span_cylinders"])
    jump = settle * p_move + coeff * e_sqrt
    out = 0.0
    for s, cl in zip(shares, io):
        cross = min(1.0, cl["kb"] / pos["cylinder_kb"])
        seek = pos["p_sequential"] * cross * (settle + coeff) + (1 - pos["p_sequential"]) * jump
        media = cl["kb"] / pos["media_mb_s"] - (cl["kb"] / link_mb_s if pos["miss_policy"] == "read_through" else 0.0)
        out += s * cl["miss_ratio"] * (seek + pos["rotation_ms"] / 2 + max(media, 0.0))
    return out
