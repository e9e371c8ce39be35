"""Seed 002: DASD response components per phase of the MDC experiment, beside the measured ones.

Runs every variant of the ``dasd-mdc`` scenario (the four phases and the three what-ifs) and
writes

- ``OUT/dasd_mdc.h5``: one Dataset, dims (variant, replication, ...): the engine's outputs, the
  walk's MDC hit ratio, CU read-miss ratio and SSCHs per application read, the application read
  rate, and the seed's rate-weighted means per phase as ``measured_*`` (NaN for what-ifs);
- ``OUT/dasd_mdc.png``: stacked bars (pend, disconnect, connect) per phase, model beside measured,
  and the what-ifs; a second panel with SSCH/s and application reads/s per variant, device busy
  on top — the figure an analyst puts in a report;
- the ``mcio reproduce dasd-mdc`` table on stdout.

    python scripts/dasd_mdc.py [--out out/] [--ios 20000] [--replications 4] [--seed 2]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import xarray as xr

from mcio import __version__, simulate
from mcio.scenarios import get_scenario
from mcio.scenarios.base import RunSize, format_table
from mcio.scenarios.dasd.measured import PHASES, phase_mean
from mcio.store import write_netcdf

KEEP = ("response_ms", "iosq_ms", "pend_ms", "cmr_ms", "disconnect_ms", "connect_ms", "throughput_iops",
        "device_busy", "device_busy_zvm", "link_busy", "channel_busy", "response_quantile_ms")
MEASURED = (("service_ms", "service_ms"), ("pend_ms", "pend_ms"), ("disconnect_ms", "disconnect_ms"),
            ("connect_ms", "connect_ms"), ("response_ms", "response_ms"))
LABEL = {"phase1_mdc_track": "1 MDC track\n11:15-11:30", "phase2_mdc_off": "2 MDC off\n11:50-12:01",
         "phase3_mdc_track_again": "3 MDC track\n12:41-12:44", "phase4_alt_linux_mdc_off": "4 alt Linux\nMDC off 12:49-51",
         "whatif_mdc_block": "what-if:\nMDC block", "whatif_staging_cu": "what-if:\nstaging CU",
         "whatif_block_and_staging": "what-if:\nblock + staging",
         "whatif_phase3_hits_at_channel_speed": "what-if: 3 with\nhits at 17 MB/s",
         "whatif_phase1_emulated_ficon": "what-if: 1 on\nemulated+FICON"}


def run(ios: int, replications: int, seed: int) -> xr.Dataset:
    scn = get_scenario("dasd-mdc")
    per = []
    for i, v in enumerate(scn.variants):
        p = scn.resolve(None, v)
        ds = simulate(scn.model(v), ios=ios, replications=replications, seed=seed, point=i)
        w = scn.walk(p)
        ds = ds[list(KEEP)]
        ds["mdc_hit_ratio"] = xr.Variable((), w.mdc_hit_ratio, {"units": "1", "long_name": "application reads MDC served (no SSCH)"})
        ds["cu_read_miss_ratio"] = xr.Variable((), w.cu_read_miss_ratio, {"units": "1", "long_name": "read SSCHs that missed the CU cache"})
        ds["ssch_per_app_read"] = xr.Variable((), w.ssch_per_request, {"units": "1", "long_name": "SSCHs per application read"})
        ds["app_read_iops"] = (ds.throughput_iops / w.ssch_per_request).assign_attrs(
            units="s-1", long_name="application reads per second")
        for col, name in MEASURED:
            val = phase_mean(v, col) if v in PHASES else np.nan
            ds[f"measured_{name}"] = xr.Variable((), val, {"units": "ms", "long_name":
                                                          f"seed 002, rate-weighted mean of the phase's rows: {col}"})
        fig = {f.variant: f.measured for f in scn.figures if f.quantity == "throughput_iops"}.get(v)
        lo, hi = fig if fig is not None else (np.nan, np.nan)
        ds["measured_throughput_lo_iops"] = xr.Variable((), lo, {"units": "s-1", "long_name": "seed 002: the phase's I/O-rate range, low"})
        ds["measured_throughput_hi_iops"] = xr.Variable((), hi, {"units": "s-1", "long_name": "seed 002: the phase's I/O-rate range, high"})
        per.append(ds)
        print(f"  {v:<26} {float(ds.throughput_iops.mean()):7.1f} SSCH/s  service "
              f"{float((ds.pend_ms + ds.disconnect_ms + ds.connect_ms).mean()):6.2f} ms", file=sys.stderr)
    out = xr.concat(per, dim="variant", coords="minimal", compat="override")
    out = out.assign_coords(variant=np.array(list(scn.variants), dtype=object))
    out["variant"].attrs.update(long_name="scenario variant (phase or what-if)", units="1")
    models = {f"model_toml_{v}": scn.model(v).to_toml() for v in scn.variants}
    out.attrs = {}          # concat kept the first variant's run attributes: start again
    out.attrs.update(Conventions="CF-1.8", **models)
    out.attrs.update(title="seed 002: DASD response components with minidisk cache on and off",
                     mcio_version=__version__, scenario="dasd-mdc", ios=ios, replications=replications, seed=seed,
                     phase_rows="; ".join(f"{k}: {a}-{b} ({why})" for k, (a, b, why) in PHASES.items()))
    return out


def plot(ds: xr.Dataset, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    variants = list(ds.variant.values)
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(17, 5.8), gridspec_kw={"width_ratios": [3, 2]})
    colours = {"pend": "#4c72b0", "disconnect": "#dd8452", "connect": "#55a868"}
    x = np.arange(len(variants))
    wdt = 0.38
    for offset, kind in ((-wdt / 2, "model"), (wdt / 2, "measured")):
        base = np.zeros(len(variants))
        for comp in ("pend", "disconnect", "connect"):
            if kind == "model":
                h = ds[f"{comp}_ms"].mean("replication").values
            else:
                h = ds[f"measured_{comp}_ms"].values
            h = np.nan_to_num(h.astype(float))
            ax.bar(x + offset, h, wdt, bottom=base, color=colours[comp], alpha=1.0 if kind == "model" else 0.5,
                   hatch=None if kind == "model" else "//", edgecolor="white",
                   label=f"{comp} ({kind})")
            base += h
        for xi, tot in zip(x, base):
            if tot > 0:
                ax.text(xi + offset, tot + 0.3, f"{tot:.1f}", ha="center", fontsize=7)
    ax.set_xticks(x, [LABEL.get(v, v) for v in variants], fontsize=8)
    ax.set_ylabel("service time per SSCH (ms)")
    ax.set_title("Service = pend + disconnect + connect: model (solid) beside ESAMON (hatched)")
    ax.legend(fontsize=7, ncol=2)
    rate = ds.throughput_iops.mean("replication").values
    app = ds.app_read_iops.mean("replication").values
    lo = ds.measured_throughput_lo_iops.values.astype(float)
    hi = ds.measured_throughput_hi_iops.values.astype(float)
    ax2.bar(x - wdt / 2, rate, wdt, color="#8172b3", label="SSCH/s (model)")
    ax2.bar(x + wdt / 2, app, wdt, color="#937860", label="application reads/s (model)")
    ok = np.isfinite(lo)
    ax2.errorbar(x[ok] - wdt / 2, (lo[ok] + hi[ok]) / 2, yerr=(hi[ok] - lo[ok]) / 2, fmt="none", ecolor="k",
                 capsize=5, lw=1.5, label="SSCH/s range (ESAMON)")
    for xi, b in zip(x, ds.device_busy_zvm.mean("replication").values):
        ax2.text(xi, max(rate[xi], app[xi]) + 2, f"{100 * b:.0f} %\nbusy", ha="center", fontsize=7)
    ax2.set_xticks(x, [LABEL.get(v, v).replace("\n", " ") for v in variants], fontsize=7, rotation=35, ha="right")
    ax2.set_ylabel("per volume, per second")
    ax2.set_ylim(0, 1.2 * max(np.nanmax(hi), rate.max(), app.max()))
    ax2.set_title("I/O rate, what the guest gets done, device busy (rate x service)")
    ax2.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=130)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="out")
    ap.add_argument("--ios", type=int, default=20_000)
    ap.add_argument("--replications", type=int, default=4)
    ap.add_argument("--seed", type=int, default=2)
    a = ap.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    ds = run(a.ios, a.replications, a.seed)
    write_netcdf(ds, out / "dasd_mdc.h5")
    plot(ds, out / "dasd_mdc.png")
    scn = get_scenario("dasd-mdc")
    print(format_table(scn.reproduce(RunSize(a.ios, a.replications, a.seed))))
    print(f"wrote {out / 'dasd_mdc.h5'} and {out / 'dasd_mdc.png'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
