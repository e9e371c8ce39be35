"""mcio compare: common random numbers make the paired CI of a difference far narrower than the
unpaired one, and the paired difference still covers the closed-form difference."""
import numpy as np
import pytest

from mcio import McioError
from mcio.compare import compare, format_compare, paired_ci95
from mcio.scenarios import build_scenario
from oracle_models import se_multiplier


def test_paired_ci95_by_hand():
    a = np.array([1.0, 2.0, 3.0, 4.0])
    b = a + np.array([0.1, 0.2, 0.1, 0.2])
    d, p, u = paired_ci95(a, b)
    assert d == pytest.approx(0.15)
    assert p == pytest.approx(3.182446305284263 * np.std([0.1, 0.2, 0.1, 0.2], ddof=1) / 2)
    assert u > 10 * p


def test_identical_models_differ_by_exactly_zero():
    m = build_scenario("mm1-demo", {"rate_iops": 400.0})
    ds = compare(m, m, ios=5_000, replications=3)
    assert np.all(ds["diff"].values == 0) and np.all(ds.diff_ci95.values == 0)


def test_paired_difference_covers_the_closed_form_and_beats_unpaired():
    # M/M/1 with S = 1 ms at 500 and 600 SSCH/s: responses 2.0 and 2.5 ms, difference 0.5 ms
    a = build_scenario("mm1-demo", {"rate_iops": 500.0})
    b = build_scenario("mm1-demo", {"rate_iops": 600.0})
    ds = compare(a, b, ios=60_000, replications=8, seed=4)
    r = ds.sel(figure="response_ms")
    k = se_multiplier(8, 2) / 2.365     # CI half-width -> Bonferroni-corrected band
    assert abs(float(r["diff"]) - 0.5) <= k * float(r.diff_ci95) + 0.005
    assert float(r.diff_ci95) < 0.6 * float(r.diff_ci95_unpaired)


def test_ficon_variants_paired_ci_is_narrower():
    a = build_scenario("ficon-channel", {"population": 26})
    b = build_scenario("ficon-channel", {"population": 26, "zhpf_share": 0.2})
    ds = compare(a, b, ios=10_000, replications=4, seed=3, labels=("ccw", "zhpf20"))
    r = ds.sel(figure="response_ms")
    assert float(r["diff"]) < 0                      # z/HPF's lighter MP work shortens pend
    assert float(r.diff_ci95) < 0.5 * float(r.diff_ci95_unpaired)
    assert "zhpf20 - ccw" in format_compare(ds)


def test_compare_needs_models_and_three_replications():
    m = build_scenario("mm1-demo")
    with pytest.raises(McioError, match="compare.B"):
        compare(m, "x")
    with pytest.raises(McioError, match="at least 3"):
        compare(m, m, replications=2)
