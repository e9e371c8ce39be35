"""The 95 % confidence intervals cover the true mean about 95 % of the time.

Over K independent seeds the number of covering intervals is Binomial(K, 0.95) if the intervals
are right; the test fails when the count falls below that distribution's 0.1 % quantile.
"""
from scipy import stats

from mcio import simulate
from mcio import analytic as an
from mcio.analytic import mva_closed
from oracle_models import CLOSED_DEMANDS_MS as D, THINK_MS, closed_network, single_server_open


def _min_covering(k: int) -> int:
    return int(stats.binom.ppf(0.001, k, 0.95))


def test_ci95_coverage_fast_path_mm1():
    k = 120
    true = an.mm1(0.5, 1.0).mean_response
    m = single_server_open(500.0, {"dist": "exponential", "mean": 1.0})
    hits = 0
    for seed in range(k):
        ds = simulate(m, ios=20_000, replications=5, seed=seed, warmup=2000)
        hits += abs(float(ds.response_ms.mean()) - true) <= float(ds.response_ci95_ms)
    assert hits >= _min_covering(k), hits
    assert hits < k      # intervals that always cover are too wide to be 95 % intervals


def test_ci95_coverage_event_engine_closed_network():
    k = 40
    at = mva_closed(10, [D["mp"], D["ha"], D["be"], D["link"]], "queue", think_time=THINK_MS).at(10)
    m = closed_network(10)
    hits = 0
    for seed in range(k):
        ds = simulate(m, ios=5_000, replications=5, seed=seed, warmup=1000)
        hits += abs(float(ds.response_ms.mean()) - at["response"]) <= float(ds.response_ci95_ms)
    assert hits >= _min_covering(k), hits
