"""Seed 003: SNAPDUMP with classic FICON versus z/HPF — the figures, and the what-ifs an analyst asks.

Runs the ``zhpf-dump`` scenario and writes

- ``OUT/zhpf_dump.h5``: one Dataset (netCDF-4/HDF5, h5netcdf):
  * ``breakdown_ms`` (mode, component): the expected time of one channel program by where it
    falls (channel MP, CMR, protocol, control unit per record, transfer), from the parameters;
  * ``pend_ms``, ``cmr_ms``, ``connect_ms``, ``disconnect_ms``, ``response_ms`` (mode,
    replication): the simulated RMF components at the seed's chains;
  * ``chain_*`` (mode, chain_records, replication): elapsed, I/O wait, ms per I/O, I/Os of the
    dump for 1 ... 255 records per channel program (the old 90-record limit and the 114 measured
    are on the axis);
  * ``outstanding_*`` (mode, outstanding, replication): elapsed, ms per I/O, channel MP and link
    busy with 1 ... 64 programs in flight, each stream on its own volume, over the four channels;
  * ``share_*`` (zhpf_share, replication): elapsed with a share of the programs in z/HPF;
- ``OUT/zhpf_dump.png``: (a) time per I/O split into its components for both modes, beside the
  seed's ms per I/O; (b) elapsed versus records per channel program for both modes, with the
  seed's runs; (c) elapsed and link busy versus programs in flight; (d) elapsed versus z/HPF share;
- a summary table on stdout (quoted in docs/zhpf_dump.md).

    python scripts/zhpf_dump.py [--out out/] [--ios 3000] [--replications 4] [--seed 2026]

With N programs in flight the model's CPU work between programs overlaps (one processor per
stream); the dump's own code is one writer, so ``outstanding_cpu_bound_s`` (the job's CPU time)
is a floor a one-processor writer cannot pass.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import xarray as xr

from mcio import __version__
from mcio.scenarios import get_scenario
from mcio.scenarios import zhpf_dump as zd
from mcio.store import write_netcdf
from mcio.stream import simulate_stream

MODES = {"classic": "classic", "zhpf": "zhpf"}          # mode label -> scenario variant
CHAINS = (1, 2, 4, 8, 16, 32, 64, 90, 114, 128, 160, 192, 224, 255)
OUTSTANDING = (1, 2, 4, 8, 16, 24, 32, 48, 64)
SHARES = (0.0, 0.25, 0.5, 0.75, 1.0)
COMPONENTS = ("channel MP", "CMR (host adapter)", "protocol", "control unit per record", "transfer")
JOB = ("elapsed_s", "io_wait_s", "ms_per_io", "us_per_record")


def _run(scn, variant, ios, reps, seed, point, **over):
    p = scn.resolve(over, variant)
    return simulate_stream(scn.base(p), scn.stream(p), ios=ios, replications=reps, seed=seed, point=point), p


def _var(data, dims, units, long_name):
    return xr.Variable(dims, np.asarray(data), {"units": units, "long_name": long_name})


def build(ios: int, reps: int, seed: int) -> xr.Dataset:
    scn = get_scenario("zhpf-dump")
    v = {}
    modes = list(MODES)
    # (a) the seed's runs: components
    base = [_run(scn, MODES[m], ios, reps, seed, i) for i, m in enumerate(modes)]
    for comp in ("pend", "cmr", "connect", "disconnect", "response"):
        v[f"{comp}_ms"] = _var([b[0][f"{comp}_ms"].values for b in base], ("mode", "replication"), "ms",
                               f"simulated mean {comp} time at the seed's chain")
    for k in JOB:
        v[k] = _var([b[0][k].values for b in base], ("mode", "replication"), base[0][0][k].attrs["units"],
                    base[0][0][k].attrs["long_name"] + " (the seed's run)")
    v["breakdown_ms"] = _var([[zd.per_io_breakdown_ms(p, scn.stream(p).records_per_io,
                                                      "ccw" if m == "classic" else "zhpf")[c] for c in COMPONENTS]
                              for m, (_, p) in zip(modes, base)], ("mode", "component"), "ms",
                             "expected time of one channel program by where it falls (nothing queued)")
    # (b) records per channel program
    rows = {k: [] for k in JOB + ("ios",)}
    for i, m in enumerate(modes):
        per = {k: [] for k in rows}
        for j, k_rec in enumerate(CHAINS):
            ds, _ = _run(scn, MODES[m], ios, reps, seed, 100 + 100 * i + j, chain_records=k_rec)
            for k in JOB:
                per[k].append(ds[k].values)
            per["ios"].append(int(ds["ios"]))
        for k in rows:
            rows[k].append(per[k])
    for k in JOB:
        v[f"chain_{k}"] = _var(rows[k], ("mode", "chain_records", "replication"), base[0][0][k].attrs["units"],
                               base[0][0][k].attrs["long_name"] + ", versus records per channel program")
    v["chain_ios"] = _var(rows["ios"], ("mode", "chain_records"), "1", "channel programs of the dump: "
                          "ceil(records / chain)")
    # (c) programs in flight, each stream on its own volume
    o = {k: [] for k in ("elapsed_s", "ms_per_io", "channel_busy", "link_busy", "mb_s")}
    cpu = []
    for i, m in enumerate(modes):
        per = {k: [] for k in o}
        for j, n in enumerate(OUTSTANDING):
            ds, p = _run(scn, MODES[m], ios, reps, seed, 1000 + 100 * i + j, outstanding=n, volumes=n)
            for k in ("elapsed_s", "ms_per_io", "mb_s"):
                per[k].append(ds[k].values)
            per["channel_busy"].append(ds.channel_busy.mean("channel").values)
            per["link_busy"].append(ds.link_busy.mean("channel").values)
        cpu.append(float(ds["cpu_s"]))
        for k in o:
            o[k].append(per[k])
    units = {"elapsed_s": "s", "ms_per_io": "ms", "channel_busy": "1", "link_busy": "1", "mb_s": "Mbyte s-1"}
    for k in o:
        v[f"outstanding_{k}"] = _var(o[k], ("mode", "outstanding", "replication"), units[k],
                                     f"{k} with N channel programs in flight (one volume per stream; "
                                     "busy: mean over the four channels)")
    v["outstanding_cpu_bound_s"] = _var(cpu, ("mode",), "s", "the job's CPU time: a one-processor writer's floor")
    # (d) z/HPF share
    sh = []
    for j, z in enumerate(SHARES):
        ds, _ = _run(scn, "classic", ios, reps, seed, 2000 + j, zhpf_share=z)
        sh.append(ds["elapsed_s"].values)
    v["share_elapsed_s"] = _var(sh, ("zhpf_share", "replication"), "s",
                                "elapsed with this share of programs in z/HPF (classic run's records and chain)")
    out = xr.Dataset(v, coords={"mode": modes, "component": list(COMPONENTS), "chain_records": list(CHAINS),
                                "outstanding": list(OUTSTANDING), "zhpf_share": list(SHARES),
                                "replication": np.arange(reps)})
    out["chain_records"].attrs.update(units="1", long_name="records per channel program")
    out["outstanding"].attrs.update(units="1", long_name="channel programs in flight")
    out["zhpf_share"].attrs.update(units="1", long_name="share of channel programs in z/HPF")
    out.attrs.update({"Conventions": "CF-1.8", "title": "mcio: SNAPDUMP classic FICON vs z/HPF (seed 003)",
                      "mcio_version": __version__, "scenario": "zhpf-dump", "seed": int(seed), "ios": int(ios),
                      "replications": int(reps),
                      "models_toml": "\n".join(f"# {m}\n{scn.model(MODES[m]).to_toml()}" for m in modes)})
    return out


def plot(ds: xr.Dataset, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(2, 2, figsize=(12, 9))
    colors = {"classic": "tab:red", "zhpf": "tab:blue"}
    label = {"classic": "classic (CCW)", "zhpf": "z/HPF"}
    # (a)
    a = ax[0, 0]
    bottom = np.zeros(len(ds.mode))
    for c, col in zip(ds.component.values, ("tab:gray", "tab:purple", "tab:orange", "tab:green", "tab:cyan")):
        h = ds.breakdown_ms.sel(component=c).values
        a.bar([label[m] for m in ds.mode.values], h, bottom=bottom, color=col, label=str(c))
        bottom += h
    for i, m in enumerate(ds.mode.values):
        meas = zd.MEASURED["classic" if m == "classic" else "zhpf"]["ms_per_io"]
        a.plot([i - 0.4, i + 0.4], [meas] * 2, "k--", lw=1.5, label="seed" if i == 0 else None)
        r = float(ds.response_ms.sel(mode=m).mean())
        a.text(i, bottom[i] + 0.08, f"simulated {r:.2f} ms\n(pend {float(ds.pend_ms.sel(mode=m).mean()):.2f}, "
               f"connect {float(ds.connect_ms.sel(mode=m).mean()):.2f})", ha="center", fontsize=8)
    a.set_ylabel("time per I/O, ms")
    a.set_ylim(0, 1.25 * bottom.max())
    a.set_title("(a) one channel program: where the time goes")
    a.legend(fontsize=8, loc="upper right")
    # (b)
    b = ax[0, 1]
    for m in ds.mode.values:
        y = ds.chain_elapsed_s.sel(mode=m)
        b.errorbar(ds.chain_records, y.mean("replication"), yerr=y.std("replication"), color=colors[m],
                   marker="o", ms=3, label=label[m])
        meas = zd.MEASURED["classic" if m == "classic" else "zhpf"]
        b.plot(meas["records_per_io"], meas["elapsed_s"], "*", color=colors[m], ms=14, mec="k",
               label=f"seed, {label[m]}")
    b.axvline(90, color="gray", ls=":", lw=1)
    b.text(92, 50, "old limit 90", fontsize=8, color="gray")
    b.set_xscale("log")
    b.set_ylim(0, None)
    b.set_xlabel("records per channel program")
    b.set_ylabel("dump elapsed time, s")
    b.set_title("(b) elapsed versus chain length (550,000 records)")
    b.legend(fontsize=8)
    # (c)
    c = ax[1, 0]
    c2 = c.twinx()
    for m in ds.mode.values:
        c.plot(ds.outstanding, ds.outstanding_elapsed_s.sel(mode=m).mean("replication"), "o-", color=colors[m],
               label=f"{label[m]} elapsed")
        c2.plot(ds.outstanding, 100 * ds.outstanding_link_busy.sel(mode=m).mean("replication"), "s:",
                color=colors[m], ms=3, label=f"{label[m]} link busy")
        c2.plot(ds.outstanding, 100 * ds.outstanding_channel_busy.sel(mode=m).mean("replication"), "^:",
                color=colors[m], ms=3, alpha=0.5, label=f"{label[m]} channel MP busy")
    c.axhline(float(ds.outstanding_cpu_bound_s.max()), color="k", ls="--", lw=1)
    c.text(20, float(ds.outstanding_cpu_bound_s.max()) * 1.1, "CPU time (one writer's floor)", fontsize=8)
    c.set_xscale("log")
    c.set_yscale("log")
    c.set_xlabel("channel programs in flight (one volume each, four channels)")
    c.set_ylabel("dump elapsed time, s")
    c2.set_ylabel("busy, % (mean of four channels)")
    c2.set_ylim(0, 105)
    c.set_title("(c) more outstanding I/Os: when do the channels matter?")
    h1, l1 = c.get_legend_handles_labels()
    h2, l2 = c2.get_legend_handles_labels()
    c.legend(h1 + h2, l1 + l2, fontsize=7, loc="lower left")
    # (d)
    d = ax[1, 1]
    y = ds.share_elapsed_s
    d.errorbar(ds.zhpf_share, y.mean("replication"), yerr=y.std("replication"), marker="o", color="k")
    d.set_xlabel("share of channel programs in z/HPF")
    d.set_ylabel("dump elapsed time, s")
    d.set_title("(d) a mixed mode (classic run's records and chain)")
    fig.suptitle("SNAPDUMP of ~550,000 4 KB records, z14, four FICON Express8S (seed 003; model mcio zhpf-dump)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def summary(ds: xr.Dataset) -> str:
    lines = ["one channel program (expected, ms): " + ", ".join(ds.component.values)]
    for m in ds.mode.values:
        bd = ds.breakdown_ms.sel(mode=m).values
        lines.append(f"  {m:<8} " + "  ".join(f"{x:.3f}" for x in bd) + f"  = {bd.sum():.3f}  (simulated "
                     f"{float(ds.response_ms.sel(mode=m).mean()):.3f}: pend {float(ds.pend_ms.sel(mode=m).mean()):.3f},"
                     f" connect {float(ds.connect_ms.sel(mode=m).mean()):.3f})")
    lines.append("elapsed s versus records per channel program:")
    lines.append("  chain    " + "".join(f"{k:>8d}" for k in ds.chain_records.values))
    for m in ds.mode.values:
        lines.append(f"  {m:<8} " + "".join(f"{x:8.1f}" for x in ds.chain_elapsed_s.sel(mode=m).mean("replication").values))
    lines.append("programs in flight (one volume each): elapsed s / link busy % / channel MP busy %:")
    lines.append("  N        " + "".join(f"{k:>14d}" for k in ds.outstanding.values))
    for m in ds.mode.values:
        e = ds.outstanding_elapsed_s.sel(mode=m).mean("replication").values
        lb = 100 * ds.outstanding_link_busy.sel(mode=m).mean("replication").values
        cb = 100 * ds.outstanding_channel_busy.sel(mode=m).mean("replication").values
        lines.append(f"  {m:<8} " + "".join(f"{x:6.2f}/{l:3.0f}/{c:3.0f}" for x, l, c in zip(e, lb, cb)))
    lines.append("  (CPU time, a one-writer floor: " + ", ".join(
        f"{m} {float(ds.outstanding_cpu_bound_s.sel(mode=m)):.2f} s" for m in ds.mode.values) + ")")
    lines.append("elapsed s versus z/HPF share: " + ", ".join(
        f"{z:g}: {float(x):.1f}" for z, x in zip(ds.zhpf_share.values, ds.share_elapsed_s.mean("replication").values)))
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="out", help="output directory")
    ap.add_argument("--ios", type=int, default=3000, help="channel programs simulated per replication and point")
    ap.add_argument("--replications", type=int, default=4)
    ap.add_argument("--seed", type=int, default=2026)
    a = ap.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    ds = build(a.ios, a.replications, a.seed)
    h5 = out / "zhpf_dump.h5"
    write_netcdf(ds, h5)
    png = out / "zhpf_dump.png"
    plot(ds, png)
    print(f"wrote {h5} and {png}")
    print(summary(ds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
