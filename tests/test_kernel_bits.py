"""kernels/bits.py: bit patterns of doubles, and the (time, key) order of the winner trees in one
128-bit compare, against Python's own comparison of the pairs."""
import numba as nb
import numpy as np

from mcio.kernels.bits import bits_float, float_bits, pair_before


@nb.njit
def _before_all(t, k, out):
    for i in range(t.shape[0]):
        for j in range(t.shape[0]):
            out[i, j] = pair_before(float_bits(t[i]), k[i], float_bits(t[j]), k[j])


@nb.njit
def _round_trip(t, out):
    for i in range(t.shape[0]):
        out[i] = bits_float(float_bits(t[i]))


def _pairs():
    """Times >= 0 (zero, a subnormal, ties, large, INF) and keys >= 0 (ties, a 63-bit one)."""
    rng = np.random.default_rng(3)
    t = np.concatenate(([0.0, 5e-324, 1.0, 1.0, np.nextafter(1.0, 2.0), 1e300, np.inf, np.inf],
                        rng.integers(0, 4, 40).astype(float), rng.exponential(1.0, 20)))
    k = np.concatenate(([0, 3, 2, 3, 0, 2**62 + 1, 0, 7], rng.integers(0, 3, 40),
                        rng.integers(0, 2**63 - 1, 20, dtype=np.int64)))
    return t, k.astype(np.int64)


def test_pair_before_is_time_then_key_order():
    t, k = _pairs()
    got = np.zeros((t.size, t.size), dtype=np.bool_)
    _before_all(t, k, got)
    want = np.array([[(t[i], k[i]) < (t[j], k[j]) for j in range(t.size)] for i in range(t.size)])
    assert (got == want).all()
    assert got.sum() > 0 and (~got).sum() > t.size        # both outcomes, not a constant


def test_bits_round_trip_is_exact():
    t, _ = _pairs()
    out = np.empty_like(t)
    _round_trip(t, out)
    assert (out.view(np.int64) == t.view(np.int64)).all()
