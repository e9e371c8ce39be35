"""Saving is free: a sweep with ``-o`` (part file per point, final netCDF-4 file) against the same
sweep in memory, on the README main job and on a 400-point fast-path grid.

    python benchmarks/saving.py            # ~1-2 min on 2 cores
    python benchmarks/saving.py --quick    # 100-point grid, one repeat

Each case runs in memory and with the file alternately, ``--repeat`` times (default 3), after one
warm-up run (compiling); the figure is the ratio of the fastest with-file run to the fastest
in-memory one (minima: the machine is shared, and noise only ever adds time). Target: <= 1.05.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from mcio.sweep import load_spec, sweep  # noqa: E402

MAIN_JOB = os.path.join(ROOT, "examples", "ficon_knee.toml")


def grid_spec(points: int = 400) -> str:
    """An M/M/1 (fast path) rate grid: ``points`` x 4 replications x 40,000 I/Os."""
    return f"""
title = "saving benchmark: M/M/1 rate grid"
scenario = "mm1-demo"
[sweep]
"workload.rate_iops" = {{start = 50, stop = 900, num = {points}}}
[run]
replications = 4
ios = 40000
warmup = 4000
seed = 7
"""


def time_case(spec, repeat: int) -> tuple[float, float, int]:
    """(best in-memory s, best with-file s, final file bytes)."""
    spec = load_spec(spec)
    d = tempfile.mkdtemp(prefix="mcio-saving-")
    try:
        out = os.path.join(d, "out.h5")
        sweep(spec)                                    # warm: compile / load the kernels
        mem, disk = [], []
        for _ in range(repeat):
            t = time.perf_counter()
            sweep(spec)
            mem.append(time.perf_counter() - t)
            if os.path.exists(out):
                os.remove(out)
            t = time.perf_counter()
            sweep(spec, out=out)
            disk.append(time.perf_counter() - t)
        return min(mem), min(disk), os.path.getsize(out)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a 100-point grid and one repeat")
    ap.add_argument("--repeat", type=int, default=None)
    a = ap.parse_args(argv)
    repeat = a.repeat or (1 if a.quick else 3)
    cases = [("main job (examples/ficon_knee.toml, 12 pt x 4 x 40k)", MAIN_JOB),
             (f"fast-path grid ({100 if a.quick else 400} pt x 4 x 40k)", grid_spec(100 if a.quick else 400))]
    print(f"{'case':<56}{'memory s':>10}{'file s':>10}{'ratio':>8}{'file kB':>10}")
    worst = 0.0
    for name, spec in cases:
        m, f, size = time_case(spec, repeat)
        worst = max(worst, f / m)
        print(f"{name:<56}{m:>10.2f}{f:>10.2f}{f / m:>8.3f}{size / 1024:>10.0f}", flush=True)
    print(f"worst ratio {worst:.3f} (target <= 1.05): {'met' if worst <= 1.05 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
