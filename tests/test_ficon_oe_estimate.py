"""ficon-channel's ``open_exchanges_cu``: IBM's z9-era estimate of a channel's open exchanges
(activity rate x (CMR + CONN + DISC), 'FICON Express2 Channel Performance Version 1.0', p. 28),
derived from the run: equal to the formula on the run's own figures, and below the model's own
exchange count (which also holds the channel-side pend) once I/Os queue for the MP."""
import numpy as np
import pytest

from mcio.engine import simulate
from mcio.scenarios.ficon_channel import SCENARIO


@pytest.fixture(scope="module")
def row5():
    ds = simulate(SCENARIO.model("row5"), ios=4000, replications=2, seed=1, point=SCENARIO.stream("row5"))
    return ds, SCENARIO.derive("row5", ds)


def test_open_exchanges_cu_is_the_papers_formula(row5):
    ds, d = row5
    per_rep = ds.throughput_iops.values * (ds.cmr_ms + ds.connect_ms + ds.disconnect_ms).values / 1000.0
    assert d["open_exchanges_cu"][0] == pytest.approx(float(np.mean(per_rep)), rel=1e-12)


def test_it_leaves_out_the_channel_side_pend(row5):
    _, d = row5
    # N = 80 > the 48 exchanges: every exchange is open, part of them in pend (MP start queue)
    assert d["open_exchanges_mean"][0] == pytest.approx(48.0, abs=0.5)
    assert d["open_exchanges_cu"][0] < d["open_exchanges_mean"][0] - 3.0
