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
