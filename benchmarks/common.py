"""Helpers shared by the asv suite, ``throughput.py`` and ``peers/compare.py``.

Sizes and models live here so every script measures the same thing.
"""
from __future__ import annotations

import os
import resource
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import numba  # noqa: E402

from mcio.engine import simulate  # noqa: E402

from benchmarks.models import ficon_model, mmc_model  # noqa: E402,F401

SEED = 2026
WARMUP = 1_000                 # I/Os discarded per replication in throughput runs
SWEEP_POPULATIONS = [1, 2, 3, 4, 6, 8, 10, 13, 16, 20, 26, 32, 40, 50, 64, 80, 100, 128, 200, 400]


def set_threads(n: int) -> int:
    """Numba threads for the next kernels, capped at what Numba was started with."""
    n = max(1, min(int(n), numba.config.NUMBA_NUM_THREADS))
    numba.set_num_threads(n)
    return n


def warm(model, fast_path="auto") -> None:
    """Compile (or load from cache) the kernels this model uses, so timings exclude compiling."""
    simulate(model, ios=2_000, replications=2, warmup=100, seed=SEED, fast_path=fast_path)


def rate(model, total_ios: int, replications: int = 2, threads: int = 1, fast_path="auto"):
    """Simulate ``total_ios`` I/Os (warm-up included) over ``replications``; return
    (I/Os per second of wall time, wall seconds, Dataset). The clock covers the whole
    ``simulate`` call: packing, kernels and assembling the Dataset."""
    set_threads(threads)
    ios = max(1, total_ios // replications - WARMUP)
    t = time.perf_counter()
    ds = simulate(model, ios=ios, replications=replications, warmup=WARMUP, seed=SEED,
                  fast_path=fast_path)
    dt = time.perf_counter() - t
    return replications * (ios + WARMUP) / dt, dt, ds


def maxrss_mb() -> float:
    """Peak resident set size of this process so far, MB (Linux ru_maxrss is in KB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def sweep_spec(replications: int = 4, ios: int = 20_000, warmup: int = 4_000) -> dict:
    """A 20-point sweep over the population of the full-FICON-path model (like
    examples/ficon_knee.toml, 20 points instead of 12): 20 x 4 x 24,000 = 1.92 M I/Os."""
    from mcio.model.effect import effective_dict
    model, _ = ficon_model()
    return {
        "title": "benchmark: FICON channel population sweep",
        # (the fields that count: a scenario's field without effect, such as its zHPF costs at
        # zhpf_share 0, is refused in a spec)
        "model": effective_dict(model),
        "sweep": {"workload.population": list(SWEEP_POPULATIONS)},
        "run": {"replications": replications, "ios": ios, "warmup": warmup, "seed": SEED},
    }


def run_sweep(spec: dict, out=None):
    """One sweep: ``mcio.sweep.sweep`` when it exists, else ``simulate`` over the 20 populations."""
    try:
        from mcio.sweep import sweep
    except ImportError:
        sweep = None
    if sweep is not None:
        return sweep(spec, out=out)
    from mcio.model import Model
    base = Model.from_dict(spec["model"])
    r = spec["run"]
    pops = spec["sweep"]["workload.population"]
    return [simulate(base.replace("workload.population", int(n)), ios=r["ios"], warmup=r["warmup"],
                     replications=r["replications"], seed=r["seed"], point=p)
            for p, n in enumerate(pops)]
