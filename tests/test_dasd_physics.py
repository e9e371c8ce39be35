"""Seek, rotational latency and transfer against their formulas; the positional disconnect
distribution against its exact mean and the uniform latency it discretises."""
import numpy as np
import pytest

from mcio import McioError
from mcio.dasd import (EMULATED3390, IBM3390, SeekCurve, channel_transfer_ms, positional_disconnect,
                       random_distance_pmf, seek_curve_for_average)


def test_seek_curve_formula():
    s = SeekCurve(2.0, 0.5)
    assert s.seek_ms(0) == 0.0
    assert s.seek_ms(1) == pytest.approx(2.5)
    assert s.seek_ms(100) == pytest.approx(7.0)
    np.testing.assert_allclose(s.seek_ms([0, 4, 9]), [0.0, 3.0, 3.5])
    with pytest.raises(McioError, match="distance_cyl"):
        s.seek_ms(-1)


def test_random_distance_pmf_matches_two_uniform_cylinders():
    n = 50
    p = random_distance_pmf(n)
    assert p.sum() == pytest.approx(1.0)
    rng = np.random.default_rng(7)
    d = np.abs(rng.integers(0, n, 200_000) - rng.integers(0, n, 200_000))
    freq = np.bincount(d, minlength=n) / d.size
    se = np.sqrt(p * (1 - p) / d.size)
    assert np.all(np.abs(freq - p) < 5 * se + 1e-12)
    # mean distance of random access: (n^2 - 1) / (3 n)
    assert np.dot(p, np.arange(n)) == pytest.approx((n * n - 1) / (3 * n))


def test_seek_curve_for_average_reproduces_the_average():
    s = seek_curve_for_average(12.5, 2.0, 3339)
    assert s.mean_ms(random_distance_pmf(3339)) == pytest.approx(12.5)
    assert 15.0 < s.seek_ms(3338) < 30.0        # a full stroke: longer than average, same order


def test_latency_alone_is_uniform_over_a_revolution_with_mean_half():
    d = positional_disconnect([1.0], SeekCurve(2.0, 0.3), IBM3390, latency_points=64)
    assert d.mean == pytest.approx(IBM3390.revolution_ms / 2)
    vals = np.sort(np.asarray(d.values))
    # the discrete CDF is within one slice of Uniform(0, rev) everywhere
    cdf = np.arange(1, vals.size + 1) / vals.size
    assert np.max(np.abs(cdf - vals / IBM3390.revolution_ms)) <= 1.0 / 64 + 1e-12
    # second moment: uniform's rev^2/3, up to the midpoint rule's rev^2/(12 m^2)
    m2 = np.mean(vals**2)
    assert m2 == pytest.approx(IBM3390.revolution_ms**2 / 3 - IBM3390.revolution_ms**2 / (12 * 64**2))


def test_disconnect_mean_is_seek_plus_half_revolution_plus_extra():
    s = seek_curve_for_average(12.5, 2.0, 3339)
    p = random_distance_pmf(1113)
    for extra in (0.0, 11.7):
        d = positional_disconnect(p, s, IBM3390, extra_ms=extra)
        assert d.mean == pytest.approx(s.mean_ms(p) + 7.1 + extra, rel=1e-12)
        assert min(d.values) >= extra
    assert positional_disconnect(p, s, EMULATED3390, extra_ms=0.3).mean == 0.3


def test_transfer_times():
    assert IBM3390.data_transfer_ms(49_152) == pytest.approx(49_152 / 4200.0)      # 11.70 ms
    assert channel_transfer_ms(49_152, 17.0) == pytest.approx(2.8913, abs=1e-4)
    # a 4 KB record's footprint (143 cells of 34 bytes) is longer than its data at the same rate
    assert IBM3390.record_footprint_ms(4096) == pytest.approx(143 * 34 / 4200.0)
    assert IBM3390.record_footprint_ms(4096) > IBM3390.data_transfer_ms(4096)
    with pytest.raises(McioError, match="link_mb_s"):
        channel_transfer_ms(1.0, 0.0)
