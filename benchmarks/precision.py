"""Precision targets on the README main job (examples/ficon_knee.toml, 12 points): ``[run]
precision = 0.01`` against fixed-length runs that reach the same worst-point precision, measured
in one run of this script.

    python benchmarks/precision.py [--precision 0.01] [--replications 8]

Prints, for each way: wall time, total I/Os simulated (all rounds), and the worst and median
relative 95 % CI half-width of the mean response over the points. The fixed-length run uses
the largest run length the precision rule chose for any point (the run length a user without
precision targets would need for every point to be within the target).
"""
from __future__ import annotations

import argparse
import time
import tomllib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def _spec(text: str, **run) -> dict:
    raw = tomllib.loads(text)
    raw["run"] = {**raw.get("run", {}), **run}
    raw["run"].pop("warmup", None)
    return raw


def rel_ci(ds) -> np.ndarray:
    return (ds.response_ci95_ms / ds.response_ms.mean("replication")).values.ravel()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--precision", type=float, default=0.01)
    ap.add_argument("--replications", type=int, default=8)
    ap.add_argument("--ios", type=int, default=10_000, help="first round's I/Os per replication")
    a = ap.parse_args()
    from mcio.sweep import sweep
    text = (ROOT / "examples" / "ficon_knee.toml").read_text()
    sweep(_spec(text, ios=2_000, replications=2))            # compile outside the timings
    t = time.perf_counter()
    seq = sweep(_spec(text, ios=a.ios, replications=a.replications, precision=a.precision))
    t_seq = time.perf_counter() - t
    used = seq.ios_used.values.ravel()
    spent = int(seq.ios_spent.values.sum()) * a.replications
    n_fix = int(used.max())
    t = time.perf_counter()
    fix = sweep(_spec(text, ios=n_fix, replications=a.replications))
    t_fix = time.perf_counter() - t
    r_seq, r_fix = rel_ci(seq), rel_ci(fix)
    print(f"main job, 12 points x {a.replications} replications, target {a.precision:.1%} (relative 95 % CI of mean response)")
    print(f"{'':24}{'time s':>9}{'I/Os':>14}{'worst CI':>10}{'median CI':>11}")
    print(f"{'precision rule':24}{t_seq:9.2f}{spent:14,d}{r_seq.max():10.2%}{np.median(r_seq):11.2%}")
    print(f"{'fixed, worst point len':24}{t_fix:9.2f}{n_fix * 12 * a.replications:14,d}{r_fix.max():10.2%}{np.median(r_fix):11.2%}")
    print(f"I/Os per replication chosen per point: {', '.join(f'{int(x):,}' for x in used)}")
    print(f"points reaching the target: {int(seq.precision_reached.values.sum())} of {used.size}; "
          f"time ratio rule / fixed = {t_seq / t_fix:.2f}, I/O ratio = {spent / (n_fix * 12 * a.replications):.2f}")


if __name__ == "__main__":
    main()
