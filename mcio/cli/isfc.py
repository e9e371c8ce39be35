"""``mcio isfc``: plan and simulate ISFC logical links over FICON CTC devices (seed 000).

    mcio isfc plan --chpids 3C,3D,3E --devices 9 --systems LPAR1,LPAR2
    mcio isfc run  --systems LPAR1,LPAR2 --layout 3C=D000-D002 --layout 3D=D003-D005 --sender LPAR2

The error policy is the main command's (:mod:`mcio.cli.app`), also when this group runs alone.
"""
from __future__ import annotations

import click

from ..errors import McioError
from .app import McioGroup


def _csv(text: str) -> list[str]:
    return [p.strip() for p in text.split(",") if p.strip()]


def _systems(text: str) -> list[str]:
    names = _csv(text)
    if len(names) != 2:
        raise McioError("--systems", text, "give exactly two system names, e.g. LPAR1,LPAR2")
    return names


@click.group("isfc", cls=McioGroup)
def isfc_group():
    """ISFC logical links over FICON CTC devices: layout planner and link simulation (seed 000)."""


_sim_options = [
    click.option("--ios-per-device", default=20_000, show_default=True, type=int,
                 help="Measured I/Os per used device (planner table: per channel x3) and replication."),
    click.option("--replications", default=4, show_default=True, type=int, help="Independent replications."),
    click.option("--seed", default=0, show_default=True, type=int, help="Root random seed."),
]


_physics_options = [
    click.option("--generation", default=None,
                 help="Channel generation preset (mcio isfc generations lists them): MP work per end and data "
                      "rate scaled from the seed's fitted channel by the published maxima."),
    click.option("--link-mb-s", type=float, default=None,
                 help="Data rate of a channel for one FCTC end, MB/s (a shared channel carries two ends per SSCH)."),
    click.option("--mp-us-per-end", type=float, default=None,
                 help="Channel MP work per FCTC I/O end (write or read), us."),
    click.option("--kb-per-ssch", type=float, default=None, help="Data per SSCH, KB (1 KB = 1000 B)."),
]


def _physics(generation, link_mb_s, mp_us_per_end, kb_per_ssch):
    """IsfcParams: the defaults (the seed's fitted channel), a generation preset, then the options."""
    from dataclasses import replace
    from ..scenarios.isfc import DEFAULT_PARAMS, generation_params
    prm = DEFAULT_PARAMS if generation is None else generation_params(generation, channel_mb_s=link_mb_s)
    overrides = {k: v for k, v in (("channel_mb_s", link_mb_s), ("mp_us_per_end", mp_us_per_end),
                                   ("kb_per_io", kb_per_ssch)) if v is not None}
    return replace(prm, **overrides)


def _describe(prm) -> str:
    return (f"channel: {prm.mp_us_per_end:.4g} us MP work per end, {prm.channel_mb_s:.4g} MB/s per end, "
            f"{prm.kb_per_io:.4g} KB per SSCH")


def _check_sizes(ios_per_device, replications, seed) -> None:
    """The run sizes' bounds (those of a spec's [run]: mcio.batch.spec.RUN_BOUNDS)."""
    from ..batch.spec import check_run_option
    check_run_option("--ios-per-device", "ios", ios_per_device)
    check_run_option("--replications", "replications", replications)
    check_run_option("--seed", "seed", seed)


def _with(options):
    def deco(f):
        for o in reversed(options):
            f = o(f)
        return f
    return deco


@isfc_group.command("plan")
@click.option("--chpids", required=True, help="The link's channels, comma-separated, e.g. 3C,3D,3E.")
@click.option("--devices", "n_devices", required=True, type=int, help="Number of FCTC devices (1-16).")
@click.option("--systems", required=True, help="The two z/VM members' system names, e.g. LPAR1,LPAR2.")
@click.option("--sender", default=None,
              help="The member that sends (relocates); default: rank by the worse of both directions.")
@click.option("--base", default="D000", show_default=True, help="Lowest device number to assign.")
@click.option("--shared/--non-shared", default=True, show_default=True,
              help="Shared channels: both ends of each FCTC connection on the same CHPID (straight).")
@click.option("--top", default=3, show_default=True, type=int, help="Distinct searched layouts to list.")
@click.option("--verify/--no-verify", default=True, show_default=True,
              help="Also simulate the best layout as a whole link.")
@_with(_physics_options)
@_with(_sim_options)
def plan_cmd(chpids, n_devices, systems, sender, base, shared, top, verify, generation, link_mb_s, mp_us_per_end,
             kb_per_ssch, ios_per_device, replications, seed):
    """Search device-number layouts and rank them by simulated link throughput."""
    from ..scenarios.isfc import plan
    _check_sizes(ios_per_device, replications, seed)
    names = _systems(systems)
    chs = _csv(chpids)
    prm = _physics(generation, link_mb_s, mp_us_per_end, kb_per_ssch)
    kw = dict(base=base, shared=shared, params=prm, ios_per_device=ios_per_device, replications=replications,
              seed=seed, top=top, verify=verify)
    from ..batch.estimates import check_run, timed_simulations
    from ..scenarios.isfc.plan import plan_simulations
    check_run(timed_simulations(plan_simulations(chs, n_devices, names, sender, **kw)), "--replications",
              replications, "this plan")
    p = plan(chs, n_devices, names, sender, **kw)
    kinds = "shared" if shared else "non-shared"
    dirs = " and ".join(f"{s} sending" for s in p.directions)
    click.echo(f"ISFC link {p.systems[0]} <-> {p.systems[1]}: {n_devices} FCTC devices on CHPIDs "
               f"{', '.join(c.upper() for c in chs)} ({kinds} channels); ranked by link throughput, {dirs}")
    click.echo(_describe(prm))
    click.echo(p.report())


@isfc_group.command("run")
@click.option("--systems", required=True, help="The two z/VM members' system names, e.g. LPAR1,LPAR2.")
@click.option("--layout", "layout", multiple=True, required=True,
              help="CHPID=device-number ranges, repeated per channel, e.g. --layout 3C=D000-D002,D009.")
@click.option("--sender", default="auto", show_default=True,
              help="Sending member, or shares such as LPAR1:1,LPAR2:1; auto = the name that sorts second.")
@click.option("--shared/--non-shared", default=True, show_default=True,
              help="Shared channels: both ends of each FCTC connection on the same CHPID (straight).")
@click.option("-o", "--output", default=None, help="Write the results Dataset to this HDF5 (netCDF-4) file.")
@_with(_physics_options)
@_with(_sim_options)
def run_cmd(systems, layout, sender, shared, output, generation, link_mb_s, mp_us_per_end, kb_per_ssch,
            ios_per_device, replications, seed):
    """Simulate one link layout: SSCH/s per connection, per channel and for the link."""
    from ..scenarios.isfc import BUSY_DEFINITIONS, IsfcLink, simulate_link, summary
    _check_sizes(ios_per_device, replications, seed)
    if output:
        from ..store import check_writable
        check_writable(output, "--output")   # before any simulation: a regular file or a new path
    names = _systems(systems)
    ranges = {}
    for item in layout:
        chpid, eq, devs = item.partition("=")
        if not eq or not chpid.strip() or not devs.strip():
            raise McioError("--layout", item, "must be CHPID=ranges, e.g. 3C=D000-D002")
        if chpid.strip().upper() in ranges:
            raise McioError("--layout", item, f"CHPID {chpid.strip().upper()} given twice")
        ranges[chpid.strip().upper()] = devs
    if ":" in sender:
        shares = {}
        for part in _csv(sender):
            name, _, val = part.partition(":")
            try:
                shares[name] = float(val)
            except ValueError:
                raise McioError("--sender", sender, "shares must be NAME:number, e.g. LPAR1:1,LPAR2:1") from None
        sender = shares
    link = IsfcLink.from_ranges(names, ranges, shared=shared)
    prm = _physics(generation, link_mb_s, mp_us_per_end, kb_per_ssch)
    from ..batch.estimates import check_run, timed_simulations
    from ..scenarios.isfc import link_simulations
    check_run(timed_simulations(link_simulations(link, sender, prm, ios_per_device=ios_per_device,
                                                 replications=replications)),
              "--replications", replications, "this link simulation")
    ds = simulate_link(link, sender, prm, ios_per_device=ios_per_device, replications=replications, seed=seed)
    s = summary(ds)
    click.echo(f"ISFC link {link.systems[0]} <-> {link.systems[1]}: {link.describe()}")
    click.echo(f"{'shared' if shared else 'non-shared'} {_describe(prm)}")
    click.echo(f"{'device':<8}{'CHPID':<7}{'writers':<20}{'SSCH/s':>9}{'busy % RMF':>12}{'z/VM':>7}")
    for d, chp, w in zip(ds.connection.values, ds.connection_chpid.values, ds.connection_writers.values):
        click.echo(f"{d:<8}{chp:<7}{w:<20}{s['connection_ssch_iops'][d]:>9.1f}{100 * s['connection_busy'][d]:>12.1f}"
                   f"{100 * s['connection_busy_zvm'][d]:>7.1f}")
    click.echo("device busy: " + ", ".join(f"{k} = {v}" for k, v in BUSY_DEFINITIONS.items()))
    for c in ds.channel.values:
        click.echo(f"CHPID {c}: {s['channel_ssch_iops'][c]:.1f} SSCH/s, {s['channel_mb_s'][c]:.1f} MB/s")
    click.echo(f"link: {s['link_ssch_iops']:.1f} ±{s['link_ssch_ci95_iops']:.1f} SSCH/s, "
               f"{s['link_mb_s']:.1f} ±{s['link_mb_s_ci95']:.1f} MB/s")
    if output:
        from ..store import write_results
        write_results(ds, output, what="--output")
        click.echo(f"wrote {output}")


@isfc_group.command("generations")
def generations_cmd():
    """The channel-generation presets: published maxima and the FCTC physics they give."""
    from ..scenarios.isfc import CHANNEL_GENERATIONS, REFERENCE_GENERATION, generation_params
    click.echo(f"{'preset':<13}{'channel':<20}{'max 4K IOPS':>12}{'max MB/s':>10}{'MP us/end':>11}{'MB/s per end':>14}")
    for key, g in CHANNEL_GENERATIONS.items():
        try:
            prm = generation_params(key)
            mp, mb = f"{prm.mp_us_per_end:.0f}", f"{prm.channel_mb_s:.0f}"
        except McioError:
            mp, mb = "-", "--link-mb-s"
        mark = " (the seed's: FICON Express4, IBM LGR study)" if key == REFERENCE_GENERATION else ""
        click.echo(f"{key:<13}{g['name']:<20}{g['max_iops_4k']:>12,}{g['max_mb_s'] or '-':>10}{mp:>11}{mb:>14}{mark}")
    click.echo("Published maxima: IBM FICON performance pages, z14 I/O announcement (z/HPF, 4 KB; read+write MB/s). "
               "MP work per end and data rate are the seed's fitted channel scaled by their ratios (assumed).")


__all__ = ["isfc_group"]
