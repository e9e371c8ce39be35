"""The headline performance figures of issue 6, in one command:

    python benchmarks/throughput.py            # ~3-5 minutes on 2 idle cores
    python benchmarks/throughput.py --quick    # smaller runs, a smoke test (figures less exact)

Prints: fast path and full FICON path M I/O/s per core (1 Numba thread, 1e7 I/Os each), the
1 -> 2 thread speed-up (4 replications), peak RSS at 1e6 versus 1e8 I/Os (fast path) and 1e6
versus 1e7 (event path), and the seconds of a 20-point sweep: cold (new process, empty Numba
cache: import + compile + run), fresh process with the on-disk cache, and warm (compiled).
Memory and cold figures each run in a new process. Figures from a machine shared with other
work are noisy: throughput is best of ``--repeat`` runs.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)


def _child(kind: str, n: int) -> dict:
    """Run in a new process; returns figures as JSON on stdout."""
    t0 = time.perf_counter()
    from benchmarks.common import (ficon_model, maxrss_mb, mmc_model, rate, run_sweep,
                                   sweep_spec, warm)
    if kind in ("mem-fast", "mem-event"):
        model = mmc_model(1) if kind == "mem-fast" else ficon_model()[0]
        warm(model)
        before = maxrss_mb()
        r, dt, _ = rate(model, n, replications=2, threads=2)
        return {"peak_rss_mb": maxrss_mb(), "rss_before_run_mb": before, "seconds": dt}
    if kind == "sweep":
        t1 = time.perf_counter()
        run_sweep(sweep_spec())
        t2 = time.perf_counter()
        return {"first_sweep_s": t2 - t0, "import_s": t1 - t0}
    raise SystemExit(f"unknown child {kind}")


def child(kind: str, n: int = 0, env: dict | None = None) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", kind, str(n)], capture_output=True,
                         text=True, env={**os.environ, **(env or {})}, cwd=ROOT)
    if out.returncode:
        raise RuntimeError(f"child {kind} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="1/10 of the run sizes")
    ap.add_argument("--repeat", type=int, default=3, help="best of N for the throughput figures")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        print(json.dumps(_child(a.child[0], int(a.child[1]))))
        return 0

    from benchmarks.common import ficon_model, mmc_model, rate, run_sweep, sweep_spec, warm
    import numba
    scale = 10 if a.quick else 1
    rows = []

    def row(name, value, unit, target, ok):
        rows.append((name, value, unit, target, ok))
        mark = "" if ok is None else ("ok" if ok else "MISSED")
        print(f"{name:44s} {value:>10} {unit:8s} {target:22s} {mark}", flush=True)

    print(f"mcio headline figures; {os.cpu_count()} CPUs, Numba {numba.__version__} "
          f"(replications on a thread pool), load average {os.getloadavg()[0]:.2f}")
    print(f"{'figure':44s} {'value':>10} {'unit':8s} {'target (issue 6)':22s}")
    print("-" * 92)

    mm1 = mmc_model(1)
    ficon, src = ficon_model()
    warm(mm1)
    warm(ficon)
    fast = max(rate(mm1, 10_000_000 // scale, threads=1)[0] for _ in range(a.repeat)) / 1e6
    row(f"fast path, M/M/1 rho 0.9, {10_000_000 // scale:.0e} I/Os, 1 thread", f"{fast:.1f}", "M I/O/s", ">= 100 (aim 150)", fast >= 100)
    full = max(rate(ficon, 10_000_000 // scale, threads=1)[0] for _ in range(a.repeat)) / 1e6
    row(f"full FICON path, {10_000_000 // scale:.0e} I/Os, 1 thread", f"{full:.2f}", "M I/O/s", ">= 10 (aim 20)", full >= 10)

    def best_time(model, total, th):
        return min(rate(model, total, replications=4, threads=th)[1] for _ in range(a.repeat))
    t1 = best_time(ficon, 4_000_000 // scale, 1)
    t2 = best_time(ficon, 4_000_000 // scale, 2)
    row("1 -> 2 threads, FICON path, 4 replications", f"{t1 / t2:.2f}", "x", ">= 1.9", t1 / t2 >= 1.9)
    # ~0.75 s a run on one thread: at the 2e7 used before the fast path got 3x faster, a run took
    # 0.15 s and the ratio measured noise and the ~4.5 ms of serial Python per call
    t1 = best_time(mm1, 100_000_000 // scale, 1)
    t2 = best_time(mm1, 100_000_000 // scale, 2)
    row("1 -> 2 threads, fast path, 4 replications", f"{t1 / t2:.2f}", "x", ">= 1.9", t1 / t2 >= 1.9)

    for kind, label, big_ios in (("mem-fast", "fast path", 100_000_000 // scale),
                                 ("mem-event", "FICON path", 10_000_000 // scale)):
        small = child(kind, 1_000_000)
        big = child(kind, big_ios)
        grow = big["peak_rss_mb"] / small["peak_rss_mb"] - 1
        row(f"peak RSS, {label}, 1e6 I/Os", f"{small['peak_rss_mb']:.0f}", "MB", "", None)
        row(f"peak RSS, {label}, {big_ios:.0e} I/Os", f"{big['peak_rss_mb']:.0f}", "MB",
            "within 10 % of 1e6", abs(grow) <= 0.10)

    with tempfile.TemporaryDirectory(prefix="mcio-cold-") as cache:
        cold = child("sweep", env={"NUMBA_CACHE_DIR": cache})
    row("20-point sweep, cold (empty Numba cache)", f"{cold['first_sweep_s']:.1f}", "s", "< 15", cold["first_sweep_s"] < 15)
    cached = child("sweep")
    row("20-point sweep, new process, cache on disk", f"{cached['first_sweep_s']:.1f}", "s", "", None)
    spec = sweep_spec()
    run_sweep(spec)
    warm_s = []
    for _ in range(a.repeat):
        t = time.perf_counter()
        run_sweep(spec)
        warm_s.append(time.perf_counter() - t)
    row("20-point sweep, warm (compiled, 2 threads)", f"{min(warm_s):.2f}", "s", "< 3", min(warm_s) < 3)
    print(f"\nFICON model: {src}; sweep: 20 populations 1..400, 4 replications x 24,000 I/Os per point.")
    print(f"load average at the end: {os.getloadavg()[0]:.2f} (figures are noisy if other work shares the cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
