"""Random access on a positional device (host, NumPy): the distance between two independent
uniform cylinders, its moments, and the seek curve's coefficient that gives a published average
seek. The one home of these formulas for the model's defaults and mean demands
(:meth:`mcio.model.Model.positional`) and the device physics (:mod:`mcio.dasd.physics`,
:mod:`mcio.dasd.access`); the seek time by distance itself is :func:`mcio.kernels.seek.seek_ms`.

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
