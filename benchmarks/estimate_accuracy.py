"""Time estimates (mcio/batch/estimates.py) beside the measured time, command by command: the
estimate a command computes before it simulates (fixed figures, and from the pilot it runs when
the work may be long: here forced), then the command's work, timed, in the same process (as the
CLI does: the pilot has loaded the kernels). ``ratio`` = pilot estimate / measured; the aim is
within 1.5x either way. Calibrate's estimate is an upper bound (every evaluation the budget
allows); the case here only evaluates, where the bound is exact.

    python benchmarks/estimate_accuracy.py [--scale 1] [--repeat 1]

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
    est = (lambda force: E.estimate(s, s_per_io=E.measured_s_per_io(E.pilot_models(s))) if force else E.estimate(s))
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=1, help="multiply every case's I/Os")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each case (median shown)")
    a = ap.parse_args()
    print(f"{'command':<48}{'measured s':>11}{'fixed':>8}{'ratio':>7}{'pilot':>8}{'ratio':>7}")
    ratios = []
    for label, make in CASES:
        meas, fixed, pilot = [], [], []
        for _ in range(a.repeat):
            what, work = make(a.scale)
            if callable(what):                      # a sweep: its own estimate (pilot of its first/last points)
                f, p = what(False).seconds, what(True).seconds
            else:
                f = E.estimate_simulations(what).seconds
                p = E.timed_simulations(what, force=True).seconds
            t = time.perf_counter()
            work()
            meas.append(time.perf_counter() - t)
            fixed.append(f)
            pilot.append(p)
        m, f, p = statistics.median(meas), statistics.median(fixed), statistics.median(pilot)
        ratios.append(p / m)
        print(f"{label:<48}{m:>11.2f}{f:>8.2f}{f / m:>7.2f}{p:>8.2f}{p / m:>7.2f}", flush=True)
    print(f"pilot ratio: min {min(ratios):.2f}, max {max(ratios):.2f}; within 1.5x: "
          f"{sum(1 / 1.5 <= r <= 1.5 for r in ratios)} of {len(ratios)}")


if __name__ == "__main__":
    main()
