"""The registry of figures the docs quote from model runs: each NAME -> the run it comes from
(``RUNS``: the spec, scenario or command, its size and seed) and the function that formats it
(a ``Value``: the text, and the number and its 95 % CI half-width where it has one). A run is made
once (``result``) however many figures it gives. This module: the README's, docs/ficon_zhpf.md's
and docs/calibration.md's figures (seed 001) and the scenarios' reproduce tables;
figure_registry_seeds.py adds seeds 002-004. The markers and the check: doc_figures.py.
"""
from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Callable

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

@dataclass(frozen=True)
class Value:
    """A figure's fresh text; ``value`` and ``ci`` (95 % half-width) when it is a number with a CI."""

    text: str
    value: float | None = None
    ci: float | None = None


@dataclass(frozen=True)
class Figure:
    name: str
    run: str
    get: Callable[[object], Value]


def num(x: float, fmt: str, ci: float | None = None) -> Value:
    return Value(format(x, fmt), float(x), None if ci is None else float(ci))


def _ci(x) -> float:
    from mcio.engine import ci95_halfwidth
    return float(ci95_halfwidth(np.asarray(x, float)))


def _script(name: str):
    spec = importlib.util.spec_from_file_location(f"_doc_{name}", ROOT / "scripts" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


# ---------------------------------------------------------------------------------------- runs

def run_knee():
    """The README main job: ``mcio sweep`` of examples/ficon_knee.toml (its own size and seed)."""
    import mcio
    from mcio.sweep import load_spec
    return mcio.sweep(load_spec(ROOT / "examples" / "ficon_knee.toml"))


COMPARE = dict(ios=200_000, replications=8, seed=0)       # compare()'s defaults, as the README shows


def run_compare():
    """README's what-if: ficon-channel at 26 in flight, CCW against 20 % z/HPF, paired."""
    from mcio.compare import compare
    from mcio.scenarios import build_scenario
    a = build_scenario("ficon-channel", {"population": 26})
    b = build_scenario("ficon-channel", {"population": 26, "zhpf_share": 0.2})
    return compare(a, b, labels=("ccw", "zhpf20"), **COMPARE).sel(figure="response_ms")


def run_fitted():
    """The shipped calibration (mcio/scenarios/ficon_channel_fitted.toml: the output of its
    command, which tests/test_calibrate_full.py re-runs)."""
    from mcio.scenarios import ficon_channel as fc
    from mcio.scenarios.fitted import read_fitted
    return read_fitted(fc.FITTED_FILE)


def run_rows():
    """The calibrated model at the six measured rows, the calibration's budget (as it printed)."""
    from mcio.calibrate import evaluate, parse_rows
    from mcio.scenarios import ficon_channel as fc
    b = fc.CALIBRATION["budget"]
    return evaluate("ficon-channel", parse_rows(list(fc.MEASURED)), ios=b["ios"],
                    replications=b["replications"], seed=b["seed"])


def run_zhpf_knee():
    """``python scripts/ficon_knee.py`` at its defaults (40,000 I/Os x 4, seed 2026): the sweep of
    examples/ficon_zhpf_knee.toml and the paced load at fractions of each variant's maximum."""
    import xarray as xr
    fk = _script("ficon_knee")
    ds = fk.sweep(40_000, 4, 2026)
    ds = xr.merge([ds, fk.open_sweep(ds, 40_000, 4, 2026)], combine_attrs="override")
    return fk, ds


@cache
def _reproduce(name: str):
    from mcio.scenarios import get_scenario
    scn = get_scenario(name)
    return scn, scn.reproduce()


RUNS: dict[str, Callable[[], object]] = {
    "knee": run_knee, "compare": run_compare, "fitted": run_fitted, "rows": run_rows,
    "zhpf_knee": run_zhpf_knee,
    **{f"reproduce:{n}": (lambda n=n: _reproduce(n))
       for n in ("ficon-channel", "isfc-link", "dasd-mdc", "zhpf-dump", "cms-commit", "mm1-demo")},
}


@cache
def result(run: str):
    return RUNS[run]()


# ---------------------------------------------------------------------------------------- figures

def _knee_max(ds):
    x = ds.throughput_iops.mean("replication").values
    return int(np.argmax(x))


def knee_max_iops(ds):
    i = _knee_max(ds)
    return num(ds.throughput_iops.mean("replication").values[i], ",.0f", ds.throughput_ci95_iops.values[i])


def knee_busy_at_max(ds):
    b = 100 * ds.channel_busy.mean("channel").isel(population=_knee_max(ds)).values
    return num(b.mean(), ".0f", _ci(b))


def knee_pend_last(ds):
    return num(ds.pend_ms.mean("replication").values[-1], ".0f", ds.pend_ci95_ms.values[-1])


def fitted_table(f) -> Value:
    cal, vals = f["calibration"], f["scenario_params"]
    units = {"mp_us_per_io": "us", "mp_wake_us": "us", "ha_service_us": "us", "backend_service_ms": "ms",
             "mp_scv": ""}
    lines = ["| parameter | start | fitted | +/- fit | +/- sim | bounds |", "|---|---|---|---|---|---|"]
    for k, v in vals.items():
        u = f" ({units[k]})" if units.get(k) else ""
        lo, hi = cal["bounds"][k]
        lines.append(f"| `{k}`{u} | {cal['start'][k]:g} | {v:g} | {cal['stderr_fit'][k]:.3g} | "
                     f"{cal['stderr_sim'][k]:.2g} | {lo:.4g}-{hi:.4g} |")
    return Value("\n" + "\n".join(lines) + "\n")


def fitted_params_toml(f) -> Value:
    body = "\n".join(f"{k} = {v!r}" for k, v in f["scenario_params"].items())
    run = "\n".join(f"{k} = {v!r}" for k, v in f["run"].items())
    return Value(f'\n```toml\nscenario = "{f["scenario"]}"\n\n[scenario_params]\n{body}\n\n[run]\n{run}\n```\n')


def _measured(i: int) -> dict:
    from mcio.scenarios import ficon_channel as fc
    return fc.MEASURED[i]


def rows_table(rows) -> Value:
    lines = ["| row | IOPS sim / meas | busy % sim / meas | response ms sim / meas | pend ms | CMR ms | OE |",
             "|---|---|---|---|---|---|---|"]
    for i, r in enumerate(rows):
        m = _measured(i)
        load = f"N = {m['population']}" if "population" in m else "paced"
        err = 100 * (r["response_ms"] / m["response_ms"] - 1)
        cell = lambda key, f: f"{r[key]:{f}}" + (f" / {m[key]:g}" if key in m else "")
        lines.append(f"| {i + 1} ({load}) | {r['iops']:,.0f} / {m['iops']:,.0f} | {100 * r['channel_busy']:.1f} / "
                     f"{100 * m['channel_busy']:.0f} | {r['response_ms']:.3f} / {m['response_ms']:.3f} ({err:+.1f} %) | "
                     f"{cell('pend_ms', '.2f')} | {cell('cmr_ms', '.2f')} | {cell('open_exchanges', '.1f')} |")
    return Value("\n" + "\n".join(lines) + "\n")


def _resp_err(rows):
    return [100 * (r["response_ms"] / _measured(i)["response_ms"] - 1) for i, r in enumerate(rows)]


def rows_summary(rows) -> dict[str, Value]:
    err = np.abs(_resp_err(rows))
    busy = [abs(100 * (r["channel_busy"] - _measured(i)["channel_busy"])) for i, r in enumerate(rows)]
    flat = [abs(100 * (r["iops"] / _measured(i)["iops"] - 1)) for i, r in enumerate(rows) if r["load"] == "closed"]
    r5 = rows[4]
    return {
        "ficon_resp_err_mean_pct": Value(f"{err.mean():.1f}"),
        "ficon_resp_err_max_pct": Value(f"{err.max():.1f}"),
        "ficon_flatout_iops_err_pct": Value(f"{max(flat):.1f}"),
        "ficon_busy_err_rows14_pts": Value(f"{max(busy[:4]):.1f}"),
        "ficon_busy_err_row5_pts": Value(f"{busy[4]:.1f}"),
        "ficon_row5_busy_pct": num(100 * r5["channel_busy"], ".1f", 100 * r5["channel_busy_ci95"]),
        "ficon_row5_pend_ms": num(r5["pend_ms"], ".1f", r5["pend_ci95_ms"]),
        "ficon_row5_oe": Value(f"{r5['open_exchanges']:.0f}"),
        "ficon_row1_mp_work_us": Value(f"{rows_mp_work(rows):.1f}"),
    }


def rows_mp_work(rows) -> float:
    """The MP's mean work per I/O at row 1: w + 2 (1 - U) wake (a start and an end piece)."""
    p = result("fitted")["scenario_params"]
    return p["mp_us_per_io"] + 2 * (1 - rows[0]["channel_busy"]) * p["mp_wake_us"]


def rows_calibration_text(rows) -> Value:
    busy = ", ".join(f"{100 * r['channel_busy']:.1f}/{100 * _measured(i)['channel_busy']:.0f}" for i, r in enumerate(rows))
    resp = ", ".join(f"{e:+.1f}" for e in _resp_err(rows))
    flat = " and ".join(f"{100 * (r['iops'] / _measured(i)['iops'] - 1):+.1f}"
                        for i, r in enumerate(rows) if r["load"] == "closed")
    return Value(f"busy {busy} %; response {resp} %; flat-out IOPS {flat} %; the 91 % row's pend "
                 f"{rows[4]['pend_ms']:.2f} ms")


VARIANTS = ("ccw", "zhpf", "zhpf_free_cu")


def zhpf_table(r) -> Value:
    fk, ds = r
    base = fk.knee(ds, "ccw")["max_iops"]
    lines = ["| set-up | max IOPS | channel busy at max | knee, flat-out load (response 1.5x / 2x its one-I/O "
             "value) | knee, paced load (1.5x / 2x its 10 %-load value) |", "|---|---|---|---|---|"]

    def at(k, first):
        if k is None:
            return "not reached by 95 % of the maximum" if not first else "not reached"
        return f"{k['iops']:,.0f}" + (" IOPS" if first else "") + f" at {100 * k['busy']:.0f} %" + (" busy" if first else "")

    for v in VARIANTS:
        k, o = fk.knee(ds, v), fk.knee_open(ds, v)
        gain = "" if v == "ccw" else f" ({100 * (k['max_iops'] / base - 1):+.0f} %)"
        lines.append(f"| {v} | {k['max_iops']:,.0f}{gain} | {100 * k['busy_at_max']:.0f} % | "
                     f"{at(k['knee1.5'], v == 'ccw')} / {at(k['knee2.0'], False)} | "
                     f"{at(o['knee1.5'], v == 'ccw')} / {at(o['knee2.0'], False)} |")
    return Value("\n" + "\n".join(lines) + "\n")


def zhpf_figures(r) -> dict[str, Value]:
    fk, ds = r
    out = {}
    base = fk.knee(ds, "ccw")["max_iops"]
    for v in VARIANTS:
        k, o = fk.knee(ds, v), fk.knee_open(ds, v)
        d = ds.sel(variant=v)
        out[f"zhpf_{v}_max_iops"] = Value(f"{k['max_iops']:,.0f}")
        out[f"zhpf_{v}_busy_at_max_pct"] = Value(f"{100 * k['busy_at_max']:.0f}")
        if v != "ccw":
            out[f"zhpf_{v}_gain_pct"] = Value(f"{100 * (k['max_iops'] / base - 1):+.0f}")
        pend = d.pend_ms.isel(population=-1)
        out[f"zhpf_{v}_pend_last_ms"] = num(pend.mean("replication"), ".0f", d.pend_ci95_ms.isel(population=-1))
        out[f"zhpf_{v}_open_knee15_iops"] = Value(f"{o['knee1.5']['iops']:,.0f}")
        out[f"zhpf_{v}_open_knee15_busy_pct"] = Value(f"{100 * o['knee1.5']['busy']:.0f}")
    z = ds.sel(variant="zhpf")
    i = int(np.argmax(z.throughput_iops.mean("replication").values))
    out["zhpf_zhpf_ha_busy_at_max_pct"] = Value(f"{100 * float(z.cu_ha_busy.isel(population=i).mean()):.0f}")
    out["zhpf_zhpf_cmr_first_ms"] = Value(f"{float(z.cmr_ms.isel(population=0).mean()):.1f}")
    out["zhpf_zhpf_cmr_at_max_ms"] = Value(f"{float(z.cmr_ms.isel(population=i).mean()):.1f}")
    # the seed's rule of thumb on the paced CCW curve: busy where response reaches 1.2x, 1.5x, 2x
    c = ds.sel(variant="ccw")
    resp = c.open_response_ms.mean("replication").values
    busy = 100 * c.open_channel_busy.mean(("replication", "channel")).values
    for f in (1.2, 1.5, 2.0):
        out[f"zhpf_ccw_paced_busy_at_{int(f * 10)}x_pct"] = Value(f"{np.interp(f * resp[0], resp, busy):.0f}")
    out["zhpf_ccw_paced_top_ratio"] = Value(f"{resp[-1] / resp[0]:.1f}")
    out["zhpf_ccw_paced_top_busy_pct"] = Value(f"{busy[-1]:.0f}")
    return out


def reproduce_block(r, judged_only: bool = False) -> Value:
    """``mcio reproduce NAME``'s table (``judged_only``: the figures with a measured value, no notes;
    the summary line is every figure's, as the command prints it)."""
    from mcio.scenarios.report import format_table, summary_line
    scn, rows = r
    run = scn.run_size
    shown = [x for x in rows if x.measured is not None] if judged_only else rows
    lines = format_table(shown).splitlines()[:-1]          # (its summary line: of the rows shown)
    table = "\n".join([ln for ln in lines if not (judged_only and ln.startswith("  note"))] + [summary_line(rows)])
    return Value(f"\n```\n$ mcio reproduce {scn.name}\n{scn.name}: {scn.description}\n({run.replications} "
                 f"replications x {run.ios} {scn.ios_meaning}, seed {run.seed})\n{table}\n```\n")


def _fr(rows, variant: str, quantity: str):
    """The reproduce row of ``variant`` whose figure starts with ``quantity``."""
    return next(x for x in rows if x.figure.startswith(f"{variant}: {quantity}"))


def within(r) -> Value:
    rows = r[1]
    judged = [x for x in rows if x.within is not None]
    return Value(f"{sum(1 for x in judged if x.within)} of {len(judged)}")


def predicted(r) -> Value:
    """The judged figures that are predictions (kind ``predicted``) and how many are within tolerance."""
    from mcio.scenarios.report import summary
    s = summary(r[1])
    p = s["predicted"]
    return Value(f"{p['judged']} of {s['judged']}" + (f" ({p['within']} within)" if p["judged"] else ""))


def _many(run: str, fn: Callable, names: list[str]) -> list[Figure]:
    return [Figure(n, run, lambda res, n=n: fn(res)[n]) for n in names]


_ROW_NAMES = ["ficon_resp_err_mean_pct", "ficon_resp_err_max_pct", "ficon_flatout_iops_err_pct",
              "ficon_busy_err_rows14_pts", "ficon_busy_err_row5_pts", "ficon_row5_busy_pct", "ficon_row5_pend_ms",
              "ficon_row5_oe", "ficon_row1_mp_work_us"]
_ZHPF_NAMES = ([f"zhpf_{v}_{k}" for v in VARIANTS for k in ("max_iops", "busy_at_max_pct", "pend_last_ms",
                                                           "open_knee15_iops", "open_knee15_busy_pct")
                if f"zhpf_{v}_{k}" not in ("zhpf_zhpf_free_cu_busy_at_max_pct", "zhpf_zhpf_open_knee15_busy_pct")]
               + ["zhpf_zhpf_gain_pct", "zhpf_zhpf_free_cu_gain_pct", "zhpf_zhpf_ha_busy_at_max_pct",
                  "zhpf_zhpf_cmr_first_ms", "zhpf_zhpf_cmr_at_max_ms", "zhpf_ccw_paced_busy_at_12x_pct",
                  "zhpf_ccw_paced_busy_at_15x_pct", "zhpf_ccw_paced_busy_at_20x_pct", "zhpf_ccw_paced_top_ratio",
                  "zhpf_ccw_paced_top_busy_pct"])


def _fitted_value(name: str, fmt: str):
    return lambda f: Value(format(f["scenario_params"][name], fmt))


FIGURES: dict[str, Figure] = {f.name: f for f in [
    Figure("knee_max_iops", "knee", knee_max_iops),
    Figure("knee_busy_at_max_pct", "knee", knee_busy_at_max),
    Figure("knee_pend_last_ms", "knee", knee_pend_last),
    Figure("compare_response_diff_ms", "compare", lambda r: num(r["diff"], ".3f", r.diff_ci95)),
    Figure("compare_paired_ci_ms", "compare", lambda r: Value(f"{float(r.diff_ci95):.4f}")),
    Figure("compare_unpaired_ci_ms", "compare", lambda r: Value(f"{float(r.diff_ci95_unpaired):.3f}")),
    Figure("compare_ci_ratio", "compare", lambda r: Value(f"{float(r.diff_ci95_unpaired / r.diff_ci95):.1f}")),
    Figure("calib_table", "fitted", fitted_table),
    Figure("calib_params_toml", "fitted", fitted_params_toml),
    Figure("calib_loss", "fitted", lambda f: Value(f"{f['calibration']['loss']:.3f}")),
    Figure("calib_chi2", "fitted", lambda f: Value(f"{f['calibration']['chi2_reduced']:.2f}")),
    Figure("calib_evaluations", "fitted", lambda f: Value(f"{f['calibration']['evaluations']}")),
    Figure("calib_mp_us_per_io", "fitted", _fitted_value("mp_us_per_io", ".1f")),
    Figure("calib_mp_wake_us", "fitted", _fitted_value("mp_wake_us", ".1f")),
    Figure("calib_mp_scv", "fitted", _fitted_value("mp_scv", ".1f")),
    Figure("calib_backend_service_ms", "fitted", _fitted_value("backend_service_ms", ".2f")),
    Figure("calib_ha_service_ms", "fitted", lambda f: Value(f"{f['scenario_params']['ha_service_us'] / 1000:.2f}")),
    Figure("ficon_rows_table", "rows", rows_table),
    Figure("ficon_rows_text", "rows", rows_calibration_text),
    *_many("rows", rows_summary, _ROW_NAMES),
    Figure("zhpf_table", "zhpf_knee", zhpf_table),
    *_many("zhpf_knee", zhpf_figures, _ZHPF_NAMES),
    *[Figure(f"{what.__name__}_{n.replace('-', '_')}", f"reproduce:{n}", what) for what in (within, predicted)
      for n in ("ficon-channel", "isfc-link", "dasd-mdc", "zhpf-dump", "cms-commit", "mm1-demo")],
]}
