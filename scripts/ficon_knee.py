"""Seed 001: the knee of one FICON channel, command mode (CCW) against z/HPF (transport mode).

Runs the sweep spec ``examples/ficon_zhpf_knee.toml`` (the closed population of the calibrated
``ficon-channel`` scenario, I/Os kept outstanding with no think time, for three channel set-ups:
the spec's named variants ``ccw``, ``zhpf``, ``zhpf_free_cu``; ``mcio sweep`` runs the same spec)
and writes

- ``OUT/ficon_knee.h5``: one Dataset, dims (variant, population, replication, channel, quantile),
  through mcio.store (the sweep's file plus the ``open_*`` variables below);
- ``OUT/ficon_knee.png``: response versus channel (MP) busy, and response versus I/O rate, with the
  seed's measured intervals overlaid, plus the model at the measured loads (the scenario's
  variants row1-row6: paced rows open, flat-out rows closed);
- a summary on stdout: per variant, the maximum I/O rate and the knee (where response reaches 1.5x
  and 2x its one-I/O value), quoted in docs/ficon_zhpf.md; and the same knee under a paced (open)
  load at 10-95 % of each variant's maximum (the ``open_*`` variables, dim ``load_fraction``), the
  way the seed's first four rows were driven (it depends on the sweep's maxima, so it is not a spec).

    python scripts/ficon_knee.py [--out out/] [--ios 40000] [--replications 4] [--seed 2026]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import xarray as xr

import mcio
from mcio import simulate
from mcio.calibrate import evaluate, parse_rows
from mcio.scenarios import ficon_channel as fc
from mcio.store import write_results
from mcio.sweep import load_spec, parse_spec

SPEC = Path(__file__).resolve().parent.parent / "examples" / "ficon_zhpf_knee.toml"


def knee_spec(ios: int, replications: int, seed: int):
    """The spec with the run size asked for."""
    s = load_spec(SPEC)
    return parse_spec({**s.raw, "run": {**s.raw.get("run", {}), "ios": ios, "replications": replications,
                                        "seed": seed}}, source=str(SPEC))


def sweep(ios: int, replications: int, seed: int) -> xr.Dataset:
    """The spec's sweep (variants x population), as ``mcio sweep`` would write it."""
    spec = knee_spec(ios, replications, seed)
    return mcio.sweep(spec, progress=lambda done, total, _: print(f"  {done}/{total} points", file=sys.stderr)
                      if done and done % 23 == 0 else None)


def variants() -> dict[str, dict]:
    """The spec's variants: name -> scenario parameter overrides."""
    return dict(load_spec(SPEC).variants)


LOAD_FRACTIONS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)
OPEN_KEEP = ("response_ms", "pend_ms", "cmr_ms", "throughput_iops", "channel_busy", "open_exchanges_mean")


def open_sweep(ds: xr.Dataset, ios: int, replications: int, seed: int) -> xr.Dataset:
    """Paced (open, Poisson) load at fractions of each variant's closed maximum I/O rate.

    The seed's first four rows were paced by the load generator: this is the curve they sit on.
    """
    per_mode = []
    for mi, (mode, over) in enumerate(variants().items()):
        xmax = float(ds.throughput_iops.sel(variant=mode).mean("replication").max())
        pts = []
        for pi, f in enumerate(LOAD_FRACTIONS):
            m = fc.model(**over, load="open", rate_iops=f * xmax)
            # one stream per load fraction, shared by the variants (common random numbers, as the spec)
            d = simulate(m, ios=ios, replications=replications, seed=seed, point=50_000 + pi)
            pts.append(d[list(OPEN_KEEP)].rename({v: f"open_{v}" for v in OPEN_KEEP}))
        per_mode.append(xr.concat(pts, dim="load_fraction", combine_attrs="drop_conflicts"))
    out = xr.concat(per_mode, dim="variant", combine_attrs="drop")
    out = out.assign_coords(variant=("variant", np.array(list(variants()), dtype=object)))
    out = out.assign_coords(load_fraction=("load_fraction", np.array(LOAD_FRACTIONS)))
    out["load_fraction"].attrs.update(units="1", long_name="open (paced) I/O rate / the mode's closed maximum")
    for v in out.data_vars:
        out[v].attrs["long_name"] = "open load: " + out[v].attrs.get("long_name", v)
    return out


def knee_open(ds: xr.Dataset, mode: str) -> dict:
    """The paced-load knee: IOPS / busy where response reaches 1.5x and 2x its 10 %-load value."""
    d = ds.sel(variant=mode)
    r = d.open_response_ms.mean("replication").values
    x = d.open_throughput_iops.mean("replication").values
    b = d.open_channel_busy.mean(("replication", "channel")).values
    out = {}
    for f in (1.5, 2.0):
        i = int(np.argmax(r >= f * r[0]))
        if r[i] < f * r[0]:
            out[f"knee{f}"] = None
            continue
        w = (f * r[0] - r[i - 1]) / (r[i] - r[i - 1])
        out[f"knee{f}"] = {"iops": float(x[i - 1] + w * (x[i] - x[i - 1])),
                           "busy": float(b[i - 1] + w * (b[i] - b[i - 1]))}
    return out


def knee(ds: xr.Dataset, mode: str) -> dict:
    """Max IOPS, and the IOPS / busy where response reaches 1.5x and 2x its N = 1 value."""
    d = ds.sel(variant=mode)
    r = d.response_ms.mean("replication").values
    x = d.throughput_iops.mean("replication").values
    b = d.channel_busy.mean(("replication", "channel")).values
    pops = ds.population.values
    out = {"max_iops": float(x.max()), "busy_at_max": float(b[np.argmax(x)]), "r1_ms": float(r[0])}
    for f in (1.5, 2.0):
        i = int(np.argmax(r >= f * r[0]))
        if r[i] < f * r[0]:
            out[f"knee{f}"] = None
            continue
        w = (f * r[0] - r[i - 1]) / (r[i] - r[i - 1])     # interpolate between the two points
        out[f"knee{f}"] = {"iops": float(x[i - 1] + w * (x[i] - x[i - 1])),
                           "busy": float(b[i - 1] + w * (b[i] - b[i - 1])),
                           "population": float(pops[i - 1] + w * (pops[i] - pops[i - 1]))}
    return out


def plot(ds: xr.Dataset, at_rows: list, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    meas = fc.MEASURED
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.8))
    style = {"ccw": ("C0", "-", "CCW (command mode), calibrated"),
             "zhpf": ("C1", "-", "z/HPF: MP work x0.5, same 48-exchange cap"),
             "zhpf_free_cu": ("C2", ":", "z/HPF, 750 exchanges, 64 CU host-adapter servers")}
    for mode, (col, ls, lab) in style.items():
        d = ds.sel(variant=mode)
        r = d.response_ms.mean("replication")
        ci = d.response_ci95_ms
        b = 100 * d.channel_busy.mean(("replication", "channel"))
        x = d.throughput_iops.mean("replication")
        a1.plot(b, r, color=col, ls=ls, marker=".", label=lab)
        a1.fill_between(b, r - ci, r + ci, color=col, alpha=0.2, lw=0)
        a2.plot(x, r, color=col, ls=ls, marker=".", label=lab)
        if "open_response_ms" in ds:
            ro = d.open_response_ms.mean("replication")
            a1.plot(100 * d.open_channel_busy.mean(("replication", "channel")), ro, color=col, ls="--",
                    lw=0.8, alpha=0.8)
            a2.plot(d.open_throughput_iops.mean("replication"), ro, color=col, ls="--", lw=0.8, alpha=0.8,
                    label=f"  same, paced (open) load" if mode == "ccw" else None)
    mb = [100 * m["channel_busy"] for m in meas]
    mr = [m["response_ms"] for m in meas]
    mx = [m["iops"] for m in meas]
    for ax, xs in ((a1, mb), (a2, mx)):
        ax.scatter(xs, mr, s=70, facecolor="none", edgecolor="k", lw=1.5, zorder=5,
                   label="measured (seed 001, one-minute intervals)")
    sb = [100 * s["channel_busy"] for s in at_rows]
    sr = [s["response_ms"] for s in at_rows]
    sx = [s["iops"] for s in at_rows]
    a1.scatter(sb, sr, marker="x", color="C3", zorder=6, label="model at the measured loads")
    a2.scatter(sx, sr, marker="x", color="C3", zorder=6, label="model at the measured loads")
    for ax in (a1, a2):
        ax.set_yscale("log")
        ax.set_ylabel("mean response time (ms)")
        ax.grid(True, which="both", alpha=0.3)
    a1.set_xlabel("channel MP busy (%)")
    a1.set_xlim(0, 100)
    a2.set_xlabel("I/O rate (SSCH/s)")
    a1.set_title("Response vs channel busy (population swept 1-578)")
    a2.set_title("Response vs I/O rate: where the maximum moves")
    a1.legend(*a2.get_legend_handles_labels(), fontsize=8, loc="upper left")
    fig.suptitle("One FICON channel, 1024 volumes, 4 KB I/O, 74 % read miss (seed 001, mcio ficon-channel)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="out", help="output directory")
    ap.add_argument("--ios", type=int, default=40_000)
    ap.add_argument("--replications", type=int, default=4)
    ap.add_argument("--seed", type=int, default=2026)
    a = ap.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    ds = sweep(a.ios, a.replications, a.seed)
    ds = xr.merge([ds, open_sweep(ds, a.ios, a.replications, a.seed)], combine_attrs="override")
    h5 = write_results(ds, out / "ficon_knee.h5")
    b = fc.CALIBRATION["budget"]
    at_rows = evaluate("ficon-channel", parse_rows(list(fc.MEASURED)), ios=b["ios"],
                       replications=b["replications"], seed=b["seed"])
    png = out / "ficon_knee.png"
    plot(ds, at_rows, png)
    print(f"wrote {h5} and {png}")
    print(f"{'variant':<13}{'max IOPS':>10}{'busy@max':>10}{'R(N=1) ms':>11}"
          f"{'knee 1.5x: IOPS':>17}{'busy':>7}{'N':>6}{'knee 2x: IOPS':>15}{'busy':>7}{'N':>6}")
    for mode in variants():
        k = knee(ds, mode)
        cells = []
        for f in (1.5, 2.0):
            kk = k[f"knee{f}"]
            cells.append(f"{kk['iops']:>{17 if f == 1.5 else 15}.0f}{100 * kk['busy']:>7.1f}{kk['population']:>6.0f}"
                         if kk else f"{'-':>{17 if f == 1.5 else 15}}{'-':>7}{'-':>6}")
        print(f"{mode:<13}{k['max_iops']:>10.0f}{100 * k['busy_at_max']:>10.1f}{k['r1_ms']:>11.3f}" + "".join(cells))
    print("paced (open) load, knee where response reaches 1.5x / 2x its value at 10 % of the maximum:")
    for mode in variants():
        k = knee_open(ds, mode)
        print(f"{mode:<13}" + "".join(f"{f}x: {kk['iops']:>7.0f} IOPS at {100 * kk['busy']:5.1f} % busy   "
                                        if kk else f"{f}x: -   " for f, kk in ((1.5, k['knee1.5']), (2.0, k['knee2.0']))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
