"""The winner tree (kernels/winner.py) finds what a scan in index order with a strict ``<`` finds:
the earliest time, the lowest index among equals (the event engine's next transfer end)."""
import numpy as np
import pytest

from mcio.kernels.winner import winner_new, winner_set


@pytest.mark.parametrize("n", [1, 2, 3, 5, 16, 37, 256])
def test_winner_tree_root_is_the_scan_minimum(n):
    rng = np.random.default_rng(n)
    tw_t, tw_c = winner_new(n)
    times = np.full(n, np.inf)
    assert tw_t[1] == np.inf
    for _ in range(4000):
        i = int(rng.integers(0, n))
        # a coarse grid (ties common) and some INF (an idle link)
        v = np.inf if rng.random() < 0.2 else float(rng.integers(0, 8))
        times[i] = v
        winner_set(i, v, i, tw_t, tw_c)
        best = -1
        tn = np.inf
        for j in range(n):
            if times[j] < tn:
                tn, best = times[j], j
        assert tw_t[1] == tn
        if best >= 0:
            assert tw_c[1] == best


def test_winner_tree_orders_by_time_then_key():
    """With keys (the heap's event codes), ties in time go to the least key, whatever the index."""
    rng = np.random.default_rng(5)
    n = 11
    tw_t, tw_c = winner_new(n)
    t = np.full(n, np.inf)
    key = np.arange(n)
    for _ in range(3000):
        i = int(rng.integers(0, n))
        t[i] = float(rng.integers(0, 4))
        key[i] = int(rng.integers(0, 10**6))
        winner_set(i, t[i], key[i], tw_t, tw_c)
        best = min(range(n), key=lambda j: (t[j], key[j]))
        assert (tw_t[1], tw_c[1]) == (t[best], key[best])
