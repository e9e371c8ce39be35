"""The ``mcio`` commands sweep, run, plot, info, scenarios, reproduce and validate (the error
policy is :mod:`mcio.cli.app`'s)."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from ..errors import McioError
from ..model.text import for_terminal
from .app import main, set_threads

BUILTIN_EXAMPLE = "ficon_knee.toml"


def builtin_example(name: str = BUILTIN_EXAMPLE) -> Path:
    """Path of a spec shipped in ``mcio/examples``."""
    from importlib.resources import files
    p = Path(str(files("mcio") / "examples" / name))
    if not p.exists():
        raise McioError("example", name, "is not shipped with this installation of mcio")
    return p


# ---- sweep ------------------------------------------------------------------------------------


class _Bar:
    """tqdm progress over sweep points: points done, I/Os simulated per second, ETA."""

    def __init__(self, quiet: bool):
        self.quiet, self.bar, self.ios, self.t0 = quiet, None, 0, None

    def __call__(self, done: int, total: int, ios: int):
        if self.quiet:
            return
        if self.bar is None:
            from tqdm import tqdm
            self.bar = tqdm(total=total, initial=done, unit="pt", desc="mcio sweep", file=sys.stderr,
                            dynamic_ncols=True, smoothing=0.1)
            self.t0 = time.perf_counter()
            return
        self.ios += ios
        rate = self.ios / max(time.perf_counter() - self.t0, 1e-9)
        self.bar.set_postfix_str(f"{_si(rate)} I/O/s", refresh=False)
        self.bar.update(done - self.bar.n)

    def close(self):
        if self.bar is not None:
            self.bar.close()


def _si(x: float) -> str:
    for div, suf in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if x >= div:
            return f"{x / div:.2f}{suf}"
    return f"{x:.0f}"


@main.command("sweep")
@click.argument("spec", required=False)
@click.option("-o", "--out", default="mcio-sweep.h5", show_default=True, help="HDF5 results file.")
@click.option("--resume", is_flag=True, help="Continue an interrupted sweep into OUT.")
@click.option("--threads", type=int, default=None,
              help="Numba threads (default: all cores); with --dask, per point on a worker.")
@click.option("--dask", "dask", metavar="ADDRESS", default=None,
              help="Run the points on a Dask cluster: a scheduler address (tcp://host:8786), or 'local' / "
                   "'local:N' for N local worker processes. Needs: pip install 'mcio[dask]'.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar or summary.")
def sweep_cmd(spec, out, resume, threads, dask, quiet):
    """Run the sweep in SPEC (TOML; default: the built-in FICON knee example) into OUT."""
    from ..store import check_writable
    from ..batch import load_spec, sweep

    spec_path = Path(spec) if spec else builtin_example()
    if dask is not None:
        from ..batch.cluster import import_distributed, parse_address
        parse_address(dask)
        import_distributed(dask)
    s = load_spec(spec_path)
    check_writable(out)
    if dask is None:
        set_threads(threads)
    elif threads is not None and threads < 1:
        raise McioError("--threads", threads, "must be an integer >= 1")
    bar = _Bar(quiet)
    t0 = time.perf_counter()
    try:  # (Ctrl-C: SweepInterrupted, one line and exit 130 by the group's policy, mcio.cli.app)
        ds = sweep(s, out=out, resume=resume, progress=bar, dask=dask, worker_threads=threads if dask else None)
    finally:
        bar.close()
    from .whatif import diagnostics
    for line in diagnostics(ds):
        click.echo(f"mcio: {line}", err=True)
    if not quiet:
        dims = " x ".join(f"{d}={ds.sizes[d]}" for d in s.dims) or "1 point"
        click.echo(f"mcio: wrote {out} ({dims}, {s.run['replications']} replications x {s.run['ios']} I/Os) "
                   f"in {time.perf_counter() - t0:.1f} s{' on Dask ' + dask if dask else ''}", err=True)


# ---- run: one point, an RMF-like report ------------------------------------------------------


@main.command("run")
@click.argument("spec", required=False)
@click.option("--point", type=int, default=0, show_default=True, help="Grid point of a sweep spec.")
@click.option("--ios", type=int, default=None, help="I/Os per replication (overrides [run] ios).")
@click.option("--replications", type=int, default=None, help="Overrides [run] replications.")
@click.option("--threads", type=int, default=None, help="Numba threads.")
def run_cmd(spec, point, ios, replications, threads):
    """Simulate one point of SPEC (a model or the first grid point) and print an RMF-like report."""
    from ..batch import load_spec, point_part, parse_spec
    from ..part import PartView

    s = load_spec(Path(spec) if spec else builtin_example())
    if ios is not None or replications is not None:
        run = dict(s.raw.get("run", {}))
        if ios is not None:
            run["ios"] = ios
        if replications is not None:
            run["replications"] = replications
        s = parse_spec({**s.raw, "run": run}, source=s.source)
    set_threads(threads)
    s.point_model(point)  # validates the index
    from ..batch.estimates import Simulation, check_run, timed_simulations
    check_run(timed_simulations([Simulation(s.point_model(point), s.run)]),
              "run.replications", s.run["replications"], "this run")
    from ..kernels.target import load_arrays_without_scipy_linalg
    load_arrays_without_scipy_linalg()    # (Numba's BLAS probe: scipy.linalg, for nothing mcio calls)
    # the engine's arrays as they are: a Dataset (xarray, pandas, dask) is no part of a report
    ds = PartView(point_part(s, point, describe=True))   # (Ctrl-C: the kernels stop at once; the group prints one line, exit 130)
    # (no figure to report: as reproduce, a clear error)
    from ..engine.limits import refuse_too_short
    refuse_too_short(ds, "--ios" if ios is not None else "run.ios", s.run["ios"])
    click.echo(report(ds, s, point))
    from .whatif import diagnostics
    for line in diagnostics(ds):   # (a warm-up too short, an unstable point: as after a sweep)
        click.echo(f"mcio: {line}", err=True)


def report(ds, spec, point: int) -> str:
    """RMF-style text: device-level response components, then one line per channel. ``ds``: a
    point's Dataset, or its :class:`~mcio.part.PartView` (the same reads)."""
    import numpy as np

    def m(name):
        return float(np.nanmean(ds[name].values)) if name in ds else float("nan")

    def ci(name):
        return float(ds[name].values) if name in ds else float("nan")

    c = spec.coords(point)
    where = ", ".join(([f"variant = {c['variant']}"] if "variant" in c else [])
                      + [f"{a.key} = {c[a.dim]}" for a in spec.axes])
    warm = ds.attrs.get("warmup_ios", "auto")
    lines = [f"mcio run: {for_terminal(spec.title)} — point {point}{': ' + where if where else ''}",
             f"{ds.attrs.get('replications', '?')} replications x {ds.attrs.get('ios', '?')} I/Os "
             f"(warm-up {warm}), seed {ds.attrs.get('seed', '?')}"
             + (f"   ** UNSTABLE: {ds.attrs.get('unstable_reason') or 'open load over capacity'} **"
                if int(ds.get("unstable", 0)) else ""),
             "",
             f"{'':8}{'I/O rate':>10}{'resp':>9}{'IOSQ':>9}{'pend':>9}{'CMR':>9}{'disc':>9}{'conn':>9}{'dev busy':>10}",
             f"{'':8}{'SSCH/s':>10}{'ms':>9}{'ms':>9}{'ms':>9}{'ms':>9}{'ms':>9}{'ms':>9}{'%':>10}",
             f"{'mean':8}{m('throughput_iops'):>10.1f}{m('response_ms'):>9.3f}{m('iosq_ms'):>9.3f}"
             f"{m('pend_ms'):>9.3f}{m('cmr_ms'):>9.3f}{m('disconnect_ms'):>9.3f}{m('connect_ms'):>9.3f}"
             f"{100 * m('device_busy'):>10.1f}",
             f"{'+/-95%':8}{ci('throughput_ci95_iops'):>10.1f}{ci('response_ci95_ms'):>9.3f}{ci('iosq_ci95_ms'):>9.3f}"
             f"{ci('pend_ci95_ms'):>9.3f}{ci('cmr_ci95_ms'):>9.3f}{ci('disconnect_ci95_ms'):>9.3f}"
             f"{ci('connect_ci95_ms'):>9.3f}"]
    if "response_quantile_ms" in ds:
        q = ds["response_quantile_ms"]
        lines.append("response percentiles ms: " + "  ".join(
            f"p{100 * float(k):g} {float(v):.3f}" for k, v in zip(q["quantile"].values, q.values)))
    if "channel_busy" in ds:
        lines += ["", f"{'CHPID':>6}{'busy %':>9}{'link %':>9}{'OE avg':>9}{'OE max':>9}{'defer/s':>10}"
                      f"{'SSCH/s':>10}{'MB/s':>9}"]
        chpid = [str(v) for v in ds["chpid"].values] if "chpid" in ds.coords else None
        for c in range(ds.sizes.get("channel", 0)):
            def cm(name, f=np.nanmean):
                if name not in ds:
                    return float("nan")
                v = ds[name].variable   # (numpy, not isel: xarray's indexing imports dask.array)
                return float(f(np.take(v.values, c, axis=v.dims.index("channel"))))
            lines.append(f"{chpid[c] if chpid else c:>6}{100 * cm('channel_busy'):>9.1f}{100 * cm('link_busy'):>9.1f}"
                         f"{cm('open_exchanges_mean'):>9.2f}{cm('open_exchanges_max', np.nanmax):>9.0f}"
                         f"{cm('deferred_iops'):>10.1f}{cm('channel_ssch_iops'):>10.1f}{cm('channel_mb_s'):>9.2f}")
    from .level_report import level_lines
    lines += level_lines(ds)     # a configuration's workloads, control units, LCUs, links, cards
    return "\n".join(lines)


# ---- plot, info, scenarios, validate ---------------------------------------------------------


@main.command("plot")
@click.argument("results")
@click.option("-o", "--out", default=None, help="PNG (or PDF/SVG) file; default: RESULTS with .png.")
@click.option("--x", "x", default=None, help="x axis: channel_busy, throughput_iops or a sweep dimension.")
@click.option("--hue", default=None, help="Sweep dimension drawn as one line per value.")
@click.option("--band", default="0.95", show_default=True,
              help="Upper quantile of the p50 band (a level the file holds), or 'none'.")
@click.option("--no-bands", is_flag=True, help="No percentile bands (clearer with many lines).")
@click.option("--logy", is_flag=True, help="Logarithmic response axis (the stacked components stay linear).")
@click.option("--components-by", "by", default=None, metavar="DIM",
              help="Instead: stacked component bars, one per value of DIM (e.g. variant).")
def plot_cmd(results, out, x, hue, band, no_bands, logy, by):
    """Response versus utilisation curves and the component breakdown of RESULTS."""
    import math
    from ..plot import check_band, plot_components, save_figure, save_plot
    from ..store import check_writable, open_results

    if str(band).lower() == "none":
        band_v = None
    else:
        try:
            band_v = float(band)
        except ValueError:
            raise McioError("--band", band, "must be a quantile level in (0.5, 1), e.g. 0.95, or none") from None
        if not math.isfinite(band_v):
            raise McioError("--band", band, "must be a quantile level in (0.5, 1), e.g. 0.95, or none")
    check_band(band_v)
    ds = open_results(results)
    out = out or str(Path(results).with_suffix(".png"))
    check_writable(out)
    if by is not None:
        import matplotlib.pyplot as plt
        fig = plot_components(ds, by=by)
        try:
            save_figure(fig, out, dpi=110)
        finally:
            plt.close(fig)
    else:
        save_plot(ds, out, x=x, hue=hue, band=band_v, logy=logy, bands=False if no_bands else None)
    click.echo(f"mcio: wrote {out}", err=True)


@main.command("info")
@click.argument("results")
def info_cmd(results):
    """Dimensions, variables (with units) and attributes of RESULTS (every group of a grouped file)."""
    from ..store import open_results
    ds = open_results(results)
    groups = _groups(results)
    if groups and not ds.data_vars:
        import xarray as xr
        out = [f"{results}: {len(groups)} group(s): {', '.join(groups)}"]
        for g in groups:
            with xr.open_dataset(results, engine="h5netcdf", group=g) as gds:
                out += ["", f"group {g}:"] + ["  " + line for line in _describe(gds, f"{results}/{g}")]
        click.echo("\n".join(out))
        return
    click.echo("\n".join(_describe(ds, results)))


def _groups(path) -> list[str]:
    """The top-level groups of an HDF5 file that hold netCDF variables."""
    import h5py
    try:
        with h5py.File(path, "r") as f:
            return [k for k, v in f.items() if isinstance(v, h5py.Group)]
    except OSError:
        return []


def _describe(ds, name) -> list[str]:
    out = [f"{name}: {for_terminal(ds.attrs.get('title', ''))}", "dimensions:"]
    for d, n in ds.sizes.items():
        vals = ds[d].values if d in ds.coords else None
        key = ds[d].attrs.get("mcio_key", "") if d in ds.coords else ""
        shown = "" if vals is None else " [" + ", ".join(map(_fmt, vals[:6])) + (", ..." if n > 6 else "") + "]"
        out.append(f"  {d:<22}{n:>6}{shown}{'  (' + key + ')' if key else ''}")
    out.append("variables:")
    for vname, v in ds.data_vars.items():
        out.append(f"  {vname:<22} ({', '.join(v.dims)})  [{v.attrs.get('units', '?')}]  {v.attrs.get('long_name', '')}")
    out.append("attributes:")
    for k, v in ds.attrs.items():
        t = " ".join(str(v).split())
        out.append(f"  {k:<16}= {t[:70] + ' ...' if len(t) > 70 else t}")
    return out


def _fmt(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


@main.command("scenarios")
@click.argument("name", required=False)
def scenarios_cmd(name):
    """List the named scenarios a spec may use (scenario = "name"); with NAME, its parameters
    (value, unit, provenance, reason), variants and the number of measured figures."""
    from ..scenarios import SCENARIO_OBJECTS, SCENARIOS, describe, get_scenario
    if name is None:
        width = max((len(n) for n in SCENARIOS), default=0)
        for n in sorted(SCENARIOS):
            click.echo(f"{n:<{width}}  {describe(n)}")
        click.echo("(mcio scenarios NAME shows a scenario's parameters and variants)")
        return
    scn = get_scenario(name)
    click.echo(f"{scn.name}: {scn.description}")
    rows = [(p.name, _fmt(p.value), p.unit, p.provenance, p.reason) for p in scn.params]
    w = [max(len(r[i]) for r in rows + [("parameter", "value", "unit", "provenance", "")]) for i in range(4)]
    click.echo(f"{'parameter':<{w[0]}}  {'value':<{w[1]}}  {'unit':<{w[2]}}  {'provenance':<{w[3]}}  reason")
    for r in rows:
        click.echo(f"{r[0]:<{w[0]}}  {r[1]:<{w[1]}}  {r[2]:<{w[2]}}  {r[3]:<{w[3]}}  {' '.join(r[4].split())}")
    click.echo(f"variants: {', '.join(scn.variants)}")
    from ..scenarios.report import FIGURE_KINDS
    kinds = [(k, sum(f.kind == k for f in scn.figures)) for k in FIGURE_KINDS + ("",)]
    click.echo(f"measured figures: {len(scn.figures)} ("
               + ", ".join(f"{n} {k or 'not judged'}" for k, n in kinds if n) + f"; mcio reproduce {scn.name})")


@main.command("reproduce")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: the scenario, the run, the figures (one "
              "object each, with its kind) and the summary counts.")
@click.option("--ios", type=int, default=None, help="I/Os per replication (default: the scenario's budget).")
@click.option("--replications", type=int, default=None, help="Replications (default: the scenario's).")
@click.option("--seed", type=int, default=None, help="Root seed (default: the scenario's).")
@click.option("--variant", "variants", multiple=True, help="Only the figures of this variant (repeatable).")
def reproduce_cmd(name, as_json, ios, replications, seed, variants):
    """Every measured figure of scenario NAME beside the model's value, its 95 % CI, the error
    and the tolerance, with what the figure tests (kind: fitted, imposed, identity or predicted);
    a summary line counts them by kind and the predictions within tolerance. Exit 0 when all are
    within tolerance, 1 when any is not."""
    import dataclasses
    import json
    from ..scenarios import get_scenario
    from ..scenarios.report import format_table, summary
    scn = get_scenario(name)
    run = dataclasses.replace(scn.run_size, **{k: v for k, v in
                                               (("ios", ios), ("replications", replications), ("seed", seed))
                                               if v is not None})
    check_run_of_scenario(scn, run, list(variants) or None)
    rows = scn.reproduce(run, list(variants) or None)
    if as_json:
        click.echo(json.dumps({"scenario": scn.name, "run": dataclasses.asdict(run),
                               "figures": [r.to_json() for r in rows], "summary": summary(rows)}, indent=1))
    else:
        click.echo(f"{scn.name}: {scn.description}")
        click.echo(f"({run.replications} replications x {run.ios} {scn.ios_meaning}, seed {run.seed})")
        click.echo(format_table(rows))
    sys.exit(1 if any(r.within is False for r in rows) else 0)


def check_run_of_scenario(scn, run, variants) -> None:
    """The sweep's estimate rules for ``mcio reproduce``: every engine run the scenario makes for
    the variants that have figures (:meth:`mcio.scenarios.base.Scenario.simulations`)."""
    from ..batch.estimates import check_run, timed_simulations
    check_run(timed_simulations(scn.reproduce_simulations(run, variants)),
              "--replications", run.replications, f"reproducing {scn.name}")


@main.command("validate")
@click.argument("spec", required=False)
@click.option("--show", is_flag=True, help="Also print the fully resolved model (every default) of --point.")
@click.option("--point", type=int, default=0, show_default=True, help="The grid point --show prints.")
def validate_cmd(spec, show, point):
    """Check SPEC (every grid point's model) without running it: bad values, and open loads over
    a station's capacity (an error naming the station and the largest allowed rate)."""
    from ..batch import load_spec
    from .whatif import overloaded_points
    s = load_spec(Path(spec) if spec else builtin_example())
    over = overloaded_points(s)
    if over:
        p, coords, station, u, allowed = over[0]
        where = ", ".join(f"{k}={v}" for k, v in coords.items()) or "the model"
        more = f" (and {len(over) - 1} more point(s))" if len(over) > 1 else ""
        raise McioError(f"point {p} ({where})", round(u, 4),
                        f"open load over capacity: {station} utilisation >= 1; allowed: rate_iops < {allowed:.6g}"
                        f"{more}. Such points run only flagged unstable")
    m = s.point_model(point)
    from ..batch.estimates import estimate, pilot_models, timed
    click.echo(f"estimate: {timed(lambda c: estimate(s, s_per_io=c), pilot_models(s))}")
    for note in m.notes():
        click.echo(f"note: {note}")
    if show:
        from ..model.effect import effective_toml
        click.echo(f"# point {point}: the model as simulated, every field that counts resolved\n{effective_toml(m)}")
    axes = "; ".join(f"{a.key} -> {a.dim} ({len(a.values)})" for a in s.axes) or "no sweep axes"
    if s.variants:
        axes = f"variants {', '.join(s.variant_names)} -> variant ({len(s.variants)}); " + axes
    click.echo(f"{s.source}: ok: {s.n_points} point(s) [{axes}], {s.run['replications']} replications "
               f"x {s.run['ios']} I/Os, seed {s.run['seed']}")
