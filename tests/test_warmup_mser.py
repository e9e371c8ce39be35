"""The MSER warm-up diagnostic: finds a planted transient, and flags a run started cold."""
import numpy as np
from hypothesis import given, strategies as st

from mcio import simulate
from mcio.scenarios.ficon_channel import model as ficon
from mcio.warmup import batch_counts, cut_exceeds, judge_warmup, mser_truncation, truncation_effect, warmup_short


def test_mser_finds_a_planted_transient():
    rng = np.random.default_rng(0)
    y = np.r_[np.linspace(20.0, 2.0, 8), 1.0 + 0.1 * rng.standard_normal(56)]
    assert 7 <= mser_truncation(y) <= 9
    assert mser_truncation(1.0 + 0.1 * rng.standard_normal(64)) <= 8     # stationary: little to cut


@given(total=st.integers(1, 10**12), k=st.integers(1, 200), frac=st.floats(0, 1))
def test_batch_counts_partition_the_completions(total, k, frac):
    done = int(total * frac)
    c = batch_counts(total, done, k)
    assert c.sum() == done and (c >= 0).all()
    full = batch_counts(total, total, k)
    assert full.max() - full.min() <= 1


def _judge(model, ios, warmup, R, seed):
    """The diagnostic on one point's kernels (as the engine applies it): fires?"""
    from mcio.engine import fast_path_applies
    from mcio.engine.run import run_kernels
    from mcio.kernels import layout as S
    acc, _, _, _, bat = run_kernels(model, ios, R, seed, warmup, seed, fast_path_applies(model))
    rec, short = judge_warmup(bat, warmup, ios, warmup + acc[:, S.A_N])
    m_w, m_c, var_w, rec2 = truncation_effect(bat, warmup + ios, warmup + acc[:, S.A_N], warmup)
    assert (rec2 == rec).all() and short == bool(warmup_short(m_w, m_c, var_w, cut_exceeds(rec, warmup, ios)))
    return short, rec


def test_cold_start_with_a_big_population_is_flagged_and_warm_start_is_not():
    m = ficon(population=578)          # 578 I/Os start together: a transient of ~600-2000 completions
    # at 5,000 measured I/Os the transient biases the mean by ~3.7 standard errors: flagged at
    # most points (80 %: benchmarks/warmup_false_alarms.py); after a long warm-up, at none
    cold = [_judge(m, 5_000, 0, 4, s) for s in range(8)]
    assert sum(c[0] for c in cold) >= 5 and all((c[1] > 0).all() for c in cold)
    assert not any(_judge(m, 5_000, 30_000, 4, s)[0] for s in range(8))


def test_stationary_points_are_not_flagged_though_mser_cuts_past_the_warm_up():
    """M/M/1 at several loads with a warm-up far past its transient: the old rule (MSER's cut
    beyond the warm-up in any replication) fired on a third of such points; the new one on none."""
    from mcio.scenarios import SCENARIOS
    old = new = 0
    for rho in (0.1, 0.5, 0.8, 0.9):
        m = SCENARIOS["mm1-demo"]().replace("workload.rate_iops", 1000.0 * rho)
        for seed in range(10):
            short, rec = _judge(m, 12_500, 1_250, 4, seed)
            new += short
            old += bool(cut_exceeds(rec, 1_250, 12_500).any())
    assert new == 0 and old >= 10, (new, old)


def test_the_rule_needs_most_replications_and_a_shift_beyond_bias_z_standard_errors():
    m_w = np.array([[10.0, 10.2, 9.9, 10.1]] * 4)   # standard error of the mean: 0.065
    var = np.full((4, 4), 0.01)
    shift = np.array([[0.1] * 4, [1.0] * 4, [1.0] * 4, [1.0] * 4])[:, :, None][:, :, 0]
    ex = np.array([[1, 1, 1, 1], [1, 1, 1, 1], [1, 0, 0, 0], [1, 1, 0, 0]], bool)
    got = warmup_short(m_w, m_w - shift, var, ex)
    # small shift: no; big shift in all / in one / in half the replications
    assert got.tolist() == [False, True, False, True]
    assert warmup_short(m_w[:1], m_w[:1] - 1.0, var[:1] * 1e4, ex[:1]).tolist() == [False]  # within the noise


def test_when_it_fires_the_sweep_prints_one_line_with_count_largest_warmup_and_key():
    import xarray as xr
    from mcio.cli.whatif import diagnostics
    rate = np.linspace(100.0, 800.0, 7) / 3          # float-noise coordinates
    ok = np.array([1, 0, 1, 0, 0, 1, 1], np.int8)
    rec = np.arange(7 * 4).reshape(7, 4) * 100
    ds = xr.Dataset({"warmup_adequate": (("rate",), ok), "warmup_mser_ios": (("rate", "replication"), rec)},
                    coords={"rate": rate})
    lines = [ln for ln in diagnostics(ds) if "warm-up" in ln]
    assert len(lines) == 1, lines
    assert "at 3 of 7 point(s)" in lines[0] and "[run] warmup" in lines[0], lines
    assert f"at least {rec[4].max()} I/Os" in lines[0], lines
    assert "first: point rate=72.2222;" in lines[0] and "72.22222" not in lines[0], lines


def _mser_by_definition(means):
    """The first d <= n // 2 minimising sum_{i >= d} (y_i - mean_d)^2 / (n - d)^2, one d at a time."""
    n = len(means)
    stats = [float(((means[d:] - means[d:].mean()) ** 2).sum()) / (n - d) ** 2 for d in range(n // 2 + 1)]
    return int(np.argmin(stats))


def test_every_replication_at_once_is_mser_by_its_definition():
    """mser_warmup_ios (all replications that completed alike in one table) against MSER's
    definition applied replication by replication, with some replications cut short."""
    from mcio.warmup import MSER_BATCHES, mser_warmup_ios
    rng = np.random.default_rng(5)
    for t in range(300):
        R, total = 4, int(rng.integers(1_000, 100_000))
        done = np.full(R, total)
        if t % 3 == 0:
            done[rng.integers(0, R)] = int(rng.integers(0, total))
        y = rng.standard_normal((R, MSER_BATCHES)) * 0.3 + 2 + 4 * np.exp(-np.arange(MSER_BATCHES) / rng.uniform(1, 15))
        counts = np.array([batch_counts(total, int(d)) for d in done])
        got = mser_warmup_ios(y * counts, total, done)
        for r in range(R):
            full = counts[r] > 0
            want = -1 if full.sum() < 10 else int(counts[r][full][:_mser_by_definition(y[r, full])].sum())
            assert got[r] == want, (t, r)
