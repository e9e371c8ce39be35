"""The stream workload (mcio/stream.py): a job of R records in channel programs of at most k
records, N outstanding, CPU time between programs, on the generic I/O path."""
import math

import numpy as np
import pytest
from scipy import stats

from mcio import McioError
from mcio.model import Model
from mcio.stream import Stream, simulate_stream, stream_model

# ~4 standard errors: the Bonferroni-corrected two-sided t quantile for the few stochastic
# checks in this module at 6 replications (false alarm well under 1 %)
K = float(stats.t.ppf(1 - 0.01 / 2 / 4, 5))


def _base(channels=1, devices=1, selection="rotate", ch=None, cu=None):
    """A command-mode path: MP 20 us per I/O + 1 us per CCW, CMR 30 us, protocol 10 us and CU
    5 us per CCW, 800 MB/s links."""
    chan = {"count": channels, "link_mb_s": 800.0, "selection": selection, "mp_us_per_io_ccw": 20.0,
            "mp_us_per_command_ccw": 1.0, "mp_start_fraction": 0.5, "protocol_us_per_command_ccw": 10.0}
    chan.update(ch or {})
    unit = {"ha_service_us": 30.0, "cu_us_per_command_ccw": 5.0}
    unit.update(cu or {})
    return Model.from_dict({"devices": {"count": devices}, "channels": chan, "control_unit": unit})


@pytest.mark.parametrize("records, chain, ios, last", [
    (550442, 114, 4829, 550442 - 4828 * 114),
    (550398, 110, 5004, 68),
    (1000, 10, 100, 10),       # exact multiple: no partial chain
    (1001, 10, 101, 1),        # one record over: a last chain of one
    (7, 255, 1, 7),            # fewer records than the chain limit: one partial program
    (255, 255, 1, 255),
])
def test_io_count_is_ceil_of_records_over_chain(records, chain, ios, last):
    s = Stream(records=records, chain_records=chain)
    assert s.ios == math.ceil(records / chain) == ios
    assert s.last_chain_records == last
    assert sum(r * n for r, n in s.chains()) == records
    assert sum(n for _, n in s.chains()) == ios
    m = stream_model(_base(), s)
    shares = m.class_shares()
    assert [c["records"] for c in m.io] == [r for r, _ in s.chains()]
    # the class mix is the job's: I/Os x mean records per class = the records
    assert ios * sum(sh * c["records"] for sh, c in zip(shares, m.io)) == pytest.approx(records, rel=1e-12)
    assert all(c["kb"] == pytest.approx(c["records"] * 4.096) for c in m.io)


def test_stream_model_sets_a_closed_workload_with_the_cpu_as_think_time():
    s = Stream(records=1000, chain_records=100, outstanding=2, cpu_us_per_record=5.0, cpu_ms_per_program=0.2,
               cpu_scv=0.5)
    m = stream_model(_base(devices=2), s)
    assert m.workload["type"] == "closed" and m.workload["population"] == 2
    assert m.workload["think_ms"].mean == pytest.approx(0.2 + 5.0 * 100 / 1000)
    assert m.workload["think_ms"].kind == "gamma" and m.workload["think_ms"].scv == 0.5
    assert s.cpu_s == pytest.approx(10 * (0.2 + 0.5) / 1000)


def test_one_outstanding_deterministic_elapsed_is_cpu_plus_io_wait_exactly():
    """Everything deterministic and no partial chain: each cycle is think + response exactly."""
    base = _base()
    s = Stream(records=114 * 500, chain_records=114, cpu_us_per_record=7.0)
    ds = simulate_stream(base, s, ios=2000, replications=2, seed=1, warmup=100)
    # the hand calculation of one program: MP (20 + 1 x 114) us, CMR 30 us, protocol + CU
    # (10 + 5) x 114 us, transfer 114 x 4.096 KB at 800 KB/ms
    per_io = (20 + 114) / 1000 + 0.030 + 15 * 114 / 1000 + 114 * 4.096 / 800
    np.testing.assert_allclose(ds.ms_per_io, per_io, rtol=1e-9)
    np.testing.assert_allclose(ds.io_wait_s, 500 * per_io / 1000, rtol=1e-9)
    np.testing.assert_allclose(ds.elapsed_s, s.cpu_s + ds.io_wait_s, rtol=1e-9)
    np.testing.assert_allclose(ds.us_per_record, ds.io_wait_s / s.records * 1e6, rtol=1e-12)
    assert float(ds.cpu_s) == pytest.approx(114 * 500 * 7e-6)


def test_one_outstanding_stochastic_elapsed_is_cpu_plus_io_wait_in_expectation():
    """Random CPU gaps and CMR, a partial last chain: elapsed - I/O wait - CPU is 0 within the
    replications' sampling error (the simulated think mean is not the parameter exactly)."""
    base = _base(cu={"ha_service_us": {"dist": "exponential", "mean": 200.0}})
    s = Stream(records=100_003, chain_records=50, cpu_us_per_record=20.0, cpu_scv=1.0)
    ds = simulate_stream(base, s, ios=20_000, replications=6, seed=7)
    d = (ds.elapsed_s - ds.io_wait_s - s.cpu_s).values
    se = d.std(ddof=1) / math.sqrt(d.size)
    assert abs(d.mean()) <= K * se + 1e-9 * float(ds.elapsed_s.mean())
    # and it is not trivially zero: the CPU is a sizeable part of the elapsed time
    assert s.cpu_s / float(ds.elapsed_s.mean()) > 0.3


@pytest.mark.parametrize("n", [2, 4, 8])
def test_with_n_outstanding_and_ample_channels_elapsed_falls_n_fold(n):
    """One channel and one volume per stream (least-busy selection never puts two transfers on
    one link): nothing is shared, so the I/O rate is n times one stream's and elapsed falls n-fold."""
    s1 = Stream(records=114 * 400, chain_records=114, cpu_us_per_record=7.0)
    sn = Stream(records=114 * 400, chain_records=114, cpu_us_per_record=7.0, outstanding=n)
    one = simulate_stream(_base(channels=8, devices=8, selection="least_busy"), s1, ios=2000,
                          replications=2, seed=2, warmup=200)
    many = simulate_stream(_base(channels=8, devices=8, selection="least_busy"), sn, ios=2000,
                           replications=2, seed=2, warmup=200)
    np.testing.assert_allclose(many.elapsed_s, one.elapsed_s / n, rtol=1e-6)
    np.testing.assert_allclose(many.ms_per_io, one.ms_per_io, rtol=1e-6)   # no I/O waits for another
    # per stream, elapsed = CPU / n + I/O wait
    np.testing.assert_allclose(many.elapsed_s, sn.cpu_s / n + many.io_wait_s, rtol=1e-6)


def test_with_n_outstanding_on_one_link_elapsed_is_bounded_by_the_transfer():
    """Eight streams on one channel whose transfer dominates: the link is shared, so elapsed
    falls far less than eight-fold and never below the job's data over the link rate."""
    base = _base(channels=1, devices=8, ch={"link_mb_s": 100.0})
    s1 = Stream(records=64 * 500, chain_records=64, cpu_us_per_record=2.0)
    s8 = Stream(records=64 * 500, chain_records=64, cpu_us_per_record=2.0, outstanding=8)
    one = simulate_stream(base, s1, ios=2000, replications=2, seed=4, warmup=200)
    eight = simulate_stream(base, s8, ios=4000, replications=2, seed=4, warmup=400)
    data_s = s1.records * 4.096 / 100.0 / 1000.0          # KB / (KB/ms) -> s
    # (the measured interval opens with up to 8 transfers part-done: a relative slack of 8 / ios)
    assert float(eight.elapsed_s.min()) >= data_s * (1 - 8 / 4000)
    assert float(eight.elapsed_s.mean()) == pytest.approx(data_s, rel=0.01)    # the link is the limit
    assert float(eight.elapsed_s.mean()) > 2.0 * float(one.elapsed_s.mean()) / 8
    assert float(eight.link_busy.mean()) > 0.95


def test_bad_stream_input_names_the_field():
    with pytest.raises(McioError, match="stream.records"):
        Stream(records=0, chain_records=10)
    with pytest.raises(McioError, match="stream.chain_records"):
        Stream(records=10, chain_records=1.5)
    with pytest.raises(McioError, match="stream.miss_ratio"):
        Stream(records=10, chain_records=2, miss_ratio=1.5)
    with pytest.raises(McioError, match="stream.outstanding.*multiple"):
        stream_model(_base(devices=3), Stream(records=10, chain_records=2, outstanding=4))
    # fewer streams than volumes: stream i writes volume i, the others are idle
    m = stream_model(_base(devices=4), Stream(records=10, chain_records=2, outstanding=2))
    assert list(m.device_weights()) == [0.5, 0.5, 0.0, 0.0]
