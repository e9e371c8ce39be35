"""Seed 004: CMS file-commit I/O versus minidisk size, z/VM 4.2.0 (whole allocation map at every
commit) versus 4.3.0 (changed map blocks only) — the model's whole grid, written and drawn.

    python scripts/cms_commit.py [--out out/] [--fig docs/cms_commit.png]
                                 [--ios 5000] [--replications 4] [--seed 1]

Writes one CF-1.8 netCDF-4/HDF5 file (mcio.store.write_netcdf) with I/O counts by release x
cylinders (the seed's six sizes and the EAV what-ifs 65,520 and 262,668) x command x block size
(512 B-4 KB), blocks moved by role, the published counts, elapsed time per command on one 3390
(engine), device busy at the scenario's commit rate and the saturating rate; and
``ios_per_batch_bytes_limit`` (the same counts if a channel program's limit were 20 KB rather
than 5 blocks). Prints the 4 KB table beside the published one. The figure: I/Os per 50 commands
against cylinders (log axes), one line per command and release, published values as markers;
elapsed time per command; 4.2.0 CREATE by block size.
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
from mcio.scenarios.cms import BLOCK_SIZES, CMS_COMMIT, COMMANDS, EAV_CYLINDERS, RELEASES, SEED_CYLINDERS  # noqa: E402
from mcio.scenarios.cms.table import build_dataset  # noqa: E402
from mcio.store import check_writable, write_netcdf  # noqa: E402

COLORS = {"CREATE": "tab:blue", "COPY": "tab:orange", "RENAME": "tab:green", "ERASE": "tab:red"}
STYLE = {"4.2.0": "-", "4.3.0": "--"}


def dataset(ios: int, replications: int, seed: int):
    cyl = SEED_CYLINDERS + EAV_CYLINDERS
    ds = build_dataset(CMS_COMMIT, cyl, BLOCK_SIZES, ios=ios, replications=replications, seed=seed)
    alt = build_dataset(CMS_COMMIT, cyl, BLOCK_SIZES, variant="bytes-limit", timing=False)
    ds["ios_per_batch_bytes_limit"] = alt.ios_per_batch.assign_attrs(
        long_name="virtual I/Os per 50 commands if a channel program carried 20 KB (not 5 blocks)")
    return ds


def table_text(ds) -> str:
    t = ds.sel(block_bytes=4096, cylinders=list(SEED_CYLINDERS))
    lines = [f"{'release':8}{'cylinders':>10}" + "".join(f"{c:>15}" for c in COMMANDS),
             " " * 18 + "   (model / published, I/Os per 50 commands, 4 KB blocks)"]
    for rel in RELEASES:
        for cyl in SEED_CYLINDERS:
            cells = []
            for cmd in COMMANDS:
                m = int(t.ios_per_batch.sel(release=rel, cylinders=cyl, command=cmd))
                p = t.published_ios_per_batch.sel(release=rel, cylinders=cyl, command=cmd).item()
                cells.append(f"{m:>7} / {int(p):<5}" + ("*" if m != p else " "))
            lines.append(f"{rel:8}{cyl:>10}" + "".join(f"{c:>15}" for c in cells))
    return "\n".join(lines)


def draw(ds, path: Path) -> None:
    fig, ax = plt.subplots(1, 3, figsize=(16, 5.2))
    d4 = ds.sel(block_bytes=4096)
    x = ds.cylinders.values
    for rel in RELEASES:
        for cmd in COMMANDS:
            y = d4.ios_per_batch.sel(release=rel, command=cmd).values
            ax[0].plot(x, y, STYLE[rel], color=COLORS[cmd], label=f"{cmd} {rel}")
            pub = d4.published_ios_per_batch.sel(release=rel, command=cmd).values
            ax[0].plot(x, pub, "o" if rel == "4.2.0" else "s", color=COLORS[cmd], mfc="none", ms=7)
    ax[0].set(xscale="log", yscale="log", xlabel="minidisk size (3390 cylinders)",
              ylabel="virtual I/Os per 50 commands",
              title="I/Os per 50 commands, 4 KB blocks\n(lines: model; markers: published; right of 32,760: EAV what-if)")
    ax[0].axvline(32760, color="grey", lw=0.5)
    ax[0].legend(fontsize=7, ncol=2)
    for rel in RELEASES:
        for cmd in ("CREATE", "COPY"):
            e = d4.elapsed_ms.sel(release=rel, command=cmd).values
            ci = d4.elapsed_ci95_ms.sel(release=rel, command=cmd).values
            ax[1].errorbar(x, e, yerr=ci, fmt=STYLE[rel], color=COLORS[cmd], capsize=2, label=f"{cmd} {rel}")
    ax[1].set(xscale="log", yscale="log", xlabel="minidisk size (3390 cylinders)", ylabel="ms per command",
              title="elapsed time per command on one 3390\n(seek 2 ms + U(0, 14.2 ms) + blocks at 4.2 MB/s, pend 0.2 ms)")
    ax[1].legend(fontsize=7)
    for bb, c in zip(BLOCK_SIZES, ("tab:purple", "tab:brown", "tab:olive", "tab:blue")):
        y = ds.ios_per_batch.sel(release="4.2.0", command="CREATE", block_bytes=bb).values / 50
        yb = ds.ios_per_batch_bytes_limit.sel(release="4.2.0", command="CREATE", block_bytes=bb).values / 50
        ax[2].plot(x, y, "-", color=c, label=f"{bb} B, 5 blocks/program")
        if bb != 4096:
            ax[2].plot(x, yb, ":", color=c, label=f"{bb} B, 20 KB/program")
    ax[2].set(xscale="log", yscale="log", xlabel="minidisk size (3390 cylinders)", ylabel="I/Os per CREATE",
              title="what-if: z/VM 4.2.0 CREATE by block size\n(4.3.0: 4 per CREATE at every size and block size)")
    ax[2].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="out", help="output directory (cms_commit.h5 there)")
    ap.add_argument("--fig", default="docs/cms_commit.png")
    ap.add_argument("--ios", type=int, default=5_000, help="I/Os per replication per engine run")
    ap.add_argument("--replications", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    try:
        out, fig = Path(a.out) / "cms_commit.h5", Path(a.fig)
        out.parent.mkdir(parents=True, exist_ok=True)
        check_writable(out)
        check_writable(fig, "figure")
        ds = dataset(a.ios, a.replications, a.seed)
        write_netcdf(ds, out)
        draw(ds, fig)
    except McioError as e:
        print(f"cms_commit: error: {e}", file=sys.stderr)
        return 2
    print(table_text(ds))
    d = ds.sel(block_bytes=4096, command="CREATE")
    for rel in RELEASES:
        for cyl in (10, 32760, 262668):
            e = float(d.elapsed_ms.sel(release=rel, cylinders=cyl))
            print(f"{rel} {cyl:>7} cyl CREATE: {e:8.1f} ms per command, volume saturates at "
                  f"{1000 / e:6.2f} CREATEs/s")
    print(f"wrote {out} and {fig}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
