"""Time estimates (mcio/batch/estimates.py) beside the measured time, command by command, each
in fresh processes as a CLI command runs: its inputs built, the estimate it computes before it
simulates, then its work, timed from the estimate's start (``measured``: the process's start-up
ahead of its first result, loading the kernels from Numba's cache, included, as the estimate's
``pending_startup_s`` is). ``fixed``: the estimate from the fixed figures; ``pilot``: from the pilot a
command runs when the work may be long (here forced, in a process of its own: the pilot would
warm the measured one). ``ratio`` = estimate / measured; the aim is within 1.5x either way.
``work ratio``: the pilot's estimate of the work alone (start-up left out of both). Calibrate's
estimate is an upper bound (every evaluation the budget allows); the case here only evaluates,
where the bound is exact.

    python benchmarks/estimate_accuracy.py [--scale 1] [--repeat 1] [--only 0,3] [--cpu]

``--cpu``: one Numba thread and every clock (the pilot's too) reading the process's CPU time: the
figures of an idle machine, whatever else runs (on a machine shared with other work, the wall
times of a pilot and of the run it estimates, seconds apart, see different loads).

``--scale`` multiplies every case's I/Os. Times depend on what else the machine runs.
Results: benchmarks/README.md ("batch: figures behind the estimates").
"""
from __future__ import annotations

import argparse
import statistics
import time
import tomllib

from mcio.batch import estimates as E

FICON = '''title = "ficon"
[model.workload]
type = "closed"
population = 16
[[model.io]]
kb = 4.0
miss_ratio = 0.5
[model.devices]
count = 8
[model.channels]
count = 2
mp_us_per_io_ccw = 50.0
'''


def _spec(text):
    from mcio.batch import parse_spec
    return parse_spec(tomllib.loads(text), text=text)


def case_run(k):
    from mcio.batch import run_point
    s = _spec(FICON + f"[run]\nreplications = 4\nios = {200_000 * k}\n")
    return [E.Simulation(s.point_model(0), s.run)], lambda: run_point(s, 0)


def case_run_precision(k):
    from mcio.batch import run_point
    s = _spec('title = "p"\nscenario = "mm1-demo"\n[run]\nreplications = 4\nios = 2000\nprecision = 0.0001\n'
              f'max_ios = {500_000 * k}\n')
    return [E.Simulation(s.point_model(0), s.run)], lambda: run_point(s, 0)


def case_compare(k):
    from mcio.compare import compare
    from mcio.scenarios import SCENARIO_OBJECTS
    a = SCENARIO_OBJECTS["ficon-channel"].model()
    b = a.replace("channels.count", 2) if a.channels["count"] == 1 else a
    n = 100_000 * k
    return [E.Simulation.of(m, n, 4) for m in (a, b)], lambda: compare(a, b, ios=n, replications=4)


def case_reproduce(name, mult):
    def make(k):
        import dataclasses
        from mcio.scenarios import SCENARIO_OBJECTS
        scn = SCENARIO_OBJECTS[name]
        run = dataclasses.replace(scn.run_size, ios=scn.run_size.ios * mult * k)
        return scn.reproduce_simulations(run), lambda: scn.reproduce(run)
    return make


def case_isfc_run(k):
    from mcio.scenarios.isfc import IsfcLink, link_simulations, simulate_link
    link = IsfcLink.from_ranges(["LPAR1", "LPAR2"], {"3C": "D000-D002", "3D": "D003-D005", "3E": "D006-D008"})
    n = 20_000 * k
    return (link_simulations(link, "LPAR2", ios_per_device=n, replications=4),
            lambda: simulate_link(link, "LPAR2", ios_per_device=n, replications=4))


def case_isfc_plan(k):
    from mcio.scenarios.isfc import plan
    from mcio.scenarios.isfc.plan import plan_simulations
    args = (["3C", "3D", "3E"], 9, ["LPAR1", "LPAR2"], "LPAR2")
    kw = dict(ios_per_device=20_000 * k, replications=4, verify=True)
    return plan_simulations(*args, **kw), lambda: plan(*args, **kw)


def case_calibrate(k):
    from mcio.calibrate import calibrate
    from mcio.calibrate.measured import parse_rows
    from mcio.calibrate.simulation import calibration_simulations
    rows = parse_rows([{"iops": x, "channel_busy": 0.1, "response_ms": 1.0} for x in (1000.0, 2000.0, 3000.0)])
    n = 100_000 * k
    return (calibration_simulations("ficon-channel", rows, {}, None, n, 4, evaluations=1),
            lambda: calibrate("ficon-channel", rows, [], ios=n, replications=4))


def case_sweep(k):
    from mcio.batch import sweep
    s = _spec(FICON + '[sweep]\n"channels.mp_us_per_io_ccw" = {start = 20, stop = 80, num = 6}\n'
              f"[run]\nreplications = 4\nios = {50_000 * k}\n")
    def est(force, startup):
        if not force:
            return E.estimate(s)
        return E.estimate(s, s_per_io=E.measured_s_per_io(E.pilot_models(s)), startup_s=startup)
    return est, lambda: sweep(s)


CASES = [
    ("mcio run (closed FICON, event engine)", case_run),
    ("mcio run (precision target to max_ios)", case_run_precision),
    ("mcio compare (ficon-channel, 1 vs 2 channels)", case_compare),
    ("mcio sweep (6 points, closed FICON)", case_sweep),
    ("mcio reproduce ficon-channel", case_reproduce("ficon-channel", 1)),
    ("mcio reproduce zhpf-dump", case_reproduce("zhpf-dump", 1)),
    ("mcio reproduce dasd-mdc", case_reproduce("dasd-mdc", 1)),
    ("mcio reproduce isfc-link", case_reproduce("isfc-link", 1)),
    ("mcio reproduce isfc-link --ios x5", case_reproduce("isfc-link", 5)),
    ("mcio reproduce cms-commit", case_reproduce("cms-commit", 1)),
    ("mcio reproduce cms-commit --ios x10", case_reproduce("cms-commit", 10)),
    ("mcio isfc run (3 channels x 3 FCTC)", case_isfc_run),
    ("mcio isfc plan (3 channels, 9 FCTC, verify)", case_isfc_plan),
    ("mcio calibrate --params none (3 rows)", case_calibrate),
]


def child(i: int, scale: int, mode: str, cpu: bool = False) -> dict:
    """Case ``i`` in this (fresh) process, as a command runs it: its inputs built, then ``mode``
    "work": the estimate without a pilot, then the work, timed from the estimate's start (the
    kernels' loading from Numba's cache included, as in every CLI command); "pilot": only the
    estimate with a pilot forced (its own process: the pilot would warm the measured one)."""
    if cpu:   # every clock (the pilot's too) reads this process's CPU time: what an idle machine's one thread takes
        time.perf_counter = time.process_time
        E.load_factor = lambda: 1.0
    what, work = CASES[i][1](scale)
    t0 = time.perf_counter()
    if mode == "pilot":
        startup = E.pending_startup_s()
        est = what(True, startup) if callable(what) else E.timed_simulations(what, force=True)
        return {"pilot": est.seconds, "pilot_startup": est.startup_s, "pilot_took": time.perf_counter() - t0}
    est = what(False, None) if callable(what) else E.estimate_simulations(what)
    work()
    return {"measured": time.perf_counter() - t0, "fixed": est.seconds, "startup": est.startup_s}


def fresh(i: int, scale: int, mode: str, cpu: bool = False) -> dict:
    import json
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    if cpu:
        env["NUMBA_NUM_THREADS"] = "1"
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", str(i), "--scale", str(scale),
                        "--mode", mode] + (["--cpu"] if cpu else []), env=env, capture_output=True, text=True,
                       check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=1, help="multiply every case's I/Os")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each case (median shown)")
    ap.add_argument("--only", default="", help="comma-separated case numbers (default: all)")
    ap.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--mode", default="work", help=argparse.SUPPRESS)
    ap.add_argument("--cpu", action="store_true",
                    help="one Numba thread, every time (the pilot's too) as process CPU time: the figures of an "
                         "idle machine, whatever else it runs")
    a = ap.parse_args()
    if a.child is not None:
        import json
        import warnings
        warnings.simplefilter("ignore")
        print(json.dumps(child(a.child, a.scale, a.mode, a.cpu)))
        return
    only = {int(x) for x in a.only.split(",") if x.strip()}
    print(f"{'#':>2} {'command':<46}{'measured s':>11}{'start-up':>9}{'fixed':>7}{'ratio':>7}{'pilot':>7}{'ratio':>7}"
          f"{'work ratio':>11}")
    ratios, fixed_ratios = [], []
    for i, (label, _) in enumerate(CASES):
        if only and i not in only:
            continue
        runs, pilots = [], []
        for _ in range(a.repeat):          # (alternated: a pilot and the run it estimates see the same load)
            runs.append(fresh(i, a.scale, "work", a.cpu))
            pilots.append(fresh(i, a.scale, "pilot", a.cpu))
        m = statistics.median(r["measured"] for r in runs)
        f = statistics.median(r["fixed"] for r in runs)
        st = statistics.median(r["startup"] for r in runs)
        p = statistics.median(r["pilot"] for r in pilots)
        ratios.append(p / m)
        fixed_ratios.append(f / m)
        # the work alone (start-up left out of both): how far the per-run figures are
        work = (p - st) / (m - st) if m > st else float("nan")
        print(f"{i:>2} {label:<46}{m:>11.2f}{st:>9.2f}{f:>7.2f}{f / m:>7.2f}{p:>7.2f}{p / m:>7.2f}{work:>11.2f}",
              flush=True)

    def within(rs):
        return sum(1 / 1.5 <= r <= 1.5 for r in rs)
    print(f"pilot ratio: min {min(ratios):.2f}, max {max(ratios):.2f}; within 1.5x: {within(ratios)} of {len(ratios)}")
    print(f"fixed ratio: min {min(fixed_ratios):.2f}, max {max(fixed_ratios):.2f}; within 1.5x: "
          f"{within(fixed_ratios)} of {len(fixed_ratios)}")


if __name__ == "__main__":
    main()
