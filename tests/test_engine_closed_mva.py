"""Little's law and the utilisation law on the event engine (its checks against exact MVA are rows
of the oracle table: tests/oracle_models.ORACLES, tests/test_oracles.py)."""
import numpy as np

from mcio import simulate
from oracle_models import se_multiplier, ficon_like

REPS = 24
K = se_multiplier(REPS, checks=40)   # SEs a mean may miss by (see oracle_models)


def _little(lhs: np.ndarray, rhs: np.ndarray, rel_edge: float = 2e-3):
    """Little's law per replication, within K SE of the differences plus a window-edge term."""
    diff = lhs - rhs
    se = diff.std(ddof=1) / np.sqrt(len(diff))
    assert abs(diff.mean()) <= K * se + rel_edge * abs(rhs.mean()), (lhs, rhs)


def test_littles_law_for_system_queues_and_exchanges():
    ds = simulate(ficon_like(population=40, channels=2), ios=15_000, replications=REPS, seed=9)
    x = ds.throughput_iops.values / 1000.0                      # per ms
    _little(ds.in_system_mean.values, x * ds.response_ms.values)
    _little(ds.iosq_queue_mean.values, x * ds.iosq_ms.values)
    # the model defers I/Os for want of an exchange (cap 8): the check must see real queueing
    assert float(ds.deferred_iops.sum("channel").mean()) > 0
    assert float(ds.iosq_ms.mean()) > 0


def test_littles_law_open_exchanges_without_deferral():
    """With no deferral an exchange is held from channel start to end: pend + disconnect + connect."""
    m = ficon_like(population=12, channels=2).replace("channels.max_open_exchanges", 1000)
    ds = simulate(m, ios=15_000, replications=REPS, seed=4)
    assert float(ds.deferred_iops.sum()) == 0.0
    held = ds.pend_ms + ds.disconnect_ms + ds.connect_ms
    oe = ds.open_exchanges_mean.sum("channel").values
    _little(oe, ds.throughput_iops.values / 1000.0 * held.values)
    assert (ds.open_exchanges_max.values <= 12).all()


def test_channel_busy_is_mp_work_rate():
    """Utilisation law: channel busy summed over channels = X * mean MP work per I/O."""
    m = ficon_like(population=30, channels=2)
    ds = simulate(m, ios=15_000, replications=REPS, seed=21)
    x = float(ds.throughput_iops.mean()) / 1000.0
    assert abs(float(ds.channel_busy.sum("channel").mean()) - x * m.mean_demands_ms()["mp"]) < 0.01
    assert 0 < float(ds.link_busy.mean()) < float(ds.channel_busy.mean()) * 10
