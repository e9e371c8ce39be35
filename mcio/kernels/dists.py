"""Sampling the duration distributions of ``mcio.model.Dist`` inside kernels.

A distribution is one row of a float64 table ``dp``: (kind, mean, scv, a, b) where for gamma
a = shape, b = scale; for lognormal a = mu, b = sigma; for empirical a = offset, b = length into
the flat tables ``ev`` (values) and ``ec`` (cumulative weights, last = 1). Kind codes follow
``mcio.model.dist.KINDS``.

``sample`` is inlined into each call site (``inline="always"``) with only the cheap kinds
(deterministic, exponential) in it; the others go to one shared out-of-line function. That keeps
the common draws free of call overhead (~7 ns a call) without copying gamma's loop into every
call site, and it compiles ``_sample_other`` once: the row index is passed as a plain int64, not
as the literal constant the caller wrote (Numba would compile one copy per literal).
"""
import math

import numba as nb
import numpy as np

from .options import JIT
from .rng import exponential, gamma, normal, uniform

DETERMINISTIC, EXPONENTIAL, GAMMA, LOGNORMAL, EMPIRICAL = 0, 1, 2, 3, 4


@nb.njit(**JIT)
def _sample_other(s, dp, i, ev, ec):
    """Gamma, lognormal and empirical draws of row ``i``."""
    kind = int(dp[i, 0])
    if kind == GAMMA:
        return gamma(s, dp[i, 3], dp[i, 4])
    if kind == LOGNORMAL:
        return math.exp(dp[i, 3] + dp[i, 4] * normal(s))
    # empirical: inverse CDF by binary search over the cumulative weights
    off = int(dp[i, 3])
    n = int(dp[i, 4])
    u = uniform(s)
    lo = 0
    hi = n - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if ec[off + mid] < u:
            lo = mid + 1
        else:
            hi = mid
    return ev[off + lo]


@nb.njit(**JIT, inline="always")
def sample(s, dp, i, ev, ec):
    """One draw of distribution row ``i`` of ``dp`` with stream ``s``, in the row's unit."""
    kind = dp[i, 0]
    if kind == EXPONENTIAL:
        return exponential(s, dp[i, 1])
    if kind == DETERMINISTIC:
        return dp[i, 1]
    return _sample_other(s, dp, np.int64(i), ev, ec)
