"""The servers' free times (kernels/servers.py) against a sorted list: the same start after
every Kiefer-Wolfowitz step, scan (up to SCAN_MAX servers) and heap (above) alike, with ties."""
import numpy as np
import pytest

from mcio.kernels.servers import SCAN_MAX, kw_start


@pytest.mark.parametrize("n", [1, 2, 3, 12, SCAN_MAX, SCAN_MAX + 1, 40])
def test_kw_start_is_the_earliest_free_server(n):
    rng = np.random.default_rng(n)
    free_t = np.zeros(n)
    ref = [0.0] * n
    t = 0.0
    for _ in range(4000):
        t += rng.exponential(0.3)
        svc = float(rng.choice([0.0, 1.0, rng.exponential(2.0 * n / 12)]))   # ties: equal services
        start = kw_start(free_t, n, t, svc)
        assert start == max(t, ref[0])
        ref = sorted(ref[1:] + [start + svc])
        assert sorted(free_t) == ref
