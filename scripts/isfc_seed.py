"""Reproduce seed 000 (ISFC logical link over FICON CTC, straight vs striped device numbers).

Simulates the seed's four configurations on the engine, prints model versus seed, writes every
configuration's Dataset as a group of one HDF5 (netCDF-4) file and draws per-connection SSCH/s,
straight versus striped, as a bar chart:

    python scripts/isfc_seed.py [--out out/] [--ios-per-device 50000] [--replications 8]

Output: <out-dir>/isfc_seed.h5 (groups straight_3x3, striped_3x3, one_channel_2fctc,
sixteen_fctc_7ch, and the prediction straight_3x3_non_shared; read with xr.open_dataset(path, engine="h5netcdf", group=...)) and
<out-dir>/isfc_seed.png.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from mcio.errors import McioError  # noqa: E402
from mcio.store import write_groups  # noqa: E402
from mcio.scenarios.isfc import (SEED_000, IsfcLink, simulate_link, straight_layout,  # noqa: E402
                                 striped_layout, summary)

LPARS = ("LPAR1", "LPAR2")
CHPIDS = ["3C", "3D", "3E"]
# the seed's 16-FCTC layout; only 3C is named in the seed, 3D-42 stand in for the other six
SIXTEEN = {"3C": "D000,D007,D015,D01C", "3D": "D008-D009", "3E": "D00A-D00B", "3F": "D00C-D00D",
           "40": "D00E-D00F", "41": "D010-D011", "42": "D012-D013"}
COLORS = {"3C": "tab:orange", "3D": "tab:green", "3E": "tab:blue"}   # the seed's figure colours


def configurations():
    return {
        "straight_3x3": (straight_layout(LPARS, CHPIDS, 9), "LPAR2"),
        "striped_3x3": (striped_layout(LPARS, CHPIDS, 9), "LPAR2"),
        "one_channel_2fctc": (IsfcLink.from_ranges(LPARS, {"3C": "D050-D051"}), "LPAR2"),
        "sixteen_fctc_7ch": (IsfcLink.from_ranges(("BOER3739", "BOER3740"), SIXTEEN), "BOER3740"),
        # a prediction, nothing fitted to it: the straight link with each FCTC end on its own
        # member's channel (the partner channel's MP a queue in each write's path)
        "straight_3x3_non_shared": (straight_layout(LPARS, CHPIDS, 9, shared=False), "LPAR2"),
    }


def compare(name: str, ds) -> list[str]:
    s = summary(ds)
    seed = SEED_000.get(name, {})
    out = [f"== {name}: {ds.attrs['layout']}"]
    for d, x in s["connection_ssch_iops"].items():
        ref = seed.get("connection_ssch_iops", {}).get(d)
        out.append(f"  {d} ({ds.connection_chpid.sel(connection=d).item()}): {x:7.1f} SSCH/s, busy "
                   f"{100 * s['connection_busy'][d]:5.1f} % RMF {100 * s['connection_busy_zvm'][d]:5.1f} % z/VM"
                   + (f"   seed {ref:5.0f}" if ref is not None else ""))
    for c, x in s["channel_ssch_iops"].items():
        ref = seed.get("channel_ssch_iops", {}).get(c)
        out.append(f"  CHPID {c}: {x:7.1f} SSCH/s {s['channel_mb_s'][c]:6.1f} MB/s"
                   + (f"   seed {ref:5.0f} SSCH/s" if ref is not None else ""))
    line = (f"  link: {s['link_ssch_iops']:.1f} ±{s['link_ssch_ci95_iops']:.1f} SSCH/s, "
            f"{s['link_mb_s']:.1f} ±{s['link_mb_s_ci95']:.1f} MB/s")
    if "link_ssch_iops" in seed:
        line += f"   seed {seed['link_ssch_iops']:.0f} SSCH/s, {seed['link_mb_s']:.0f} MB/s"
    elif "link_mb_s" in seed:
        line += f"   seed ~{seed['link_mb_s']:.0f} MB/s"
    out.append(line)
    return out


def bar_chart(results: dict, path: Path) -> None:
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for ax, name, title in zip(axes, ("straight_3x3", "striped_3x3"), ("straight device numbers", "striped device numbers")):
        ds = results[name]
        x = ds.connection_ssch_iops.mean("replication").values
        err = ds.connection_ssch_ci95_iops.values
        devs = list(ds.connection.values)
        colors = [COLORS[c] for c in ds.connection_chpid.values]
        ax.bar(range(len(devs)), x, yerr=err, color=colors, capsize=3, label="mcio")
        ref = [SEED_000[name]["connection_ssch_iops"][d] for d in devs]
        ax.plot(range(len(devs)), ref, "kD", ms=5, label="seed 000")
        s = summary(ds)
        seed = SEED_000[name]
        ax.set_title(f"{title}\nlink {s['link_ssch_iops']:.0f} SSCH/s, {s['link_mb_s']:.0f} MB/s "
                     f"(seed {seed['link_ssch_iops']:.0f}, {seed['link_mb_s']:.0f})", fontsize=10)
        ax.set_xticks(range(len(devs)), devs, rotation=45)
        ax.set_xlabel("FCTC device (bar colour: CHPID 3C orange, 3D green, 3E blue)", fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("sender (LPAR2) SSCH/s per connection")
    axes[0].legend(loc="upper right")
    fig.suptitle("ISFC logical link, 3 shared FICON channels x 3 FCTC: per-connection I/O rate", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", "--out-dir", dest="out_dir", default="out", help="output directory")
    ap.add_argument("--ios-per-device", type=int, default=50_000)
    ap.add_argument("--replications", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    out = Path(a.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    h5 = out / "isfc_seed.h5"
    results = {}
    for i, (name, (link, sender)) in enumerate(configurations().items()):
        ds = simulate_link(link, sender, ios_per_device=a.ios_per_device, replications=a.replications,
                           seed=a.seed + i)
        ds.attrs["configuration"] = name
        ds.attrs["sender"] = sender
        results[name] = ds
        print("\n".join(compare(name, ds)))
    write_groups(results, h5)  # mcio.store: the one writer (atomic, CF-1.8, compressed)
    a_x, b_x = results["straight_3x3"].link_ssch_iops.values, results["striped_3x3"].link_ssch_iops.values
    a_m, b_m = results["straight_3x3"].link_mb_s.values, results["striped_3x3"].link_mb_s.values
    print(f"striping gain: {100 * (b_x.mean() / a_x.mean() - 1):+.2f} % SSCH/s (seed +3.7 %), "
          f"{100 * (b_m.mean() / a_m.mean() - 1):+.2f} % MB/s (seed +4.4 %)")
    n_x = results["straight_3x3_non_shared"].link_ssch_iops.values
    print(f"non-shared channels (prediction): {100 * (n_x.mean() / a_x.mean() - 1):+.1f} % SSCH/s over shared")
    png = out / "isfc_seed.png"
    bar_chart(results, png)
    print(f"wrote {h5} and {png}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except McioError as e:
        print(f"isfc_seed: error: {e}", file=sys.stderr)
        sys.exit(2)
