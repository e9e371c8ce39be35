"""Warm-up diagnostics: MSER on the batch means of each replication's response-time series.

The kernels sum response times into K equal batches of completions over the whole run (warm-up
included). MSER (White, 1997) picks the truncation d that minimises the standard error of the
mean of what remains, sum_{i>d} (Y_i - mean_d)^2 / (n - d)^2, over d <= n/2. If the truncation
MSER wants is longer than the fixed warm-up used, the estimates may carry initial-state bias.
"""
from __future__ import annotations

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
    batches masked): a Python loop over d cost ~0.6 ms a replication, as much as a fast-path
    point's kernels."""
    y = np.asarray(means, dtype=float)
    n = y.shape[1]
    d = np.arange(n // 2 + 1)
    kept = n - d
    mean_d = np.cumsum(y[:, ::-1], axis=1)[:, ::-1][:, : len(d)] / kept          # [R, d]
    dev = np.where(np.arange(n)[None, None, :] >= d[None, :, None],
                   y[:, None, :] - mean_d[:, :, None], 0.0)                      # [R, d, n]
    stat = (dev * dev).sum(axis=2) / kept.astype(float) ** 2
    return np.argmin(stat, axis=1)


def mser_truncation(means: np.ndarray) -> int:
    """Number of leading batches MSER would delete (0 .. n // 2): the first d minimising
    sum_{i>=d} (y_i - mean_d)^2 / (n - d)^2."""
    return int(mser_truncations(np.asarray(means, dtype=float)[None, :])[0])


def mser_warmup_ios(bat_sums: np.ndarray, total: int, done: np.ndarray) -> np.ndarray:
    """Per replication: the warm-up (in I/Os) MSER recommends; -1 where too few batches ran.
    Replications that completed alike (usually all) share their batch counts and one call."""
    out = np.full(bat_sums.shape[0], -1, dtype=np.int64)
    done = np.asarray(done).astype(np.int64)
    for n_done in np.unique(done):
        rows = np.flatnonzero(done == n_done)
        counts = batch_counts(total, int(n_done))
        full = counts > 0
        if full.sum() < 10:
            continue
        means = bat_sums[np.ix_(rows, full)] / counts[full]
        cum = np.concatenate([[0], np.cumsum(counts[full])])
        out[rows] = cum[mser_truncations(means)]
    return out
