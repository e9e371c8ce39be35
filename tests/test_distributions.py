"""The kernels' samplers draw from the distributions they claim (Kolmogorov-Smirnov against scipy).

Every model duration goes through ``sample_st``; an error in a ziggurat table or a gamma branch
would bias every result, so each kind is checked on 200,000 draws: the KS distance must stay under
the 0.1 % critical value (1.95 / sqrt(n)), and the sample mean within 5 SE of the mean.
"""
import math

import numba as nb
import numpy as np
import pytest
from scipy import stats

from mcio.engine import _dist_row, stream_states
from mcio.kernels.dists import sample_st
from mcio.model import Dist

N = 200_000


@nb.njit(cache=True)
def _draw(dp, ev, ec, state, n):
    out = np.empty(n)
    a, b, c, d = state[0], state[1], state[2], state[3]
    for i in range(n):
        out[i], a, b, c, d = sample_st(a, b, c, d, dp, 0, ev, ec)
    return out


def _samples(dist: Dist, seed: int = 1) -> np.ndarray:
    ev, ec = [], []
    dp = np.array([_dist_row(dist, ev, ec)])
    return _draw(dp, np.asarray(ev or [0.0]), np.asarray(ec or [1.0]), stream_states(seed, 0, 1)[0], N)


CASES = [
    (Dist("exponential", 2.0, 1.0), stats.expon(scale=2.0)),
    (Dist("gamma", 1.5, 0.5), stats.gamma(a=2.0, scale=0.75)),          # shape >= 1
    (Dist("gamma", 1.0, 4.0), stats.gamma(a=0.25, scale=4.0)),          # shape < 1: the boost
    (Dist("gamma", 80.0, 8.9), stats.gamma(a=1 / 8.9, scale=80.0 * 8.9)),  # the FICON MP work
    (Dist("lognormal", 3.0, 2.0), stats.lognorm(s=math.sqrt(math.log(3.0)),
                                                scale=3.0 / math.sqrt(3.0))),
]


@pytest.mark.parametrize("dist,ref", CASES, ids=lambda x: getattr(x, "kind", ""))
def test_sampler_matches_its_distribution(dist, ref):
    x = _samples(dist)
    assert (x > 0).all()
    ks = stats.kstest(x, ref.cdf).statistic
    assert ks < 1.95 / math.sqrt(N), ks
    assert abs(x.mean() - dist.mean) < 5 * x.std() / math.sqrt(N)


def test_empirical_and_deterministic():
    d = Dist.parse("x", {"dist": "empirical", "values": [0.5, 1.5, 6.0], "weights": [5, 3, 1]})
    x = _samples(d)
    freq = np.array([(x == v).mean() for v in (0.5, 1.5, 6.0)])
    p = np.array([5, 3, 1]) / 9
    assert np.all(np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / N))
    assert (_samples(Dist("deterministic", 2.5)) == 2.5).all()


def test_streams_differ_by_seed_and_repeat_by_seed():
    a, b = _samples(Dist("exponential", 1.0), 1), _samples(Dist("exponential", 1.0), 2)
    assert not np.array_equal(a, b)
    assert np.array_equal(a, _samples(Dist("exponential", 1.0), 1))
    assert abs(np.corrcoef(a[:-1], a[1:])[0, 1]) < 5 / math.sqrt(N)     # no lag-1 correlation


# ---- uniform: the kind added as one layer (model/dist.py, kernels/dists.py, kernels/blockrng.py)


def test_uniform_parses_by_its_ends_and_round_trips():
    d = Dist.parse("x", {"dist": "uniform", "low": 1.0, "high": 5.0})
    assert (d.kind, d.low, d.high, d.mean) == ("uniform", 1.0, 5.0, 3.0)
    assert d.scv == pytest.approx((4.0**2 / 12) / 9.0)
    assert Dist.parse("x", d.to_toml()) == d
    assert d.scaled(1e-3).low == 1e-3 and d.scaled(1e-3).high == 5e-3
    assert Dist.parse("x", {"dist": "uniform", "low": 2.0, "high": 2.0}) == Dist("deterministic", 2.0, 0.0)
    from mcio import McioError
    for bad, field in (({"low": 3.0, "high": 1.0}, "x.high"), ({"high": 1.0}, "x.low"),
                       ({"low": -1.0, "high": 1.0}, "x.low"), ({"low": 0.0, "high": 1.0, "mean": 0.5}, "x.mean")):
        with pytest.raises(McioError, match=field.replace(".", r"\.")):
            Dist.parse("x", {"dist": "uniform", **bad})


def test_uniform_sampler_matches_scipy():
    d = Dist.parse("x", {"dist": "uniform", "low": 0.0, "high": 14.2})   # one 3390 revolution, ms
    ref = stats.uniform(loc=0.0, scale=14.2)
    x = _samples(d)
    assert ((x > 0.0) & (x < 14.2)).all()
    assert stats.kstest(x, ref.cdf).statistic < 1.95 / math.sqrt(N)
    # mean and variance within 5 standard errors (var of the sample variance: (mu4 - s^4) / n)
    assert abs(x.mean() - ref.mean()) < 5 * ref.std() / math.sqrt(N)
    mu4 = 14.2**4 / 80
    assert abs(x.var() - ref.var()) < 5 * math.sqrt((mu4 - ref.var() ** 2) / N)


def test_uniform_block_fill_matches_scipy():
    from mcio.kernels.blockrng import row_keys
    from mcio.kernels.blockrng import LANES, fill_row, make_streams
    lanes = np.empty((1, 4, LANES), np.uint64)
    scal = np.empty((1, 4), np.uint64)
    make_streams(stream_states(4, 0, 1)[0], row_keys(("test.uniform",)), lanes, scal)
    d = Dist.uniform(2.0, 3.5)
    dp = np.array([_dist_row(d, [], [])])
    out = np.empty(N)
    fill_row(lanes, scal, dp, 0, np.zeros(1), np.ones(1), out, N)
    ref = stats.uniform(loc=2.0, scale=1.5)
    assert ((out > 2.0) & (out <= 3.5)).all()
    assert stats.kstest(out, ref.cdf).statistic < 1.95 / math.sqrt(N)
    assert abs(out.mean() - ref.mean()) < 5 * ref.std() / math.sqrt(N)


@pytest.mark.parametrize("scv", [5e-324, 1e-300, 1e-16])
def test_gamma_below_the_least_scv_is_its_mean(scv):
    """A gamma whose SCV is below GAMMA_MIN_SCV (found by the spec fuzzer: arrival_scv = 5e-324
    made the shape 1 / scv infinite, every gap infinite, no I/O measured) is drawn as its mean;
    one just above stays a gamma with a finite shape."""
    from mcio import Model, simulate
    from mcio.model.dist import GAMMA_MIN_SCV, KIND_CODE
    row = Dist("gamma", 20.0, scv).kernel_row([], [])
    assert row[:3] == [float(KIND_CODE["deterministic"]), 20.0, 0.0]
    above = Dist("gamma", 20.0, GAMMA_MIN_SCV).kernel_row([], [])
    assert above[0] == KIND_CODE["gamma"] and math.isfinite(above[3]) and above[4] > 0.0
    m = Model.from_dict({"workload": {"type": "open", "rate_iops": 50.0, "arrival_scv": scv},
                         "io": [{"kb": 4.0}], "devices": {"count": 1}, "channels": {"count": 1},
                         "control_unit": {"ha_service_us": 20.0}})
    ds = simulate(m, ios=30, replications=2, warmup=0, seed=0)
    assert np.isfinite(ds.response_ms.values).all() and (ds.ios_measured.values == 30).all()
