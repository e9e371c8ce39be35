"""The block histogram (``hist_add_sums``: buckets by a branch-free vectorised loop, then the
counts) counts every value into the same bucket as ``hist_add`` one at a time, edge values
included: below HIST_LO_MS, NaN, negative zero, the overflow edge, infinities, subnormals."""
import numba as nb
import numpy as np

from mcio.kernels.histogram import (HIST_BUCKETS, HIST_HI_MS, HIST_LO_MS, hist_add, hist_add_sums,
                                    hist_bucket)


@nb.njit   # no cache: Numba would not notice an edit to histogram, whose code is inlined here
def _one_by_one(h, a, b):
    for j in range(a.shape[0]):
        hist_add(h, a[j] + b[j])


def test_block_histogram_is_the_one_by_one_histogram():
    edges = np.array([0.0, -0.0, -1.0, np.nan, np.inf, -np.inf, HIST_LO_MS, np.nextafter(HIST_LO_MS, 0.0),
                      HIST_HI_MS, np.nextafter(HIST_HI_MS, 0.0), 1e300, 5e-324, 1.0, 10.0])
    rng = np.random.default_rng(3)
    a = np.concatenate([edges, rng.exponential(10.0, 20_000), 10.0 ** rng.uniform(-20, 20, 20_000)])
    b = np.concatenate([np.zeros(edges.size), rng.exponential(1.0, 40_000)])
    ref = np.zeros(HIST_BUCKETS, np.int64)
    _one_by_one(ref, a, b)
    got = np.zeros(HIST_BUCKETS, np.int64)
    keys = np.empty(a.size, np.int64)
    hist_add_sums(got, a, b, 0, 7, keys)          # two calls: a range that starts inside
    hist_add_sums(got, a, b, 7, a.size, keys)
    assert np.array_equal(got, ref)
    # every bucket the edges name is the scalar rule's
    assert [int(k) for k in keys[:edges.size]] == [hist_bucket(x) for x in edges]
    assert ref[0] >= 7 and ref[-1] >= 4                    # the under- and overflow buckets are hit


def test_quantiles_of_many_histograms_at_once_are_those_of_each():
    """hist_quantiles_rows (the engine's, all replications in one call) equals hist_quantiles row
    by row, to the bit: empty rows (NaN), one full bucket, mass in the first bucket, spread."""
    from mcio.kernels.histogram import HIST_BUCKETS, hist_quantiles, hist_quantiles_rows
    rng = np.random.default_rng(11)
    H = np.zeros((6, HIST_BUCKETS), np.int64)
    H[1, 17] = 3
    H[2, 0], H[2, 5] = 10, 1
    np.add.at(H[3], rng.integers(0, HIST_BUCKETS, 4000), 1)
    np.add.at(H[4], rng.integers(200, 260, 50), 1)
    H[5, HIST_BUCKETS - 1] = 2
    probs = (0.0, 0.5, 0.9, 0.95, 0.99, 1.0)
    want = np.array([hist_quantiles(h, probs) for h in H])
    got = hist_quantiles_rows(H, probs)
    assert np.isnan(got[0]).all()
    np.testing.assert_array_equal(got, want)


def test_the_engines_quantile_kernel_gives_the_numpy_quantiles_to_the_bit():
    """hist_quantiles_into (the engine's: every replication and their sum, in one kernel call)
    gives hist_quantiles_rows' values of the rows and of their sum, bit for bit (NaN of empty
    histograms included), and those are hist_quantiles' row by row: empty, under- and overflow
    only, one bucket, spread, counts near a million, one to six replications."""
    from mcio.kernels.histogram import HIST_BUCKETS, hist_quantiles, hist_quantiles_into, hist_quantiles_rows
    rng = np.random.default_rng(5)
    probs = np.array((0.5, 0.9, 0.95, 0.99, 0.0, 1.0, 0.3))
    for trial in range(60):
        R = int(rng.integers(1, 7))
        H = np.zeros((R, HIST_BUCKETS), np.int64)
        for r in range(R):
            kind = (trial + r) % 5
            if kind == 0:
                np.add.at(H[r], rng.integers(0, HIST_BUCKETS, 50), rng.integers(0, 5, 50))
            elif kind == 1:
                np.add.at(H[r], rng.integers(1000, 1100, 500), 1)
            elif kind == 3:
                H[r, 0], H[r, -1] = rng.integers(0, 3), rng.integers(0, 3)
            elif kind == 4:
                H[r, rng.integers(0, HIST_BUCKETS, 3)] = rng.integers(1, 10**6, 3)
        rep, pooled = np.empty((R, probs.size)), np.empty(probs.size)
        hist_quantiles_into(H, probs, rep, pooled)
        both = np.vstack([H, H.sum(axis=0)])
        want = hist_quantiles_rows(both, probs)
        assert np.vstack([rep, pooled]).tobytes() == want.tobytes(), trial
        np.testing.assert_array_equal(want, [hist_quantiles(h, probs) for h in both])
