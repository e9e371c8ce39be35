"""The MSER warm-up diagnostic: finds a planted transient, and flags a run started cold."""
import numpy as np
from hypothesis import given, strategies as st

from mcio import simulate
from mcio.scenarios.ficon_channel import model as ficon
from mcio.warmup import batch_counts, mser_truncation


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


def test_cold_start_near_saturation_is_flagged_and_warm_start_is_not():
    m = ficon(population=578)          # 578 I/Os start together: a long transient
    # ~600-2000 completions of transient: at 20,000 I/Os a batch is 312, so MSER's cut spans
    # several batches (at 60,000 a batch of 938 is about the transient itself, and a one-batch
    # cut counts as adequate by the one-batch resolution rule: a coin toss)
    cold = simulate(m, ios=20_000, replications=2, warmup=0)
    warm = simulate(m, ios=20_000, replications=2, warmup=30_000)
    assert int(cold.warmup_adequate) == 0 and (cold.warmup_mser_ios.values > 0).all()
    assert int(warm.warmup_adequate) == 1


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
