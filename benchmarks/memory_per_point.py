"""Memory a sweep holds per point while it runs (issue 29: <= 2 KB a point; a 1,000,000-point
fast-path grid runs to a chunked file in bounded memory).

Each case runs in a new process: imports, a two-point sweep of the same kind (kernels loaded,
h5py imported when the case writes a file), a full collection, then the peak RSS is reset
(``/proc/self/clear_refs``) and the measured sweep runs from its TOML text (parsing and
validating the spec, every point, assembling, writing the final file). Memory per point is
(peak RSS - RSS before) / points: what a sweep adds for its points, imports excluded. With
``--tracemalloc`` the Python allocations' peak is given as well (slower; numpy's arrays count,
the interpreter's and libraries' own pools do not).

The grid: the M/M/1 demo (fast path) over ``workload.rate_iops``, ``--replications`` x
(``--ios`` + 100 warm-up) I/Os a point: small points, so that the per-point bookkeeping, not the
simulation, is what is measured.

    python benchmarks/memory_per_point.py                       # 10^4 points, in memory and -o
    python benchmarks/memory_per_point.py --points 1000000 --out-only   # ~20-40 min of CPU
    python benchmarks/memory_per_point.py --points 20000 --threads 1   # CPU a small point costs
    python benchmarks/memory_per_point.py --points 2000 --threads 1 --event   # an event-engine point
    git archive b986a43 | tar -x -C /tmp/before && python benchmarks/memory_per_point.py --tree /tmp/before

Results: benchmarks/README.md ("memory per point").
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r'''
import gc, json, os, sys, time
text, small, out, trace = sys.argv[1], sys.argv[2], sys.argv[3] or None, sys.argv[4] == "1"
from mcio.batch import sweep
def status(key):
    return next(int(ln.split()[1]) * 1024 for ln in open("/proc/self/status") if ln.startswith(key + ":"))
sweep(small, out=out and out + ".warm.h5")
gc.collect()
if trace:
    import tracemalloc
    tracemalloc.start()
open("/proc/self/clear_refs", "w").write("5")   # peak RSS := current RSS
base = status("VmRSS")
t, c = time.perf_counter(), time.process_time()
ds = sweep(text, out=out)
wall, cpu = time.perf_counter() - t, time.process_time() - c
peak = status("VmHWM")
py_peak = tracemalloc.get_traced_memory()[1] if trace else 0
print(json.dumps({"points": int(next(ds.sizes[d] for d in ("rate_iops", "link_mb_s") if d in ds.sizes)), "base": base, "peak": peak, "py_peak": py_peak,
                  "ds_bytes": int(ds.nbytes), "wall": wall, "cpu": cpu,
                  "file_bytes": os.path.getsize(out) if out else 0}))
'''


def grid_spec(points: int, replications: int = 4, ios: int = 200, event: bool = False) -> str:
    """The M/M/1 demo over ``points`` arrival rates (100 ... 800 I/O/s, mean service 1 ms); with
    ``event``, the ficon-channel scenario (the event engine: 1,024 devices, population 578) over
    ``points`` link rates (400 ... 1,600 MB/s)."""
    axis = ('"channels.link_mb_s" = {start = 400, stop = 1600, num = %d}' if event else
            '"workload.rate_iops" = {start = 100, stop = 800, num = %d}') % points
    return (f'title = "memory per point"\nscenario = "{"ficon-channel" if event else "mm1-demo"}"\n[sweep]\n'
            f'{axis}\n'
            f'[run]\nreplications = {replications}\nios = {ios}\nwarmup = 100\nseed = 3\n')


def measure(points: int, out: bool, replications: int = 4, ios: int = 200, trace: bool = False,
            tree: str = ROOT, threads: int | None = None, event: bool = False) -> dict:
    """One case in a new process on ``tree``'s mcio (``threads``: its NUMBA_NUM_THREADS, None:
    the environment's): {points, base, peak (bytes), py_peak, ds_bytes, wall, cpu (s),
    file_bytes, per_point (bytes: (peak - base) / points), cpu_us_per_point}."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([tree, os.environ.get("PYTHONPATH", "")]))
    if threads is not None:
        env["NUMBA_NUM_THREADS"] = str(threads)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "grid.h5") if out else ""
        r = subprocess.run([sys.executable, "-c", CHILD, grid_spec(points, replications, ios, event),
                            grid_spec(2, replications, ios, event), path, "1" if trace else "0"],
                           env=env, capture_output=True, text=True, cwd=tree)
        if r.returncode:
            raise RuntimeError(f"memory case failed:\n{r.stderr[-3000:]}")
        m = json.loads(r.stdout.strip().splitlines()[-1])
    m["per_point"] = (m["peak"] - m["base"]) / m["points"]
    m["cpu_us_per_point"] = m["cpu"] / m["points"] * 1e6
    return m


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, nargs="+", default=[10_000])
    ap.add_argument("--replications", type=int, default=4)
    ap.add_argument("--ios", type=int, default=200)
    ap.add_argument("--out-only", action="store_true", help="only the runs that write a file")
    ap.add_argument("--tracemalloc", action="store_true", help="also the Python allocations' peak")
    ap.add_argument("--tree", default=ROOT, help="the source tree whose mcio runs (default: this one), e.g. "
                                                "an older commit unpacked by git archive")
    ap.add_argument("--threads", type=int, default=None, help="the child's NUMBA_NUM_THREADS (default: the environment's)")
    ap.add_argument("--event", action="store_true", help="the ficon-channel scenario's grid (the event engine)")
    a = ap.parse_args(argv)
    print(f"{'points':>9} {'file':>5} {'peak-base MiB':>14} {'B/point':>8} {'py B/pt':>8} {'ds B/pt':>8} "
          f"{'file B/pt':>9} {'wall s':>8} {'cpu s':>8} {'cpu us/pt':>9}", flush=True)
    for P in a.points:
        for out in ((True,) if a.out_only else (False, True)):
            m = measure(P, out, a.replications, a.ios, a.tracemalloc, a.tree, a.threads, a.event)
            print(f"{P:>9} {'-o' if out else 'mem':>5} {(m['peak'] - m['base']) / 2**20:>14.1f} "
                  f"{m['per_point']:>8.0f} {m['py_peak'] / P:>8.0f} {m['ds_bytes'] / P:>8.0f} "
                  f"{m['file_bytes'] / P:>9.0f} {m['wall']:>8.1f} {m['cpu']:>8.1f} {m['cpu_us_per_point']:>9.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
