"""A sweep of many small points in-process and on a local Dask cluster: wall time per point, and
the client's CPU per point (the process that reads each worker's part and assembles the grid).

The grid is memory_per_point.py's (the M/M/1 demo over ``workload.rate_iops``, ``--replications``
x (``--ios`` + 100) I/Os a point): points small enough that the per-point and per-task
bookkeeping, not the simulation, is what is measured. Each case is a new process on ``--tree``'s
mcio (default: this tree), without an output file; the Dask case's wall time includes starting
and stopping the local cluster (``--startup`` measures that alone, on a 20-point grid).

    python benchmarks/dask_points.py --points 20000 --workers 2
    git archive f1637c8 | tar -x -C /tmp/before && python benchmarks/dask_points.py --tree /tmp/before

Results: benchmarks/README.md (session 30).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from memory_per_point import grid_spec  # noqa: E402

CHILD = r'''
import json, sys, time
from mcio.batch import sweep
if __name__ == "__main__":
    text, dask = sys.argv[1], sys.argv[2] or None
    if dask is None:
        sweep(sys.argv[3])          # (kernels loaded, as a Dask worker has them after its first point)
    t, c = time.perf_counter(), time.process_time()
    ds = sweep(text, dask=dask)
    print(json.dumps({"points": int(ds.sizes["rate_iops"]), "wall": time.perf_counter() - t,
                      "client_cpu": time.process_time() - c}))
'''


def measure(points: int, dask: str | None, tree: str = ROOT, replications: int = 4, ios: int = 200) -> dict:
    """One case in a new process: {points, wall (s), client_cpu (s)}; ``dask`` None: in-process,
    one Numba thread."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([tree, os.environ.get("PYTHONPATH", "")]))
    if dask is None:
        env["NUMBA_NUM_THREADS"] = "1"
    code = CHILD
    r = subprocess.run([sys.executable, "-c", code, grid_spec(points, replications, ios), dask or "",
                        grid_spec(2, replications, ios)], env=env, capture_output=True, text=True, cwd=tree)
    if r.returncode:
        raise RuntimeError(f"case failed:\n{r.stderr[-3000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=20_000)
    ap.add_argument("--workers", type=int, default=2, help="local Dask workers (local:N)")
    ap.add_argument("--tree", default=ROOT, help="the source tree whose mcio runs (default: this one)")
    ap.add_argument("--startup", action="store_true", help="also the local cluster on a 20-point grid")
    a = ap.parse_args(argv)
    cases = [("in-process, 1 thread", a.points, None), (f"Dask local:{a.workers}", a.points, f"local:{a.workers}")]
    if a.startup:
        cases.append((f"Dask local:{a.workers}, 20 points", 20, f"local:{a.workers}"))
    print(f"{'case':<32} {'points':>8} {'wall s':>8} {'wall us/pt':>11} {'client cpu us/pt':>17}", flush=True)
    for name, n, dask in cases:
        m = measure(n, dask, a.tree)
        print(f"{name:<32} {n:>8} {m['wall']:>8.2f} {m['wall'] / n * 1e6:>11.0f} "
              f"{m['client_cpu'] / n * 1e6:>17.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
