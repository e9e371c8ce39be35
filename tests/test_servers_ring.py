"""The servers' free-time ring (kernels/servers.py) against a sorted list: the same earliest
free time after every Kiefer-Wolfowitz step, for 1 to 20 servers, ties and large jumps included."""
import numpy as np
import pytest

from mcio.kernels.servers import earliest, earliest_replace


@pytest.mark.parametrize("n", [1, 2, 3, 12, 20])
def test_ring_keeps_the_multiset_of_free_times_sorted(n):
    rng = np.random.default_rng(n)
    ring = np.zeros(n)
    head = np.zeros(2, np.int64)
    ref = [0.0] * n
    t = 0.0
    for _ in range(4000):
        t += rng.exponential(0.3)
        svc = float(rng.choice([0.0, 1.0, rng.exponential(2.0)]))   # ties: equal service times
        f = earliest(ring, head, 1)
        assert f == ref[0]
        start = max(t, f)
        earliest_replace(ring, n, head, 1, start + svc)
        ref = sorted(ref[1:] + [start + svc])
        logical = [ring[(head[1] + j) % n] for j in range(n)]
        assert logical == ref
    assert head[0] == 0                       # another station's head is not touched
