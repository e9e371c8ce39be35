"""The figures README.md and docs/*.md quote from model runs, computed from those runs.

A quoted figure sits between markers, ``<!-- fig:NAME -->12,180<!-- /fig -->`` (a number) or the
same around several lines (a table or a command's output, a *block*). ``FIGURES`` below maps each
NAME to the run it comes from (``RUNS``: the spec, scenario or command, its size and seed) and the
function that formats it; a run is made once however many figures it gives.

    python scripts/doc_figures.py            # every figure: quoted text, fresh text, verdict
    python scripts/doc_figures.py --write    # rewrite the quoted text in README.md and docs/*.md
    python scripts/doc_figures.py --list     # the registry (name, run, where quoted) without running

The check (``tests/test_docs_figures.py``, slow tier): a quoted figure passes when its text is the
freshly formatted one, or, for a number with a 95 % CI, when the quoted number lies within the
fresh value +- (that run's CI half-width + half a unit of the quoted last digit), so a result that
moves less than its own noise, e.g. on another CPU, does not fail; anything more does. Blocks and numbers without a CI (counts, the
shipped calibration's values, ratios of CIs) must match exactly. Every run is seeded, so on this
machine the fresh text is the quoted text, bit for bit.
"""
from __future__ import annotations

import argparse
import importlib.util
import re
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Callable

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MARKER = re.compile(r"<!-- fig:([a-z0-9_]+) -->(.*?)<!-- /fig -->", re.S)


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


def run_zhpf_dump():
    """``python scripts/zhpf_dump.py`` at its defaults (3,000 programs x 4, seed 2026)."""
    return _script("zhpf_dump").build(3000, 4, 2026)


CMS_TIME_CYLINDERS = (10, 1000, 32760, 65520, 262668)


def run_cms():
    """``python scripts/cms_commit.py``'s cells (its defaults: 5,000 I/Os x 4, seed 1) at 4 KB for the
    time table, the counts at every size and block size, the 20 KB-limit variant and the cached CU."""
    from mcio.scenarios.cms import BLOCK_SIZES, CMS_COMMIT, EAV_CYLINDERS, SEED_CYLINDERS
    from mcio.scenarios.cms.table import build_dataset
    cyl = list(SEED_CYLINDERS) + list(EAV_CYLINDERS)
    return {"counts": build_dataset(CMS_COMMIT, cyl, BLOCK_SIZES, timing=False),
            "bytes": build_dataset(CMS_COMMIT, cyl, BLOCK_SIZES, variant="bytes-limit", timing=False),
            "time": build_dataset(CMS_COMMIT, CMS_TIME_CYLINDERS, [4096], ios=5000, replications=4, seed=1),
            "cached": build_dataset(CMS_COMMIT, [32760], [4096], variant="cached", ios=5000, replications=4, seed=1),
            "seed_cylinders": list(SEED_CYLINDERS)}


@cache
def _reproduce(name: str):
    from mcio.scenarios import get_scenario
    scn = get_scenario(name)
    return scn, scn.reproduce()


RUNS: dict[str, Callable[[], object]] = {
    "knee": run_knee, "compare": run_compare, "fitted": run_fitted, "rows": run_rows,
    "zhpf_knee": run_zhpf_knee, "zhpf_dump": run_zhpf_dump, "cms": run_cms,
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
    """``mcio reproduce NAME``'s table (``judged_only``: the figures with a measured value, no notes)."""
    from mcio.scenarios.base import format_table
    scn, rows = r
    run = scn.run_size
    if judged_only:
        rows = [x for x in rows if x.measured is not None]
    table = "\n".join(ln for ln in format_table(rows).splitlines() if not (judged_only and ln.startswith("  note")))
    return Value(f"\n```\n$ mcio reproduce {scn.name}\n{scn.name}: {scn.description}\n({run.replications} "
                 f"replications x {run.ios} {scn.ios_meaning}, seed {run.seed})\n{table}\n```\n")


def _fr(rows, variant: str, quantity: str):
    """The reproduce row of ``variant`` whose figure starts with ``quantity``."""
    return next(x for x in rows if x.figure.startswith(f"{variant}: {quantity}"))


DASD_WHATIFS = (("phase 1 as measured: MDC track, read-through", "phase1"), ("MDC block mode", "whatif_mdc_block"),
                ("cache-staging CU", "whatif_staging_cu"), ("block mode + staging CU", "whatif_block_and_staging"),
                ("phase 3 with hits at channel speed", "whatif_phase3_hits_at_channel_speed"),
                ("emulated 3390 on FICON", "whatif_phase1_emulated_ficon"))


def dasd_whatif_table(r) -> Value:
    rows = r[1]
    lines = ["| variant | service ms (disc + conn) | SSCH/s | busy | app reads/s | channel connect busy |",
             "|---|---|---|---|---|---|"]
    for label, v in DASD_WHATIFS:
        g = lambda q: _fr(rows, v, q).model
        lines.append(f"| {label} | {g('service'):.1f} ({g('disconnect'):.1f} + {g('connect'):.1f}) | "
                     f"{g('I/O rate'):.1f} | {100 * g('device busy'):.0f} % | {g('application reads'):.1f} | "
                     f"{100 * g('channel connect busy'):.0f} % |")
    return Value("\n" + "\n".join(lines) + "\n")


def dasd_seam_text(r) -> Value:
    rows = r[1]
    s, w = "phase1 on the seam", "phase1"
    f = lambda v, q: _fr(rows, v, q)
    return Value(f"disconnect {f(s, 'disconnect').model:.2f} ± {f(s, 'disconnect').ci95:.2f} ms on the seam vs "
                 f"{f(w, 'disconnect').model:.2f} ± {f(w, 'disconnect').ci95:.2f} ms from the walk's i.i.d. draws "
                 f"(measured {f(w, 'disconnect').measured:.4g}), connect {f(s, 'connect').model:.2f} vs "
                 f"{f(w, 'connect').model:.2f} ({f(w, 'connect').measured:.4g}), service {f(s, 'service').model:.2f} vs "
                 f"{f(w, 'service').model:.2f} ({f(w, 'service').measured:.4g}), {f(s, 'I/O rate').model:.1f} vs "
                 f"{f(w, 'I/O rate').model:.1f} SSCH/s")


def within(r) -> Value:
    rows = r[1]
    judged = [x for x in rows if x.within is not None]
    return Value(f"{sum(1 for x in judged if x.within)} of {len(judged)}")


# ---- seed 003 (docs/zhpf_dump.md)

def zhpf_dump_breakdown(ds) -> Value:
    parts = []
    for m, label in (("classic", "Classic"), ("zhpf", "z/HPF")):
        bd = ds.breakdown_ms.sel(mode=m).values
        parts.append(f"{label}: " + " + ".join(f"{x:.3f}" for x in bd) + f" = {bd.sum():.3f} ms.")
    sim = lambda v: " / ".join(f"{float(ds[v].sel(mode=m).mean()):.3f}" for m in ("classic", "zhpf"))
    return Value(" ".join(parts) + f" The simulation gives the same (pend {sim('pend_ms')} ms, connect "
                 f"{sim('connect_ms')} ms)")


ZHPF_DUMP_CHAINS = (1, 8, 32, 90, 114, 128, 255)
ZHPF_DUMP_N = (1, 4, 8, 16, 32, 64)


def zhpf_dump_chain_table(ds) -> Value:
    lines = ["| chain | " + " | ".join(str(k) for k in ZHPF_DUMP_CHAINS) + " |", "|---" * (len(ZHPF_DUMP_CHAINS) + 1) + "|"]
    for m, label in (("classic", "classic"), ("zhpf", "z/HPF")):
        e = ds.chain_elapsed_s.sel(mode=m, chain_records=list(ZHPF_DUMP_CHAINS)).mean("replication").values
        lines.append(f"| {label} | " + " | ".join(f"{x:.1f}" for x in e) + " |")
    return Value("\n" + "\n".join(lines) + "\n")


def zhpf_dump_n_table(ds) -> Value:
    lines = ["| N | " + " | ".join(str(k) for k in ZHPF_DUMP_N) + " |", "|---" * (len(ZHPF_DUMP_N) + 1) + "|"]
    for m, label in (("classic", "classic"), ("zhpf", "z/HPF")):
        d = ds.sel(mode=m, outstanding=list(ZHPF_DUMP_N)).mean("replication")
        cells = [f"{e:.3g} / {100 * lb:.0f} / {100 * cb:.0f}" for e, lb, cb in
                 zip(d.outstanding_elapsed_s.values, d.outstanding_link_busy.values, d.outstanding_channel_busy.values)]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return Value("\n" + "\n".join(lines) + "\n")


def zhpf_dump_share(ds) -> Value:
    e = ds.share_elapsed_s.mean("replication").values
    return Value(", ".join(f"{z:g}: {x:.1f}" + (" s" if i == 0 else "") for i, (z, x) in enumerate(zip(ds.zhpf_share.values, e))))


def zhpf_dump_predicted(r) -> Value:
    rows = r[1]
    p = lambda q: _fr(rows, "z/HPF predicted", q)
    c = _fr(rows, "classic", "ms per I/O")
    ms, wait, rec, el = p("ms per I/O"), p("I/O wait"), p("us per record"), p("elapsed")
    seed_ms = _seed(rows, "z/HPF: ms per I/O")
    return Value(f"It predicts {ms.model:.2f} ms per I/O (seed {seed_ms:g}, **{err_of(ms.model, seed_ms)}**), I/O wait "
                 f"{wait.model:.1f} s ({err_of(wait.model, _seed(rows, 'z/HPF: I/O wait'))}), {rec.model:.1f} us per record "
                 f"({err_of(rec.model, _seed(rows, 'z/HPF: us per record'))}), elapsed {el.model:.1f} s "
                 f"({err_of(el.model, _seed(rows, 'z/HPF: elapsed'))}): the right size of the change "
                 f"({100 * (ms.model / c.model - 1):+.0f} % per I/O against the measured "
                 f"{100 * (seed_ms / c.measured - 1):+.0f} %)")


def _seed(rows, prefix: str) -> float:
    return next(x.measured for x in rows if x.figure.startswith(prefix))


def err_of(model: float, seed: float) -> str:
    return f"{100 * (model / seed - 1):+.0f} %"


# ---- seed 004 (docs/cms_commit.md)

def cms_count_table(r) -> Value:
    t = r["counts"].sel(block_bytes=4096, cylinders=r["seed_cylinders"])
    from mcio.scenarios.cms import COMMANDS, RELEASES
    head = "| cylinders | map blocks | " + " | ".join(
        f"{rel} {c}" if i == 0 else c for rel in RELEASES for i, c in enumerate(COMMANDS)) + " |"
    lines = [head, "|---" * (2 + len(RELEASES) * len(COMMANDS)) + "|"]
    for cyl in r["seed_cylinders"]:
        cells = []
        for rel in RELEASES:
            for cmd in COMMANDS:
                m = int(t.ios_per_batch.sel(release=rel, cylinders=cyl, command=cmd))
                pub = t.published_ios_per_batch.sel(release=rel, cylinders=cyl, command=cmd).item()
                cells.append(f"{m:,}" if m == pub else f"**{m:,} (published {int(pub):,})**")
        maps = int(t.allocation_map_blocks.sel(cylinders=cyl))
        lines.append(f"| {cyl:,} | {maps} | " + " | ".join(cells) + " |")
    return Value("\n" + "\n".join(lines) + "\n")


def cms_matched(r) -> Value:
    t = r["counts"].sel(block_bytes=4096, cylinders=r["seed_cylinders"])
    pub = t.published_ios_per_batch.values
    ok = np.isfinite(pub)
    return Value(f"{int((t.ios_per_batch.values[ok] == pub[ok]).sum())} of the {int(ok.sum())}")


def cms_time_table(r) -> Value:
    d = r["time"].sel(block_bytes=4096)
    lines = ["| ms per command (3390) | " + " | ".join(f"{c:,}" + (" cyl" if i == 0 else "")
                                                      for i, c in enumerate(CMS_TIME_CYLINDERS)) + " |",
             "|---" * (len(CMS_TIME_CYLINDERS) + 1) + "|"]
    fmt = lambda x: f"{x:,.0f}" if x >= 100 else f"{x:.1f}"
    for rel in ("4.2.0", "4.3.0"):
        e = d.elapsed_ms.sel(release=rel)
        lines.append(f"| {rel} CREATE / COPY | " + " | ".join(
            f"{fmt(float(e.sel(cylinders=c, command='CREATE')))} / {fmt(float(e.sel(cylinders=c, command='COPY')))}"
            for c in CMS_TIME_CYLINDERS) + " |")
    return Value("\n" + "\n".join(lines) + "\n")


def cms_figures(r) -> dict[str, Value]:
    t = r["time"].sel(block_bytes=4096, cylinders=32760)
    sat = lambda rel, cmd, ds=t: float(ds.saturation_commands_per_s.sel(release=rel, command=cmd))
    busy = lambda rel: float(t.device_busy.sel(release=rel, command="CREATE"))
    cached = r["cached"].sel(block_bytes=4096, cylinders=32760)
    c = r["counts"].sel(block_bytes=4096, release="4.2.0", command="CREATE")
    b = r["counts"].sel(cylinders=32760, release="4.2.0", command="CREATE")
    bl = r["bytes"].sel(cylinders=32760, release="4.2.0", command="CREATE")
    per = lambda x: f"{float(x) / 50:,.0f}"
    e262 = float(r["time"].elapsed_ms.sel(block_bytes=4096, cylinders=262668, release="4.2.0", command="CREATE"))
    return {
        "cms_busy_420_pct": Value(f"{100 * busy('4.2.0'):.0f}"),
        "cms_busy_430_pct": Value(f"{100 * busy('4.3.0'):.0f}"),
        "cms_sat_420_create": Value(f"{sat('4.2.0', 'CREATE'):.1f}"),
        "cms_sat_420_copy": Value(f"{sat('4.2.0', 'COPY'):.1f}"),
        "cms_sat_430_create": Value(f"{sat('4.3.0', 'CREATE'):.1f}"),
        "cms_cached_sat_420_create": Value(f"{sat('4.2.0', 'CREATE', cached):.0f}"),
        "cms_cached_sat_430_create": Value(f"{sat('4.3.0', 'CREATE', cached):.0f}"),
        "cms_eav_65520_ios": Value(per(c.ios_per_batch.sel(cylinders=65520))),
        "cms_eav_65520_map": Value(f"{int(c.allocation_map_blocks.sel(cylinders=65520)):,}"),
        "cms_eav_262668_ios": Value(per(c.ios_per_batch.sel(cylinders=262668))),
        "cms_eav_262668_map": Value(f"{int(c.allocation_map_blocks.sel(cylinders=262668)):,}"),
        "cms_eav_262668_s": Value(f"{e262 / 1000:.1f}"),
        "cms_blocks_ios": Value(", ".join(f"{per(b.ios_per_batch.sel(block_bytes=k))} ({n})" for k, n in
                                          ((4096, "4 KB"), (2048, "2 KB"), (1024, "1 KB"), (512, "512 B")))),
        "cms_bytes_ios": Value(", ".join(per(bl.ios_per_batch.sel(block_bytes=k)) for k in (4096, 2048, 1024, 512))),
        "cms_512_map": Value(f"{int(b.allocation_map_blocks.sel(block_bytes=512)):,}"),
    }


# ---- seed 002 (docs/dasd_mdc.md): single figures from ``mcio reproduce dasd-mdc``'s rows

def _dasd(variant: str, quantity: str, fmt: str, scale: float = 1.0, of: Callable | None = None):
    def get(r):
        x = _fr(r[1], variant, quantity)
        v = of(x.model) if of else scale * x.model
        return num(v, fmt, None if of or x.ci95 in (None, 0.0) else scale * x.ci95)
    return get


def _dasd_ratio(a: tuple, b: tuple, fmt: str, minus_one: bool = False, diff: bool = False):
    def get(r):
        x, y = _fr(r[1], *a).model, _fr(r[1], *b).model
        return Value(format(x - y if diff else (100 * (x / y - 1) if minus_one else x / y), fmt))
    return get


DASD = {
    "dasd_p1_disconnect_ms": ("phase1", "disconnect", ".1f"), "dasd_p1_connect_ms": ("phase1", "connect", ".1f"),
    "dasd_p1_service_ms": ("phase1", "service", ".1f"), "dasd_p1_busy_pct": ("phase1", "device busy", ".0f", 100),
    "dasd_p1_rate": ("phase1", "I/O rate", ".0f"), "dasd_p1_mdc_hit_pct": ("phase1", "MDC hit", ".0f", 100),
    "dasd_p1_reads": ("phase1", "application reads", ".0f"), "dasd_p1_cu_miss_pct": ("phase1", "CU read-miss", ".1f", 100),
    "dasd_p2_disconnect_ms": ("phase2", "disconnect", ".2f"), "dasd_p2_connect_ms": ("phase2", "connect", ".1f"),
    "dasd_p2_rate": ("phase2", "I/O rate", ".0f"), "dasd_p2_busy_pct": ("phase2", "device busy", ".0f", 100),
    "dasd_p3_connect_ms": ("phase3", "connect", ".1f"), "dasd_p3_disconnect_ms": ("phase3", "disconnect", ".1f"),
    "dasd_p3_busy_pct": ("phase3", "device busy", ".0f", 100),
    "dasd_p4_connect_ms": ("phase4", "connect", ".1f"), "dasd_p4_disconnect_ms": ("phase4", "disconnect", ".1f"),
    "dasd_p4_cu_miss_pct": ("phase4", "CU read-miss", ".0f", 100),
    "dasd_block_busy_pct": ("whatif_mdc_block", "device busy", ".0f", 100),
    "dasd_block_mdc_hit_pct": ("whatif_mdc_block", "MDC hit", ".0f", 100),
    "dasd_p3_channel_speed_busy_pct": ("whatif_phase3_hits_at_channel_speed", "device busy", ".0f", 100),
}


def _dasd_figures() -> list:
    out = [Figure(n, "reproduce:dasd-mdc", _dasd(v, q, f, *rest)) for n, (v, q, f, *rest) in DASD.items()]
    out.append(Figure("dasd_p3_cu_hit_pct", "reproduce:dasd-mdc",
                      _dasd("phase3", "CU read-miss", ".0f", of=lambda m: 100 * (1 - m))))
    out.append(Figure("dasd_p3_cu_lost_pct", "reproduce:dasd-mdc", _dasd("phase3", "CU read-miss", ".0f", 100)))
    out.append(Figure("dasd_block_reads_gain_pct", "reproduce:dasd-mdc",
                      _dasd_ratio(("whatif_mdc_block", "application reads"), ("phase1", "application reads"), ".0f",
                                  minus_one=True)))
    out.append(Figure("dasd_staging_extra_ms", "reproduce:dasd-mdc",
                      _dasd_ratio(("whatif_staging_cu", "service"), ("phase1", "service"), "+.1f", diff=True)))
    return out


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

_CMS_NAMES = ["cms_busy_420_pct", "cms_busy_430_pct", "cms_sat_420_create", "cms_sat_420_copy", "cms_sat_430_create",
              "cms_cached_sat_420_create", "cms_cached_sat_430_create", "cms_eav_65520_ios", "cms_eav_65520_map",
              "cms_eav_262668_ios", "cms_eav_262668_map", "cms_eav_262668_s", "cms_blocks_ios", "cms_bytes_ios",
              "cms_512_map"]


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
    Figure("dasd_mdc_reproduce", "reproduce:dasd-mdc", lambda r: reproduce_block(r, judged_only=True)),
    Figure("dasd_mdc_whatifs", "reproduce:dasd-mdc", dasd_whatif_table),
    Figure("dasd_mdc_seam", "reproduce:dasd-mdc", dasd_seam_text),
    Figure("zhpf_dump_breakdown", "zhpf_dump", zhpf_dump_breakdown),
    Figure("zhpf_dump_chain_table", "zhpf_dump", zhpf_dump_chain_table),
    Figure("zhpf_dump_n_table", "zhpf_dump", zhpf_dump_n_table),
    Figure("zhpf_dump_share", "zhpf_dump", zhpf_dump_share),
    Figure("zhpf_dump_predicted", "reproduce:zhpf-dump", zhpf_dump_predicted),
    Figure("cms_count_table", "cms", cms_count_table),
    Figure("cms_matched", "cms", cms_matched),
    Figure("cms_time_table", "cms", cms_time_table),
    *_many("cms", cms_figures, _CMS_NAMES),
    *_dasd_figures(),
    Figure("zhpf_dump_reproduce", "reproduce:zhpf-dump", reproduce_block),
    *[Figure(f"within_{n.replace('-', '_')}", f"reproduce:{n}", within)
      for n in ("ficon-channel", "isfc-link", "dasd-mdc", "zhpf-dump", "cms-commit", "mm1-demo")],
]}


# ---------------------------------------------------------------------------------------- docs

def quoted(paths=None) -> list[tuple[Path, str, str]]:
    """Every marker in the docs: (file, name, quoted text)."""
    return [(p, m.group(1), m.group(2)) for p in (paths or DOCS) for m in MARKER.finditer(p.read_text())]


def fresh(name: str) -> Value:
    fig = FIGURES[name]
    return fig.get(result(fig.run))


def _number(text: str) -> float | None:
    try:
        return float(text.replace(",", "").replace("+", "").replace("~", "").strip())
    except ValueError:
        return None


def verdict(text: str, v: Value) -> bool:
    """The check's rule: the fresh text, or a number within the fresh value +- (its run's CI
    half-width + half a unit of the quoted text's last digit, the rounding it was printed with)."""
    if text == v.text:
        return True
    q = _number(text)
    if v.ci is None or q is None:
        return False
    decimals = len(text.strip().split(".")[1]) if "." in text else 0
    return abs(q - v.value) <= v.ci + 0.5 * 10.0 ** -decimals


def difference(text: str, v: Value) -> str:
    """What a stale figure's check prints: the two texts, or a block's first differing line."""
    if "\n" not in text and "\n" not in v.text:
        return f"quoted {text!r}, the run gives {v.text!r}" + (f" +- {v.ci:.3g}" if v.ci is not None else "")
    a, b = text.splitlines(), v.text.splitlines()
    i = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return (f"block line {i + 1}: quoted {a[i] if i < len(a) else '(none)'!r}, "
            f"the run gives {b[i] if i < len(b) else '(none)'!r}")


def write(paths=None) -> list[str]:
    """Rewrite every marker's text with its fresh value; the names whose text changed."""
    changed = []
    for p in paths or DOCS:
        src = p.read_text()

        def sub(m):
            v = fresh(m.group(1))
            if m.group(2) != v.text:
                changed.append(f"{p.relative_to(ROOT)}: {m.group(1)}")
            return f"<!-- fig:{m.group(1)} -->{v.text}<!-- /fig -->"

        out = MARKER.sub(sub, src)
        if out != src:
            p.write_text(out)
    return changed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="rewrite the docs' quoted figures in place")
    ap.add_argument("--list", action="store_true", help="the registry and where each figure is quoted")
    a = ap.parse_args(argv)
    where: dict[str, list[str]] = {}
    for p, name, _ in quoted():
        where.setdefault(name, []).append(p.name)
    if a.list:
        for name, fig in FIGURES.items():
            print(f"{name:<36} {fig.run:<26} {', '.join(sorted(set(where.get(name, [])))) or '(not quoted)'}")
        return 0
    if a.write:
        changed = write()
        print("\n".join(changed) if changed else "every quoted figure is current")
        return 0
    bad = 0
    for p, name, text in quoted():
        if name not in FIGURES:
            print(f"{p.name}: {name}: no such figure")
            bad += 1
            continue
        v = fresh(name)
        ok = verdict(text, v)
        bad += not ok
        short = (lambda s: s if "\n" not in s else f"<block of {s.count(chr(10))} lines>")
        print(f"{'ok ' if ok else 'BAD'} {p.name:<16} {name:<36} quoted {short(text)!s:<14} fresh {short(v.text)}"
              + (f" +- {v.ci:.3g}" if v.ci is not None else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
