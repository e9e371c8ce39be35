"""HyperPAV: the aliases form one pool shared by every device (static PAV: a fixed number each)."""
import numpy as np

from mcio import Model, simulate
from mcio.model import effect
from oracle_models import se_from_ci


def _model(mode, aliases, devices=1, rate=3600.0, skew=None):
    dev = {"count": devices, "aliases": aliases, "alias_mode": mode}
    if skew:
        dev.update(skew)
    return Model.from_dict({
        "workload": {"type": "open", "rate_iops": rate},
        "io": [{"kb": 0.0, "miss_ratio": 1.0}], "devices": dev,
        "channels": {"mp_us_per_io_ccw": 0.0, "max_open_exchanges": 1000},
        "control_unit": {"backend_servers": 64,
                         "backend_service_ms": {"dist": "exponential", "mean": 1.0}}})


def test_one_device_pool_equals_static_aliases_bit_for_bit():
    # one device: a pool of 3 is exactly 3 aliases of its own (and the M/M/4 tests cover those)
    for aliases in (0, 3):
        rate = 700.0 if aliases == 0 else 3600.0
        a = simulate(_model("static", aliases, rate=rate), ios=20_000, replications=2, fast_path=False)
        with effect.deferred():   # (alias_mode without aliases is refused as without effect: it has none)
            b = simulate(_model("hyperpav", aliases, rate=rate), ios=20_000, replications=2, fast_path=False)
        for v in ("response_ms", "iosq_ms", "throughput_iops"):
            assert np.array_equal(a[v].values, b[v].values), v


def test_shared_pool_beats_the_same_aliases_fixed_per_device_under_skew():
    # 8 devices, one of them hot: 8 aliases pooled serve the hot device; 1 per device cannot
    skew = {"skew": "hotset", "hot_fraction": 0.125, "hot_share": 0.6}
    kw = dict(devices=8, rate=2400.0, skew=skew)
    static = simulate(_model("static", 1, **kw), ios=40_000, replications=8, fast_path=False)
    pooled = simulate(_model("hyperpav", 8, **kw), ios=40_000, replications=8, fast_path=False)
    gap = float(static.iosq_ms.mean() - pooled.iosq_ms.mean())
    se = np.hypot(se_from_ci(float(static.iosq_ci95_ms), static), se_from_ci(float(pooled.iosq_ci95_ms), pooled))
    assert gap > 5 * se, (gap, se)
    # both carry the offered load; Little's law holds for the IOSQ queue in the pooled case
    for ds in (static, pooled):
        assert abs(float(ds.throughput_iops.mean()) / 2400.0 - 1) < 0.02
    x = pooled.throughput_iops.values / 1000.0
    assert abs(float((pooled.iosq_queue_mean.values - x * pooled.iosq_ms.values).mean())) < 0.01


def test_a_pool_as_large_as_the_population_never_queues():
    m = Model.from_dict({
        "workload": {"type": "closed", "population": 12},
        "io": [{"kb": 0.0, "miss_ratio": 1.0}],
        "devices": {"count": 2, "aliases": 11, "alias_mode": "hyperpav", "skew": "zipf", "zipf_s": 2.0},
        "channels": {"mp_us_per_io_ccw": 0.0, "max_open_exchanges": 1000},
        "control_unit": {"backend_servers": 64, "backend_service_ms": {"dist": "exponential", "mean": 1.0}}})
    ds = simulate(m, ios=20_000, replications=2)
    assert float(ds.iosq_ms.max()) == 0.0
    tight = simulate(m.replace("devices.aliases", 2), ios=20_000, replications=2)
    assert float(tight.iosq_ms.mean()) > 0.1
