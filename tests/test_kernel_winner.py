"""The winner tree (kernels/winner.py) finds what a scan in index order with a strict ``<`` finds:
the earliest time, the lowest index among equals (the event engine's next transfer end)."""
import numpy as np
import pytest

from mcio.kernels.winner import winner_lower, winner_new, winner_set


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


@pytest.mark.parametrize("n", [1, 2, 5, 16, 37])
def test_winner_lower_keeps_every_node_the_earlier_of_its_children(n):
    """winner_lower (an idle item gets a time: the climb stops where it loses) mixed with
    winner_set leaves every node whose subtree holds a finite time equal to the earlier of its
    two children by (time, key), and the root the least pair of all, as a scan finds it."""
    rng = np.random.default_rng(10 + n)
    tw_t, tw_c = winner_new(n)
    m = tw_t.shape[0] // 2
    t = np.full(n, np.inf)
    key = np.arange(n)
    lowered = 0
    for _ in range(3000):
        i = int(rng.integers(0, n))
        v = float(rng.integers(0, 6))          # a coarse grid: ties common
        k = int(rng.integers(0, 50))
        if t[i] == np.inf:
            winner_lower(i, v, k, tw_t, tw_c)
            lowered += 1
        else:
            v = np.inf if rng.random() < 0.5 else v      # an item goes idle half the time
            k = i if v == np.inf else k
            winner_set(i, v, k, tw_t, tw_c)
        t[i], key[i] = v, k
        for node in range(m - 1, 0, -1):
            a, b = 2 * node, 2 * node + 1
            best = min((tw_t[a], tw_c[a]), (tw_t[b], tw_c[b]))
            if best[0] < np.inf:
                assert (tw_t[node], tw_c[node]) == best
        finite = [(t[j], key[j]) for j in range(n) if t[j] < np.inf]
        if finite:
            assert (tw_t[1], tw_c[1]) == min(finite)
        else:
            assert tw_t[1] == np.inf
    assert lowered > 300
