"""``mcio compare`` (a what-if on common random numbers), ``mcio schema`` and the diagnostics a
sweep prints (unstable points, inadequate warm-up): what an analyst must see on screen."""
from __future__ import annotations

from pathlib import Path

import click

from ..errors import McioError
from .app import main, set_threads


def _model_of(arg: str, point: int):
    """A model from ``SPEC.toml`` (its grid point ``point``) or ``SCENARIO[:VARIANT]``."""
    from ..scenarios import SCENARIOS, get_scenario
    name, _, variant = arg.partition(":")
    if name in SCENARIOS and not Path(arg).exists():
        scn = get_scenario(name) if variant else None
        if scn is not None:
            return scn.model(variant), f"{name}:{variant}"
        return SCENARIOS[name](), name
    from ..batch import load_spec
    s = load_spec(Path(arg))
    return s.point_model(point), (f"{Path(arg).stem}" + (f"[{point}]" if s.n_points > 1 else ""))


@main.command("compare")
@click.argument("a")
@click.argument("b")
@click.option("--point", type=int, default=0, show_default=True, help="Grid point of a sweep spec.")
@click.option("--ios", type=int, default=100_000, show_default=True, help="I/Os per replication.")
@click.option("--replications", type=int, default=8, show_default=True, help="Replications (paired).")
@click.option("--seed", type=int, default=0, show_default=True, help="Root seed (both models).")
@click.option("--threads", type=int, default=None, help="Numba threads.")
@click.option("-o", "--out", default=None, help="Write the comparison Dataset (netCDF-4/HDF5).")
def compare_cmd(a, b, point, ios, replications, seed, threads, out):
    """What-if: A and B (spec files, or SCENARIO:VARIANT) on common random numbers; every
    headline figure's difference B - A with its paired 95 % CI (and the unpaired one beside it)."""
    from ..compare import compare, format_compare
    if out:
        from ..store import check_writable
        check_writable(out)   # before any simulation: a regular file or a new path
    ma, la = _model_of(a, point)
    mb, lb = _model_of(b, point)
    if la == lb:
        la, lb = "A:" + la, "B:" + lb
    set_threads(threads)
    from ..batch.estimates import Simulation, check_run, timed_simulations
    check_run(timed_simulations([Simulation.of(m, ios, replications) for m in (ma, mb)]),
              "--replications", replications, "this comparison")
    ds = compare(ma, mb, ios=ios, replications=replications, seed=seed, labels=(la, lb))
    click.echo(f"mcio compare: {la} vs {lb} ({replications} paired replications x {ios} I/Os, seed {seed})")
    click.echo(format_compare(ds))
    if out:
        from ..store import write_netcdf
        write_netcdf(ds, out)
        click.echo(f"mcio: wrote {out}", err=True)


@main.command("schema")
@click.option("--markdown", is_flag=True, help="The table of every model field and its default instead.")
def schema_cmd(markdown):
    """Print the JSON Schema of sweep specs (for editors' TOML language servers)."""
    import json
    from ..model.schema import markdown_table, spec_schema
    click.echo(markdown_table() if markdown else json.dumps(spec_schema(), indent=1))


@main.command("hardware")
@click.argument("generation", required=False)
def hardware_cmd(generation):
    """List the FICON channel generations (or GENERATION): published figures with their sources,
    and the MP work per I/O mcio derives from them (topology.channel.generation)."""
    from ..model.hardware import listing
    click.echo(listing(generation))


def overloaded_points(spec, limit: int = 10_000) -> list[tuple[int, dict, str, float, float]]:
    """(point, coords, station, utilisation, largest allowed rate) of every statically
    overloaded open point (the first ``limit`` points are checked)."""
    out = []
    for p in range(min(spec.n_points, limit)):
        m = spec.point_model(p)
        station, u, rate = m.open_bottleneck()
        if u >= 1.0:
            out.append((p, spec.coords(p), station, u, rate / u))
    return out


def diagnostics(ds) -> list[str]:
    """What an analyst must see after a sweep: one warning line per unstable point, and ONE line
    for every point whose warm-up is too short (their count, the first, the largest warm-up MSER
    recommends among them and the spec key to raise; the points themselves are in the file's flag
    ``warmup_adequate``)."""
    import numpy as np
    lines = []
    from ..plot import sweep_dims
    dims = sweep_dims(ds)
    if "unstable" in ds:
        flags = np.atleast_1d(ds["unstable"].values).ravel()
        reasons = (np.atleast_1d(ds["unstable_reason"].values).ravel() if "unstable_reason" in ds
                   else [ds.attrs.get("unstable_reason", "")] * flags.size)
        for i in np.flatnonzero(flags):
            lines.append(f"warning: {_where(ds, dims, i)} is unstable (not a steady state; stored as NaN "
                         f"where no figure exists): {reasons[i] or 'open load over capacity'}")
    if "warmup_adequate" in ds:
        ok = np.atleast_1d(ds["warmup_adequate"].values).ravel()
        bad = np.flatnonzero(ok == 0)
        if bad.size:
            lines.append(short_warmup_line(ds, dims, bad, ok.size))
    return lines


def short_warmup_line(ds, dims, bad, total: int) -> str:
    """The one warning line for the points (flat indices ``bad`` of ``total``) whose warm-up is too short."""
    import numpy as np
    need = ""
    if "warmup_mser_ios" in ds:
        rec = np.asarray(ds["warmup_mser_ios"].values)
        rec = rec.reshape(total, -1)[bad] if rec.size % total == 0 and rec.size else rec.reshape(1, -1)
        if rec.size and rec.max() > 0:
            need = f" to at least {int(rec.max())} I/Os (the largest warm-up MSER recommends there)"
    first = f"first: {_where(ds, dims, int(bad[0]))}; all " if dims else ""
    return (f"warning: warm-up shorter than the initial transient at {bad.size} of {total} point(s) "
            f"({first}flagged warmup_adequate = 0 in the file): raise [run] warmup{need}")


def _where(ds, dims, flat: int) -> str:
    import numpy as np
    if not dims:
        return "the point"
    idx = np.unravel_index(flat, tuple(ds.sizes[d] for d in dims))
    return "point " + ", ".join(f"{d}={_short(ds[d].values[k])}" for d, k in zip(dims, idx))


def _short(v) -> str:
    """A coordinate as a reader writes it: floats to 6 significant digits (no float noise)."""
    import numpy as np
    return f"{float(v):.6g}" if isinstance(v, (float, np.floating)) else str(v)
