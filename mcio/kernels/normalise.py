"""The output contract's per-replication normalisations (``mcio.kernels.stats``) as one kernel:
a point's rows of figures from its accumulators in one call, where one NumPy operation per
figure cost ~0.3-0.5 ms a point (a tenth of a fast-path grid point here).

Each value is computed as ``mcio.engine.results`` did with NumPy, operation for operation (each
rounded once, no fused multiply-add, no reordering: no fast-math), so the results are the same
to the bit."""
import math


from .options import JIT, njit

# the normalisation of a row (mcio.engine.results maps stats' names to these)
N_PER_IO, N_STD_PER_IO, N_PER_MS, N_PER_S, N_COUNT, N_INTERVAL_S = range(6)


@njit(**JIT)
def normalise_rows(a, n, t, slots, norms, ofs, div, out):
    """Rows of figures from accumulators: for row k, replication r and column x,
    ``out[k, r, x] = norm_k(a[r, x, slots[k]]) / div[k]``, with norm_k by ``norms[k]``:

    - N_PER_IO: a / n[r]; N_STD_PER_IO: sqrt(max(a / n[r] - (a[.., ofs[k]] / n[r])**2, 0));
    - N_PER_MS: a / t[r]; N_PER_S: a / t[r] * 1000; N_COUNT: a; N_INTERVAL_S: t[r] / 1000.

    ``a`` float64[R, X, N] (per replication, X columns: 1, channels or devices; N slots),
    ``n`` and ``t`` float64[R] (I/Os measured, at least 1; interval ms, above 0), ``slots``,
    ``norms`` and ``ofs`` int64[K], ``div`` float64[K] (1.0 where a figure is not divided:
    exact), ``out`` float64[K, R, X]."""
    K = slots.shape[0]
    R = a.shape[0]
    X = a.shape[1]
    for k in range(K):
        s = slots[k]
        code = norms[k]
        d = div[k]
        for r in range(R):
            nr = n[r]
            tr = t[r]
            for x in range(X):
                v = a[r, x, s]
                if code == N_PER_IO:
                    y = v / nr
                elif code == N_STD_PER_IO:
                    q = a[r, x, ofs[k]] / nr
                    y = v / nr - q * q
                    if y < 0.0:   # (NumPy's maximum: NaN and -0.0 stay)
                        y = 0.0
                    y = math.sqrt(y)
                elif code == N_PER_MS:
                    y = v / tr
                elif code == N_PER_S:
                    y = v / tr * 1000.0
                elif code == N_COUNT:
                    y = v
                else:
                    y = tr / 1000.0
                out[k, r, x] = y / d
