"""``mcio table``, ``mcio report``, ``mcio headroom`` and ``mcio uncertain``: a capacity planner's operations
(:mod:`mcio.planner`; docs/planner.md)."""
from __future__ import annotations

from pathlib import Path

import click

from ..errors import McioError
from .app import main, set_threads


def _open(path: str):
    from ..batch import open_results
    return open_results(path)


@main.command("table")
@click.argument("results")
@click.option("--csv", "as_csv", is_flag=True, help="CSV (for spreadsheets) instead of aligned text.")
@click.option("--vars", "vars_", multiple=True, metavar="NAME[,NAME...]",
              help="Figures to show (repeatable or comma-separated), e.g. response_ms,response_p90_ms,"
                   "channel_busy; default: I/O rate, response and its components, p90, device and channel busy.")
@click.option("--by", default=None, metavar="DIM", help="Sweep dimension leading the rows (or 'channel': one row "
              "per point and channel).")
@click.option("-o", "--out", default=None, help="Write to this file instead of stdout.")
def table_cmd(results, as_csv, vars_, by, out):
    """RESULTS (a sweep, or a comparison from mcio compare -o) as a table in RMF's vocabulary and
    units: one row per point, sweep axes first, each figure's 95 % CI beside it."""
    from ..planner.table import format_csv, format_text, results_table
    ds = _open(results)
    tab = results_table(ds, list(vars_) or None, by)
    text = format_csv(tab) if as_csv else format_text(tab) + "\n"
    if out:
        from ..store import write_bytes
        write_bytes(text.encode("utf-8"), out)   # checks OUT; atomic: a failed write leaves OUT as it was
        click.echo(f"mcio: wrote {out}", err=True)
    else:
        click.echo(text, nl=False)


@main.command("report")
@click.argument("results")
@click.option("-o", "--out", default=None, help="HTML file; default: RESULTS with .html.")
def report_cmd(results, out):
    """One self-contained HTML report of RESULTS (a sweep, or mcio compare's -o file): the
    configuration, the curves and component stacks, the table, the flags, and for a comparison
    the before/after with paired CIs. Figures are embedded; the file needs no network."""
    from ..planner.report import write_report
    out = out or str(Path(results).with_suffix(".html"))
    write_report(results, out)
    click.echo(f"mcio: wrote {out}", err=True)


def _model_and_run(arg: str, point: int):
    """(model, [run] settings, label) of SPEC.toml (its grid point) or SCENARIO[:VARIANT]."""
    from ..scenarios import SCENARIOS, get_scenario
    name, _, variant = arg.partition(":")
    if name in SCENARIOS and not Path(arg).exists():
        model = get_scenario(name).model(variant) if variant else SCENARIOS[name]()
        return model, {}, arg
    from ..batch import load_spec
    s = load_spec(Path(arg))
    where = ", ".join(f"{k} = {v}" for k, v in s.coords(point).items())
    return s.point_model(point), s.run, f"{arg}" + (f" point {point} ({where})" if s.n_points > 1 else "")


def _limit(text):
    if text is None:
        return None
    try:
        lo, hi = (float(x) for x in text.split(","))
    except ValueError:
        raise McioError("--limit", text, "must be LOW,HIGH, e.g. 0.5,3 (a growth factor) or 1,16 (a field)") from None
    return lo, hi


@main.command("headroom")
@click.argument("spec")
@click.option("--target", "targets", multiple=True, required=True, metavar="EXPR",
              help="A service target, e.g. 'response_ms <= 3', 'response_p90_ms <= 5', 'channel_busy <= 0.5' "
                   "(repeatable; all must hold).")
@click.option("--grow", default="load", show_default=True, metavar="FIELD",
              help="'load' (a factor on the I/O rate) or a numeric model field, e.g. channels.count, "
                   "devices.aliases (integer fields: the fewest meeting the targets if they relieve the load).")
@click.option("--limit", default=None, metavar="LOW,HIGH", help="Range searched (default: factor 0.05 .. "
              "just under capacity; a field: value/10 .. x10, an integer field 1 .. 4 x value + 8).")
@click.option("--at", "at", type=float, default=None, metavar="G",
              help="Also evaluate the targets at this growth, e.g. 1.4 for +40 %.")
@click.option("--point", type=int, default=0, show_default=True, help="Grid point of a sweep spec.")
@click.option("--ios", type=int, default=None, help="I/Os per replication (default: the spec's [run] ios, "
              "else 20000).")
@click.option("--replications", type=int, default=None, help="Replications (default: the spec's, at least 8).")
@click.option("--seed", type=int, default=None, help="Root seed (default: the spec's).")
@click.option("--threads", type=int, default=None, help="Numba threads.")
@click.option("--samples", type=int, default=None, help="For a SPEC with an [uncertain] table: the parameter "
              "sets of the answer's input band (default 16; each is a root finding; 0: the nominal answer only).")
@click.option("--method", type=click.Choice(["lhs", "sobol"]), default=None,
              help="How the parameter sets are drawn (default: [uncertain] method, else lhs).")
def headroom_cmd(spec, targets, grow, limit, at, point, ios, replications, seed, threads, samples, method):
    """The largest growth of SPEC's load (or of a field) at which every target still holds, with
    a 95 % CI from stochastic root finding on common random numbers; the first target to break
    and the binding resource. SPEC: a spec file (--point of a grid) or SCENARIO[:VARIANT]. A spec
    with an [uncertain] table also gets the input band of the answer (the headroom of each of
    --samples drawn parameter sets) and the input that moves it most."""
    from ..batch.spec import check_run_option
    from ..planner.headroom import MAX_EVALS, format_headroom, headroom, parse_targets
    from ..planner.uncertain import MAX_SAMPLES
    for opt, key, v in (("--ios", "ios", ios), ("--replications", "replications", replications),
                        ("--seed", "seed", seed)):
        check_run_option(opt, key, v)
    if samples is not None and samples > MAX_SAMPLES:
        raise McioError("--samples", samples, f"must be 0 (no input band) or an integer in [4, {MAX_SAMPLES}]")
    tg = parse_targets(targets)
    if samples is not None and samples != 0 and samples < 4:
        raise McioError("--samples", samples, "must be 0 (no input band) or an integer >= 4")
    inputs = None
    if _has_uncertain(spec):
        from ..planner.headroom_band import load_uncertain_point
        model, run, inputs, opts, label, model_of = load_uncertain_point(spec, point)
    else:
        model, run, label = _model_and_run(spec, point)
    set_threads(threads)
    kw = dict(grow=grow, limit=_limit(limit), ios=ios or run.get("ios") or 20_000,
              replications=replications or max(8, run.get("replications") or 0),
              seed=seed if seed is not None else run.get("seed", 0), warmup=run.get("warmup"), at=at)
    from ..batch.estimates import Simulation, check_run, repeated, timed_simulations
    from ..planner.headroom_band import SAMPLES
    sets = 1 + (samples or SAMPLES if inputs is not None and samples != 0 else 0)
    check_run(repeated(timed_simulations([Simulation.of(model, kw["ios"], kw["replications"], kw["warmup"])]),
                       (MAX_EVALS + 3) * sets), "--ios", kw["ios"], "this headroom search (at most)")
    if inputs is not None and samples != 0:
        from ..planner.headroom_band import format_headroom_band, headroom_band
        b = headroom_band(model, inputs, tg, samples=samples or SAMPLES, method=method or opts["method"],
                          draw_seed=opts["seed"], correlation=opts["correlation"], model_of=model_of, **kw)
        text = format_headroom_band(b, tg)
    else:
        text = format_headroom(headroom(model, tg, **kw), tg)
    click.echo(f"{label}:")      # after the search: an error stays one line
    click.echo(text)


def _has_uncertain(arg: str) -> bool:
    """Whether ``arg`` is a spec file with an ``[uncertain]`` table."""
    import tomllib
    if "\x00" in arg:
        return False      # load_spec says what is wrong with it
    p = Path(arg)
    if not p.is_file():
        return False
    try:
        return "uncertain" in tomllib.loads(p.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError):
        return False      # load_spec says what is wrong with it


@main.command("uncertain")
@click.argument("spec")
@click.option("-o", "--out", default=None, help="Write the Dataset (netCDF-4/HDF5): both bands, every set.")
@click.option("--samples", type=int, default=None, help="Parameter sets (default: [uncertain] samples, else 32).")
@click.option("--method", type=click.Choice(["lhs", "sobol"]), default=None,
              help="Latin hypercube or scrambled Sobol (default: [uncertain] method, else lhs).")
@click.option("--ios", type=int, default=None, help="I/Os per replication (default: the spec's).")
@click.option("--replications", type=int, default=None, help="Replications per set (default: the spec's).")
@click.option("--threads", type=int, default=None, help="Numba threads.")
def uncertain_cmd(spec, out, samples, method, ios, replications, threads):
    """SPEC's predictions with the uncertainty of its inputs (its [uncertain] table): per point,
    each figure at the nominal inputs with the simulation's 95 % CI, the input band (2.5 .. 97.5 %
    over drawn parameter sets, on common random numbers) and the inputs ranked by sensitivity."""
    from ..batch.spec import check_run_option
    from ..planner.uncertain import MAX_SAMPLES, format_uncertain, run_uncertain
    if samples is not None and not 4 <= samples <= MAX_SAMPLES:
        raise McioError("--samples", samples, f"must be an integer in [4, {MAX_SAMPLES}]")
    for opt, key, v in (("--ios", "ios", ios), ("--replications", "replications", replications)):
        check_run_option(opt, key, v)
    if out:
        from ..store import check_writable
        check_writable(out)
    set_threads(threads)
    ds = run_uncertain(spec, ios=ios, replications=replications, samples=samples, method=method)
    click.echo(format_uncertain(ds))
    if out:
        from ..store import write_netcdf
        write_netcdf(ds, out)
        click.echo(f"mcio: wrote {out}", err=True)
