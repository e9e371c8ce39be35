"""``mcio calibrate``: fit a scenario's parameters to measured intervals (see :mod:`mcio.calibrate`
for the table and the loss, docs/calibration.md for the analyst's walk-through)."""
from __future__ import annotations

import shlex

import click

from .app import set_threads

#: the budget options and their defaults (the command line written into a result file names
#: every one of them, so the file says exactly how to reproduce it)
DEFAULTS = {"seed": 1, "ios": 100_000, "replications": 4, "noise_seeds": 3, "max_evals": 80}


def command_line(scenario, measured, params, sets, output, fix_excess: bool = False, **budget) -> str:
    """The canonical command that reproduces a calibration (every budget option explicit)."""
    parts = ["mcio", "calibrate", "--scenario", scenario, "--measured", measured]
    if params is not None:
        parts += ["--params", params]
    if fix_excess:
        parts += ["--fix-excess"]
    for s in sets:
        parts += ["--set", s]
    for k in DEFAULTS:
        parts += [f"--{k.replace('_', '-')}", str(budget[k])]
    if output:
        parts += ["-o", output]
    return " ".join(shlex.quote(p) for p in parts)


@click.command("calibrate")
@click.option("--scenario", required=True, help="Scenario name (mcio scenarios lists them).")
@click.option("--measured", required=True,
              help="Measured intervals: CSV (mcio's or RMF's column names) or TOML; see docs/calibration.md.")
@click.option("--params", default=None,
              help="Comma-separated parameters to fit: scenario parameters or dotted model fields "
                   "(default: the scenario's own; 'none' only evaluates).")
@click.option("--set", "sets", multiple=True, help="Fixed override name=value (repeatable); also a start value.")
@click.option("--fix-excess", is_flag=True,
              help="With fewer measured rows than parameters: hold the least identified parameters (pivoted QR of "
                   "the Jacobian at the start) at their start values, and say which (else an error).")
@click.option("--seed", type=int, default=DEFAULTS["seed"], show_default=True,
              help="Root seed, the same at every evaluation.")
@click.option("--ios", type=int, default=DEFAULTS["ios"], show_default=True, help="Measured I/Os per replication.")
@click.option("--replications", type=int, default=DEFAULTS["replications"], show_default=True)
@click.option("--noise-seeds", type=int, default=DEFAULTS["noise_seeds"], show_default=True,
              help="Other seeds used to estimate the simulation-noise part of the uncertainty.")
@click.option("--max-evals", type=int, default=DEFAULTS["max_evals"], show_default=True,
              help="Loss evaluations at most.")
@click.option("-o", "--output", default=None,
              help="Write the result: a runnable sweep spec (scenario + fitted [scenario_params] + [run]) "
                   "with the fit's table and uncertainty in comments.")
@click.option("--threads", type=int, default=None, help="Numba threads (the result does not depend on it).")
@click.option("-q", "--quiet", is_flag=True, help="No progress lines.")
def calibrate_cmd(scenario, measured, params, sets, fix_excess, seed, ios, replications, noise_seeds, max_evals,
                  output, threads, quiet):
    """Fit scenario parameters to MEASURED intervals; print fitted values with their uncertainty
    and per-row errors, and with -o write them as a scenario-params TOML."""
    set_threads(threads)
    if output:
        from ..store import check_writable
        check_writable(output, "--output")   # before any simulation: a regular file or a new path
    from ..calibrate import calibrate, load_measured, parse_set, resolve_scenario  # heavy: at use, not at start-up
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
    from ..batch.estimates import check_run, timed_simulations
    from ..calibrate.simulation import calibration_simulations
    evals = 1 if plist == [] else max(max_evals, len(fit_names) + 1) + noise_seeds + 1
    if fix_excess and plist != [] and len(rows) < len(fit_names):
        evals += len(fit_names) + 1      # the selection step: the Jacobian at the start values
    check_run(timed_simulations(calibration_simulations(scn, rows, start, base, ios, replications, evals)),
              "--max-evals", max_evals, "this calibration (at most)")
    say = None if quiet else (lambda s: click.echo(s, err=True))
    res = calibrate(scn, rows, plist, start=start, base=base, ios=ios, replications=replications,
                    seed=seed, noise_seeds=noise_seeds if plist != [] else 0, max_nfev=max_evals,
                    progress=say, fix_excess=fix_excess)
    click.echo(f"mcio calibrate: scenario {scenario}, {len(rows)} measured rows from {measured}")
    click.echo(res.to_text())
    if output:
        cmd = command_line(scenario, measured, params, sets, output, fix_excess, seed=seed, ios=ios,
                           replications=replications, noise_seeds=noise_seeds, max_evals=max_evals)
        text = res.to_toml(cmd, measured)
        from ..store import write_bytes
        write_bytes(text.encode("utf-8"), output)   # atomic: a failed write leaves OUTPUT as it was
        click.echo(f"wrote {output} (mcio sweep {output} runs the calibrated model)")


__all__ = ["calibrate_cmd", "command_line"]
