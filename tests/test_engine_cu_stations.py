"""The control unit's stations (host adapter, back end) on the Kiefer-Wolfowitz recursion.

An I/O's start and end at a station are computed when it arrives, so the stations need no event
of their own and their utilisation is the service assigned in the measurement window, corrected
at both ends by the work committed but not yet given (``stages.cu_committed``). Checked:

- exactly: a closed population that does nothing but host-adapter service keeps N servers busy
  all the time (N <= servers: the station never queues) or every server (N > servers), whatever
  the window's ends cut through, so the utilisation is N / servers or 1 to rounding;
- against Erlang C: a host adapter with c servers that can queue gives the M/M/c response as
  the CMR, and its utilisation the offered load (K standard errors, as test_engine_open_queues);
- a back end that can queue behind a host adapter (the EV_BE event) against M/M/c as well.
"""
import numpy as np
import pytest

from mcio import Model, simulate
from mcio import analytic as an
from oracle_models import se_multiplier, tolerance_se

REPS = 12
K = se_multiplier(REPS, checks=12)


def _ha_only(population: int, servers: int, service_ms: float, dist: str = "deterministic") -> Model:
    return Model.from_dict({
        "workload": {"type": "closed", "population": population, "think_ms": 0.0},
        "io": [{"kb": 0.0, "miss_ratio": 0.0}],
        "devices": {"count": 4, "aliases": 255},
        "channels": {"mp_us_per_io_ccw": 0.0, "max_open_exchanges": 100_000},
        "control_unit": {"ha_servers": servers, "ha_service_us": {"dist": dist, "mean": 1000 * service_ms}},
    })


@pytest.mark.parametrize("population,servers", [(5, 12), (12, 12), (8, 4), (30, 7)])
def test_host_adapter_utilisation_is_exact_at_any_window(population, servers):
    # 40 ms services and 300 I/Os: the window's ends cut through services in progress
    ds = simulate(_ha_only(population, servers, 40.0), ios=300, replications=3, seed=3, warmup=37,
                  fast_path=False)
    want = min(population, servers) / servers
    np.testing.assert_allclose(ds.cu_ha_busy.values, want, rtol=1e-9)
    if population <= servers:
        np.testing.assert_allclose(ds.cmr_ms.values, 40.0, rtol=1e-9)   # never queues


def _check(ds, comp, expected):
    se = tolerance_se(ds, comp)
    got = float(ds[f"{comp}_ms"].mean())
    assert abs(got - expected) <= K * se, f"{comp}: {got:.5f} vs {expected:.5f} ({K:.2f} SE = {K * se:.5f})"


@pytest.mark.parametrize("c,rho", [(1, 0.8), (3, 0.85)])
def test_host_adapter_that_queues_is_mmc(c, rho):
    s_ms = 1.0
    lam = rho * c / s_ms
    m = Model.from_dict({
        "workload": {"type": "open", "rate_iops": 1000 * lam},
        "io": [{"kb": 0.0, "miss_ratio": 0.0}],
        "devices": {"count": 1, "aliases": 255},
        "channels": {"mp_us_per_io_ccw": 0.0, "max_open_exchanges": 100_000},
        "control_unit": {"ha_servers": c, "ha_service_us": {"dist": "exponential", "mean": 1000 * s_ms}},
    })
    ds = simulate(m, ios=60_000, replications=REPS, seed=9, warmup=5000, fast_path=False)
    ref = an.mmc(lam, s_ms, c)
    _check(ds, "cmr", ref.mean_response)
    util = ds.cu_ha_busy.values.ravel()
    assert abs(util.mean() - rho) <= K * util.std(ddof=1) / np.sqrt(util.size) + 1e-12, (util.mean(), rho)


def test_back_end_that_queues_behind_a_host_adapter_is_mmc():
    # back end M/M/2 at rho 0.8 behind a fast host adapter (0.05 ms, 8 servers: no queue to speak of)
    c, s_ms, lam = 2, 1.0, 1.6
    m = Model.from_dict({
        "workload": {"type": "open", "rate_iops": 1000 * lam},
        "io": [{"kb": 0.0, "miss_ratio": 1.0}],
        "devices": {"count": 1, "aliases": 255},
        "channels": {"mp_us_per_io_ccw": 0.0, "max_open_exchanges": 100_000},
        "control_unit": {"ha_servers": 8, "ha_service_us": {"dist": "deterministic", "mean": 50.0},
                         "backend_servers": c, "backend_service_ms": {"dist": "exponential", "mean": s_ms}},
    })
    ds = simulate(m, ios=60_000, replications=REPS, seed=4, warmup=5000, fast_path=False)
    _check(ds, "disconnect", an.mmc(lam, s_ms, c).mean_response)
    np.testing.assert_allclose(ds.cmr_ms.values, 0.05, rtol=1e-9)
