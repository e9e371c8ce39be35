"""The event engine survives a service time without end: an event at an infinite time (a card's
start work of 1000 / 5e-324 ms, which validation now refuses, crashed the kernels with a
segfault) ends the run with what it has, flagged unstable with the reason "stalled".

Validation keeps such inputs out (card max_iops >= 1e-3), so the test puts the infinite card
work straight into the packed tables."""
import sys

import numpy as np
import pytest

import mcio
from mcio.engine import pack_links
from mcio.scenarios import build_scenario


@pytest.mark.parametrize("start_ms", [np.inf, 1e308])
def test_infinite_card_work_stalls_without_crashing(monkeypatch, start_ms):
    original = pack_links.link_arrays

    def with_card(t):
        lk = list(original(t))
        object.__setattr__(t, "card_start_ms", np.array([start_ms]))    # one card, every channel on it
        lk[7] = (np.zeros(t.n_channels, np.int64), np.array([start_ms]))
        return tuple(lk)

    monkeypatch.setattr(sys.modules["mcio.engine.pack"], "link_arrays", with_card)
    ds = mcio.simulate(build_scenario("ficon-channel", {"population": 5}), ios=300, replications=2,
                       warmup=50, fast_path=False)
    assert int(ds.unstable) == 1
    assert ds.attrs["unstable_reason"].startswith("stalled")
    # the card never lets a start through: nothing completes after the first starts
    assert int(ds.ios_measured.sum()) == 0
