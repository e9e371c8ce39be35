"""``mcio table``, ``mcio report`` and ``mcio headroom``: a capacity planner's operations
(:mod:`mcio.planner`; docs/planner.md)."""
from __future__ import annotations

from pathlib import Path

import click

from ..errors import McioError
from .app import main, set_threads


def _open(path: str):
    from ..sweep import open_results
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
        from ..store import check_writable
        check_writable(out)
        Path(out).write_text(text, encoding="utf-8")
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
