"""mcio side by side with SimPy and Ciw on the same open queues: M/M/1 and M/M/4 at rho 0.9,
mean service 1 ms (so mean response 10 ms for M/M/1, ~2.97 ms for M/M/4).

    python benchmarks/peers/compare.py            # full sizes (a few minutes)
    python benchmarks/peers/compare.py --quick    # 1/10 of the customers, for a smoke test

For each simulator and model: customers simulated per second of wall time (one core: mcio runs
on one Numba thread, the peers are single-threaded Python), the mean response time over
``--replications`` independent replications with its Student-t 95 % CI, and whether the analytic
mean (mcio.analytic.mm1 / mmc) lies inside the 99 % CI. Each replication discards its first 10 %
of customers as warm-up, as mcio's default does. Peers run fewer customers because they are slow
(defaults: SimPy 2e5, Ciw 5e4, mcio 5e6 per replication); the rate is customers / wall seconds,
warm-up included, and for mcio it covers the whole ``simulate`` call (kernels already compiled).

Targets (issue 6): mcio >= 1000x SimPy and >= 2500x Ciw on M/M/1. Exit status 1 if any
simulator's mean disagrees with the analytic one (outside its 99 % CI).
"""
from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time

import numpy as np
from scipy import stats

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from benchmarks.common import mmc_model, set_threads, warm  # noqa: E402
from benchmarks.models import RHO, SERVICE_MS  # noqa: E402
from mcio import analytic  # noqa: E402
from mcio.engine import simulate  # noqa: E402

WARMUP_FRACTION = 0.1


# ---------------------------------------------------------------------------------- SimPy


def simpy_run(c: int, customers: int, seed: int) -> float:
    """One SimPy replication of M/M/c; returns the mean response (ms) after warm-up."""
    import simpy
    rng = random.Random(seed)
    lam = RHO * c / SERVICE_MS
    mu = 1.0 / SERVICE_MS
    env = simpy.Environment()
    server = simpy.Resource(env, capacity=c)
    warm_n = int(customers * WARMUP_FRACTION)
    tally = [0.0, 0]                                   # sum of responses, count

    def customer(env, i):
        arrived = env.now
        with server.request() as req:
            yield req
            yield env.timeout(rng.expovariate(mu))
        if i >= warm_n:
            tally[0] += env.now - arrived
            tally[1] += 1

    def source(env):
        for i in range(customers):
            yield env.timeout(rng.expovariate(lam))
            env.process(customer(env, i))

    env.process(source(env))
    env.run()
    return tally[0] / tally[1]


# ---------------------------------------------------------------------------------- Ciw


def ciw_run(c: int, customers: int, seed: int) -> float:
    """One Ciw replication of M/M/c; returns the mean response (ms) after warm-up."""
    import ciw
    lam = RHO * c / SERVICE_MS
    net = ciw.create_network(arrival_distributions=[ciw.dists.Exponential(rate=lam)],
                             service_distributions=[ciw.dists.Exponential(rate=1.0 / SERVICE_MS)],
                             number_of_servers=[c])
    ciw.seed(seed)
    sim = ciw.Simulation(net)
    sim.simulate_until_max_customers(customers, method="Finish")
    recs = sorted(sim.get_all_records(), key=lambda r: r.arrival_date)
    tail = recs[int(len(recs) * WARMUP_FRACTION):]
    return sum(r.exit_date - r.arrival_date for r in tail) / len(tail)


# ---------------------------------------------------------------------------------- mcio


def mcio_runs(c: int, customers: int, replications: int, seed: int):
    """mcio on one Numba thread: (per-replication mean responses, wall seconds, customers)."""
    model = mmc_model(c)
    warm(model)
    set_threads(1)
    warmup = int(customers * WARMUP_FRACTION)
    t = time.perf_counter()
    ds = simulate(model, ios=customers - warmup, warmup=warmup, replications=replications, seed=seed)
    dt = time.perf_counter() - t
    set_threads(2)
    return np.asarray(ds["response_ms"].values, float), dt, customers * replications


def peer_runs(fn, c: int, customers: int, replications: int, seed: int):
    means = []
    t = time.perf_counter()
    for r in range(replications):
        means.append(fn(c, customers, seed * 1000 + r))
    dt = time.perf_counter() - t
    return np.asarray(means), dt, customers * replications


# ---------------------------------------------------------------------------------- report


def ci(x: np.ndarray, level: float) -> float:
    n = len(x)
    return float(stats.t.ppf(0.5 + level / 2, n - 1) * np.std(x, ddof=1) / math.sqrt(n))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--replications", type=int, default=4)
    ap.add_argument("--mcio-customers", type=float, default=5e6, help="per replication")
    ap.add_argument("--simpy-customers", type=float, default=2e5, help="per replication")
    ap.add_argument("--ciw-customers", type=float, default=5e4, help="per replication")
    ap.add_argument("--servers", type=int, nargs="+", default=[1, 4], help="c of the M/M/c models")
    ap.add_argument("--quick", action="store_true", help="1/10 of every customer count")
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args(argv)
    scale = 0.1 if a.quick else 1.0
    sizes = {"mcio": int(a.mcio_customers * scale), "SimPy": int(a.simpy_customers * scale),
             "Ciw": int(a.ciw_customers * scale)}
    R = a.replications
    print(f"M/M/c at rho {RHO}, mean service {SERVICE_MS} ms; {R} replications each; customers per "
          f"replication: " + ", ".join(f"{k} {v:,}" for k, v in sizes.items()))
    print("mcio on 1 Numba thread; SimPy and Ciw are single-threaded. Rate = customers / wall s.\n")
    ok = True
    hdr = f"{'model':7s} {'simulator':9s} {'customers/s':>14s} {'mean resp ms':>13s} {'95% CI':>9s} " \
          f"{'analytic':>9s} {'in 99% CI':>9s} {'mcio / peer':>12s}"
    print(hdr)
    print("-" * len(hdr))
    for c in a.servers:
        exact = (analytic.mm1(RHO / SERVICE_MS, SERVICE_MS) if c == 1
                 else analytic.mmc(RHO * c / SERVICE_MS, SERVICE_MS, c)).mean_response
        name = "M/M/1" if c == 1 else f"M/M/{c}"
        results = {"mcio": mcio_runs(c, sizes["mcio"], R, a.seed)}
        results["SimPy"] = peer_runs(simpy_run, c, sizes["SimPy"], R, a.seed)
        results["Ciw"] = peer_runs(ciw_run, c, sizes["Ciw"], R, a.seed)
        mcio_rate = results["mcio"][2] / results["mcio"][1]
        for sim, (means, dt, n) in results.items():
            r = n / dt
            m = float(means.mean())
            inside = abs(m - exact) <= ci(means, 0.99)
            ok &= inside
            ratio = "" if sim == "mcio" else f"{mcio_rate / r:,.0f}x"
            print(f"{name:7s} {sim:9s} {r:14,.0f} {m:13.4f} {ci(means, 0.95):9.4f} {exact:9.4f} "
                  f"{'yes' if inside else 'NO':>9s} {ratio:>12s}")
        print()
    print("targets: mcio / SimPy >= 1000x and mcio / Ciw >= 2500x on M/M/1")
    if not ok:
        print("DISAGREEMENT: some simulator's mean lies outside its 99 % CI around the analytic mean")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
