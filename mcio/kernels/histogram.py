"""A mergeable log-bucketed histogram for response-time quantiles.

Bucket 0 holds values below ``HIST_LO_MS``; bucket i >= 1 holds [LO * R^(i-1), LO * R^i). With
R = 1.01 a value's bucket bounds it within 1 %, and geometric interpolation inside the bucket does
better. Histograms of replications (or of sweep workers) merge by addition.
"""
import math

import numba as nb
import numpy as np

from .options import JIT

HIST_LO_MS = 1e-4          # 0.1 us: below any I/O component worth reporting
HIST_RATIO = 1.01
HIST_BUCKETS = int(math.ceil(math.log(1e8 / HIST_LO_MS) / math.log(HIST_RATIO))) + 2  # up to 1e8 ms
_LOG_R = math.log(HIST_RATIO)


@nb.njit(**JIT)
def hist_add(h, x_ms):
    """Count one value (ms) into histogram ``h`` (int64[HIST_BUCKETS])."""
    if x_ms < HIST_LO_MS:
        h[0] += 1
        return
    i = int(math.log(x_ms / HIST_LO_MS) / _LOG_R) + 1
    if i >= HIST_BUCKETS:
        i = HIST_BUCKETS - 1
    h[i] += 1


def hist_quantiles(h: np.ndarray, probs) -> np.ndarray:
    """Quantiles (ms) of a histogram, interpolated geometrically inside the bucket."""
    h = np.asarray(h, dtype=np.float64)
    n = h.sum()
    out = np.full(len(probs), np.nan)
    if n <= 0:
        return out
    cum = np.cumsum(h)
    for j, p in enumerate(probs):
        target = p * n
        i = int(np.searchsorted(cum, target, side="left"))
        i = min(i, len(h) - 1)
        if i == 0:
            out[j] = HIST_LO_MS
            continue
        before = cum[i - 1]
        frac = (target - before) / h[i] if h[i] > 0 else 0.5
        lo = HIST_LO_MS * HIST_RATIO ** (i - 1)
        out[j] = lo * HIST_RATIO ** min(max(frac, 0.0), 1.0)
    return out
