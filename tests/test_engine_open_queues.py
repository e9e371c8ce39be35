"""The engine against open-queue closed forms: M/M/1, M/M/c (Erlang C), M/G/1, M/D/1.

Means must lie within K standard errors (from the replication CI) of the formula, K the
Bonferroni-corrected t quantile for the module's checks (oracle_models.se_multiplier, ~4.2);
quantiles within 1 % (the histogram's resolution) plus K standard errors of the per-replication
quantile.
"""
import numpy as np
import pytest

from mcio import simulate
from mcio import analytic as an
from oracle_models import se_from_ci, se_multiplier, single_server_open, tolerance_se

SERVICE_MS = 1.0
REPS = 24
K = se_multiplier(REPS, checks=100)   # SEs a mean may miss by (see oracle_models)


def _check_mean(ds, comp, expected):
    se = tolerance_se(ds, comp)
    got = float(ds[f"{comp}_ms"].mean())
    assert abs(got - expected) <= K * se, f"{comp}: {got:.5f} vs {expected:.5f} ({K:.2f} SE = {K * se:.5f})"


@pytest.mark.parametrize("engine", ["fast", "event"])
@pytest.mark.parametrize("rho", [0.3, 0.7, 0.9])
def test_mm1_mean_and_quantiles(rho, engine):
    m = single_server_open(rho * 1000 / SERVICE_MS, {"dist": "exponential", "mean": SERVICE_MS})
    ios = 1_000_000 if engine == "fast" else 200_000
    ds = simulate(m, ios=ios, replications=REPS, seed=11, warmup=5000, fast_path=(engine == "fast"))
    assert ds.attrs["engine"].startswith("fast") == (engine == "fast")
    ref = an.mm1(rho / SERVICE_MS, SERVICE_MS)
    _check_mean(ds, "response", ref.mean_response)
    _check_mean(ds, "iosq", ref.mean_wait)
    _check_mean(ds, "disconnect", SERVICE_MS)
    se_q = se_from_ci(ds.response_quantile_ci95_ms.values, ds)
    for i, p in enumerate(ds["quantile"].values):
        if p > 0.99:
            continue
        exact = an.mm1_response_quantile(rho / SERVICE_MS, SERVICE_MS, p)
        got = float(ds.response_quantile_ms[i])
        assert abs(got - exact) <= 0.01 * exact + K * se_q[i], (p, got, exact)
    thr = float(ds.throughput_iops.mean())
    assert abs(thr - rho * 1000) <= K * se_from_ci(float(ds.throughput_ci95_iops), ds) + 1e-9


@pytest.mark.parametrize("c", [1, 4, 64])
@pytest.mark.parametrize("rho", [0.3, 0.7, 0.9])
def test_mmc_event_engine_back_end(c, rho):
    """c back-end servers behind a device with enough aliases: the back end is M/M/c."""
    lam = rho * c / SERVICE_MS
    m = single_server_open(lam * 1000, {"dist": "exponential", "mean": SERVICE_MS}, servers=c, aliases=255)
    ds = simulate(m, ios=40_000, replications=REPS, seed=5, warmup=5000, fast_path=False)
    ref = an.mmc(lam, SERVICE_MS, c)
    _check_mean(ds, "disconnect", ref.mean_response)
    _check_mean(ds, "response", ref.mean_response)
    util = float(ds.backend_busy.mean())
    assert abs(util - rho) < 0.02


@pytest.mark.parametrize("c", [4, 64])
def test_mmc_fast_path_kiefer_wolfowitz(c):
    """c exposures of one device, nothing else contended: the device is M/M/c (IOSQ = wait)."""
    lam = 0.9 * c / SERVICE_MS
    m = single_server_open(lam * 1000, {"dist": "exponential", "mean": SERVICE_MS}, servers=c, aliases=c - 1)
    ds = simulate(m, ios=400_000, replications=REPS, seed=7, warmup=5000)
    assert ds.attrs["engine"].startswith("fast")
    ref = an.mmc(lam, SERVICE_MS, c)
    _check_mean(ds, "iosq", ref.mean_wait)
    _check_mean(ds, "response", ref.mean_response)


@pytest.mark.parametrize("engine", ["fast", "event"])
@pytest.mark.parametrize("kind,scv", [("deterministic", 0.0), ("gamma", 2.5), ("lognormal", 4.0)])
def test_mg1_pollaczek_khinchine(kind, scv, engine):
    service = {"dist": kind, "mean": SERVICE_MS} if kind == "deterministic" else \
        {"dist": kind, "mean": SERVICE_MS, "scv": scv}
    m = single_server_open(700.0, service)
    ds = simulate(m, ios=500_000 if engine == "fast" else 100_000, replications=REPS, seed=3,
                  warmup=5000, fast_path=(engine == "fast"))
    ref = an.mg1(0.7, SERVICE_MS, scv)
    _check_mean(ds, "iosq", ref.mean_wait)
    _check_mean(ds, "response", ref.mean_response)


def test_fast_and_event_engines_agree_on_a_full_single_device_path():
    """One device, every component on: both engines estimate the same means (within CIs)."""
    from mcio import Model
    m = Model.from_dict({
        "workload": {"type": "open", "rate_iops": 300, "arrival_scv": 2.0},
        "io": [{"kb": 8, "records": 2, "miss_ratio": 0.4}, {"kb": 64, "share": 0.2, "miss_ratio": 0.0}],
        "devices": {"count": 1},
        "channels": {"mp_us_per_io_ccw": 50, "mp_us_per_command_ccw": 10, "mp_scv": 0.5,
                     "mp_start_fraction": 0.6, "zhpf_share": 0.5, "link_mb_s": 200,
                     "protocol_us_per_command_ccw": 30, "protocol_us_per_io_zhpf": 20},
        "control_unit": {"ha_service_us": {"dist": "gamma", "mean": 200, "scv": 0.5},
                         "backend_service_ms": {"dist": "exponential", "mean": 2.0}},
    })
    fast = simulate(m, ios=20_000, replications=REPS, seed=1, fast_path=True)
    ev = simulate(m, ios=20_000, replications=REPS, seed=2, fast_path=False)
    for comp in ("response", "iosq", "pend", "cmr", "disconnect", "connect"):
        a, b = float(fast[f"{comp}_ms"].mean()), float(ev[f"{comp}_ms"].mean())
        se = np.hypot(tolerance_se(fast, comp), tolerance_se(ev, comp))
        assert abs(a - b) <= K * se + 1e-9, (comp, a, b, se)
    for var in ("channel_busy", "link_busy", "device_busy", "device_busy_zvm"):
        a, b = float(fast[var].mean()), float(ev[var].mean())
        assert abs(a - b) < 0.01 + 0.02 * a, (var, a, b)
    # one device: busy (z/VM) is the server utilisation X * (pend + disc + conn), busy (RMF) omits pend
    x = float(ev.throughput_iops.mean()) / 1000.0
    svc = float((ev.pend_ms + ev.disconnect_ms + ev.connect_ms).mean())
    assert abs(float(ev.device_busy_zvm.mean()) - x * svc) < 0.01
    assert abs(float(ev.device_busy.mean()) - x * float((ev.disconnect_ms + ev.connect_ms).mean())) < 0.01


def test_unstable_open_load_is_flagged_and_stopped():
    m = single_server_open(1200.0, {"dist": "exponential", "mean": SERVICE_MS})
    for fp in (True, False):
        ds = simulate(m, ios=10_000_000, replications=2, allow_unstable=True, fast_path=fp)
        assert int(ds.unstable) == 1
        assert "over capacity" in ds.attrs["unstable_reason"]
        assert float(ds.ios_measured.max()) < 10_000_000


def test_overload_only_visible_at_run_time_is_flagged():
    """Mean demands fit (8 back-end servers at 79 %), but one open exchange lets only one I/O
    in flight: the static check passes, the queue grows, the pool overflows, the flag is set."""
    from mcio import Model
    m = Model.from_dict({"workload": {"type": "open", "rate_iops": 900.0},
                         "io": [{"kb": 0.0, "miss_ratio": 1.0}], "devices": {"count": 8},
                         "channels": {"mp_us_per_io_ccw": 0.0, "max_open_exchanges": 1},
                         "control_unit": {"backend_servers": 8, "backend_service_ms": 7.0}})
    assert m.open_bottleneck()[1] < 1
    ds = simulate(m, ios=500_000, replications=2, allow_unstable=True)
    assert int(ds.unstable) == 1 and "pool" in ds.attrs["unstable_reason"]
    stable = simulate(m.replace("channels.max_open_exchanges", 8), ios=20_000, replications=2)
    assert int(stable.unstable) == 0
