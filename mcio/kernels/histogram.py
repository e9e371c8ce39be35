"""A mergeable log-linear histogram for response-time quantiles, bucketed without a logarithm.

A positive double is 2^e * (1 + f); its bit pattern read as an integer is (biased e) * 2^52 + f *
2^52, so shifting it right by 52 - HIST_SUB_BITS gives (biased e) * 2^HIST_SUB_BITS plus the top
HIST_SUB_BITS bits of f: every octave [2^e, 2^(e+1)) splits into 2^HIST_SUB_BITS equal-width
buckets. A bucket [lo, hi) has hi / lo <= 1 + 2^-HIST_SUB_BITS = 1.0078 (HIST_REL_WIDTH), so a
value's bucket bounds it within 1 %, and linear interpolation inside the bucket does better.

Bucket 0 holds values below ``HIST_LO_MS`` (and NaN); bucket HIST_BUCKETS - 1 holds values at or
above ``HIST_HI_MS``. Both bounds are powers of two, so bucket edges are exact doubles. Histograms of
replications (or of sweep workers) merge by addition.
"""
import numpy as np

from . import alloc
from .bits import float_bits
from .options import JIT, JIT_LEAF, JIT_VEC, njit

HIST_SUB_BITS = 7                      # 128 linear buckets per octave
HIST_LO_MS = 2.0 ** -14                # ~0.061 us: below any I/O component worth reporting
HIST_HI_MS = 2.0 ** 27                 # ~1.3e8 ms (37 hours): above any response time
HIST_REL_WIDTH = 2.0 ** -HIST_SUB_BITS  # largest (hi - lo) / lo of a bucket
_SHIFT = 52 - HIST_SUB_BITS
_LO_KEY = int(np.float64(HIST_LO_MS).view(np.int64)) >> _SHIFT
_HI_KEY = int(np.float64(HIST_HI_MS).view(np.int64)) >> _SHIFT
HIST_BUCKETS = (_HI_KEY - _LO_KEY) + 2           # underflow + log-linear buckets + overflow

# Lower edge (ms) of every bucket; bucket 0's is 0, the overflow bucket's is HIST_HI_MS.
HIST_EDGES_MS = np.concatenate((
    [0.0],
    (np.arange(_LO_KEY, _HI_KEY + 1, dtype=np.int64) << _SHIFT).view(np.float64),
))
# Upper edge (ms) of every bucket; the overflow bucket's is taken as twice its lower edge.
HIST_UPPER_MS = np.concatenate((HIST_EDGES_MS[1:], [2.0 * HIST_HI_MS]))


@njit(**JIT_LEAF)
def hist_bucket(x_ms):
    """The bucket index of one value (ms)."""
    if not x_ms >= HIST_LO_MS:           # also NaN
        return 0
    if x_ms >= HIST_HI_MS:
        return HIST_BUCKETS - 1
    return (float_bits(x_ms) >> _SHIFT) - (_LO_KEY - 1)


@njit(**JIT_LEAF)
def hist_add(h, x_ms):
    """Count one value (ms) into histogram ``h`` (int64[HIST_BUCKETS])."""
    h[hist_bucket(float(x_ms))] += 1


@njit(**JIT_VEC)
def _sum_keys(x_a, x_b, m0, m1, keys):
    """keys[j] = hist_bucket(x_a[j] + x_b[j]) for j = m0 .. m1 - 1 (float64 and int64 arrays),
    without branches, so that LLVM vectorises it: the same bucket for every double (positive
    doubles order as their bit patterns, so the overflow bucket is a minimum; NaN fails the test
    as in hist_bucket). On views from m0 on, indexed from 0: with j from a start LLVM cannot see,
    every access carried a test for a negative (wrap-around) index and the vector loads became
    scalar ones (measured 0.6 -> 0.1 ns a value on an AVX2 EPYC)."""
    a = x_a[m0:m1]
    b = x_b[m0:m1]
    kv = keys[m0:m1]
    for j in range(m1 - m0):
        x = a[j] + b[j]
        k = (float_bits(x) >> _SHIFT) - (_LO_KEY - 1)
        k = k if k < HIST_BUCKETS - 1 else HIST_BUCKETS - 1
        kv[j] = k if x >= HIST_LO_MS else 0


@njit(**JIT_LEAF)
def hist_add_sums(h, x_a, x_b, m0, m1, keys):
    """Count x_a[j] + x_b[j] (ms; float64 arrays), j = m0 .. m1 - 1, into histogram ``h``, as
    ``hist_add`` would one by one; ``keys`` int64[>= m1] is scratch. The buckets first, in a
    vectorised loop, then the counts: each count's address is then known before its load, so
    a count does not wait on the bucket arithmetic of the ones before it (measured 2.5 -> 0.8 ns
    a value on responses of M/M/1 at rho 0.9). A bucket is in 0 .. HIST_BUCKETS - 1, so it
    indexes as an unsigned integer (no test for a negative index)."""
    _sum_keys(x_a, x_b, m0, m1, keys)
    kv = keys[m0:m1]
    for j in range(m1 - m0):
        h[np.uint64(kv[j])] += 1


def hist_quantiles_rows(hs: np.ndarray, probs) -> np.ndarray:
    """:func:`hist_quantiles` of each row of ``hs`` (histograms, [K, HIST_BUCKETS]) at once:
    float64[K, len(probs)], the same values (the bucket found by searchsorted "left" in each
    row's cumulative counts, which are exact in float64 and non-decreasing: the count of those
    below the target, found in log2(buckets) steps, where counting them all compared K x P x
    HIST_BUCKETS values, ~60 % of a point's results here). Integer counts are summed as
    integers (~6x faster than in float64 here; the same sums, exact below 2**53)."""
    hs = np.asarray(hs)
    if hs.dtype.kind in "iu":
        h = hs
        cum = np.cumsum(hs, axis=1).astype(np.float64)
    else:
        h = np.asarray(hs, dtype=np.float64)
        cum = np.cumsum(h, axis=1)
    n = cum[:, -1]
    p = np.asarray(probs, dtype=np.float64)
    target = p[None, :] * n[:, None]                                      # [K, P]
    i = np.empty(target.shape, dtype=np.intp)
    for k in range(h.shape[0]):
        i[k] = np.searchsorted(cum[k], target[k], side="left")
    i = np.minimum(i, h.shape[1] - 1)
    rows = np.arange(h.shape[0])[:, None]
    before = cum[rows, np.maximum(i - 1, 0)]
    hi_count = h[rows, i].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        frac = np.where(hi_count > 0, (target - before) / hi_count, 0.5)
    frac = np.minimum(np.maximum(frac, 0.0), 1.0)
    lo, hi = HIST_EDGES_MS[i], HIST_UPPER_MS[i]
    out = lo + (hi - lo) * frac
    out[i == 0] = HIST_LO_MS
    out[n <= 0] = np.nan
    return out


@njit(**JIT)
def _row_quantiles(h, n, probs, cum, out):
    """hist_quantiles_rows of one histogram (int64[B] counts, n their total as float64), into
    ``out`` float64[P]; ``cum`` float64[B] scratch."""
    B = h.shape[0]
    c = 0
    for b in range(B):
        c += h[b]
        cum[b] = c
    for j in range(probs.shape[0]):
        target = probs[j] * n
        lo_b, hi_b = 0, B   # searchsorted "left": the first b with cum[b] >= target
        while lo_b < hi_b:
            mid = (lo_b + hi_b) // 2
            if cum[mid] < target:
                lo_b = mid + 1
            else:
                hi_b = mid
        i = lo_b if lo_b < B - 1 else B - 1
        before = cum[i - 1 if i > 0 else 0]
        hi_count = float(h[i])
        frac = (target - before) / hi_count if hi_count > 0 else 0.5
        if frac < 0.0:   # (NumPy's maximum, then minimum: NaN and -0.0 stay)
            frac = 0.0
        elif frac > 1.0:
            frac = 1.0
        lo = HIST_EDGES_MS[i]
        y = lo + (HIST_UPPER_MS[i] - lo) * frac
        if i == 0:
            y = HIST_LO_MS
        if not n > 0:
            y = np.nan
        out[j] = y


@njit(**JIT)
def hist_quantiles_into(hist, probs, out_rep, out_pooled):
    """:func:`hist_quantiles_rows` of each replication's histogram and of their sum, the same
    values to the bit, into preallocated outputs: ``hist`` int64[R, HIST_BUCKETS], ``probs``
    float64[P], ``out_rep`` float64[R, P], ``out_pooled`` float64[P]. ~40x faster here than
    the NumPy of hist_quantiles_rows (which stays, the reference the tests hold it to)."""
    R, B = hist.shape
    cum = alloc.empty(B, np.float64)
    pooled = alloc.zeros(B, np.int64)
    for r in range(R):
        total = 0
        for b in range(B):
            total += hist[r, b]
            pooled[b] += hist[r, b]
        _row_quantiles(hist[r], float(total), probs, cum, out_rep[r])
    total = 0
    for b in range(B):
        total += pooled[b]
    _row_quantiles(pooled, float(total), probs, cum, out_pooled)


def hist_quantiles(h: np.ndarray, probs) -> np.ndarray:
    """Quantiles (ms) of a histogram, interpolated linearly inside the bucket."""
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
        frac = min(max(frac, 0.0), 1.0)
        lo, hi = HIST_EDGES_MS[i], HIST_UPPER_MS[i]
        out[j] = lo + (hi - lo) * frac
    return out
