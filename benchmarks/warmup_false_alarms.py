"""False-alarm and detection rates of the warm-up diagnostic (mcio.warmup.warmup_short).

Stationary cases (where any alarm is false): M/M/1 at loads 0.05-0.9 and the FICON channel model
at populations 8-200, each with a warm-up far longer than its transient (the engine starts empty or
with every I/O issued at once; a warm-up of 5,000 / 10,000 completions, at least ten relaxation
times, stands for a start from a long run's state: only the run after the warm-up is judged).
Cases with real initial bias (where the diagnostic should fire): the FICON model with 578 I/Os
issued together and no warm-up, and M/M/1 at load 0.95 started empty with a warm-up of 10.

Each point is one call of the kernels (seed = point number), the batch means they return judged by
the new rule (mcio.warmup.judge_warmup, what the engine stores as warmup_adequate) and, beside it,
by the old one (MSER's cut beyond the warm-up in any replication).

    python benchmarks/warmup_false_alarms.py [--seeds 30] [--quick]

Results: benchmarks/README.md ("warm-up diagnostic").
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from mcio.engine import fast_path_applies  # noqa: E402
from mcio.engine.run import run_kernels  # noqa: E402
from mcio.kernels import layout as S  # noqa: E402
from mcio.scenarios import SCENARIOS  # noqa: E402
from mcio.scenarios.ficon_channel import model as ficon  # noqa: E402
from mcio.warmup import cut_exceeds, judge_warmup, truncation_effect  # noqa: E402


def mm1(rho: float):
    return SCENARIOS["mm1-demo"]().replace("workload.rate_iops", 1000.0 * rho)   # 1 ms service


def judge(model, ios: int, warmup: int, R: int, seed: int) -> tuple[bool, bool, float, float]:
    """(new rule fires, old rule fires, the point's mean response, its standard error) for one point."""
    acc, _, _, _, bat = run_kernels(model, ios, R, seed, warmup, seed, fast_path_applies(model))
    total = warmup + ios
    rec, short = judge_warmup(bat, warmup, ios, warmup + acc[:, S.A_N])   # what the engine stores
    m_w = truncation_effect(bat, total, warmup + acc[:, S.A_N], warmup)[0]
    return short, bool(cut_exceeds(rec, warmup, ios).any()), float(m_w.mean()), float(m_w.std(ddof=1) / np.sqrt(R))


def bias_in_se(model, ios: int, warmup: int, R: int, got, seeds: int) -> float:
    """The case's initial bias in standard errors of a point's mean: its points' average mean
    minus the steady-state mean (the same runs after a warm-up of 4 x ios + 20,000, other
    seeds), over the median standard error of a point."""
    steady = np.mean([judge(model, ios, 4 * ios + 20_000, R, 1000 + s)[2] for s in range(seeds)])
    return (np.mean([g[2] for g in got]) - steady) / np.median([g[3] for g in got])


def rate(cases, seeds: int, label: str, bias: bool = False) -> tuple[int, int, int]:
    n = new = old = 0
    for name, model, ios, warmup, R in cases:
        t = time.perf_counter()
        got = [judge(model, ios, warmup, R, s) for s in range(seeds)]
        a, b = sum(g[0] for g in got), sum(g[1] for g in got)
        n, new, old = n + seeds, new + a, old + b
        extra = f"  bias {bias_in_se(model, ios, warmup, R, got, seeds):+.1f} SE" if bias else ""
        print(f"  {label:<10}{name:<46}{seeds:>6}{a:>6} ({100 * a / seeds:5.1f} %){b:>6} ({100 * b / seeds:5.1f} %)"
              f"{time.perf_counter() - t:>7.1f} s{extra}", flush=True)
    print(f"  {label:<10}{'all':<46}{n:>6}{new:>6} ({100 * new / n:5.1f} %){old:>6} ({100 * old / n:5.1f} %)")
    return n, new, old


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=30, help="points per stationary case (x 10 cases)")
    ap.add_argument("--quick", action="store_true", help="shorter runs (ios / 4)")
    a = ap.parse_args()
    q = 4 if a.quick else 1
    stationary = [(f"M/M/1 rho {rho}, R 4", mm1(rho), 50_000 // q, 5_000 // q, 4)
                  for rho in (0.05, 0.1, 0.3, 0.5, 0.7, 0.8, 0.9)]
    stationary += [("M/M/1 rho 0.8, R 2", mm1(0.8), 50_000 // q, 5_000 // q, 2)]
    stationary += [(f"FICON population {n}, R 4", ficon(population=n), 40_000 // q, 10_000 // q, 4)
                   for n in (8, 64, 200)]
    biased = [(f"FICON population 578, warm-up 0, {n} I/Os, R {R}", ficon(population=578), n, 0, R)
              for n in (5_000, 20_000) for R in (2, 4)]
    biased += [(f"M/M/1 rho 0.95, warm-up 10, {n} I/Os, R 4", mm1(0.95), n, 10, 4) for n in (5_000, 20_000)]
    print(f"  {'':<10}{'case':<46}{'points':>6}{'new rule':>14}{'old rule':>14}")
    n, new, old = rate(stationary, a.seeds, "false")
    print(f"false alarms: new rule {new}/{n} = {100 * new / n:.2f} %, old rule {old}/{n} = {100 * old / n:.2f} %")
    n2, new2, old2 = rate(biased, max(10, a.seeds // 2), "detected", bias=True)
    print(f"detections: new rule {new2}/{n2} = {100 * new2 / n2:.1f} %, old rule {old2}/{n2} = {100 * old2 / n2:.1f} %")


if __name__ == "__main__":
    main()
