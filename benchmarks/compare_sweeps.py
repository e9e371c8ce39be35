"""Time to an answer of two versions of mcio, in one run: the README main job and a 400-point
fast-path grid, each in memory and with ``-o`` (checkpoint log and final file):

    python benchmarks/compare_sweeps.py d4bc145          # that commit against the working tree
    python benchmarks/compare_sweeps.py d4bc145 HEAD --repeat 3

Each ref is exported as in ``compare_refs.py``; every measurement is a new process with that tree
first on ``sys.path``, Numba's default threads (both cores here), kernels loaded by one warm-up
sweep, then the best of 3 sweeps of each kind. The two versions alternate ``--repeat`` times
(ABBA) and the best of each is kept (other work on a shared machine only ever adds time). The
grid is ``benchmarks/saving.py``'s (M/M/1 over 400 rates, 4 x 40,000 I/Os a point).
"""
from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from compare_refs import exported, run_child, two_refs  # noqa: E402

GRID = """
title = "saving benchmark: M/M/1 rate grid"
scenario = "mm1-demo"
[sweep]
"workload.rate_iops" = {start = 50, stop = 900, num = 400}
[run]
replications = 4
ios = 40000
warmup = 4000
seed = 7
"""

_CHILD = r"""
import json, os, sys, tempfile, time
sys.path.insert(0, sys.argv[1])
import mcio
assert mcio.__file__.startswith(sys.argv[1]), mcio.__file__
from mcio.sweep import load_spec, sweep
grid = sys.stdin.read()
out, d = {}, tempfile.mkdtemp(prefix="mcio-cmp-")
o = os.path.join(d, "o.h5")
for name, text in (("grid", grid), ("main", open(os.path.join(sys.argv[1], "examples", "ficon_knee.toml")).read())):
    spec = load_spec(text)
    sweep(spec)
    for mode in ("memory", "file"):
        best = float("inf")
        for _ in range(3):
            if os.path.exists(o):
                os.remove(o)
            t = time.perf_counter()
            sweep(spec, out=o if mode == "file" else None)
            best = min(best, time.perf_counter() - t)
        out[f"{name} {mode}"] = best
print(json.dumps(out))
"""


def main(argv=None) -> int:
    a = two_refs(__doc__, argv)
    with exported(a) as (trees, _):
        best: dict = {}
        for i in range(a.repeat):
            for ref, tree in (trees.items() if i % 2 == 0 else reversed(trees.items())):
                for k, v in run_child(tree, _CHILD, stdin=GRID).items():
                    best[ref, k] = min(best.get((ref, k), float("inf")), v)
    print(f"best of {a.repeat} processes x 3 sweeps; load average at the end {os.getloadavg()[0]:.2f}")
    print(f"{'sweep':36s} {a.old:>10s} {a.new:>10s} {'old/new':>8s}")
    for k in ("grid memory", "grid file", "main memory", "main file"):
        o, n = best[a.old, k], best[a.new, k]
        label = {"grid": "400-point fast-path grid", "main": "main job (ficon_knee.toml)"}[k.split()[0]]
        print(f"{label + ', ' + ('in memory' if k.endswith('memory') else 'with -o'):36s} {o:>9.2f}s {n:>9.2f}s {o / n:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
