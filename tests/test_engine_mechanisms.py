"""Mechanisms of the I/O path that no closed form covers end to end: device skew, path groups,
channel selection, device binding, z/HPF, arrival traces. Each is checked against the law it obeys."""
import numpy as np
import pytest

from mcio import McioError, Model, simulate
from mcio.model import effect


def _model(**sections):
    base = {"workload": {"type": "open", "rate_iops": 2000.0},
            "io": [{"kb": 4.0, "miss_ratio": 0.5}],
            "devices": {"count": 8},
            "channels": {"count": 2, "mp_us_per_io_ccw": 50.0},
            "control_unit": {"ha_servers": 4, "ha_service_us": 50.0, "backend_servers": 8,
                             "backend_service_ms": {"dist": "exponential", "mean": 1.0}}}
    for k, v in sections.items():
        base[k] = {**base[k], **v} if isinstance(v, dict) else v
    if base["workload"]["type"] == "closed":   # (a rate without effect is refused: mcio/model/effect.py)
        base["workload"].pop("rate_iops", None)
    return Model.from_dict(base)


@pytest.mark.parametrize("skew", [{"skew": "zipf", "zipf_s": 1.2}, {"skew": "hotset", "hot_fraction": 0.25, "hot_share": 0.9}])
def test_device_access_follows_the_skew(skew):
    m = _model(devices={"count": 8, **skew})
    ds = simulate(m, ios=40_000, replications=4, per_device=True)
    rates = ds.device_ssch_iops.mean("replication").values
    share = rates / rates.sum()
    w = m.device_weights()
    n = 4 * 40_000
    assert np.all(np.abs(share - w) <= 4 * np.sqrt(w * (1 - w) / n) + 1e-12), (share, w)


def test_path_groups_route_devices_to_their_channels():
    # devices 0-5 reach only channel 0, devices 6-7 only channel 1: channel shares are 3/4, 1/4
    m = _model(devices={"count": 8, "paths": [[0]] * 6 + [[1]] * 2})
    ds = simulate(m, ios=40_000, replications=4)
    ch = ds.channel_ssch_iops.mean("replication").values
    assert abs(ch[0] / ch.sum() - 0.75) < 4 * np.sqrt(0.75 * 0.25 / 160_000)


@pytest.mark.parametrize("selection", ["rotate", "least_busy"])
def test_channel_selection_balances_a_symmetric_group(selection):
    m = _model(channels={"count": 2, "mp_us_per_io_ccw": 50.0, "selection": selection})
    ds = simulate(m, ios=40_000, replications=4)
    busy = ds.channel_busy.mean("replication").values
    assert abs(busy[0] - busy[1]) < 0.01
    # utilisation law per channel: busy = rate x MP work
    assert abs(busy.sum() - 2.0 * 0.05) < 0.005


def test_open_exchange_cap_defers_and_bounds_exchanges():
    m = _model(channels={"count": 1, "mp_us_per_io_ccw": 50.0, "max_open_exchanges": 2})
    ds = simulate(m, ios=40_000, replications=4)
    assert float(ds.open_exchanges_max.max()) == 2
    assert float(ds.deferred_iops.mean()) > 0
    assert float(ds.open_exchanges_mean.mean()) <= 2


def test_device_binding_keeps_one_io_per_device_and_skips_unused():
    m = _model(workload={"type": "closed", "population": 3, "binding": "device"},
               devices={"count": 4, "skew": "weights", "weights": [0, 1, 1, 1]})
    ds = simulate(m, ios=20_000, replications=2, per_device=True)
    rates = ds.device_ssch_iops.mean("replication").values
    assert rates[0] == 0 and (rates[1:] > 0).all()
    assert float(ds.iosq_ms.max()) == 0.0          # one I/O per device: never queued for it
    with pytest.raises(McioError, match="multiple"):
        m.replace("workload.population", 4)


def test_zhpf_share_changes_mp_work_by_the_utilisation_law():
    for share in (0.0, 1.0):
        with effect.deferred():   # (both modes' costs set, one in use: the other's is refused as without effect)
            m = _model(channels={"count": 1, "mp_us_per_io_ccw": 60.0, "mp_us_per_io_zhpf": 20.0,
                                 "zhpf_share": share})
        ds = simulate(m, ios=30_000, replications=2)
        work_ms = 0.06 if share == 0 else 0.02
        assert abs(float(ds.channel_busy.mean()) - 2.0 * work_ms) < 0.004


def test_arrival_trace_is_replayed():
    # evenly spaced arrivals, service 0.5 of the gap: D/D/1 never queues
    times = [i * 2.0 for i in range(100)]
    m = Model.from_dict({"workload": {"type": "open", "arrival_trace_ms": times},
                         "io": [{"kb": 0.0, "miss_ratio": 1.0}], "devices": {"count": 1},
                         "channels": {"mp_us_per_io_ccw": 0.0},
                         "control_unit": {"backend_service_ms": 1.0}})
    for fp in (True, False):
        ds = simulate(m, ios=10_000, replications=2, fast_path=fp)
        assert float(ds.iosq_ms.max()) == 0.0
        assert abs(float(ds.response_ms.mean()) - 1.0) < 1e-9
        assert abs(float(ds.throughput_iops.mean()) - 500.0) < 1.0
    with pytest.raises(McioError, match="must not decrease"):
        m.replace("workload.arrival_trace_ms", [0.0, 2.0, 1.0])
    with pytest.raises(McioError, match="arrival_trace_ms"):
        simulate(m.replace("workload.arrival_trace_ms", [0.0, 0.5, 1.0]), ios=100, replications=2)


@pytest.mark.parametrize("fast", [True, False])
def test_histogram_and_sums_hold_only_measured_ios(fast):
    # a warm-up of several variate blocks: none of its I/Os may reach the histogram or the sums
    from mcio.engine import run_kernels
    from mcio.kernels import layout as L
    from oracle_models import single_server_open
    m = single_server_open(700.0, {"dist": "exponential", "mean": 1.0})
    ios, warm = 3_001, 1_337
    acc, chs, devs, hist, bat = run_kernels(m, ios, 2, seed=5, warmup=warm, point=0, fast_path=fast)
    assert np.all(acc[:, L.A_N] == ios)
    assert np.all(hist.sum(axis=1) == ios)
    assert np.all(chs[:, 0, L.C_SSCH] == ios)


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("warm", [0, 5, 300])
def test_counts_agree_when_a_run_stops_early_or_ends_mid_block(fast, warm):
    # rho 1.4: the queue outgrows the model and the run stops wherever that happens (mid-block
    # on the fast path); the histogram, the I/O count and the SSCH count must still agree
    from mcio.engine import run_kernels
    from mcio.kernels import layout as L
    from oracle_models import single_server_open
    m = single_server_open(1400.0, {"dist": "exponential", "mean": 1.0})
    acc, chs, devs, hist, bat = run_kernels(m, 200_000, 2, seed=3, warmup=warm, point=0, fast_path=fast)
    assert np.all(acc[:, L.A_UNSTABLE] == 1.0)
    assert np.all(acc[:, L.A_N] < 200_000)
    assert np.all(hist.sum(axis=1) == acc[:, L.A_N])
    assert np.all(chs[:, 0, L.C_SSCH] == acc[:, L.A_N])
    # and a stable run whose length is no multiple of the block: every I/O counted once
    m = single_server_open(500.0, {"dist": "exponential", "mean": 1.0})
    acc, chs, devs, hist, bat = run_kernels(m, 1_001, 2, seed=3, warmup=warm, point=0, fast_path=fast)
    assert np.all(acc[:, L.A_N] == 1_001) and np.all(hist.sum(axis=1) == 1_001)
