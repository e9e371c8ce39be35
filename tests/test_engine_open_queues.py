"""Open queues beyond the closed forms: the two engines agree on a full single-device path (K
standard errors of the difference, K the Bonferroni-corrected t quantile, oracle_models.se_multiplier),
and an unstable load is flagged and stopped. The checks against M/M/1, M/M/c (Erlang C) and M/G/1
are rows of the oracle table (tests/oracle_models.ORACLES, tests/test_oracles.py)."""
import numpy as np

from mcio import simulate
from oracle_models import se_multiplier, single_server_open, tolerance_se

SERVICE_MS = 1.0
REPS = 24
K = se_multiplier(REPS, checks=100)   # SEs a mean may miss by (see oracle_models)


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
