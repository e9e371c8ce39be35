"""Model builders shared by the engine tests (each maps onto a textbook queue or network), and
the oracle table: every model the engine is checked against a closed form on, its oracle, its
run and its tolerance (tests/test_oracles.py is parametrised over it)."""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy import stats

from mcio import Model, simulate


FAMILY_ALPHA = 0.05


def se_multiplier(replications: int, checks: int) -> float:
    """How many standard errors a mean may miss its oracle by.

    A module making ``checks`` comparisons, each at 3 SE, would fail by chance on about
    checks x 0.3-0.9 % of random streams (any kernel change re-draws them). Bonferroni keeps
    the chance that any check of the module fails falsely under FAMILY_ALPHA: each check gets
    the two-sided t quantile at FAMILY_ALPHA / checks (about 4.2 SE for 100 checks, 24
    replications). A real bias still shows: these SEs are 0.1-0.5 % of the means.
    """
    return float(stats.t.ppf(1.0 - FAMILY_ALPHA / (2 * checks), replications - 1))


def se_from_ci(ci95, ds):
    """Standard error recovered from a 95 % CI half-width over ds's replications."""
    return ci95 / stats.t.ppf(0.975, ds.sizes["replication"] - 1)


def tolerance_se(ds, comp: str) -> float:
    """Standard error of a replication-mean component (ms)."""
    return float(se_from_ci(float(ds[f"{comp}_ci95_ms"]), ds))


def single_server_open(rate_iops: float, service: dict, servers: int = 1, aliases: int = 0) -> Model:
    """An open stream to one device whose only work is back-end service (all misses).

    With ``aliases`` = 0 this is the G/G/1 queue at the device (IOSQ + disconnect); with many
    aliases and ``servers`` back-end servers it is the G/G/c queue at the back end.
    """
    return Model.from_dict({
        "workload": {"type": "open", "rate_iops": rate_iops},
        "io": [{"kb": 0.0, "miss_ratio": 1.0}],
        "devices": {"count": 1, "aliases": aliases},
        "channels": {"mp_us_per_io_ccw": 0.0, "max_open_exchanges": 100_000},
        "control_unit": {"backend_servers": servers, "backend_service_ms": service},
    })


# The closed product-form network used against exact MVA: think (delay), channel MP (FIFO
# exponential), host adapter (FIFO exponential), back end (FIFO exponential, ``be_servers``),
# link (processor sharing, deterministic size: PS is insensitive to the size distribution).
CLOSED_DEMANDS_MS = {"mp": 0.1, "ha": 0.05, "be": 0.3, "link": 0.1}
THINK_MS = 2.0


def closed_network(population: int, be_servers: int = 1) -> Model:
    return Model.from_dict({
        "workload": {"type": "closed", "population": population,
                     "think_ms": {"dist": "exponential", "mean": THINK_MS}},
        "io": [{"kb": 4.0, "miss_ratio": 1.0}],
        # 4 devices x 256 exposures: no IOSQ even at N = 600 (about 150 per device)
        "devices": {"count": 4, "aliases": 255},
        "channels": {"mp_us_per_io_ccw": 1000 * CLOSED_DEMANDS_MS["mp"], "mp_scv": 1.0,
                     "link_mb_s": 4.0 / CLOSED_DEMANDS_MS["link"], "max_open_exchanges": 100_000},
        "control_unit": {"ha_service_us": {"dist": "exponential", "mean": 1000 * CLOSED_DEMANDS_MS["ha"]},
                         "backend_servers": be_servers,
                         "backend_service_ms": {"dist": "exponential", "mean": CLOSED_DEMANDS_MS["be"]}},
    })


def ficon_like(population: int = 26, channels: int = 2) -> Model:
    """A seed-001-like path with every mechanism switched on (skew, classes, z/HPF, PS, HA, BE)."""
    return Model.from_dict({
        "workload": {"type": "closed", "population": population,
                     "think_ms": {"dist": "exponential", "mean": 0.5}},
        "io": [{"name": "read", "share": 0.75, "kb": 4, "miss_ratio": 0.74, "records": 2},
               {"name": "write", "share": 0.25, "kb": 27, "miss_ratio": 0.1}],
        "devices": {"count": 256, "skew": "zipf", "zipf_s": 0.8, "aliases": 1},
        "channels": {"count": channels, "mp_us_per_io_ccw": 80, "mp_us_per_command_ccw": 5,
                     "mp_scv": 0.3, "zhpf_share": 0.3, "link_mb_s": 400, "max_open_exchanges": 8,
                     "mp_start_fraction": 0.7, "protocol_us_per_command_ccw": 20,
                     "protocol_us_per_io_zhpf": 15, "selection": "least_busy"},
        "control_unit": {"ha_servers": 2, "ha_service_us": {"dist": "lognormal", "mean": 60, "scv": 2},
                         "backend_servers": 16,
                         "backend_service_ms": {"dist": "empirical", "values": [0.5, 1.5, 6.0],
                                                "weights": [5, 3, 1]}},
    })


def ha_only(population: int, servers: int, service_ms: float, dist: str = "deterministic") -> Model:
    """A closed population that does nothing but host-adapter service (no think, no queue elsewhere)."""
    return Model.from_dict({
        "workload": {"type": "closed", "population": population, "think_ms": 0.0},
        "io": [{"kb": 0.0, "miss_ratio": 0.0}],
        "devices": {"count": 4, "aliases": 255},
        "channels": {"mp_us_per_io_ccw": 0.0, "max_open_exchanges": 100_000},
        "control_unit": {"ha_servers": servers, "ha_service_us": {"dist": dist, "mean": 1000 * service_ms}},
    })


def ha_open(rate_iops: float, servers: int, service_ms: float) -> Model:
    """An open stream whose only queue is a host adapter of ``servers`` exponential servers."""
    return Model.from_dict({
        "workload": {"type": "open", "rate_iops": rate_iops},
        "io": [{"kb": 0.0, "miss_ratio": 0.0}],
        "devices": {"count": 1, "aliases": 255},
        "channels": {"mp_us_per_io_ccw": 0.0, "max_open_exchanges": 100_000},
        "control_unit": {"ha_servers": servers, "ha_service_us": {"dist": "exponential", "mean": 1000 * service_ms}},
    })


def backend_behind_ha(rate_iops: float, servers: int, service_ms: float) -> Model:
    """An open stream to a back end of ``servers`` exponential servers behind a fast host adapter
    (0.05 ms deterministic, 8 servers: no queue to speak of)."""
    return Model.from_dict({
        "workload": {"type": "open", "rate_iops": rate_iops},
        "io": [{"kb": 0.0, "miss_ratio": 1.0}],
        "devices": {"count": 1, "aliases": 255},
        "channels": {"mp_us_per_io_ccw": 0.0, "max_open_exchanges": 100_000},
        "control_unit": {"ha_servers": 8, "ha_service_us": {"dist": "deterministic", "mean": 50.0},
                         "backend_servers": servers,
                         "backend_service_ms": {"dist": "exponential", "mean": service_ms}},
    })


def dasd_volume(kb=4.0, miss=1.0, policy="read_through", geometry="3390", **devices) -> Model:
    """One positional volume, one I/O in flight (closed, population 1, no think), nothing but the
    device's service and the link: no MP work, no protocol, no host adapter."""
    return Model.from_dict({
        "workload": {"type": "closed", "population": 1},
        "io": [{"kb": kb, "miss_ratio": miss}],
        "devices": {"count": 1, "geometry": geometry, **devices},
        "channels": {"mp_us_per_io_ccw": 0.0, "link_mb_s": 800.0},
        "control_unit": {"miss_policy": policy}})


def seek_curve(m: Model):
    """mcio.dasd's seek curve of a positional model (the host-side reference, not the kernel's walk)."""
    from mcio.dasd import SeekCurve
    pos = m.positional()
    return SeekCurve(pos["seek_settle_ms"], pos["seek_ms_per_sqrt_cyl"])


# ---- the tolerance rule ------------------------------------------------------------------------
#
# A measure of a run (a dataset variable, e.g. "iosq_ms", or one quantile of it, e.g.
# "response_quantile_ms@0.9") passes when
#
#     |sim - exact| <= k * se + rel * |exact| + abs
#
# sim the mean over replications, se its standard error: from the run's 95 % CI half-width
# (``<stem>_ci95_<unit>``) where the run reports one, else from the replications' spread. k is the
# family's Bonferroni-corrected t quantile (se_multiplier: a module of ``checks`` comparisons fails
# by chance with probability < FAMILY_ALPHA); rel a floor for a known resolution (the histogram's
# 1 % on quantiles) or rounding (1e-9); abs a fixed allowance where a figure has no CI. With
# ``each`` (an identity, not an estimate) every replication's value must meet it, k = 0. With
# ``max_se`` the run must also be precise enough for the check to bite (se below it).


@dataclass(frozen=True)
class Tol:
    k: float                     # standard errors
    rel: float = 0.0             # x |exact|
    abs: float = 0.0             # in the measure's unit
    each: bool = False           # every replication, not the mean
    max_se: float | None = None  # the run's standard error must be below this

    def bound(self, exact: float, se: float) -> float:
        return self.k * se + self.rel * abs(exact) + self.abs


EXACT = Tol(0.0, rel=1e-9, each=True)


def observed(ds, measure: str) -> tuple[np.ndarray, float, float]:
    """(values by replication, their mean, its standard error) of ``measure`` in ``ds``."""
    name, _, p = measure.partition("@")
    da = ds[name]
    stem, _, unit = name.rpartition("_")
    ci = ds[f"{stem}_ci95_{unit}"] if f"{stem}_ci95_{unit}" in ds else None
    if p:
        i = int(np.flatnonzero(np.isclose(ds["quantile"].values, float(p)))[0])
        da, ci = da.isel(quantile=i), ci.isel(quantile=i)
    values = np.asarray(da.values, dtype=float).ravel()
    se = float(se_from_ci(float(ci), ds)) if ci is not None else float(values.std(ddof=1) / np.sqrt(values.size))
    return values, float(values.mean()), se


def misses(ds, measure: str, exact: float, tol: Tol) -> str | None:
    """Why ``measure`` of ``ds`` fails the rule against ``exact`` (None: it passes)."""
    values, got, se = observed(ds, measure)
    bound = tol.bound(exact, se)
    if tol.each:
        worst = float(np.abs(values - exact).max())
        return None if worst <= bound else f"{measure}: {values} vs exact {exact:.6g} (bound {bound:.3g})"
    if tol.max_se is not None and not se < tol.max_se:
        return f"{measure}: standard error {se:.3g} too wide for the check to bite (max {tol.max_se:.3g})"
    if abs(got - exact) <= bound:
        return None
    return (f"{measure}: {got:.6g} vs exact {exact:.6g}, off by {abs(got - exact):.3g} > {bound:.3g} "
            f"({tol.k:.2f} SE = {tol.k * se:.3g})")


# ---- the table ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Oracle:
    """One model checked against a closed form.

    ``expect()`` maps each measure to its exact value; ``run`` is what simulate() gets; ``tol`` the
    rule's parameters for every measure but those in ``tols`` (keyed by the measure, or its name
    before '@'); ``engine`` ("fast"/"event") the engine the run must have taken. A coverage row
    (``seeds`` > 0) instead runs ``run`` on seeds 0..seeds-1 and counts the 95 % CIs of each
    measure that cover the exact value (``all_cover_fails``: coverage of every seed fails too).
    ``resolves``: the relative error of an oracle (either way) that every measure's check catches
    on this run (test_oracles checks it); above 5 % only where the run is too short for
    the measure's spread (a high quantile, an M/M/1 at rho 0.9, an Erlang-C wait of 0.05 ms).
    """
    id: str
    model: Callable[[], Model]
    expect: Callable[[], dict]
    run: dict
    tol: Tol | None = None
    tols: dict = field(default_factory=dict)
    engine: str | None = None
    seeds: int = 0
    all_cover_fails: bool = False
    resolves: float = 0.05

    def tol_of(self, measure: str) -> Tol:
        return self.tols.get(measure, self.tols.get(measure.partition("@")[0], self.tol))


def _mva_closed(population: int, be_servers: int) -> dict:
    from mcio.analytic import mva_closed
    d = CLOSED_DEMANDS_MS
    kinds = ["queue", "queue", "queue" if be_servers == 1 else f"multi:{be_servers}", "queue"]
    at = mva_closed(population, [d["mp"], d["ha"], d["be"], d["link"]], kinds, think_time=THINK_MS).at(population)
    res = at["residence"]
    return {"response_ms": at["response"], "pend_ms": res[0] + res[1], "cmr_ms": res[1],
            "disconnect_ms": res[2], "connect_ms": res[3], "throughput_iops": 1000 * at["throughput"],
            "channel_busy": at["throughput"] * d["mp"]}     # the MP's utilisation: X * D_mp


def _mm1(rho: float, service_ms: float = 1.0) -> dict:
    from mcio.analytic import mm1, mm1_response_quantile
    from mcio.engine.results import QUANTILES
    ref = mm1(rho / service_ms, service_ms)
    out = {"response_ms": ref.mean_response, "iosq_ms": ref.mean_wait, "disconnect_ms": service_ms,
           "throughput_iops": 1000 * rho / service_ms}
    out.update({f"response_quantile_ms@{p}": mm1_response_quantile(rho / service_ms, service_ms, p)
                for p in QUANTILES if p <= 0.99})
    return out


def _mmc(lam: float, service_ms: float, c: int):
    from mcio.analytic import mmc
    return mmc(lam, service_ms, c)


def _mg1(lam: float, service_ms: float, scv: float):
    from mcio.analytic import mg1
    return mg1(lam, service_ms, scv)


def _dasd_random(m: Model) -> dict:
    """Random access: mean seek over the random distance law plus half a revolution; a 4 KB
    read-through's connect is the media's pace."""
    from mcio.dasd import random_distance_pmf
    pos = m.positional()
    return {"disconnect_ms": seek_curve(m).mean_ms(random_distance_pmf(pos["cylinders"])) + pos["rotation_ms"] / 2,
            "connect_ms": m.io[0]["kb"] / pos["media_mb_s"]}


def _dasd_sequential(kb: float) -> float:
    """Sequential: no seek but a one-cylinder one at each cylinder crossing, plus half a revolution."""
    m = dasd_volume(kb=kb, p_sequential=1.0)
    pos = m.positional()
    return kb / pos["cylinder_kb"] * seek_curve(m).seek_ms(1) + pos["rotation_ms"] / 2


def _dasd_locality(kb: float) -> float:
    """p_sequential 0.5 over 2,226 cylinders (the dasd-mdc scenario's fitted pattern): the mean
    seek over access.py's stationary distance distribution, plus half a revolution."""
    from mcio.dasd import AccessPattern
    m = dasd_volume(kb=kb, p_sequential=0.5, span_cylinders=2226)
    pos = m.positional()
    return seek_curve(m).mean_ms(AccessPattern(0.5, 2226, 3).distance_pmf(180)) + pos["rotation_ms"] / 2


def _exp(mean: float) -> dict:
    return {"dist": "exponential", "mean": mean}


def _rows() -> list[Oracle]:
    rows = []
    # -- a closed product-form network against exact MVA
    k = se_multiplier(24, checks=40)
    for n, be in ((1, 1), (10, 1), (60, 4), (600, 1)):
        rows.append(Oracle(f"closed-mva-N{n}-be{be}", lambda n=n, be=be: closed_network(n, be),
                           lambda n=n, be=be: _mva_closed(n, be),
                           dict(ios=15_000, replications=24, seed=n),
                           tol=Tol(k, rel=1e-9), tols={"throughput_iops": Tol(k), "channel_busy": Tol(0.0, abs=0.01)},
                           resolves=0.10 if n == 60 else 0.05))
    # -- open queues (S = 1 ms)
    k = se_multiplier(24, checks=100)
    for rho in (0.3, 0.7, 0.9):
        for eng, ios in (("fast", 1_000_000), ("event", 200_000)):
            rows.append(Oracle(f"mm1-rho{rho}-{eng}", lambda rho=rho: single_server_open(rho * 1000, _exp(1.0)),
                               lambda rho=rho: _mm1(rho),
                               dict(ios=ios, replications=24, seed=11, warmup=5000, fast_path=eng == "fast"),
                               tol=Tol(k), engine=eng,
                               tols={"response_quantile_ms": Tol(k, rel=0.01),      # the histogram's 1 %
                                     "throughput_iops": Tol(k, abs=1e-9)},
                               resolves={(0.9, "fast"): 0.10, (0.9, "event"): 0.15}.get((rho, eng), 0.05)))
    for c in (1, 4, 64):
        for rho in (0.3, 0.7, 0.9):
            # c back-end servers behind a device with enough aliases: the back end is M/M/c
            lam = rho * c
            rows.append(Oracle(f"mmc-backend-c{c}-rho{rho}-event",
                               lambda lam=lam, c=c: single_server_open(lam * 1000, _exp(1.0), servers=c, aliases=255),
                               lambda lam=lam, c=c, rho=rho: {"disconnect_ms": _mmc(lam, 1.0, c).mean_response,
                                                              "response_ms": _mmc(lam, 1.0, c).mean_response,
                                                              "backend_busy": rho},
                               dict(ios=40_000, replications=24, seed=5, warmup=5000, fast_path=False),
                               tol=Tol(k), tols={"backend_busy": Tol(0.0, abs=0.02)}, engine="event",
                               resolves=0.10 if rho == 0.9 and c < 64 else 0.05))
    for c in (4, 64):
        # c exposures of one device, nothing else contended: the device is M/M/c (IOSQ = wait), on
        # the fast path's Kiefer-Wolfowitz recursion
        lam = 0.9 * c
        rows.append(Oracle(f"mmc-device-c{c}-rho0.9-fast",
                           lambda lam=lam, c=c: single_server_open(lam * 1000, _exp(1.0), servers=c, aliases=c - 1),
                           lambda lam=lam, c=c: {"iosq_ms": _mmc(lam, 1.0, c).mean_wait,
                                                 "response_ms": _mmc(lam, 1.0, c).mean_response},
                           dict(ios=400_000, replications=24, seed=7, warmup=5000), tol=Tol(k), engine="fast",
                           resolves=0.10 if c == 64 else 0.05))
    for kind, scv in (("deterministic", 0.0), ("gamma", 2.5), ("lognormal", 4.0)):
        service = {"dist": kind, "mean": 1.0} if kind == "deterministic" else {"dist": kind, "mean": 1.0, "scv": scv}
        for eng, ios in (("fast", 500_000), ("event", 100_000)):
            # Pollaczek-Khinchine
            rows.append(Oracle(f"mg1-{kind}-scv{scv}-{eng}",
                               lambda service=service: single_server_open(700.0, service),
                               lambda scv=scv: {"iosq_ms": _mg1(0.7, 1.0, scv).mean_wait,
                                                "response_ms": _mg1(0.7, 1.0, scv).mean_response},
                               dict(ios=ios, replications=24, seed=3, warmup=5000, fast_path=eng == "fast"),
                               tol=Tol(k), engine=eng,
                               resolves=0.10 if (kind, eng) == ("lognormal", "event") else 0.05))
    # -- uniform back-end service through the whole engine
    for eng in ("fast", "event"):
        scv = (1.8**2 / 12) / 1.1**2                                   # U(0.2, 2.0): mean 1.1, this SCV
        rows.append(Oracle(f"mg1-uniform-{eng}",
                           lambda: single_server_open(600.0, {"dist": "uniform", "low": 0.2, "high": 2.0}),
                           lambda scv=scv: {"iosq_ms": _mg1(0.6, 1.1, scv).mean_wait, "disconnect_ms": 1.1},
                           dict(ios=40_000, replications=8, seed=3, fast_path=eng == "fast"), tol=Tol(4.5), engine=eng,
                           resolves=0.10))
    # -- the control unit's stations on the Kiefer-Wolfowitz recursion.
    # Their utilisation is the service assigned in the window, corrected at both ends by the work
    # committed but not yet given (stations.cu_committed): with host-adapter service only, N <= c
    # busy servers all the time (never queueing) or all c, whatever the window's ends cut through
    # (40 ms services, 300 I/Os), so utilisation min(N, c) / c to rounding, every replication.
    for n, c in ((5, 12), (12, 12), (8, 4), (30, 7)):
        rows.append(Oracle(f"ha-busy-N{n}-c{c}", lambda n=n, c=c: ha_only(n, c, 40.0),
                           lambda n=n, c=c: {"cu_ha_busy": min(n, c) / c, **({"cmr_ms": 40.0} if n <= c else {})},
                           dict(ios=300, replications=3, seed=3, warmup=37, fast_path=False),
                           tol=EXACT, engine="event"))
    k = se_multiplier(12, checks=12)
    for c, rho in ((1, 0.8), (3, 0.85)):
        rows.append(Oracle(f"ha-mmc-c{c}-rho{rho}", lambda c=c, rho=rho: ha_open(1000 * rho * c, c, 1.0),
                           lambda c=c, rho=rho: {"cmr_ms": _mmc(rho * c, 1.0, c).mean_response, "cu_ha_busy": rho},
                           dict(ios=60_000, replications=12, seed=9, warmup=5000, fast_path=False),
                           tol=Tol(k), tols={"cu_ha_busy": Tol(k, abs=1e-12)}, engine="event", resolves=0.10))
    rows.append(Oracle("backend-mmc-c2-rho0.8-behind-ha", lambda: backend_behind_ha(1600.0, 2, 1.0),
                       lambda: {"disconnect_ms": _mmc(1.6, 1.0, 2).mean_response, "cmr_ms": 0.05},
                       dict(ios=60_000, replications=12, seed=4, warmup=5000, fast_path=False),
                       tol=Tol(k), tols={"cmr_ms": EXACT}, engine="event"))
    # -- positional DASD in the device-service seam: the kernel's arm walk
    # against the stationary means of mcio.dasd's seek curve over its distance laws (which the
    # engine does not use); 4.5 SE and an SE below 0.05 ms
    dasd_tol = Tol(4.5, max_se=0.05)
    dasd_run = dict(ios=20_000, replications=4)
    seq_kb = 3 * 4.096                 # three 4 KB blocks; a 3390 cylinder holds 180
    rows.append(Oracle("dasd-3390-random", lambda: dasd_volume(), lambda: _dasd_random(dasd_volume()),
                       dict(dasd_run, seed=3), tol=dasd_tol,
                       tols={"connect_ms": EXACT}, engine="event"))    # read-through: 4 KB at the media's 4.2 MB/s
    rows.append(Oracle("dasd-3390-sequential", lambda: dasd_volume(kb=seq_kb, p_sequential=1.0),
                       lambda: {"disconnect_ms": _dasd_sequential(seq_kb)},
                       dict(dasd_run, seed=4), tol=dasd_tol, engine="event"))
    rows.append(Oracle("dasd-3390-locality-p0.5-span2226",
                       lambda: dasd_volume(kb=seq_kb, p_sequential=0.5, span_cylinders=2226),
                       lambda: {"disconnect_ms": _dasd_locality(seq_kb)},
                       dict(dasd_run, seed=5), tol=dasd_tol, engine="event"))
    rows.append(Oracle("dasd-3380-random", lambda: dasd_volume(geometry="3380"),
                       lambda: {"disconnect_ms": _dasd_random(dasd_volume(geometry="3380"))["disconnect_ms"]},
                       dict(dasd_run, seed=8), tol=dasd_tol, engine="event"))
    # -- the 95 % CIs cover the exact mean about 95 % of the time
    rows.append(Oracle("coverage-mm1-rho0.5-fast", lambda: single_server_open(500.0, _exp(1.0)),
                       lambda: {"response_ms": _mm1(0.5)["response_ms"]},
                       dict(ios=20_000, replications=5, warmup=2000), seeds=120, all_cover_fails=True))
    rows.append(Oracle("coverage-closed-mva-N10", lambda: closed_network(10),
                       lambda: {"response_ms": _mva_closed(10, 1)["response_ms"]},
                       dict(ios=5_000, replications=5, warmup=1000), seeds=40))
    return rows


ORACLES = _rows()


@functools.lru_cache(maxsize=None)
def run_row(oracle_id: str):
    """The run of a (non-coverage) row, once per session: its checks, its wrong-oracle check and
    other tests on the same run share it."""
    o = next(o for o in ORACLES if o.id == oracle_id and not o.seeds)
    return simulate(o.model(), **o.run)
