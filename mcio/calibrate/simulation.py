"""One measured row simulated: the model with the row's load (open at its IOPS, or closed with its
population and a given or solved think time) and the metrics compared with the measured columns;
:func:`evaluate` simulates every row.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..errors import McioError
from ..model import Model
from .measured import Row
from .params import build_model, resolve_scenario

#: think-time solving simulates a closed row at most this many times (:func:`simulate_row`)
SOLVE_ROUNDS = 8


#: simulated variable behind each measured column
SIM_VAR = {"iops": "throughput_iops", "channel_busy": "channel_busy", "response_ms": "response_ms",
           "pend_ms": "pend_ms", "cmr_ms": "cmr_ms", "disconnect_ms": "disconnect_ms",
           "connect_ms": "connect_ms", "open_exchanges": "open_exchanges_mean",
           "iosq_ms": "iosq_ms"}


def row_model(m: Model, row: Row, think_ms: float | None = None) -> Model:
    """The model with the row's load: open at its IOPS, or closed with its population. A
    configuration (``[topology]``) takes an open row's IOPS as its ``load_scale`` (every workload
    scaled so that their total is the row's IOPS); a closed row needs a single-path model."""
    d = m.to_dict()
    if "topology" in d:
        if not row.is_open:
            raise McioError("measured row population", row.population,
                            "a configuration ([topology]) is calibrated on open rows (IOPS only)")
        total = sum(float(w.get("rate_iops") or 0.0) for w in d["topology"].get("workload", []))
        if total <= 0:
            raise McioError("measured row", row.iops, "the configuration has no open workload to scale")
        d["topology"]["load_scale"] = row.iops / total
        return Model.from_dict(d, where="calibration row")
    w = dict(d["workload"])
    if row.is_open:
        w.update(type="open", rate_iops=row.iops)
        w.pop("population", None)
        w.pop("think_ms", None)
    else:
        t = row.think_ms if think_ms is None else think_ms
        t = 0.0 if t == "solve" else t
        w.update(type="closed", population=row.population,
                 think_ms={"dist": "exponential", "mean": t} if t > 0 else 0.0)
        if w.get("binding") == "device":
            w["binding"] = "random"
        for k in ("rate_iops", "arrival_trace_ms"):
            w.pop(k, None)
    d["workload"] = w
    return Model.from_dict(d, where="calibration row")


def _metrics(ds) -> dict:
    out = {}
    for col, var in SIM_VAR.items():
        out[col] = float(np.nanmean(ds[var].values))
    for comp in ("response", "pend", "cmr"):
        out[f"{comp}_ci95_ms"] = float(ds[f"{comp}_ci95_ms"].values)
    out["iops_ci95"] = float(ds["throughput_ci95_iops"].values)
    out["channel_busy_ci95"] = float(_ci(ds["channel_busy"].mean("channel").values))
    return out


def _ci(x) -> float:
    from ..engine import ci95_halfwidth
    return float(ci95_halfwidth(np.asarray(x)))


def simulate_row(m: Model, row: Row, index: int, ios: int, replications: int, seed: int) -> dict:
    """Simulate one measured row (stream key = row index: common random numbers)."""
    from ..engine import simulate
    where = f"measured row {index + 1} ({row.iops:g} IOPS)"
    if row.is_open:
        mm = row_model(m, row)
        try:
            mm.check_open_capacity()
        except McioError as e:
            raise McioError(where, f"open at {row.iops:g} IOPS",
                            f"over the model's capacity ({e.allowed}); give this row a population") from None
        out = _metrics(simulate(mm, ios=ios, replications=replications, seed=seed, point=index))
        out.update(load="open", population=None, think_ms=None)
        return out
    think = row.think_ms
    if think != "solve":
        out = _metrics(simulate(row_model(m, row), ios=ios, replications=replications, seed=seed, point=index))
        out.update(load="closed", population=row.population, think_ms=float(think))
        return out
    # solve the think time Z that delivers the row's IOPS: cycle time N / X = R + Z
    z, target = 0.0, row.population / row.iops * 1000.0
    for _ in range(SOLVE_ROUNDS):
        out = _metrics(simulate(row_model(m, row, z), ios=ios, replications=replications, seed=seed, point=index))
        cycle = row.population / out["iops"] * 1000.0
        if (z == 0.0 and cycle >= target) or abs(out["iops"] / row.iops - 1.0) < 0.002:
            break
        z = max(0.0, z + target - cycle)
    out.update(load="closed", population=row.population, think_ms=z)
    return out


def evaluate(scenario, rows: Sequence[Row], values: dict | None = None, base: dict | None = None,
             ios: int = 100_000, replications: int = 4, seed: int = 1) -> list[dict]:
    """Simulate every row with the model of ``scenario`` (a Scenario or a registered name) at
    ``values``; one dict of metrics per row."""
    m = build_model(resolve_scenario(scenario), values or {}, base)
    return [simulate_row(m, r, i, ios, replications, seed) for i, r in enumerate(rows)]


def calibration_simulations(scenario, rows: Sequence[Row], values: dict | None = None, base: dict | None = None,
                            ios: int = 100_000, replications: int = 4, evaluations: int = 1) -> list:
    """The engine runs of at most ``evaluations`` loss evaluations (each :func:`evaluate`: every
    row, a row whose think time is solved up to :data:`SOLVE_ROUNDS` times), as
    :class:`mcio.batch.estimates.Simulation`, for the time and memory estimates: an upper bound
    (a fit may converge in fewer evaluations, a solve in fewer rounds)."""
    from ..batch.estimates import Simulation
    m = build_model(resolve_scenario(scenario), values or {}, base)
    one = []
    for r in rows:
        rm = row_model(m, r)
        n = SOLVE_ROUNDS if (not r.is_open and r.think_ms == "solve") else 1
        one += [Simulation.of(rm, ios, replications)] * n
    return one * int(evaluations)

