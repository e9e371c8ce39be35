"""Oracles for the configuration's links (issue 28): full duplex, links shared by several
channels' routes (ISLs), per-link rates, feature cards. Tables built with tests/links_tables.py."""
import numpy as np
import pytest

from links_tables import card, full_duplex, model, shared_isl, tables
from mcio import simulate

IOS = 20_000
R = 4


def _common(a, b):
    return [v for v in a.data_vars if v in b.data_vars]


def test_half_duplex_mix_is_todays_engine():
    """A half-duplex channel carries reads and writes on its one link: a read/write mix gives
    exactly the legacy results (the direction only picks the link)."""
    m = model(channels=2, population=16, classes=2)
    a = simulate(m, ios=IOS, replications=2, seed=3)
    b = simulate(m, ios=IOS, replications=2, seed=3, tables=tables(m, cls_dir=np.array([0, 1])))
    for v in _common(a, b):
        np.testing.assert_array_equal(a[v].values, b[v].values, err_msg=v)


def test_full_duplex_carries_twice_the_half_duplex_rate():
    """Saturated large transfers, 50/50 reads and writes: a half-duplex channel's data rate is
    its link's; a full-duplex one's up to twice it (each direction at the link's rate)."""
    m = model(channels=1, population=32, kb=256.0, link_mb_s=100.0, classes=2)
    half = simulate(m, ios=IOS, replications=R, seed=1, tables=tables(m, cls_dir=np.array([0, 1])))
    full = simulate(m, ios=IOS, replications=R, seed=1,
                    tables=full_duplex(tables(m, cls_dir=np.array([0, 1]))))
    mb_half = float(half.channel_mb_s.mean())
    mb_full = float(full.channel_mb_s.mean())
    assert mb_half == pytest.approx(100.0, rel=0.01)
    assert mb_full <= 200.0 * 1.001
    assert mb_full >= 180.0          # the mix's random runs of one direction idle the other a little
    # a read-only load on a full-duplex channel gets one direction only
    ro = simulate(m, ios=IOS, replications=2, seed=1, tables=full_duplex(tables(m)))
    assert float(ro.channel_mb_s.mean()) == pytest.approx(100.0, rel=0.01)


def test_isl_at_low_load_adds_only_its_transfer():
    """Two channels through one ISL at low load: an ISL at least as fast as the channels leaves
    connect as the channel alone gives it (within CI); a slower one paces the transfer alone
    (connect = protocol 0 + KB / ISL rate)."""
    m = model(channels=2, open_rate=50.0, kb=64.0, link_mb_s=100.0)
    alone = simulate(m, ios=IOS, replications=R, seed=1)
    fast = simulate(m, ios=IOS, replications=R, seed=1, tables=shared_isl(tables(m), [0, 1], 400.0)[0])
    tol = 4.0 * np.hypot(float(alone.connect_ci95_ms), float(fast.connect_ci95_ms)) + 1e-12
    assert abs(float(fast.connect_ms.mean()) - float(alone.connect_ms.mean())) <= tol
    assert float(alone.connect_ms.mean()) == pytest.approx(0.64, rel=0.01)
    slow = simulate(m, ios=IOS, replications=R, seed=1, tables=shared_isl(tables(m), [0, 1], 50.0)[0])
    assert float(slow.connect_ms.mean()) == pytest.approx(64.0 / 50.0, rel=0.1)
    assert float(slow.connect_ms.mean()) >= 64.0 / 50.0


def test_saturated_isl_caps_the_throughput_at_its_rate():
    """Two 100 MB/s channels saturated through a 120 MB/s ISL: together at most 120 MB/s, and
    close to it; the ISL's share splits evenly between them."""
    m = model(channels=2, population=32, kb=256.0, link_mb_s=100.0)
    ds = simulate(m, ios=IOS, replications=R, seed=1, tables=shared_isl(tables(m), [0, 1], 120.0)[0])
    tot = ds.channel_mb_s.sum("channel")
    assert float(tot.max()) <= 120.0 * 1.001
    assert float(tot.mean()) >= 0.99 * 120.0
    per = ds.channel_mb_s.mean("replication").values
    assert per == pytest.approx([60.0, 60.0], rel=0.02)


def test_a_link_that_never_paces_gives_the_single_link_engine():
    """An ISL far faster than everything (the general engine) gives the single-link engine's
    figures: the same events up to rounding (a tie between two ends may break the other way and
    the sample path part; the saturated figures stay within a fraction of a per mille)."""
    m = model(channels=2, population=32, kb=256.0, link_mb_s=100.0)
    a = simulate(m, ios=IOS, replications=2, seed=1)
    b = simulate(m, ios=IOS, replications=2, seed=1, tables=shared_isl(tables(m), [0, 1], 1e12)[0])
    for v in ("response_ms", "connect_ms", "throughput_iops", "channel_mb_s", "link_busy"):
        np.testing.assert_allclose(b[v].values, a[v].values, rtol=1e-3, err_msg=v)


@pytest.mark.parametrize("general", [False, True])
def test_each_channel_takes_its_own_link_rate(general):
    """Channels of 50 and 200 MB/s at low load: each one's link busy per I/O is its own KB /
    rate (single-link engine, and the general one behind a never-pacing ISL)."""
    m = model(channels=2, open_rate=50.0, kb=64.0, link_mb_s=100.0)
    T = tables(m, ln_kb_per_ms=np.array([50.0, 200.0]))
    if general:
        T = shared_isl(T, [0, 1], 1e12)[0]
    ds = simulate(m, ios=IOS, replications=R, seed=2, tables=T)
    busy_per_io_ms = (ds.link_busy / ds.channel_ssch_iops * 1000.0).mean("replication").values
    assert busy_per_io_ms == pytest.approx([64.0 / 50.0, 64.0 / 200.0], rel=0.02)
    assert float(ds.connect_ms.mean()) == pytest.approx(0.5 * (64.0 / 50.0 + 64.0 / 200.0), rel=0.03)


def test_card_start_limit_caps_its_channels():
    """Four channels (200,000 SSCH/s together, saturated) on a card of 100,000 starts/s: the
    total I/O rate is at most the card's and close to it; at low load the card adds its start
    work (plus a little wait) to pend, not to the CMR."""
    m = model(channels=4, population=64, kb=4.0, link_mb_s=800.0, mp_us=20.0)
    alone = simulate(m, ios=IOS, replications=2, seed=1)
    assert float(alone.throughput_iops.mean()) == pytest.approx(200_000.0, rel=0.01)
    ds = simulate(m, ios=IOS, replications=R, seed=1, tables=card(tables(m), [0, 1, 2, 3], start_ms=0.01))
    assert float(ds.throughput_iops.max()) <= 100_000.0 * 1.001
    assert float(ds.throughput_iops.mean()) >= 0.99 * 100_000.0
    lo = model(channels=4, open_rate=1000.0, kb=4.0, link_mb_s=800.0, mp_us=20.0)
    a = simulate(lo, ios=IOS, replications=R, seed=1)
    b = simulate(lo, ios=IOS, replications=R, seed=1, tables=card(tables(lo), [0, 1, 2, 3], start_ms=0.01))
    extra = float(b.pend_ms.mean() - a.pend_ms.mean())
    assert 0.01 <= extra <= 0.0105
    assert float(b.cmr_ms.mean()) == float(a.cmr_ms.mean())


def test_card_data_limit_caps_its_channels():
    """Four 800 MB/s channels saturated on a card of 300 MB/s: together at most 300 MB/s, close
    to it; a card holding two of them caps those two."""
    m = model(channels=4, population=64, kb=64.0, link_mb_s=800.0)
    ds = simulate(m, ios=IOS, replications=R, seed=1,
                  tables=card(tables(m), [0, 1, 2, 3], data_mb_s=300.0))
    tot = ds.channel_mb_s.sum("channel")
    assert float(tot.max()) <= 300.0 * 1.001
    assert float(tot.mean()) >= 0.99 * 300.0
    two = simulate(m, ios=IOS, replications=R, seed=1, tables=card(tables(m), [0, 1], data_mb_s=300.0))
    per = two.channel_mb_s.mean("replication").values
    assert per[0] + per[1] <= 300.0 * 1.001


def test_per_channel_mp_work_and_open_exchanges():
    """Per-channel tables: each channel's MP busy per I/O is its own MP work (20 and 60 us), and
    each channel's open exchanges stay within its own cap (2 and 8) under a saturating load."""
    m = model(channels=2, open_rate=200.0, kb=4.0, link_mb_s=800.0, mp_us=20.0)
    T = tables(m)
    mp = T.mp_ms.copy()
    mp[1] *= 3.0
    ds = simulate(m, ios=IOS, replications=R, seed=2, tables=tables(m, mp_ms=mp))
    busy_per_io_ms = (ds.channel_busy / ds.channel_ssch_iops * 1000.0).mean("replication").values
    assert busy_per_io_ms == pytest.approx([0.02, 0.06], rel=1e-6)
    sat = model(channels=2, population=40, kb=64.0, link_mb_s=100.0)
    ds = simulate(sat, ios=IOS, replications=2, seed=2, tables=tables(sat, ch_oe_cap=np.array([2, 8])))
    assert list(ds.open_exchanges_max.max("replication").values) == [2.0, 8.0]
