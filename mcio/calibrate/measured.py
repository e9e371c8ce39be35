"""Fit model parameters to measured intervals (RMF-style rows) by simulation.

The measured table
------------------
One row per measured interval, from a CSV file (``#`` lines are comments) or a TOML file (an array
of tables ``[[row]]``, or a table of equal-length column arrays); docs/calibration.md has an
example. Columns, by mcio's name or by the RMF report heading (:data:`RMF_COLUMNS`, matched
without regard to case, spaces or underscores):

=================  ========  =================================================================
column             needed    meaning
=================  ========  =================================================================
iops               yes       I/O rate, SSCH per second (RMF: DEVICE ACTIVITY RATE)
channel_busy       yes (*)   channel MP busy as a FRACTION in [0, 1]; a value written ``72%`` is
                             a percentage
channel_busy_pct   yes (*)   the same as a PERCENTAGE in [0, 100] (give one of the two columns;
                             RMF: UTILIZATION(%) TOTAL of the channel path)
response_ms        yes       mean response time, ms (RMF: AVG RESP TIME)
iosq_ms            no        mean IOSQ, ms (RMF: AVG IOSQ TIME)
pend_ms            no        mean pend, ms (includes CMR; RMF: AVG PEND TIME)
cmr_ms             no        mean command response delay, ms (RMF: AVG CMR DLY)
disconnect_ms      no        mean disconnect, ms (RMF: AVG DISC TIME)
connect_ms         no        mean connect, ms (RMF: AVG CONN TIME)
open_exchanges     no        mean open exchanges on the channel (RMF: FICON OPERATIONS ACTIVE)
population         no        how the row's load is set: with it, a closed workload keeping this
                             many I/Os outstanding; without it, an open (Poisson) stream at the
                             row's IOPS
think_ms           no        closed rows: think time (exponential mean, ms; default 0 = flat
                             out), or ``solve``: the think time that delivers the row's IOPS
=================  ========  =================================================================

Empty cells mean "not measured". A busy fraction over 1 (or percentage over 100) is an error, as are
unknown columns, non-numbers and fewer rows than parameters to fit.

The loss
--------
Weighted least squares, ``loss = 1/2 * sum(r_i^2)`` over every measured cell, each residual scaled
by the tolerance the measurement deserves (:data:`SCALES`): channel busy in absolute fraction
(0.02 = 2 percentage points), open exchanges in exchanges (2.5, the half-width of the seed's
ranges), times and rates as log ratios (0.05 = 5 % for response, 0.25 for the loosely reported
pend and CMR, 0.10 for disconnect and connect, 0.02 for IOPS; the IOPS of an open row, or of a
closed row whose think time is solved, is imposed and carries no residual, and that of a closed
row with a given think time is already in its response by Little's law, so it is not counted
twice). Parameters are fitted on a log scale
(``scipy.optimize.least_squares``, trust-region reflective, inside bounds) by finite differences.

Determinism: every evaluation simulates row ``i`` with the same root seed and stream key ``i``
(common random numbers), so the loss is a deterministic function of the parameters and the whole
fit is reproducible for a given seed.

Uncertainty: the linearised covariance at the optimum, ``(J^T J)^-1`` scaled by the reduced
chi-square when that exceeds 1 (the "fit" column); and, with ``noise_seeds = K``, the spread of
the fitted values that the simulation noise alone causes, propagated from the residuals' variance
over K other seeds (the "sim" column).
"""
from __future__ import annotations

import csv
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from ..errors import McioError
from ..model import Model
from ..scenarios.base import Scenario

# ---- the measured table -------------------------------------------------------------------

#: column -> (kind, scale). kind: "log" (residual = ln(sim/measured) / scale) or "abs"
#: (residual = (sim - measured) / scale).
SCALES: dict[str, tuple[str, float]] = {
    "iops": ("log", 0.02),
    "channel_busy": ("abs", 0.02),
    "response_ms": ("log", 0.05),
    "pend_ms": ("log", 0.25),
    "cmr_ms": ("log", 0.25),
    "disconnect_ms": ("log", 0.10),
    "connect_ms": ("log", 0.10),
    "open_exchanges": ("abs", 2.5),
    "iosq_ms": ("abs", 0.1),
}
REQUIRED = ("iops", "response_ms")
OPTIONAL = ("iosq_ms", "pend_ms", "cmr_ms", "disconnect_ms", "connect_ms", "open_exchanges")
LOAD = ("population", "think_ms")
ALLOWED = REQUIRED + ("channel_busy", "channel_busy_pct") + OPTIONAL + LOAD
#: RMF's report headings (Device Activity and Channel Path Activity reports; the seed 001 post's
#: own IOPS / CHAN% / AVGRSPMS) -> mcio's column. RMF reports times in ms and utilisation in %.
RMF_COLUMNS: dict[str, str] = {
    "DEVICE ACTIVITY RATE": "iops", "ACTIVITY RATE": "iops", "FICON OPERATIONS RATE": "iops", "IOPS": "iops",
    "UTILIZATION(%) TOTAL": "channel_busy_pct", "TOTAL UTILIZATION(%)": "channel_busy_pct",
    "CHANNEL UTILIZATION(%) TOTAL": "channel_busy_pct", "CHAN%": "channel_busy_pct",
    "AVG RESP TIME": "response_ms", "AVGRSPMS": "response_ms",
    "AVG IOSQ TIME": "iosq_ms", "AVG PEND TIME": "pend_ms", "AVG CMR DLY": "cmr_ms",
    "AVG DISC TIME": "disconnect_ms", "AVG CONN TIME": "connect_ms",
    "FICON OPERATIONS ACTIVE": "open_exchanges",
}


def _norm(name: str) -> str:
    return "".join(name.upper().replace("_", " ").split())


_BY_NORM = {**{_norm(k): v for k, v in RMF_COLUMNS.items()}, **{_norm(c): c for c in ALLOWED}}


def column_name(name: str) -> str:
    """mcio's column for a heading (mcio's own or RMF's; unknown headings are returned as given)."""
    return _BY_NORM.get(_norm(name), name) if isinstance(name, str) else name


#: simulated variable behind each measured column
SIM_VAR = {"iops": "throughput_iops", "channel_busy": "channel_busy", "response_ms": "response_ms",
           "pend_ms": "pend_ms", "cmr_ms": "cmr_ms", "disconnect_ms": "disconnect_ms",
           "connect_ms": "connect_ms", "open_exchanges": "open_exchanges_mean",
           "iosq_ms": "iosq_ms"}


@dataclass(frozen=True)
class Row:
    """One measured interval: ``values`` (column -> number, busy as a fraction) and its load."""

    values: dict
    population: int | None = None
    think_ms: float | str = 0.0

    @property
    def iops(self) -> float:
        return self.values["iops"]

    @property
    def is_open(self) -> bool:
        return self.population is None


def _num(where: str, v, lo: float | None = 0.0, lo_open: bool = False) -> float:
    if isinstance(v, bool) or v is None:
        raise McioError(where, v, "must be a number")
    if isinstance(v, str):
        try:
            x = float(v.strip())
        except ValueError:
            raise McioError(where, v, "must be a number") from None
    elif isinstance(v, (int, float)):
        x = float(v)
    else:
        raise McioError(where, v, "must be a number")
    if not math.isfinite(x):
        raise McioError(where, v, "must be a finite number")
    if lo is not None and (x < lo or (lo_open and x == lo)):
        raise McioError(where, v, f"must be {'>' if lo_open else '>='} {lo:g}")
    return x


def _busy(where: str, v, percent_column: bool) -> float:
    """Channel busy as a fraction; ``72%`` or the _pct column are percentages."""
    percent = percent_column
    if isinstance(v, str) and v.strip().endswith("%"):
        percent, v = True, v.strip()[:-1]
    x = _num(where, v)
    if percent:
        if x > 100.0:
            raise McioError(where, v, "channel busy is a percentage here and cannot exceed 100 %")
        return x / 100.0
    if x > 1.0:
        raise McioError(where, v, "channel_busy is a fraction in [0, 1] and cannot exceed 1 "
                                  "(100 %); for a percentage write e.g. 72% or use channel_busy_pct")
    return x


def _blank(v) -> bool:
    return v is None or (isinstance(v, str) and not v.strip())


def parse_rows(raw_rows: Sequence[dict], source: str = "measured") -> list[Row]:
    """Validate a list of column -> value dicts into :class:`Row` objects."""
    if not isinstance(raw_rows, (list, tuple)) or not raw_rows:
        raise McioError(source, raw_rows, "must hold at least one measured row")
    renamed = []
    for r in raw_rows:
        if isinstance(r, dict):
            rr: dict = {}
            for k, v in r.items():
                c = column_name(k)
                if c in rr and not _blank(rr[c]) and not _blank(v):
                    raise McioError(f"{source} column", k, f"gives {c} a second time")
                if c not in rr or _blank(rr[c]):
                    rr[c] = v
            r = rr
        renamed.append(r)
    raw_rows = renamed
    cols = set()
    for r in raw_rows:
        if not isinstance(r, dict):
            raise McioError(source, r, "each row must be a table of column -> value")
        cols |= {k for k, v in r.items() if not _blank(v)}
    unknown = sorted(c for c in cols if c not in ALLOWED)
    if unknown:
        raise McioError(f"{source} column", ", ".join(unknown), f"unknown; allowed: {', '.join(ALLOWED)} "
                        f"or RMF's {', '.join(RMF_COLUMNS)}")
    missing = [c for c in REQUIRED if c not in cols]
    if "channel_busy" not in cols and "channel_busy_pct" not in cols:
        missing.insert(1, "channel_busy (fraction) or channel_busy_pct (percent)")
    if missing:
        raise McioError(source, f"columns {', '.join(sorted(cols)) or '(none)'}",
                        f"missing column(s): {', '.join(missing)}")
    if "channel_busy" in cols and "channel_busy_pct" in cols:
        raise McioError(source, "channel_busy and channel_busy_pct",
                        "give channel busy once: channel_busy as a fraction or channel_busy_pct in %")
    rows = []
    for i, r in enumerate(raw_rows):
        where = f"{source} row {i + 1}"
        vals: dict = {}
        for c in REQUIRED:
            if _blank(r.get(c)):
                raise McioError(f"{where} {c}", r.get(c), "is required in every row")
        vals["iops"] = _num(f"{where} iops", r["iops"], lo=0.0, lo_open=True)
        vals["response_ms"] = _num(f"{where} response_ms", r["response_ms"], lo=0.0, lo_open=True)
        bcol = "channel_busy" if "channel_busy" in cols else "channel_busy_pct"
        if _blank(r.get(bcol)):
            raise McioError(f"{where} {bcol}", r.get(bcol), "is required in every row")
        vals["channel_busy"] = _busy(f"{where} {bcol}", r[bcol], bcol == "channel_busy_pct")
        for c in OPTIONAL:
            if not _blank(r.get(c)):
                vals[c] = _num(f"{where} {c}", r[c], lo=0.0, lo_open=(c not in ("open_exchanges", "iosq_ms")))
        pop = None
        if not _blank(r.get("population")):
            x = _num(f"{where} population", r["population"], lo=1.0)
            if not float(x).is_integer():
                raise McioError(f"{where} population", r["population"], "must be a whole number of I/Os")
            pop = int(x)
        think: float | str = 0.0
        if not _blank(r.get("think_ms")):
            if pop is None:
                raise McioError(f"{where} think_ms", r["think_ms"], "needs a population (closed row)")
            t = r["think_ms"]
            think = "solve" if isinstance(t, str) and t.strip().lower() == "solve" else _num(f"{where} think_ms", t)
        rows.append(Row(vals, pop, think))
    return rows


def load_measured(path) -> list[Row]:
    """Read a measured table from CSV or TOML (see the module docstring)."""
    p = Path(path)
    if not p.exists():
        raise McioError("--measured", str(p), "does not exist")
    try:
        text = p.read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise McioError("--measured", str(p), f"cannot be read ({e})") from None
    if p.suffix.lower() == ".toml":
        try:
            raw = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise McioError("--measured", str(p), f"is not valid TOML ({e})") from None
        rows = raw.get("row", raw.get("rows"))
        if rows is None:
            lists = {k: v for k, v in raw.items() if isinstance(v, list)}
            if not lists:
                raise McioError("--measured", str(p), "TOML needs [[row]] tables or column arrays")
            n = {len(v) for v in lists.values()}
            if len(n) != 1:
                raise McioError("--measured", str(p), "TOML column arrays must all have the same length")
            rows = [{k: v[i] for k, v in lists.items()} for i in range(n.pop())]
        return parse_rows(rows, source=str(p))
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        raise McioError("--measured", str(p), "holds no CSV header and rows")
    reader = csv.DictReader(lines)
    if reader.fieldnames is None:
        raise McioError("--measured", str(p), "holds no CSV header")
    reader.fieldnames = [f.strip() for f in reader.fieldnames]
    rows = []
    for r in reader:
        if None in r:
            raise McioError(f"{p} row {len(rows) + 1}", r[None], "has more cells than the header")
        rows.append({k: v for k, v in r.items()})
    return parse_rows(rows, source=str(p))


# ---- parameters ----------------------------------------------------------------------------


def resolve_scenario(scenario) -> Scenario:
    """A :class:`~mcio.scenarios.base.Scenario` instance, or the name of a registered one."""
    if isinstance(scenario, Scenario):
        return scenario
    from ..scenarios import SCENARIO_OBJECTS
    if not isinstance(scenario, str) or scenario not in SCENARIO_OBJECTS:
        raise McioError("--scenario", scenario, "unknown scenario (calibration needs one on the Scenario "
                        f"contract); allowed: {', '.join(sorted(SCENARIO_OBJECTS)) or '(none)'}")
    return SCENARIO_OBJECTS[scenario]


def build_model(scn: Scenario, values: dict, base: dict | None = None) -> Model:
    """The scenario's model with ``values`` (its parameters or dotted model fields) set over ``base``.

    A dotted field that holds a distribution keeps its shape: the value sets its mean.
    """
    merged = {**(base or {}), **values}
    params = {k: v for k, v in merged.items() if "." not in k}
    m = scn.model(None, **params)
    for k, v in merged.items():
        if "." not in k:
            continue
        cur = m.get(k)
        if isinstance(cur, dict):
            if "mean" not in cur:
                raise McioError(k, cur, "an empirical distribution cannot be fitted; give a gamma or exponential")
            v = {**cur, "mean": v}
        m = m.replace(k, v)
    return m


def start_values(scn: Scenario, params: Sequence[str], start: dict | None, base: dict | None) -> dict:
    """Starting values of the fitted parameters; reject integer and non-numeric ones."""
    start = dict(start or {})
    # the scenario's declared starting point (if any), not its current (fitted) values: the fit
    # must not depend on the result it produced last time, or its command would not reproduce it
    cal_start = dict(getattr(scn, "calibration_start", None) or {})
    dflt = {**scn.defaults(), **(base or {})}
    m = build_model(scn, {}, base)
    out = {}
    for name in params:
        if name in start:
            v = start[name]
        elif name in cal_start:
            v = cal_start[name]
        elif "." in name:
            v = m.get(name)
            if isinstance(v, dict):
                v = v.get("mean")
        else:
            scn.param(name)  # McioError naming the allowed parameters
            v = dflt[name]
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise McioError(name, v, "cannot be fitted: not a number")
        if isinstance(v, int) and name not in start:
            raise McioError(name, v, "is an integer parameter (a count); the optimiser fits continuous "
                                     "parameters only: fix it with --set and compare runs")
        if v <= 0:
            raise McioError(name, v, "is fitted on a log scale and needs a positive starting value")
        out[name] = float(v)
    return out


def search_bounds(scn: Scenario, params: Sequence[str], x0: dict, bounds: dict | None = None) -> dict:
    """(lo, hi) per fitted parameter: ``bounds``, else its Param's bounds (a bound at or below 0 or
    missing: start / 10, start x 10, the fit being on a log scale); a dotted field: start / 10 ..
    start x 10."""
    out = {}
    for k in params:
        if bounds and k in bounds:
            lo, hi = bounds[k]
        else:
            pb = scn.param(k).bounds if "." not in k else None
            lo, hi = pb if pb is not None else (None, None)
            lo = lo if isinstance(lo, (int, float)) and lo > 0 else x0[k] / 10.0
            hi = hi if isinstance(hi, (int, float)) else x0[k] * 10.0
        if not (0 < lo < hi):
            raise McioError(f"bounds.{k}", (lo, hi), "must be 0 < lo < hi")
        if not lo <= x0[k] <= hi:
            raise McioError(k, x0[k], f"starting value outside its bounds [{lo:g}, {hi:g}]")
        out[k] = (float(lo), float(hi))
    return out


# ---- simulation of one row ----------------------------------------------------------------


def row_model(m: Model, row: Row, think_ms: float | None = None) -> Model:
    """The model with the row's load: open at its IOPS, or closed with its population."""
    d = m.to_dict()
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
    for _ in range(8):
        out = _metrics(simulate(row_model(m, row, z), ios=ios, replications=replications, seed=seed, point=index))
        cycle = row.population / out["iops"] * 1000.0
        if (z == 0.0 and cycle >= target) or abs(out["iops"] / row.iops - 1.0) < 0.002:
            break
        z = max(0.0, z + target - cycle)
    out.update(load="closed", population=row.population, think_ms=z)
    return out


# ---- residuals, the fit --------------------------------------------------------------------


def residual_names(rows: Sequence[Row]) -> list[tuple[int, str]]:
    """(row, column) of every residual. A row's IOPS carries none when the load imposes it (open,
    or closed with the think time solved) or when it would count twice: in a closed row with a
    given think time, response = population / IOPS - think (Little's law), so the response
    residual already holds the IOPS information."""
    names = []
    for i, r in enumerate(rows):
        for c in SCALES:
            if c not in r.values:
                continue
            if c == "iops" and (r.is_open or r.think_ms == "solve" or "response_ms" in r.values):
                continue
            names.append((i, c))
    return names


def residuals(rows: Sequence[Row], sims: Sequence[dict]) -> np.ndarray:
    out = []
    for i, c in residual_names(rows):
        kind, scale = SCALES[c]
        meas, sim = rows[i].values[c], sims[i][c]
        if kind == "log":
            out.append(math.log(max(sim, 1e-12) / meas) / scale)
        else:
            out.append((sim - meas) / scale)
    return np.asarray(out)


@dataclass
class CalibrationResult:
    """Fitted values, their uncertainty, the loss and the per-row comparison."""

    params: dict
    start: dict
    stderr_fit: dict
    stderr_sim: dict
    loss: float
    chi2_reduced: float
    nfev: int
    message: str
    rows: list
    sims: list
    budget: dict
    bounds: dict = field(default_factory=dict)
    correlation: list = field(default_factory=list)
    fixed: dict = field(default_factory=dict)
    scenario: str = ""

    def to_toml(self, command: str, measured: str) -> str:
        """The result file (:mod:`mcio.scenarios.fitted`): a runnable sweep spec whose
        ``[scenario_params]`` are the fitted values (and the fixed overrides), with the fit's
        table and uncertainty in comments."""
        from ..scenarios.fitted import format_fitted
        if not self.params:
            raise McioError("--output", measured, "nothing was fitted (--params none): no result file to write")
        return format_fitted(scenario=self.scenario, values=self.params, fixed=self.fixed,
                             stderr_fit=self.stderr_fit, stderr_sim=self.stderr_sim, start=self.start,
                             bounds=self.bounds, loss=self.loss, chi2_reduced=self.chi2_reduced,
                             evaluations=self.nfev, message=self.message, budget=self.budget,
                             command=command, measured=measured, table=self.to_text())

    def row_table(self) -> list[dict]:
        """Per-row measured vs simulated values and errors."""
        out = []
        for r, s in zip(self.rows, self.sims):
            d = {"load": "open" if r.is_open else f"closed N={r.population} Z={s['think_ms']:.3g} ms"}
            for c in SCALES:
                d[f"{c}_sim"] = s[c]
                d[f"{c}_meas"] = r.values.get(c)
            d["iosq_ms_sim"] = s["iosq_ms"]
            d["response_err"] = s["response_ms"] / r.values["response_ms"] - 1.0
            d["iops_err"] = s["iops"] / r.iops - 1.0
            d["busy_err_pp"] = 100.0 * (s["channel_busy"] - r.values["channel_busy"])
            d["response_ci95_ms"] = s["response_ci95_ms"]
            out.append(d)
        return out

    def summary(self) -> dict:
        t = self.row_table()
        e = [abs(d["response_err"]) for d in t]
        return {"response_err_mean": float(np.mean(e)), "response_err_max": float(np.max(e)),
                "iops_err_max": float(max(abs(d["iops_err"]) for d in t)),
                "busy_err_pp_max": float(max(abs(d["busy_err_pp"]) for d in t))}

    def to_text(self) -> str:
        lines = []
        w = max([len(k) for k in self.params] + [26]) + 2
        if self.params:
            lines += [f"fit: loss = {self.loss:.4g} (1/2 sum of squared scaled residuals), reduced "
                      f"chi-square {self.chi2_reduced:.3g}, {self.nfev} evaluations; {self.message}",
                      f"{'parameter':<{w}}{'start':>12}{'fitted':>12}{'+/- fit':>11}{'+/- sim':>11}"
                      f"{'bounds':>22}"]
            for k, v in self.params.items():
                lo, hi = self.bounds.get(k, (float('nan'), float('nan')))
                sim = f"{self.stderr_sim[k]:.3g}" if k in self.stderr_sim else "-"
                lines.append(f"{k:<{w}}{self.start[k]:>12.5g}{v:>12.5g}{self.stderr_fit[k]:>11.3g}"
                             f"{sim:>11}{f'[{lo:.4g}, {hi:.4g}]':>22}")
            if len(self.params) > 1 and self.correlation:
                lines.append("correlation of the fitted values (linearised):")
                for k, row in zip(self.params, self.correlation):
                    lines.append(f"  {k:<{w - 2}}" + "".join(f"{c:>8.2f}" for c in row))
        else:
            lines.append(f"evaluation only (no parameters fitted): loss = {self.loss:.4g}")
        b = self.budget
        lines += ["", f"per row ({b['replications']} replications x {b['ios']} I/Os, seed {b['seed']}; "
                      "sim / measured, error):"]
        hdr = (f"{'row':>3} {'load':<22}{'IOPS':>16}{'busy %':>16}{'response ms':>24}"
               f"{'pend ms':>15}{'CMR ms':>13}{'OE':>13}{'IOSQ':>7}")
        lines.append(hdr)
        for i, d in enumerate(self.row_table()):
            def pair(c, fmt):
                s, m = d[c + "_sim"], d[c + "_meas"]
                return format(s, fmt) + "/" + ("-" if m is None else format(m, fmt))
            iops = pair("iops", ".0f") + " %+.1f%%" % (100 * d["iops_err"])
            busy = "%.1f/%.0f %+.1f" % (100 * d["channel_busy_sim"], 100 * d["channel_busy_meas"],
                                        d["busy_err_pp"])
            resp = pair("response_ms", ".3f") + " %+.1f%%" % (100 * d["response_err"])
            lines.append(f"{i + 1:>3} {d['load']:<22}{iops:>16}{busy:>16}{resp:>24}"
                         f"{pair('pend_ms', '.2f'):>15}{pair('cmr_ms', '.2f'):>13}"
                         f"{pair('open_exchanges', '.1f'):>13}{d['iosq_ms_sim']:>7.2f}")
        s = self.summary()
        lines.append(f"response error: mean |err| {100 * s['response_err_mean']:.1f} %, max "
                     f"{100 * s['response_err_max']:.1f} %; IOPS max |err| {100 * s['iops_err_max']:.1f} %; "
                     f"busy max |err| {s['busy_err_pp_max']:.1f} points")
        return "\n".join(lines)


def evaluate(scenario, rows: Sequence[Row], values: dict | None = None, base: dict | None = None,
             ios: int = 100_000, replications: int = 4, seed: int = 1) -> list[dict]:
    """Simulate every row with the model of ``scenario`` (a Scenario or a registered name) at
    ``values``; one dict of metrics per row."""
    m = build_model(resolve_scenario(scenario), values or {}, base)
    return [simulate_row(m, r, i, ios, replications, seed) for i, r in enumerate(rows)]


def calibrate(scenario, measured, params: Sequence[str] | None = None, *, start: dict | None = None,
              base: dict | None = None, bounds: dict | None = None, ios: int = 100_000,
              replications: int = 4, seed: int = 1, noise_seeds: int = 0, max_nfev: int = 80,
              diff_step: float = 0.05, xtol: float = 1e-2,
              progress: Callable[[str], None] | None = None) -> CalibrationResult:
    """Fit ``params`` of ``scenario`` (a Scenario or a registered name) to ``measured`` (path or rows).

    ``params``: scenario parameters or dotted model fields (default: the scenario's
    ``calibration_params``; an empty list only evaluates). ``base``: fixed overrides.
    ``bounds``: name -> (lo, hi) (default: see :func:`search_bounds`). ``xtol``: stop when a step changes the parameters by less than this fraction (1 %:
    about what the simulation noise lets the loss resolve). ``max_nfev`` bounds the loss
    evaluations (each simulates every row), Jacobian columns included. See the module docstring
    for the loss, the determinism and the uncertainty.
    """
    from scipy.optimize import least_squares

    scn = resolve_scenario(scenario)
    rows = measured if isinstance(measured, list) and all(isinstance(r, Row) for r in measured) else (
        parse_rows(list(measured)) if isinstance(measured, (list, tuple)) else load_measured(measured))
    if params is None:
        params = tuple(scn.calibration_params)
        if not params:
            raise McioError("--params", None, "this scenario declares no calibration parameters: name them")
    params = list(params)
    if len(set(params)) != len(params):
        raise McioError("--params", ",".join(params), "names a parameter twice")
    if params and len(rows) < len(params):
        raise McioError("--params", ",".join(params),
                        f"fitting {len(params)} parameter(s) needs at least {len(params)} measured rows; "
                        f"the table has {len(rows)}")
    for k, v in (("ios", ios), ("replications", replications), ("seed", seed), ("noise_seeds", noise_seeds),
                 ("max_nfev", max_nfev)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < (2 if k == "replications" else 0):
            raise McioError(k, v, "must be a non-negative integer (replications >= 2)")
    x0 = start_values(scn, params, start, base)
    bnd = search_bounds(scn, params, x0, bounds)
    budget = {"ios": int(ios), "replications": int(replications), "seed": int(seed)}
    say = progress or (lambda s: None)

    def sims_at(v, sd=seed):
        vals = {k: float(x0[k] * math.exp(v[j])) for j, k in enumerate(params)}
        return evaluate(scn, rows, vals, base, ios, replications, sd)

    n_eval = [0]

    sims_seen: dict = {}

    def fun(v):  # one simulation of every row
        n_eval[0] += 1
        sims = sims_at(v)
        sims_seen[tuple(np.round(v, 12))] = sims
        r = residuals(rows, sims)
        say(f"  eval {n_eval[0]:>3}: " + ", ".join(f"{k}={x0[k] * math.exp(v[j]):.5g}" for j, k in enumerate(params))
            + f"  loss={0.5 * float(r @ r):.4g}")
        return r

    names = residual_names(rows)
    m_res = len(names)
    if not params:
        sims = evaluate(scn, rows, {}, base, ios, replications, seed)
        r = residuals(rows, sims)
        return CalibrationResult({}, {}, {}, {}, 0.5 * float(r @ r), float(r @ r) / max(m_res, 1), 1,
                                 "evaluated", rows, sims, budget, fixed=dict(base or {}), scenario=scn.name)
    lo = np.array([math.log(bnd[k][0] / x0[k]) for k in params])
    hi = np.array([math.log(bnd[k][1] / x0[k]) for k in params])
    cache: dict = {}

    def fun_cached(v):
        key = tuple(np.round(v, 12))
        if key not in cache:
            cache[key] = fun(v)
        return cache[key]

    def jac(v):
        # forward differences with a fixed step in log-parameter space (diff_step = 5 % by
        # default): large enough to see past the simulation's residual noise under CRN
        f0 = fun_cached(v)
        J = np.empty((f0.size, v.size))
        for j in range(v.size):
            h = diff_step if v[j] + diff_step <= hi[j] else -diff_step
            vj = v.copy()
            vj[j] += h
            J[:, j] = (fun_cached(vj) - f0) / h
        return J

    res = least_squares(fun_cached, np.zeros(len(params)), jac=jac, bounds=(lo, hi), method="trf",
                        x_scale=1.0, xtol=xtol, ftol=1e-2, gtol=1e-8,
                        max_nfev=max(1, max_nfev // (len(params) + 1)))
    v = res.x
    fitted = {k: float(x0[k] * math.exp(v[j])) for j, k in enumerate(params)}
    J = np.asarray(res.jac, float)
    dof = max(m_res - len(params), 1)
    chi2_red = float(res.fun @ res.fun) / dof
    JtJ_inv = np.linalg.pinv(J.T @ J)
    cov_v = JtJ_inv * max(1.0, chi2_red)
    stderr_fit = {k: float(fitted[k] * math.sqrt(max(cov_v[j, j], 0.0))) for j, k in enumerate(params)}
    sd = np.sqrt(np.maximum(np.diag(cov_v), 1e-300))
    corr = (cov_v / np.outer(sd, sd)).round(4).tolist()
    stderr_sim: dict = {}
    if noise_seeds:
        say(f"  simulation noise: residuals at the optimum with {noise_seeds} other seeds")
        R = np.array([residuals(rows, sims_at(v, seed + 1000 + s)) for s in range(noise_seeds)]
                     + [res.fun])
        var_r = np.var(R, axis=0, ddof=1)
        A = JtJ_inv @ J.T
        cov_sim = A @ np.diag(var_r) @ A.T
        stderr_sim = {k: float(fitted[k] * math.sqrt(max(cov_sim[j, j], 0.0))) for j, k in enumerate(params)}
    sims = sims_seen.get(tuple(np.round(v, 12))) or sims_at(v)
    return CalibrationResult(fitted, dict(x0), stderr_fit, stderr_sim, float(res.cost), chi2_red,
                             n_eval[0], str(res.message), rows, sims, budget, bnd, corr,
                             dict(base or {}), scn.name)


def parse_set(items) -> dict:
    """``name=value`` strings (``--set``) -> {name: value}; a value is read as TOML, else kept as text."""
    out = {}
    for it in items:
        if "=" not in it:
            raise McioError("--set", it, "must be name=value")
        k, v = it.split("=", 1)
        k = k.strip()
        try:
            val = tomllib.loads(f"x = {v.strip()}")["x"]
        except tomllib.TOMLDecodeError:
            val = v.strip()
        out[k] = val
    return out


__all__ = ["Row", "SCALES", "RMF_COLUMNS", "column_name", "load_measured", "parse_rows", "calibrate", "evaluate", "CalibrationResult",
           "build_model", "row_model", "simulate_row", "resolve_scenario", "start_values", "search_bounds",
           "parse_set"]
