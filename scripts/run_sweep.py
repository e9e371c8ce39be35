#!/usr/bin/env python
"""Batch sweeps through the Python API: each SPEC (default: every examples/*.toml) is run into
OUTDIR/<name>.h5 and drawn into OUTDIR/<name>.png, then one summary line per sweep point is printed.

    python scripts/run_sweep.py                          # all examples into out/
    python scripts/run_sweep.py examples/ficon_knee.toml -o out --resume
    python scripts/run_sweep.py my.toml --set run.ios=20000 --set run.seed=3

``--set KEY=VALUE`` changes the spec before running (``run.*`` or a ``model.*`` field), so one spec
file can be driven at several sizes. Interrupted runs continue with ``--resume``.
"""
from __future__ import annotations

import argparse
import sys
import time
import tomllib
from pathlib import Path

import numpy as np

import mcio
from mcio.errors import McioError
from mcio.model import load_toml
from mcio.plot import save_plot
from mcio.sweep import parse_spec, sweep

ROOT = Path(__file__).resolve().parent.parent


def with_overrides(raw: dict, sets: list[str]) -> dict:
    """Apply ``a.b.c=VALUE`` (VALUE parsed as TOML) to the spec's nested tables."""
    for s in sets:
        key, sep, text = s.partition("=")
        if not sep:
            raise McioError("--set", s, "must look like KEY=VALUE, e.g. run.ios=20000")
        try:
            value = tomllib.loads(f"v = {text}")["v"]
        except tomllib.TOMLDecodeError:
            value = text
        node = raw
        *path, last = key.strip().split(".")
        for part in path:
            node = node.setdefault(part, {})
        node[last] = value
    return raw


def summary(ds) -> str:
    """One line per point: the sweep coordinates, I/O rate, channel busy and response components."""
    dims = [d for d in ds.dims if d not in ("replication", "channel", "quantile", "device")]
    head = "".join(f"{d[:14]:>15}" for d in dims)
    lines = [f"{head}{'SSCH/s':>10}{'chan %':>8}{'resp ms':>9}{'IOSQ':>8}{'pend':>8}{'disc':>8}{'conn':>8}  unstable"]
    flat = ds.stack(point=dims) if dims else ds.expand_dims(point=[0])
    for i in range(flat.sizes["point"]):
        p = flat.isel(point=i)
        coords = "".join(f"{_fmt(p[d].values.item()):>15}" for d in dims)
        busy = 100 * float(np.nanmean(p["channel_busy"].values)) if "channel_busy" in p else float("nan")
        m = {k: float(np.nanmean(p[k].values)) for k in
             ("throughput_iops", "response_ms", "iosq_ms", "pend_ms", "disconnect_ms", "connect_ms")}
        lines.append(f"{coords}{m['throughput_iops']:>10.0f}{busy:>8.1f}{m['response_ms']:>9.3f}{m['iosq_ms']:>8.3f}"
                     f"{m['pend_ms']:>8.3f}{m['disconnect_ms']:>8.3f}{m['connect_ms']:>8.3f}"
                     f"  {'yes' if int(p['unstable']) else ''}")
    return "\n".join(lines)


def _fmt(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("specs", nargs="*", type=Path, help="sweep specs (default: examples/*.toml)")
    ap.add_argument("-o", "--out", "--outdir", dest="outdir", type=Path, default=Path("out"),
                    help="output directory for .h5 and .png (every script takes --out DIR)")
    ap.add_argument("--resume", action="store_true", help="continue interrupted sweeps")
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--no-plot", action="store_true")
    args = ap.parse_args(argv)
    specs = args.specs or sorted((ROOT / "examples").glob("*.toml"))
    try:
        args.outdir.mkdir(parents=True, exist_ok=True)
        for path in specs:
            raw = with_overrides(load_toml(path), args.sets)
            text = path.read_text() if not args.sets else None
            spec = parse_spec(raw, text=text, source=str(path))
            out = args.outdir / f"{path.stem}.h5"
            t0 = time.perf_counter()
            ds = sweep(spec, out=out, resume=args.resume)
            print(f"== {path.name}: {spec.title} -> {out} ({spec.n_points} points, "
                  f"{time.perf_counter() - t0:.1f} s, mcio {mcio.__version__})")
            print(summary(ds))
            if not args.no_plot:
                save_plot(ds, out.with_suffix(".png"))
                print(f"   plot: {out.with_suffix('.png')}")
    except McioError as e:
        print(f"run_sweep: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
