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
