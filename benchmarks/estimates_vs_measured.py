"""The batch estimates (mcio/batch/estimates.py) beside what happens: peak memory (the process's
peak RSS) and wall time of sweeps of several shapes, each in a fresh process.

Each case runs in its own process: imports, a two-point sweep of the same spec (kernels loaded,
as in a real run), then the measured sweep into an HDF5 file. ``peak`` is the process's peak RSS
(VmHWM, the whole process: what the machine must hold), ``time`` the sweep's wall time;
``ratio`` is estimate / measured (the aim: within 1.5x either way). Two time estimates: from the
fixed per-I/O figures (``fixed``, what ``validate`` prints) and from a pilot of the first and
last points (``pilot``, what a sweep and the other commands use when a run may take long).
Times depend on what else the machine runs; memory does not.

    python benchmarks/estimates_vs_measured.py [--quick]

Results: benchmarks/README.md ("batch: figures behind the estimates").
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
import gc, json, resource, sys, time, tomllib
from mcio.batch import parse_spec, sweep
from mcio.batch.estimates import estimate, measured_s_per_io, pilot_models
text, small, out = sys.argv[1], sys.argv[2], sys.argv[3]
sweep(parse_spec(tomllib.loads(small), text=small)); gc.collect()
s = parse_spec(tomllib.loads(text), text=text)
est = estimate(s)
pilot = estimate(s, s_per_io=measured_s_per_io(pilot_models(s)))
t = time.perf_counter()
sweep(s, out=out)
el = time.perf_counter() - t
peak = next((int(ln.split()[1]) * 1024 for ln in open("/proc/self/status") if ln.startswith("VmHWM:")),
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
print(json.dumps({"peak": peak, "time": el, "est_mem": est.memory_bytes, "est_s": est.seconds,
                  "pilot_s": pilot.seconds,
                  "points": est.points, "ios": est.ios}))
'''


def spec(kind: str, P: int, R: int, ios: int, C: int = 1, extra_run: str = "") -> str:
    if kind == "mm1-precision":   # a target too tight to meet: every point runs to max_ios
        kind, extra_run = "mm1", f"precision = 0.0001\nmax_ios = {ios * 500}\n"
    axis = {"mm1": '"workload.rate_iops" = {start = 100, stop = 800, num = %d}',
            "closed": '"channels.mp_us_per_io_ccw" = {start = 20, stop = 80, num = %d}',
            "open": '"channels.mp_us_per_io_ccw" = {start = 20, stop = 80, num = %d}'}[kind] % P
    run = f"[run]\nreplications = {R}\nios = {ios}\nwarmup = 100\n{extra_run}"
    if kind == "mm1":
        return f'title = "e"\nscenario = "mm1-demo"\n[sweep]\n{axis}\n{run}'
    wl = 'type = "open"\nrate_iops = 2000.0' if kind == "open" else 'type = "closed"\npopulation = 16'
    return (f'title = "e"\n[model.workload]\n{wl}\n[[model.io]]\nkb = 4.0\nmiss_ratio = 0.5\n'
            f'[model.devices]\ncount = 8\n[model.channels]\ncount = {C}\nmp_us_per_io_ccw = 50.0\n'
            f'[sweep]\n{axis}\n{run}')


CASES = [  # (label, kind, points, replications, ios, channels)
    ("many small points, M/M/1 fast path, R 4", "mm1", 4000, 4, 200, 1),
    ("many small points, M/M/1, R 16", "mm1", 2000, 16, 200, 1),
    ("many small points, closed FICON, 8 channels", "closed", 3000, 4, 200, 8),
    ("few long points, M/M/1 fast path", "mm1", 4, 4, 2_000_000, 1),
    ("few long points, closed FICON event engine", "closed", 4, 4, 200_000, 1),
    ("few long points, open FICON event engine", "open", 4, 4, 200_000, 1),
    ("medium grid, closed FICON", "closed", 200, 4, 5_000, 2),
    ("precision target, M/M/1, max_ios reached", "mm1-precision", 4, 4, 2_000, 1),
]


def run_case(kind, P, R, ios, C, d) -> dict:
    out = os.path.join(d, "e.h5")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-c", CHILD, spec(kind, P, R, ios, C), spec(kind, 2, R, 200, C), out],
                       env=env, capture_output=True, text=True, check=True)
    if os.path.exists(out):
        os.remove(out)
    return json.loads(r.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a quarter of the points and I/Os")
    a = ap.parse_args()
    q = 4 if a.quick else 1
    print(f"{'case':<46}{'peak MiB':>9}{'est':>7}{'ratio':>7}{'time s':>8}{'fixed':>7}{'ratio':>7}{'pilot':>7}{'ratio':>7}")
    with tempfile.TemporaryDirectory() as d:
        for label, kind, P, R, ios, C in CASES:
            m = run_case(kind, max(2, P // q), R, max(200, ios // q), C, d)
            print(f"{label:<46}{m['peak'] / 2**20:>9.0f}{m['est_mem'] / 2**20:>7.0f}{m['est_mem'] / m['peak']:>7.2f}"
                  f"{m['time']:>8.2f}{m['est_s']:>7.2f}{m['est_s'] / m['time']:>7.2f}"
                  f"{m['pilot_s']:>7.2f}{m['pilot_s'] / m['time']:>7.2f}", flush=True)


if __name__ == "__main__":
    main()
