"""``mcio base``: a calibrated base model from measured data (RMF, SMF, z/VM monitors, mcio's own
tidy table), and the replay of the measured intervals on it or on a changed model (docs/base.md).

    mcio base INPUT... [--intervals peak-iops|peak-mbs|all|FROM-TO] -o base.toml
    mcio base INPUT... --replay base.toml [--set topology.load_scale=1.4] [--store replay.nc]
    mcio base INPUT... --replay base.toml --generation 16SA --growth 40 [--zhpf 1] [--add-channels N]
                       [-o whatif.toml] [--no-compare]      # what-ifs; -o writes the changed spec
"""
from __future__ import annotations

import shlex

import click

from .app import set_threads


def _estimates_text(b) -> str:
    import numpy as np
    lines = ["calibrated figures (value +/- 95 % CI over the intervals; kind):"]
    for k, e in b.estimates.items():
        if e.kind in ("fitted", "derived") or k == "channels.zhpf_share":
            ci = e.ci95()
            lines.append(f"  {k:<44}{e.value:>12.5g}{(' +/- ' + format(ci, '.3g')) if np.isfinite(ci) else '':<14}  {e.kind}")
    lines.append("unknowns (not identified by the data; the value taken):")
    lines += [f"  - {k}: {v}" for k, v in b.unknowns.items()]
    return "\n".join(lines)


def _check_budget(model, n_intervals: int, ios: int, replications: int) -> None:
    """The simulating commands' rule: refused beyond this machine's memory, announced beyond a few
    minutes (one simulation of ``model`` per interval)."""
    from ..batch.estimates import Simulation, check_run, repeated, timed_simulations
    check_run(repeated(timed_simulations([Simulation.of(model, ios, replications)]), n_intervals), "--ios", ios,
              f"simulating {n_intervals} interval(s)")


@click.command("base")
@click.argument("inputs", nargs=-1, required=True, metavar="INPUT...")
@click.option("--intervals", "how", default=None,
              help="peak-iops (default to build), peak-mbs, all (default to replay) or FROM-TO (HH:MM-HH:MM or "
                   "YYYY-MM-DDTHH:MM-YYYY-MM-DDTHH:MM).")
@click.option("-o", "--output", default=None, help="Write the base model: a runnable, commented spec (TOML); with "
              "--replay, the what-if spec (the replayed spec with the what-ifs and --set applied) for mcio compare.")
@click.option("--replay", "replay_spec", default=None,
              help="Instead of building: run the measured intervals on this spec (a base model, possibly changed).")
@click.option("--set", "sets", multiple=True, help="With --replay: change a model field name=value (repeatable).")
@click.option("--generation", "generations", multiple=True, metavar="GEN|CHPID,...=GEN",
              help="With --replay: every channel (or the listed CHPIDs) moved to catalogue generation GEN (mcio "
                   "hardware): its link rate, open exchanges, card limits, and the spec's fitted MP work x the "
                   "catalogue's ratio of the two generations. Repeatable.")
@click.option("--growth", "growth_pct", type=str, default=None, metavar="PCT",
              help="With --replay: every workload's load x (1 + PCT/100) (topology.load_scale).")
@click.option("--zhpf", "zhpf_share", type=str, default=None, metavar="SHARE",
              help="With --replay: the share of I/Os in z/HPF, 0 to 1 (channels.zhpf_share).")
@click.option("--add-channels", "add", multiple=True, metavar="N|LCU=N",
              help="With --replay: N channels added to every path group (or LCU's), copies of its last channel "
                   "(at most 8 in a group). Repeatable.")
@click.option("--store", default=None, help="Write the per-interval model vs measured table (netCDF-4/HDF5).")
@click.option("--wide", is_flag=True, help="Model vs measured as one line per interval (model (measured)) "
              "instead of a block per interval.")
@click.option("--no-compare", is_flag=True, help="Build only: do not simulate the chosen intervals.")
@click.option("--ha-servers", type=int, default=None, help="Host-adapter servers per LCU (assumed; default 16).")
@click.option("--backend-servers", type=int, default=None, help="Back-end servers per LCU (assumed; default 16).")
@click.option("--ios", type=int, default=50_000, show_default=True, help="I/Os per replication per interval.")
@click.option("--replications", type=int, default=4, show_default=True)
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--threads", type=int, default=None, help="Numba threads (the result does not depend on it).")
def base_cmd(inputs, how, output, replay_spec, sets, generations, growth_pct, zhpf_share, add, store, wide, no_compare, ha_servers, backend_servers, ios,
             replications, seed, threads):
    """Build a calibrated base model from measured INPUT files (or, with --replay, run their
    intervals on a spec) and print model vs measured per interval in RMF's columns."""
    from ..batch.spec import check_run_option
    from ..errors import McioError
    from ..store import check_writable
    for opt, key, v in (("--ios", "ios", ios), ("--replications", "replications", replications), ("--seed", "seed", seed)):
        check_run_option(opt, key, v)
    for o, what in ((output, "--output"), (store, "--store")):
        if o:
            check_writable(o, what)
    set_threads(threads)
    from ..basemodel.whatif import check as check_whatifs
    check_whatifs(generations=generations, growth_pct=growth_pct, zhpf_share=zhpf_share, add=add)
    from ..basemodel import build, observe, select_intervals
    from ..basemodel import derive as D
    from ..basemodel.replay import format_table, format_wide, replay, to_dataset
    if wide:
        format_table = format_wide  # noqa: F811
    from ..measured.read import read
    measured = read(list(inputs))
    obs = observe(measured)
    click.echo(f"mcio base: {len(obs.intervals)} intervals, {sum(len(v) for v in obs.devices.values())} devices, "
               f"{len(obs.lcu.index.get_level_values(1).unique())} LCU(s), "
               f"{len(obs.channel.index.get_level_values(1).unique()) if len(obs.channel) else 0} channels from "
               + "; ".join(measured.sources))
    whatifs = bool(generations or add or growth_pct is not None or zhpf_share is not None)
    if replay_spec:
        from ..batch import load_spec
        from ..calibrate.params import parse_set
        from ..basemodel.spec import read_estimates
        from ..basemodel.whatif import apply
        try:
            with open(replay_spec, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as e:
            raise McioError("--replay", replay_spec, f"a readable spec (TOML): {e}") from None
        changes = []
        if whatifs:
            text, changes = apply(text, generations=generations, growth_pct=growth_pct, zhpf_share=zhpf_share,
                                  add=add, where=replay_spec, title=replay_spec)
        model = load_spec(text).point_model(0)
        for k, v in parse_set(sets).items():
            model = model.replace(k, v)
        if sets and output:
            from ..basemodel.whatif import set_fields
            text = set_fields(text, parse_set(sets), replay_spec)
        for c in changes:
            click.echo(f"what-if: {c}")
        if output:
            from ..store import write_bytes
            write_bytes(text.encode("utf-8"), output)
            click.echo(f"wrote {output} (the what-if spec: mcio compare {replay_spec} {output})")
        if no_compare:
            return
        wl = read_estimates(replay_spec).get("workload_lcu") or {
            w["name"]: w["lcus"][0] for w in model.to_dict().get("topology", {}).get("workload", [])
            if len(w.get("lcus", [])) == 1}
        if not wl:
            raise McioError("--replay", replay_spec, "names no workload of one LCU (a base model's W<lcu>): "
                            "nothing to set from the measured rates")
        intervals = select_intervals(obs, how or "all")
        _check_budget(model, len(intervals), ios, replications)
        df = replay(model, obs, intervals, wl, ios=ios, replications=replications, seed=seed,
                    progress=lambda s: click.echo(s, err=True))
        title = f"replay of {replay_spec}" + (f" with {'; '.join(changes + list(sets))}" if changes or sets else "")
        click.echo(format_table(df, title))
    else:
        if sets:
            raise McioError("--set", ", ".join(sets), "changes a model at --replay; build first, then replay")
        if whatifs:
            raise McioError("--generation/--growth/--zhpf/--add-channels", "(building)",
                            "what-ifs change a base at --replay: build first, then replay")
        intervals = select_intervals(obs, how or "peak-iops")
        cmd = " ".join(shlex.quote(p) for p in ["mcio", "base", *inputs, "--intervals", how or "peak-iops"]
                       + (["-o", output] if output else []))
        b = build(obs, intervals, ha_servers=ha_servers or D.HA_SERVERS,
                  be_servers=backend_servers or D.BACKEND_SERVERS, command=cmd)
        b.model()      # a runnable configuration, or McioError naming the field
        click.echo(_estimates_text(b))
        if output:
            from ..store import write_bytes
            write_bytes(b.to_toml().encode("utf-8"), output)
            click.echo(f"wrote {output} (mcio run {output} simulates the base; mcio base INPUT --replay {output} "
                       "replays the measured intervals on it)")
        if no_compare:
            return
        try:
            _check_budget(b.model(), len(intervals), ios, replications)   # (its pilot runs the kernels)
            df = replay(b.model(), obs, intervals, b.workload_lcu, ios=ios, replications=replications, seed=seed)
        except KeyboardInterrupt as e:
            if not output or str(e):   # (an interrupt that already says what it kept)
                raise
            from ..interrupt import Interrupted
            raise Interrupted(f"{output} written (the base model); its comparison with the measured intervals "
                              "was stopped") from None
        title = "base model vs measured"
        click.echo(format_table(df, title))
    if store:
        from ..store import write_netcdf
        write_netcdf(to_dataset(df, {"inputs": "; ".join(measured.sources)}), store)
        click.echo(f"mcio: wrote {store}", err=True)


__all__ = ["base_cmd"]
