"""The servers' free times (kernels/servers.py) against a sorted list: the same start after
every Kiefer-Wolfowitz step, scan (up to SCAN_MAX servers; ``kw_start_side_by_side``: from 4, four
side by side, so every remainder of c over 4 is here) and heap (above) alike, with ties."""
import numpy as np
import pytest

from mcio.kernels.servers import SCAN_MAX, kw_start, kw_start_side_by_side


@pytest.mark.parametrize("side_by_side", [True, False])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 7, 8, 9, 12, 15, SCAN_MAX, SCAN_MAX + 1, 40])
def test_kw_start_is_the_earliest_free_server(n, side_by_side):
    rng = np.random.default_rng(n)
    free_t = np.zeros(n)
    ref = [0.0] * n
    t = 0.0
    for _ in range(4000):
        t += rng.exponential(0.3)
        svc = float(rng.choice([0.0, 1.0, rng.exponential(2.0 * n / 12)]))   # ties: equal services
        start = (kw_start_side_by_side if side_by_side else kw_start)(free_t, n, t, svc)
        assert start == max(t, ref[0])
        ref = sorted(ref[1:] + [start + svc])
        assert sorted(free_t) == ref
