"""Curves from a sweep's Dataset: response versus utilisation with a percentile band, and the
IOSQ / pend / disconnect / connect breakdown stacked underneath.

The curve runs along one sweep dimension (the first one that is not ``hue``); a second sweep
dimension gives one line per value (``hue``); any further sweep dimension is fixed at its first
value (and the title says so).
"""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from .errors import McioError

ENGINE_DIMS = ("replication", "channel", "quantile", "device")
COMPONENTS = (("iosq_ms", "IOSQ"), ("pend_ms", "pend"), ("disconnect_ms", "disconnect"), ("connect_ms", "connect"))
X_CHOICES = {"channel_busy": "mean channel busy (%)", "throughput_iops": "I/O rate (SSCH/s)"}


def sweep_dims(ds) -> list[str]:
    return [d for d in ds.dims if d not in ENGINE_DIMS]


def _x_values(ds, x: str):
    """(values along the remaining sweep dims, axis label) for x."""
    if x == "channel_busy":
        return 100.0 * ds["channel_busy"].mean([d for d in ("replication", "channel") if d in ds["channel_busy"].dims]), \
            X_CHOICES[x]
    if x == "throughput_iops":
        return ds["throughput_iops"].mean("replication"), X_CHOICES[x]
    if x in sweep_dims(ds):
        c = ds[x]
        units = c.attrs.get("units", "")
        label = f"{c.attrs.get('mcio_key', x)}" + (f" ({units})" if units and units != "1" else "")
        return c.broadcast_like(ds["response_ms"].mean("replication")), label
    raise McioError("x", x, f"must be one of {', '.join([*X_CHOICES, *sweep_dims(ds)])}")


def plot_curves(ds, x: str | None = None, hue: str | None = None, band: float = 0.95,
                measured: Mapping | Sequence[Mapping] | None = None, title: str | None = None,
                logy: bool = False):
    """A matplotlib Figure: response versus ``x`` (left) and the stacked components along the
    sweep axis (right).

    ``x``: "channel_busy" (default when present), "throughput_iops" or a sweep dimension.
    ``hue``: the sweep dimension drawn as one line per value (default: ``variant`` if the sweep
    has named variants, else the second sweep dim).
    ``band``: upper quantile of the shaded band from the median (0.95 or 0.99).
    ``measured``: points to overlay, ``{"x": [...], "response_ms": [...], "label": "..."}``
    (or a list of such), ``x`` in the same unit as the x axis.
    """
    import matplotlib
    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    for name in ("response_ms",) + tuple(c for c, _ in COMPONENTS):
        if name not in ds:
            raise McioError("results", name, "variable missing: not an mcio results dataset")
    dims = sweep_dims(ds)
    if hue is not None and hue not in dims:
        raise McioError("hue", hue, f"must be a sweep dimension: {', '.join(dims) or '(none)'}")
    if hue is None and "variant" in dims and len(dims) > 1:
        hue = "variant"  # named variants: one line each, along the sweep axis
    along = next((d for d in dims if d != hue), None)
    if hue is None:
        hue = next((d for d in dims if d != along), None)
    fixed = {d: 0 for d in dims if d not in (along, hue)}
    ds = ds.isel(fixed)
    if x is None:
        x = "channel_busy" if "channel_busy" in ds else "throughput_iops" if "throughput_iops" in ds else along
    if x is None:
        raise McioError("x", x, "a dataset without sweep dimensions needs x = channel_busy or throughput_iops")
    xv, xlabel = _x_values(ds, x)
    mean = ds["response_ms"].mean("replication")
    ci = ds["response_ci95_ms"] if "response_ci95_ms" in ds else None
    q = ds["response_quantile_ms"] if "response_quantile_ms" in ds else None
    hue_vals = list(ds[hue].values) if hue else [None]

    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(12.5, 5.2), gridspec_kw={"width_ratios": [3, 2]})
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, hv in enumerate(hue_vals):
        sel = {hue: i} if hue else {}
        xs, ys = np.atleast_1d(xv.isel(sel).values), np.atleast_1d(mean.isel(sel).values)
        order = np.argsort(xs, kind="stable")
        col = colors[i % len(colors)]
        label = "mean (95% CI)" if hue is None else f"{_hue_label(ds, hue)} = {_fmt(hv)}"
        err = np.atleast_1d(ci.isel(sel).values)[order] if ci is not None else None
        ax.errorbar(xs[order], ys[order], yerr=err, color=col, marker="o", ms=3.5, lw=1.6, capsize=2, label=label)
        if along is not None and along != x and i == 0 and len(xs) <= 16:
            # name each point by its sweep value: past a knee several share one x
            for xx, yy, v in zip(xs, ys, np.atleast_1d(ds[along].values)):
                ax.annotate(_fmt(v), (xx, yy), textcoords="offset points", xytext=(-4, 3), ha="right",
                            fontsize=7, color=col)
        if q is not None:
            lo = _quantile(q.isel(sel), 0.5)
            hi = _quantile(q.isel(sel), band)
            if lo is not None and hi is not None:
                ax.fill_between(xs[order], np.atleast_1d(lo)[order], np.atleast_1d(hi)[order], color=col, alpha=0.18,
                                lw=0, label=f"p50-p{100 * band:g} band" if i == 0 else None)
    for pts in _measured_list(measured):
        ax.plot(pts["x"], pts["response_ms"], ls="none", marker=pts.get("marker", "s"), ms=6, mfc="none",
                mec=pts.get("color", "k"), mew=1.5, label=pts.get("label", "measured"), zorder=5)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("response time (ms)")
    if logy:
        ax.set_yscale("log")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    note = ", ".join(f"{d} = {_fmt(ds[d].values.item())}" for d in fixed)
    fig.suptitle((title or ds.attrs.get("title", "mcio sweep")) + (f"  ({note})" if note else ""), fontsize=12)
    ax.set_title("response time versus " + xlabel.split(" (")[0], fontsize=10)

    # the breakdown runs along the sweep axis itself: past the knee many points share ~100 % busy
    sel = {hue: 0} if hue else {}
    comps = [np.atleast_1d(ds[c].mean("replication").isel(sel).values) for c, _ in COMPONENTS]
    labels = [lab for _, lab in COMPONENTS]
    if along is not None:
        xs = np.asarray(ds[along].values, dtype=float)
        ax2.stackplot(xs, *comps, labels=labels, alpha=0.85)
        if xs.min() > 0 and xs.max() / xs.min() > 20:
            ax2.set_xscale("log")
        units = ds[along].attrs.get("units", "")
        ax2.set_xlabel(_hue_label(ds, along) + (f" ({units})" if units and units != "1" else ""))
    else:
        bottom = 0.0
        for comp, lab in zip(comps, labels):
            ax2.bar([0], comp, bottom=bottom, label=lab, width=0.5)
            bottom = bottom + comp
        ax2.set_xticks([])
        ax2.set_xlabel("the simulated point")
    if logy:
        ax2.set_yscale("symlog", linthresh=1.0)
    ax2.set_ylabel("mean response components (ms)")
    ax2.grid(alpha=0.3)
    ax2.legend(fontsize=8, loc="upper left")
    ax2.set_title("IOSQ + pend + disconnect + connect" +
                  (f"\nat {_hue_label(ds, hue)} = {_fmt(hue_vals[0])}" if hue is not None else ""), fontsize=10)
    fig.tight_layout()
    return fig


def save_plot(ds, path, dpi: int = 110, **kw) -> None:
    """Draw :func:`plot_curves` into ``path`` (PNG unless the suffix says otherwise)."""
    import matplotlib.pyplot as plt
    fig = plot_curves(ds, **kw)
    try:
        fig.savefig(path, dpi=dpi)
    finally:
        plt.close(fig)


def _quantile(q, level: float):
    levels = np.asarray(q["quantile"].values, dtype=float)
    k = np.flatnonzero(np.isclose(levels, level))
    return q.isel(quantile=int(k[0])).values if k.size else None


def _hue_label(ds, hue: str) -> str:
    return ds[hue].attrs.get("mcio_key", hue)


def _fmt(v) -> str:
    return f"{v:g}" if isinstance(v, (float, np.floating)) else str(v)


def _measured_list(measured):
    if measured is None:
        return []
    items = [measured] if isinstance(measured, Mapping) else list(measured)
    for i, m in enumerate(items):
        if not isinstance(m, Mapping) or "x" not in m or "response_ms" not in m:
            raise McioError(f"measured[{i}]", m, "must be a mapping with 'x' and 'response_ms' lists")
        if len(m["x"]) != len(m["response_ms"]):
            raise McioError(f"measured[{i}]", m, "'x' and 'response_ms' must have the same length")
    return items


__all__ = ["plot_curves", "save_plot", "sweep_dims"]
