"""Warm-up diagnostics: MSER on the batch means of each replication's response-time series.

The kernels sum response times into K equal batches of completions over the whole run (warm-up
included). MSER (White, 1997) picks the truncation d that minimises the standard error of the
mean of what remains, sum_{i>d} (Y_i - mean_d)^2 / (n - d)^2, over d <= n/2. If the truncation
MSER wants is longer than the fixed warm-up used, the estimates may carry initial-state bias.

MSER's cut alone is no diagnostic: on a stationary run it follows the noise and passes the
warm-up in a quarter to two thirds of the points (more as the load grows). :func:`warmup_short`
asks more: the cut passes the warm-up in most replications AND dropping it moves the point's mean
by more than 2.5 standard errors; its false-alarm and detection rates are measured by
benchmarks/warmup_false_alarms.py (figures in benchmarks/README.md).
"""
from __future__ import annotations

import functools

import numpy as np

MSER_BATCHES = 64


def batch_counts(total: int, done: int, k: int = MSER_BATCHES) -> np.ndarray:
    """Completions in each batch when completion i (< done) goes to batch i * k // total."""
    edges = -(-np.arange(k + 1, dtype=np.int64) * total // k)      # ceil(j * total / k)
    edges = np.minimum(edges, done)
    return np.diff(edges)


def mser_truncations(means: np.ndarray) -> np.ndarray:
    """:func:`mser_truncation` of each row of ``means`` (float64[R, n]): int64[R]. Every
    candidate d of every row at once, as an (R, n//2 + 1, n) table (one row per d, the deleted
    batches masked): a Python loop over d cost as much per replication as a fast-path point's
    kernels."""
    y = np.asarray(means, dtype=float)
    n = y.shape[1]
    kept, after, kept_sq = _mser_table(n)
    mean_d = np.cumsum(y[:, ::-1], axis=1)[:, ::-1][:, : len(kept)] / kept          # [R, d]
    dev = np.where(after, y[:, None, :] - mean_d[:, :, None], 0.0)                  # [R, d, n]
    stat = (dev * dev).sum(axis=2) / kept_sq
    return np.argmin(stat, axis=1)


@functools.lru_cache(maxsize=16)
def _mser_table(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For n batches and each candidate d (0 .. n // 2): the batches kept (n - d, int64), the
    mask of the batches at or after d (bool[1, d, n]), (n - d)**2 as floats. Read-only: shared."""
    d = np.arange(n // 2 + 1)
    kept = n - d
    out = (kept, np.arange(n)[None, None, :] >= d[None, :, None], kept.astype(float) ** 2)
    for a in out:
        a.flags.writeable = False
    return out


def mser_truncation(means: np.ndarray) -> int:
    """Number of leading batches MSER would delete (0 .. n // 2): the first d minimising
    sum_{i>=d} (y_i - mean_d)^2 / (n - d)^2."""
    return int(mser_truncations(np.asarray(means, dtype=float)[None, :])[0])


def mser_warmup_ios(bat_sums: np.ndarray, total: int, done: np.ndarray) -> np.ndarray:
    """Per replication: the warm-up (in I/Os) MSER recommends; -1 where too few batches ran.
    Replications that completed alike (usually all) share their batch counts and one call."""
    out = np.full(bat_sums.shape[0], -1, dtype=np.int64)
    done = np.asarray(done).astype(np.int64)
    for n_done in sorted(set(done.tolist())):
        rows = np.flatnonzero(done == n_done)
        full, counts, cum = _full_batches(int(total), int(n_done))
        if len(counts) < 10:
            continue
        means = bat_sums[np.ix_(rows, full)] / counts
        out[rows] = cum[mser_truncations(means)]
    return out


@functools.lru_cache(maxsize=64)
def _full_batches(total: int, done: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Of :func:`batch_counts` ``(total, done)``: which batches hold completions (bool[k]), their
    counts, and the completions before each of them and in all (int64[n + 1]). Read-only."""
    counts = batch_counts(total, done)
    full = counts > 0
    out = (full, counts[full], np.concatenate([[0], np.cumsum(counts[full])]))
    for a in out:
        a.flags.writeable = False
    return out


# ---- the diagnostic: is the warm-up too short for the precision the run reports? -------------


def cut_exceeds(mser_ios: np.ndarray, warmup: int, ios: int) -> np.ndarray:
    """Per replication (last axis): MSER's recommended warm-up passes ``warmup`` by more than one
    batch of the ``warmup + ios`` completions the batches cover (bool, same shape)."""
    total = int(warmup) + int(ios)
    return np.asarray(mser_ios) > int(warmup) + total // MSER_BATCHES + 1


def truncation_effect(bat_sums: np.ndarray, total: int, done: np.ndarray, warmup: int,
                      rec: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per replication, from its batch sums (float64[R, 64] over ``total`` = warm-up + measured
    completions, ``done[r]`` of them run): the mean after the warm-up, the mean after MSER's cut
    where that is later, the variance of the first mean estimated from its batch means
    (s^2 / batches), and MSER's recommended warm-up (I/Os; -1, and NaN figures, where fewer than
    10 batches ran). Means in the unit of the sums (the kernels': ms), at batch resolution (the
    batches that start at or after the warm-up or the cut). ``rec``: :func:`mser_warmup_ios` of
    the same batches, if the caller has it."""
    bat_sums = np.asarray(bat_sums, dtype=float)
    R = bat_sums.shape[0]
    done = np.asarray(done).astype(np.int64)
    if rec is None:
        rec = mser_warmup_ios(bat_sums, total, done)
    m_w, m_c, var_w = np.full(R, np.nan), np.full(R, np.nan), np.full(R, np.nan)
    for n_done in np.unique(done):   # (replications that completed alike share their batches)
        counts = batch_counts(total, int(n_done))
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        after = (starts >= warmup) & (counts > 0)
        if after.sum() < 2:
            continue
        rows = np.flatnonzero((done == n_done) & (rec >= 0))
        y = bat_sums[np.ix_(rows, after)] / counts[after]
        m_w[rows] = bat_sums[np.ix_(rows, after)].sum(axis=1) / counts[after].sum()
        var_w[rows] = y.var(axis=1, ddof=1) / y.shape[1]
        # the mean after the cut: the batches that start at or after it, per row
        cut = (starts[None, :] >= np.maximum(int(warmup), rec[rows])[:, None]) & (counts > 0)[None, :]
        kept = (cut * counts).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            m_c[rows] = np.where(kept > 0, (bat_sums[rows] * cut).sum(axis=1) / kept, np.nan)
    return m_w, m_c, var_w, rec


#: How far (in standard errors of the point's mean) dropping MSER's cut must move the mean for the
#: warm-up to count as too short: with the majority condition, <= 1 % false alarms on stationary
#: runs (benchmarks/warmup_false_alarms.py; figures in benchmarks/README.md).
BIAS_Z = 2.5


def warmup_short(mean_after_warmup: np.ndarray, mean_after_cut: np.ndarray, var_of_mean: np.ndarray,
                 exceeds: np.ndarray) -> np.ndarray:
    """The diagnostic, per point (the last axis is the replications): the warm-up is too short
    when MSER's cut passes it in at least half the replications AND dropping what MSER would
    drop moves the point's mean by more than :data:`BIAS_Z` standard errors. The standard error
    is the larger of two estimates, so that neither fools the test: between the replications'
    means (noisy with few replications) and within them from their batch means (too small when
    batch means are correlated, near saturation). MSER alone (its cut beyond the warm-up in any
    replication, the old rule) fires on many stationary runs: its cut follows the noise."""
    m_w = np.asarray(mean_after_warmup, dtype=float)
    m_c = np.asarray(mean_after_cut, dtype=float)
    ex = np.asarray(exceeds, dtype=bool)
    R = m_w.shape[-1]
    shift = np.abs(np.nanmean(m_w - m_c, axis=-1))
    se_between = np.nanstd(m_w, axis=-1, ddof=1) / np.sqrt(R)
    se_within = np.sqrt(np.nanmean(np.asarray(var_of_mean, dtype=float), axis=-1) / R)
    se = np.fmax(se_between, se_within)
    most = 2 * ex.sum(axis=-1) >= R
    with np.errstate(invalid="ignore"):
        return most & (shift > BIAS_Z * se)


def judge_warmup(bat_sums: np.ndarray, warmup: int, ios: int, done: np.ndarray) -> tuple[np.ndarray, bool]:
    """What the engine stores for a point: (MSER's recommended warm-up per replication, whether
    :func:`warmup_short` says the warm-up is too short), from the kernels' batch sums over
    ``warmup + ios`` completions, ``done[r]`` of them run. The means are computed only where the
    cut passes the warm-up in most replications (rarely: the common case costs MSER alone)."""
    total = int(warmup) + int(ios)
    rec = mser_warmup_ios(bat_sums, total, done)
    ex = cut_exceeds(rec, warmup, ios)
    if 2 * int(ex.sum()) < ex.size:
        return rec, False
    m_w, m_c, var_w, _ = truncation_effect(bat_sums, total, done, warmup, rec)
    return rec, bool(warmup_short(m_w, m_c, var_w, ex))
