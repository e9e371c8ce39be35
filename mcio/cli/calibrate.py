"""``mcio calibrate``: fit a scenario's parameters to measured intervals (see :mod:`mcio.calibrate`)."""
from __future__ import annotations

import click

from ..calibrate import calibrate, load_measured, parse_set, resolve_scenario
from .app import set_threads


@click.command("calibrate")
@click.option("--scenario", required=True, help="Scenario name (mcio scenarios lists them).")
@click.option("--measured", required=True, help="Measured intervals: CSV or TOML (see mcio.calibrate).")
@click.option("--params", default=None,
              help="Comma-separated parameters to fit: scenario parameters or dotted model fields "
                   "(default: the scenario's own; 'none' only evaluates).")
@click.option("--set", "sets", multiple=True, help="Fixed override name=value (repeatable); also a start value.")
@click.option("--seed", type=int, default=1, show_default=True, help="Root seed, the same at every evaluation.")
@click.option("--ios", type=int, default=100_000, show_default=True, help="Measured I/Os per replication.")
@click.option("--replications", type=int, default=4, show_default=True)
@click.option("--noise-seeds", type=int, default=3, show_default=True,
              help="Other seeds used to estimate the simulation-noise part of the uncertainty.")
@click.option("--max-evals", type=int, default=80, show_default=True, help="Loss evaluations at most.")
@click.option("--threads", type=int, default=None, help="Numba threads.")
@click.option("-q", "--quiet", is_flag=True, help="No progress lines.")
def calibrate_cmd(scenario, measured, params, sets, seed, ios, replications, noise_seeds, max_evals,
                  threads, quiet):
    """Fit scenario parameters to MEASURED intervals and print fitted values and per-row errors."""
    set_threads(threads)
    rows = load_measured(measured)
    scn = resolve_scenario(scenario)
    overrides = parse_set(sets)
    if params is None:
        plist = None
    elif params.strip().lower() in ("", "none"):
        plist = []
    else:
        plist = [p.strip() for p in params.split(",") if p.strip()]
    fit_names = plist if plist is not None else list(scn.calibration_params)
    start = {k: v for k, v in overrides.items() if k in fit_names}
    base = {k: v for k, v in overrides.items() if k not in fit_names}
    say = None if quiet else (lambda s: click.echo(s, err=True))
    res = calibrate(scn, rows, plist, start=start, base=base, ios=ios, replications=replications,
                    seed=seed, noise_seeds=noise_seeds if plist != [] else 0, max_nfev=max_evals,
                    progress=say)
    click.echo(f"mcio calibrate: scenario {scenario}, {len(rows)} measured rows from {measured}")
    click.echo(res.to_text())


__all__ = ["calibrate_cmd"]
