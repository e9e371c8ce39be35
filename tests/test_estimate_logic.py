"""The time estimates' logic (mcio/batch/estimates.py), without timing anything: a command's
estimate counts exactly the engine runs the command makes (the cause of `mcio reproduce`'s
0.05x / 0.09x: isfc-link and cms-commit run several models a variant, isfc-link its I/Os per used
device), each at its own measured cost, and the arithmetic is that of the costs given.
Measured accuracy: benchmarks/estimate_accuracy.py."""
from __future__ import annotations

from collections import Counter

import pytest

import mcio.engine
from mcio.batch import estimates as E
from mcio.scenarios import SCENARIO_OBJECTS
from mcio.scenarios.base import RunSize


def _key(model, ios, replications):
    return (model.to_toml(), int(ios), int(replications))


@pytest.fixture
def recorded(monkeypatch):
    """Every mcio.engine.simulate call (model, I/Os, replications), still simulated."""
    calls = []
    real = mcio.engine.simulate

    def record(model, ios=200_000, replications=4, *a, **k):
        calls.append(_key(model, ios, replications))
        return real(model, ios, replications, *a, **k)

    monkeypatch.setattr(mcio.engine, "simulate", record)
    return calls


@pytest.mark.parametrize("name", sorted(SCENARIO_OBJECTS))
def test_a_scenario_declares_every_engine_run_its_reproduce_makes(name, recorded):
    scn = SCENARIO_OBJECTS[name]
    run = RunSize(ios=3000, replications=2, seed=1)
    declared = Counter(_key(s.model, s.run["ios"], s.run["replications"]) for s in scn.reproduce_simulations(run))
    scn.reproduce(run)
    assert declared == Counter(recorded), (name, len(declared), len(recorded))


def test_isfc_plan_and_run_declare_their_engine_runs(recorded):
    from mcio.scenarios.isfc import IsfcLink, link_simulations, plan, simulate_link
    from mcio.scenarios.isfc.plan import plan_simulations
    args = (["3C", "3D"], 6, ["LPAR1", "LPAR2"], "LPAR2")
    kw = dict(ios_per_device=500, replications=2, seed=0, verify=True)
    dry = plan_simulations(*args, **kw)
    assert not recorded                           # a dry run simulates nothing
    plan(*args, **kw)
    got = Counter(recorded)
    want = Counter(_key(s.model, s.run["ios"], s.run["replications"]) for s in dry)
    # the verified layout may differ (the dry run's figures are placeholders): same number of
    # runs, the channel tables exactly
    assert sum(got.values()) == sum(want.values())
    assert sum((got & want).values()) >= sum(want.values()) - 2
    recorded.clear()
    link = IsfcLink.from_ranges(["LPAR1", "LPAR2"], {"3C": "D000-D002", "3D": "D003-D005"})
    sims = link_simulations(link, "LPAR2", ios_per_device=700, replications=2)
    simulate_link(link, "LPAR2", ios_per_device=700, replications=2)
    assert Counter(recorded) == Counter(_key(s.model, s.run["ios"], s.run["replications"]) for s in sims)


def test_calibration_simulations_bound_what_a_calibration_runs(recorded):
    from mcio.calibrate import calibrate
    from mcio.calibrate.measured import parse_rows
    from mcio.calibrate.simulation import calibration_simulations
    rows = parse_rows([{"iops": 200.0, "channel_busy": 0.2, "response_ms": 1.0},
                       {"iops": 400.0, "channel_busy": 0.4, "response_ms": 1.3, "population": 3, "think_ms": "solve"}])
    bound = calibration_simulations("mm1-demo", rows, {}, None, 2000, 2, evaluations=1)
    calibrate("mm1-demo", rows, [], ios=2000, replications=2)
    # the open row exactly; the solved row up to SOLVE_ROUNDS times (its think time changes)
    assert len(bound) == 1 + 8 and 2 <= len(recorded) <= len(bound)
    assert recorded[0] == _key(bound[0].model, 2000, 2) and all(r[1:] == (2000, 2) for r in recorded)
    evals = calibration_simulations("mm1-demo", rows, {}, None, 2000, 2, evaluations=5)
    assert len(evals) == 5 * len(bound)


def test_the_estimate_is_the_sum_of_its_runs_at_their_own_costs():
    mm1 = SCENARIO_OBJECTS["mm1-demo"].model()
    ficon = SCENARIO_OBJECTS["ficon-channel"].model()
    a, b = E.Simulation.of(mm1, 10_000, 2, 0), E.Simulation.of(ficon, 40_000, 3, 1000)
    ca, cb = E.Cost(1e-7, 0.01), E.Cost(5e-7, 0.02)
    both = E.estimate_simulations([a, b], threads=1, costs=[ca, cb], startup_s=0)
    one = [E.estimate_simulations([s], threads=1, costs=[c], startup_s=0) for s, c in ((a, ca), (b, cb))]
    assert both.seconds == pytest.approx(one[0].seconds + one[1].seconds)
    assert both.ios == 2 * 10_000 + 3 * 41_000
    # each run: its I/Os (warm-up included) x its cost, its fixed cost, per replication overheads
    assert one[1].seconds == pytest.approx(3 * 41_000 * 5e-7 + 0.02 + 3 * E.REPLICATION_OVERHEAD_S)
    # twice the I/Os: twice the variable part; two threads halve it
    a2 = E.Simulation.of(mm1, 20_000, 2, 0)
    var = one[0].seconds - 0.01 - 2 * E.REPLICATION_OVERHEAD_S
    assert E.estimate_simulations([a2], threads=1, costs=[ca], startup_s=0).seconds == \
        pytest.approx(2 * var + 0.01 + 2 * E.REPLICATION_OVERHEAD_S)
    assert E.estimate_simulations([a], threads=2, costs=[ca], startup_s=0).seconds == \
        pytest.approx(var / 2 + 0.01 + 2 * E.REPLICATION_OVERHEAD_S)
    # memory: the largest run's, not the sum
    assert both.memory_bytes == max(o.memory_bytes for o in one)


def test_a_pilot_measures_each_distinct_model_once(monkeypatch):
    piloted = []
    monkeypatch.setattr(E, "measured_cost", lambda m: piloted.append(m.to_toml()) or E.Cost(1e-6, 0.0))
    mm1 = SCENARIO_OBJECTS["mm1-demo"].model()
    ficon = SCENARIO_OBJECTS["ficon-channel"].model()
    costs = E.measured_costs([mm1, ficon, mm1, SCENARIO_OBJECTS["mm1-demo"].model()])
    assert len(piloted) == 2 and len(costs) == 4
    # a long run by the fixed figures is timed by the pilot; a short one is not
    sims = [E.Simulation.of(ficon, 10**9, 4)]
    monkeypatch.setattr(E, "pending_startup_s", lambda: 0.0)
    assert E.timed_simulations(sims, threads=1).seconds == pytest.approx(4 * (10**9 + 10**8) * 1e-6
                                                                         + 4 * E.REPLICATION_OVERHEAD_S)
    piloted.clear()
    E.timed_simulations([E.Simulation.of(mm1, 1000, 2)])
    assert not piloted


def test_a_pilot_cost_is_positive_and_finite():
    c = E.measured_cost(SCENARIO_OBJECTS["mm1-demo"].model())
    assert c is not None and 0 < c.s_per_io < 1e-4 and 0 <= c.overhead_s < 5.0
    over = SCENARIO_OBJECTS["mm1-demo"].model().replace("workload.rate_iops", 5000.0)
    assert E.measured_cost(over) is None


STARTUP = r"""
import json, sys
from mcio.batch import estimates as E
from mcio.scenarios import SCENARIO_OBJECTS
m = SCENARIO_OBJECTS["ficon-channel"].model()
sims = [E.Simulation.of(m, 2000, 2)]
factor = E.load_factor()
loaded = E.pending_startup_s()
E.load_factor = lambda: 1.0          # (the idle machine's figures, exactly)
out = {"factor": factor, "loaded": loaded, "fresh": E.pending_startup_s(), "loaded_before": E.kernels_loaded(),
       "est": E.estimate_simulations(sims, threads=1, costs=[E.Cost(1e-6, 0.01)]).seconds,
       "work": E.estimate_simulations(sims, threads=1, costs=[E.Cost(1e-6, 0.01)], startup_s=0).seconds,
       "dask_installed": E._first_dataset_ahead()}
E.timed_simulations(sims, force=True)          # a pilot: runs the kernels, makes results
out.update(after=E.pending_startup_s(), loaded_after=E.kernels_loaded())
print(json.dumps(out))
"""


def test_a_fresh_process_estimates_its_start_up_once_and_a_warm_one_does_not():
    """A command's estimate counts the process's one-time start-up still ahead (the kernels'
    loading from Numba's cache, the first result's libraries: most of a short command's time)
    once, however many runs follow, and nothing of it once the kernels have run here; the idle
    machine's figures times the load the process has seen."""
    import json
    import subprocess
    import sys
    from sweep_specs import cli_env
    r = subprocess.run([sys.executable, "-c", STARTUP], env=cli_env(), capture_output=True, text=True, check=True,
                       timeout=600)
    got = json.loads(r.stdout.strip().splitlines()[-1])
    first = E.FIRST_RESULT_S if got["dask_installed"] else 0.0
    assert not got["loaded_before"] and got["loaded_after"]
    assert got["fresh"] == pytest.approx(E.NUMBA_START_S + E.KERNELS_LOAD_S + first)
    # on a loaded machine, x the load this young process has seen (its imports' wall / CPU time)
    assert 1.0 <= got["factor"] <= E.MAX_LOAD_FACTOR
    assert got["fresh"] <= got["loaded"] <= got["fresh"] * E.MAX_LOAD_FACTOR
    assert got["est"] == pytest.approx(got["work"] + got["fresh"])
    assert got["after"] == 0.0


def test_start_up_is_counted_once_and_kept_across_the_pilot(monkeypatch):
    mm1 = SCENARIO_OBJECTS["mm1-demo"].model()
    ficon = SCENARIO_OBJECTS["ficon-channel"].model()
    sims = [E.Simulation.of(mm1, 10_000, 2, 0), E.Simulation.of(ficon, 40_000, 3, 1000)]
    costs = [E.Cost(1e-7, 0.01), E.Cost(5e-7, 0.02)]
    work = E.estimate_simulations(sims, threads=1, costs=costs, startup_s=0)
    both = E.estimate_simulations(sims, threads=1, costs=costs, startup_s=0.7)
    assert both.seconds == pytest.approx(work.seconds + 0.7) and both.startup_s == 0.7
    # repeated (a search's evaluations): the work n times, the start-up once
    assert E.repeated(both, 5).seconds == pytest.approx(5 * work.seconds + 0.7)
    # a pilot pays the start-up: the estimate made after it still counts what was ahead before it
    ahead = iter([0.7, 0.0])
    monkeypatch.setattr(E, "pending_startup_s", lambda: next(ahead, 0.0))
    monkeypatch.setattr(E, "measured_costs", lambda models: costs)
    assert E.timed_simulations(sims, threads=1, force=True).seconds == pytest.approx(work.seconds + 0.7)


def test_a_pilot_on_a_machine_of_known_costs_extrapolates_to_the_long_run(monkeypatch):
    """Estimate vs measured time, the logic without the machine's noise: on a clock where a kernel
    call costs a fixed part plus a per-I/O part shared by the threads its replications use, and a
    simulate() call a fixed part more, the pilot's few thousand I/Os give the cost of a run a
    million times longer (warm-up included): the line through the small runs, extrapolated."""
    import numba
    import time
    clock = [0.0]
    K0, S0, B = 2e-3, 9e-3, 4e-7      # s per kernel call, s per simulate() call beyond it, s per I/O

    def running(R):
        return max(1, min(R, numba.get_num_threads()))

    def kernels(model, ios, R, *a, **k):
        clock[0] += K0 + R * ios * B / running(R)

    def simulate(model, ios=200_000, replications=4, seed=0, warmup=None, **k):
        w = max(1000, ios // 10) if warmup is None else warmup
        kernels(model, ios + w, replications)
        clock[0] += S0
        return {"measured": clock[0]}

    monkeypatch.setattr(time, "perf_counter", lambda: clock[0])
    monkeypatch.setattr(mcio.engine, "run_kernels", kernels)
    monkeypatch.setattr(mcio.engine, "simulate", simulate)
    ficon = SCENARIO_OBJECTS["ficon-channel"].model()
    cost = E.measured_cost(ficon)
    assert cost is not None and cost.s_per_io == pytest.approx(B) and cost.overhead_s == pytest.approx(K0 + S0)
    for ios, R, w in ((50_000, 2, None), (10**9, 4, 10**6), (3_000, 8, 0)):
        est = E.estimate_simulations([E.Simulation.of(ficon, ios, R, w)], costs=[cost], startup_s=0)
        t = clock[0]
        simulate(ficon, ios, R, warmup=w)
        took = clock[0] - t
        # (the estimate's per-replication overhead: streams and MSER, which this clock has not)
        assert est.seconds - R * E.REPLICATION_OVERHEAD_S == pytest.approx(took, rel=1e-9), (ios, R, w)


def test_the_load_factor_of_an_old_process_is_one(monkeypatch):
    """A Python session that started long ago (or has hardly run) says nothing of the load now."""
    import resource
    import types
    monkeypatch.setattr(E, "LOAD_WINDOW_S", 0.0)
    assert E.load_factor() == 1.0
    monkeypatch.setattr(E, "LOAD_WINDOW_S", 1e9)
    monkeypatch.setattr(resource, "getrusage", lambda who: types.SimpleNamespace(ru_utime=0.01, ru_stime=0.0))
    assert E.load_factor() == 1.0                      # (too little CPU time behind it)
    monkeypatch.setattr(resource, "getrusage", lambda who: types.SimpleNamespace(ru_utime=1e-3 + E.MIN_CPU_S,
                                                                                   ru_stime=0.0))
    assert E.load_factor() == E.MAX_LOAD_FACTOR        # (a process that waited far longer than it ran: capped)
