"""The channel MP's wake-up work (channels.mp_wake_us) and work order (channels.mp_order), each
checked against the law it obeys: the utilisation law with the wake-up counted once per piece of
work that finds the MP idle, and an order that only matters when work waits."""
import numpy as np
import pytest

from mcio import McioError, Model, simulate

W_US, WAKE_US = 50.0, 10.0


def _model(workload, **channels):
    return Model.from_dict({
        "workload": workload,
        "io": [{"kb": 4.0, "miss_ratio": 0.5}],
        "devices": {"count": 8, "aliases": 3},
        "channels": {"count": 1, "mp_us_per_io_ccw": W_US, "mp_start_fraction": 0.5, **channels},
        "control_unit": {"ha_servers": 4, "ha_service_us": 200.0, "backend_servers": 8,
                         "backend_service_ms": {"dist": "exponential", "mean": 1.0}}})


ONE_IN_FLIGHT = {"type": "closed", "population": 1, "think_ms": {"dist": "exponential", "mean": 1.0}}


def _busy_per_io_us(ds):
    """MP busy time per I/O (us): busy / rate, per replication."""
    return ds.channel_busy.sel(channel=0).values / ds.throughput_iops.values * 1e6


@pytest.mark.parametrize("start_fraction, pieces", [(0.5, 2), (1.0, 1)])
def test_wake_up_work_once_per_piece_when_the_mp_is_always_idle(start_fraction, pieces):
    # one I/O in flight: both its start and its end work find the MP idle, so with deterministic
    # work the MP is busy w + pieces x wake per I/O (the utilisation law, to the run's edges)
    ds = simulate(_model(ONE_IN_FLIGHT, mp_start_fraction=start_fraction, mp_wake_us=WAKE_US),
                  ios=5_000, replications=2)
    assert np.allclose(_busy_per_io_us(ds), W_US + pieces * WAKE_US, rtol=2e-3), _busy_per_io_us(ds)
    # and it sits in the I/O's path: pend (start) and connect (end) each take their piece's wake
    base = simulate(_model(ONE_IN_FLIGHT, mp_start_fraction=start_fraction), ios=5_000, replications=2)
    assert np.allclose(_busy_per_io_us(base), W_US, rtol=2e-3)
    assert float(ds.pend_ms.mean() - base.pend_ms.mean()) == pytest.approx(WAKE_US / 1000, rel=0.05)


def test_open_single_device_with_wake_up_stays_on_the_event_engine():
    # one device, no aliases, open: the fast path would apply, but it has no wake-up work
    m = Model.from_dict({"workload": {"type": "open", "rate_iops": 500.0}, "io": [{"kb": 4.0}],
                         "devices": {"count": 1},
                         "channels": {"mp_us_per_io_ccw": W_US, "mp_start_fraction": 0.5,
                                      "mp_wake_us": WAKE_US}})
    ds = simulate(m, ios=5_000, replications=2)
    assert np.allclose(_busy_per_io_us(ds), W_US + 2 * WAKE_US, rtol=2e-3)


def test_wake_up_work_under_poisson_load_obeys_pasta():
    # start work only, Poisson arrivals reaching the MP unchanged (no IOSQ: 256 devices with 3
    # aliases; no exchange cap): a start finds the MP idle with probability 1 - U (PASTA), so
    # U = rate (w + wake (1 - U)), i.e. U = rate (w + wake) / (1 + rate wake)
    rate = 8000.0
    m = Model.from_dict({"workload": {"type": "open", "rate_iops": rate}, "io": [{"kb": 4.0}],
                         "devices": {"count": 256, "aliases": 3},
                         "channels": {"mp_us_per_io_ccw": W_US, "mp_start_fraction": 1.0,
                                      "mp_wake_us": WAKE_US, "max_open_exchanges": 100_000}})
    ds = simulate(m, ios=40_000, replications=4)
    lam = ds.throughput_iops.values / 1e6                   # per us
    u = ds.channel_busy.sel(channel=0).values
    law = lam * (W_US + WAKE_US) / (1 + lam * WAKE_US)
    assert np.all(np.abs(u - law) < 0.003), (u, law)
    assert np.all(u - lam * W_US > 0.5 * lam * WAKE_US)      # the wake-up work is there ...
    assert np.all(u < lam * (W_US + WAKE_US) - 0.02)        # ... but not at every I/O


def test_wake_up_work_per_io_falls_with_load():
    # E[busy per I/O] = w + wake x (P(idle at a start) + P(idle at an end)): under load fewer
    # pieces find the MP idle
    per_io = []
    for rate in (1000.0, 12_000.0):
        ds = simulate(_model({"type": "open", "rate_iops": rate}, mp_wake_us=WAKE_US), ios=20_000,
                      replications=2)
        per_io.append(_busy_per_io_us(ds).mean() - W_US)
    low, high = per_io
    u_low = 1000.0 * (W_US + 2 * WAKE_US) * 1e-6
    assert 2 * WAKE_US * (1 - u_low) * 0.9 < low <= 2 * WAKE_US      # ~PASTA at the starts
    assert high < 0.75 * low


def test_fifo_order_changes_nothing_with_one_io_in_flight():
    a = simulate(_model(ONE_IN_FLIGHT), ios=5_000, replications=2)
    b = simulate(_model(ONE_IN_FLIGHT, mp_order="fifo"), ios=5_000, replications=2)
    for v in ("response_ms", "pend_ms", "connect_ms", "channel_busy", "throughput_iops"):
        assert np.array_equal(a[v].values, b[v].values), v


def test_fifo_order_moves_mp_waiting_from_pend_into_connect():
    # a busy MP (80 % of it): with end work first, waiting starts bear the queue (pend); in one
    # FIFO, end work waits behind starts too (connect)
    load = {"type": "closed", "population": 12, "think_ms": {"dist": "exponential", "mean": 0.2}}
    ef = simulate(_model(load, mp_us_per_io_ccw=100.0), ios=20_000, replications=2)
    ff = simulate(_model(load, mp_us_per_io_ccw=100.0, mp_order="fifo"), ios=20_000, replications=2)
    assert float(ef.channel_busy.mean()) > 0.7
    assert float(ff.connect_ms.mean()) > float(ef.connect_ms.mean()) + 0.05
    assert float(ff.pend_ms.mean()) < float(ef.pend_ms.mean()) - 0.05


def test_bad_order_or_negative_wake_up_is_refused():
    with pytest.raises(McioError):
        _model(ONE_IN_FLIGHT, mp_order="lifo")
    with pytest.raises(McioError):
        _model(ONE_IN_FLIGHT, mp_wake_us=-1.0)
