"""Where sharing a point's replications with the kernel pool pays: ``run_kernels`` wall time per
point on one thread against two (the calling thread and one pool thread), with the pool forced
for every size (``mcio.engine.run.POOL_MIN_IOS`` set to 0), for the fast path (M/M/1 demo) and
the event engine (FICON channel scenario), 4 replications of ``ios`` + 100 warm-up I/Os:

    python benchmarks/pool_crossover.py                       # both engines, default sizes
    python benchmarks/pool_crossover.py --engine fast --ios 200 5000 20000

Best of 3 rounds, the two thread counts alternating. A ratio (two threads / one) above 1: the
pool's hand-off costs more than the second thread saves; POOL_MIN_IOS should cover that size.
Results: benchmarks/README.md (session 29).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

SIZES = {"fast": [200, 2_000, 5_000, 10_000, 20_000, 100_000], "event": [200, 500, 1_000, 2_000, 5_000]}


def crossover(engine: str, sizes, rounds: int = 3, replications: int = 4) -> list[tuple[int, float, float]]:
    """[(ios, one thread us, two threads us)] per point, best of ``rounds``."""
    import numba
    import mcio.engine.run as run_mod
    from mcio.engine.run import run_kernels
    from mcio.scenarios import build_scenario
    fast = engine == "fast"
    model = build_scenario("mm1-demo" if fast else "ficon-channel")
    saved, before = dict(run_mod.POOL_MIN_IOS), numba.get_num_threads()
    run_mod.POOL_MIN_IOS.update({True: 0, False: 0})
    try:
        run_kernels(model, 1_000, replications, 3, 100, 0, fast)     # (loads the kernels)
        out = []
        for ios in sizes:
            points = max(20, int(4e6 / ios / (1 if fast else 25)))
            best = {1: float("inf"), 2: float("inf")}
            for _ in range(rounds):
                for threads in (1, 2):
                    numba.set_num_threads(threads)
                    t = time.perf_counter()
                    for p in range(points):
                        run_kernels(model, ios, replications, 3, 100, p, fast)
                    best[threads] = min(best[threads], (time.perf_counter() - t) / points * 1e6)
            out.append((ios, best[1], best[2]))
        return out
    finally:
        run_mod.POOL_MIN_IOS.update(saved)
        numba.set_num_threads(before)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", choices=["fast", "event", "both"], default="both")
    ap.add_argument("--ios", type=int, nargs="+", default=None)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args(argv)
    import numba
    if numba.config.NUMBA_NUM_THREADS < 2:
        print("needs 2 threads (NUMBA_NUM_THREADS >= 2)")
        return 2
    print(f"load average {os.getloadavg()}")
    from mcio.engine.run import POOL_MIN_IOS
    for engine in (("fast", "event") if a.engine == "both" else (a.engine,)):
        for ios, one, two in crossover(engine, a.ios or SIZES[engine], a.rounds):
            total = 4 * (ios + 100)
            side = "pool" if total >= POOL_MIN_IOS[engine == "fast"] else "this thread"
            print(f"{engine:5s} ios {ios:>7}: 1 thread {one:7.0f} us, 2 threads {two:7.0f} us, "
                  f"2/1 {two / one:.2f}  (mcio: {side})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
