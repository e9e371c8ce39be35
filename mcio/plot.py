"""Curves from a sweep's Dataset: response versus utilisation with a percentile band, and the
IOSQ / pend / disconnect / connect breakdown stacked underneath.

The curve runs along one sweep dimension (the first one that is not ``hue``); a second sweep
dimension gives one line per value (``hue``); any further sweep dimension is fixed at its first
value (and the title says so).
"""
from __future__ import annotations

import warnings
from typing import Mapping, Sequence

import numpy as np

from .engine.tables import LEVEL_DIMS
from .errors import McioError

ENGINE_DIMS = ("replication", "quantile", "device") + LEVEL_DIMS
UNCERTAIN_DIMS = ("sample", "input")      # of a file of `mcio uncertain` (its parameter sets, inputs)
COMPONENTS = (("iosq_ms", "IOSQ"), ("pend_ms", "pend"), ("disconnect_ms", "disconnect"), ("connect_ms", "connect"))
X_CHOICES = {"channel_busy": "mean channel busy (%)", "throughput_iops": "I/O rate (SSCH/s)"}


#: readable names of the fields most often swept (anything else: see :func:`field_label`)
FIELD_LABELS = {
    "workload.population": "I/Os in flight (closed population)",
    "workload.rate_iops": "offered I/O rate (SSCH/s)",
    "workload.think_ms": "think time (ms)",
    "channels.count": "channels",
    "channels.link_mb_s": "link bandwidth (MB/s)",
    "channels.zhpf_share": "z/HPF share of I/Os",
    "channels.max_open_exchanges": "open-exchange limit per channel",
    "devices.count": "devices",
    "devices.aliases": "PAV aliases",
    "control_unit.backend_servers": "back-end servers",
    "control_unit.ha_servers": "host-adapter servers",
}
_WORDS = {"ha": "host-adapter", "mp": "channel MP", "backend": "back-end", "kb": "KB", "io": "I/O",
          "ccw": "CCW", "zhpf": "z/HPF", "scv": "SCV", "oe": "OE"}


def field_label(key: str) -> str:
    """A reader's label for a model field key: ``control_unit.backend_service_ms.mean`` ->
    'back-end service mean (ms)'; ``workload.population`` -> 'I/Os in flight (closed population)'."""
    if key in FIELD_LABELS:
        return FIELD_LABELS[key]
    parts = key.split(".")
    sub = ""
    if parts[-1] in ("mean", "scv") and len(parts) > 2:
        sub = " " + ("SCV" if parts[-1] == "scv" else "mean")
        parts = parts[:-1]
    name = parts[-1]
    if name.isdigit() and len(parts) > 1:     # io.0.kb style
        name = parts[-2]
    unit = ""
    words = [w for w in name.split("_") if w]
    units = {"ms": "ms", "us": "us", "kb": "KB", "iops": "SSCH/s"}
    for i, w in enumerate(words):      # the first unit token is the field's unit (mp_us_per_kb: us)
        if w == "mb" and i + 1 < len(words) and words[i + 1] == "s":
            unit, words = "MB/s", words[:i] + words[i + 2:]
            break
        if w in units:
            unit, words = units[w], words[:i] + words[i + 1:]
            break
    if sub == " SCV":
        unit = ""
    words = " ".join(_WORDS.get(w, w) for w in words) or {"KB": "data per I/O"}.get(unit, name)
    return words + sub + (f" ({unit})" if unit else "")


def _dim_label(ds, dim: str) -> str:
    c = ds[dim]
    key = c.attrs.get("mcio_key", dim)
    if dim == "variant" or key == dim and dim not in FIELD_LABELS and "." not in key:
        return dim
    return field_label(key)


def sweep_dims(ds) -> list[str]:
    """The sweep dimensions of ``ds`` (not the engine's; in a file of ``mcio uncertain``, which
    holds the drawn ``input_value``, not its parameter sets and inputs either)."""
    skip = ENGINE_DIMS + (UNCERTAIN_DIMS if "input_value" in ds else ())
    return [d for d in ds.dims if d not in skip]


def _mean(da, dims):
    """``da.mean(dims)`` (NaN skipped, as xarray's) as ``(values, dims)``: numpy's, the plot's
    working form. xarray's own reductions, arithmetic and selections make their results through
    its data checks, whose first use imports dask.array where dask is installed (a fifth of a
    ``mcio plot``, for data that is never a dask array). ``dims``: a name or
    names of ``da``'s dimensions."""
    dims = (dims,) if isinstance(dims, str) else tuple(dims)
    values = np.asarray(da.values)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # an all-NaN slice is NaN, as in xarray
        data = np.nanmean(values, axis=tuple(da.dims.index(d) for d in dims))
    return np.asarray(data), tuple(d for d in da.dims if d not in dims)


def _values(da):
    """``(values, dims)`` of a DataArray."""
    return np.asarray(da.values), tuple(da.dims)


def _pick(vd, hue: str | None, i: int) -> np.ndarray:
    """The values of ``vd`` (values, dims) at index ``i`` of ``hue`` (all of them where ``hue``
    is None or not among its dims), at least 1-d."""
    values, dims = vd
    if hue is not None and hue in dims:
        values = np.take(values, i, axis=dims.index(hue))
    return np.atleast_1d(values)


def _x_values(ds, x: str):
    """((values, dims) along the remaining sweep dims, axis label) for x."""
    if x == "channel_busy":
        v, dims = _mean(ds["channel_busy"], [d for d in ("replication", "channel") if d in ds["channel_busy"].dims])
        return (100.0 * v, dims), X_CHOICES[x]
    if x == "throughput_iops":
        return _mean(ds["throughput_iops"], "replication"), X_CHOICES[x]
    if x in sweep_dims(ds):
        dims = tuple(d for d in ds["response_ms"].dims if d != "replication")
        c = np.asarray(ds[x].values)   # (1-d along x: broadcast to the response's sweep dims)
        shape = [len(c) if d == x else 1 for d in dims]
        sizes = [ds.sizes[d] for d in dims]
        return (np.broadcast_to(c.reshape(shape), sizes), dims), _dim_label(ds, x)
    raise McioError("x", x, f"must be one of {', '.join([*X_CHOICES, *sweep_dims(ds)])}")


def default_x(ds, along: str | None) -> str | None:
    """The x axis that fits the data: channel busy when the channels do work (the knee is read
    against it), else the I/O rate (a model whose channels cost nothing has every point at 0 %
    busy), else the sweep axis."""
    if "channel_busy" in ds and float(np.nanmax(ds["channel_busy"].values, initial=0.0)) >= 0.01:
        return "channel_busy"
    if "throughput_iops" in ds:
        return "throughput_iops"
    return along


def check_band(band) -> float | None:
    """``band``: None (no band) or a quantile level in (0.5, 1)."""
    if band is None:
        return None
    if isinstance(band, bool) or not isinstance(band, (int, float)) or not np.isfinite(band) or not 0.5 < band < 1.0:
        raise McioError("band", band, "must be a quantile level in (0.5, 1), e.g. 0.95, or none for no band")
    return float(band)


def plot_curves(ds, x: str | None = None, hue: str | None = None, band: float | None = 0.95,
                measured: Mapping | Sequence[Mapping] | None = None, title: str | None = None,
                logy: bool = False, bands: bool | None = None):
    """A matplotlib Figure: response versus ``x`` (left) and the stacked components along the
    sweep axis (right).

    ``x``: "channel_busy" (default when the channels do work), "throughput_iops" or a sweep
    dimension. ``hue``: the sweep dimension drawn as one line per value (default: ``variant``
    if the sweep has named variants, else the second sweep dim). ``band``: upper quantile of the shaded band from the median (a level the file
    holds, e.g. 0.95 or 0.99), None for no band; ``bands`` False turns bands off too (default:
    on for up to three lines). ``measured``: points to overlay, ``{"x": [...], "response_ms":
    [...], "label": "..."}`` (or a list), ``x`` in the unit of the x axis. ``logy``: log
    response axis on the left (the stacked components stay linear: a log stack misleads).
    Points flagged ``unstable`` are drawn hollow and grey and named in the legend.
    """
    import matplotlib
    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    for name in ("response_ms",) + tuple(c for c, _ in COMPONENTS):
        if name not in ds:
            raise McioError("results", name, "variable missing: not an mcio results dataset")
    band = check_band(band)
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
        x = default_x(ds, along)
    if x is None:
        raise McioError("x", x, "a dataset without sweep dimensions needs x = channel_busy or throughput_iops")
    xv, xlabel = _x_values(ds, x)
    mean = _mean(ds["response_ms"], "replication")
    ci = _values(ds["response_ci95_ms"]) if "response_ci95_ms" in ds else None
    # a file of `mcio uncertain`: the simulation CI at the nominal inputs, and the input band
    inputs = "response_ms_input_lo" in ds and "response_ms_input_hi" in ds
    if ci is None and "response_ms_ci95" in ds:
        ci = _values(ds["response_ms_ci95"])
    if inputs:
        in_lo, in_hi = _values(ds["response_ms_input_lo"]), _values(ds["response_ms_input_hi"])
    q = _values(ds["response_quantile_ms"]) if "response_quantile_ms" in ds else None
    levels = np.asarray(ds["quantile"].values, dtype=float) if q is not None else None
    if band is not None and q is not None and _quantile(q, levels, band) is None:
        have = ", ".join(f"{v:g}" for v in levels)
        raise McioError("band", band, f"the file holds no such quantile; allowed: {have}, or none")
    hue_vals = list(ds[hue].values) if hue else [None]
    if bands is None:
        bands = len(hue_vals) <= 3
    unstable = _values(ds["unstable"]) if "unstable" in ds else None

    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(12.5, 5.2), gridspec_kw={"width_ratios": [3, 2]})
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    unstable_labelled = False
    for i, hv in enumerate(hue_vals):
        xs, ys = _pick(xv, hue, i), _pick(mean, hue, i)
        # along the sweep axis, not sorted by x: past a knee the saturated points share ~one
        # busy value and an x-sorted line would zigzag between them
        if along is not None and along != x and np.issubdtype(np.asarray(ds[along].values).dtype, np.number):
            order = np.argsort(np.broadcast_to(np.asarray(ds[along].values, float), xs.shape), kind="stable")
        else:
            order = np.argsort(xs, kind="stable")
        bad = (_pick(unstable, hue, i).astype(bool) if unstable is not None
               else np.zeros(xs.shape, bool))
        bad = np.broadcast_to(bad, xs.shape)
        col = colors[i % len(colors)]
        label = "mean (95% CI)" if hue is None else f"{_dim_label(ds, hue)} = {_fmt(hv)}"
        if inputs:
            label = ("simulation 95 % CI at the nominal inputs" if hue is None
                     else f"{label}: simulation 95 % CI, nominal inputs")
        good = order[~bad[order]]
        err = _pick(ci, hue, i)[good] if ci is not None else None
        ax.errorbar(xs[good], ys[good], yerr=err,
                    color=col, marker="o", ms=3.5, lw=1.6, capsize=2, label=label)
        if inputs:
            _input_band(ax, xs[good], _pick(in_lo, hue, i)[good], _pick(in_hi, hue, i)[good], col,
                        "input band (2.5-97.5 % over parameter sets)" if i == 0 else None)
        if bad.any():
            ax.plot(xs[bad], ys[bad], ls="none", marker="o", ms=6, mfc="none", mec="0.55", mew=1.2,
                    label=None if unstable_labelled else "unstable (over capacity: not a steady state)",
                    zorder=4)
            unstable_labelled = True
        if along is not None and along != x and i == 0 and len(xs) <= 16:
            _annotate_points(ax, xs, ys, np.atleast_1d(ds[along].values), col)
        if q is not None and band is not None and bands:
            lo = _quantile(q, levels, 0.5, hue, i)
            hi = _quantile(q, levels, band, hue, i)
            keep = good
            ax.fill_between(xs[keep], np.atleast_1d(lo)[keep], np.atleast_1d(hi)[keep], color=col, alpha=0.18,
                            lw=0, label=f"p50-p{100 * band:g} band" if i == 0 else None)
    for pts in _measured_list(measured):
        ax.plot(pts["x"], pts["response_ms"], ls="none", marker=pts.get("marker", "s"), ms=6, mfc="none",
                mec=pts.get("color", "k"), mew=1.5, label=pts.get("label", "measured"), zorder=5)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("response time (ms)")
    if logy:
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    note = ", ".join(f"{_dim_label(ds, d)} = {_fmt(ds[d].values.item())}" for d in fixed)
    fig.suptitle((title or ds.attrs.get("title", "mcio sweep")) + (f"  ({note})" if note else ""), fontsize=12)
    ax.set_title("response time versus " + xlabel.split(" (")[0], fontsize=10)

    # the breakdown runs along the sweep axis itself: past the knee many points share ~100 % busy
    comps = [_pick(_mean(ds[c], "replication"), hue, 0) for c, _ in COMPONENTS]
    labels = [lab for _, lab in COMPONENTS]
    if along is not None and np.issubdtype(np.asarray(ds[along].values).dtype, np.number):
        xs = np.asarray(ds[along].values, dtype=float)
        ax2.stackplot(xs, *comps, labels=labels, alpha=0.85)
        if xs.min() > 0 and xs.max() / xs.min() > 20:
            ax2.set_xscale("log")
            ax2.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax2.set_xlabel(_dim_label(ds, along))
    else:
        names = [_fmt(v) for v in ds[along].values] if along is not None else ["the simulated point"]
        _stacked_bars(ax2, names, comps, labels)
        ax2.set_xlabel(_dim_label(ds, along) if along is not None else "")
    ax2.set_ylabel("mean response components (ms)")
    ax2.grid(alpha=0.3)
    ax2.legend(fontsize=8, loc="upper left")
    ax2.set_title("IOSQ + pend + disconnect + connect" +
                  (f"\nat {_dim_label(ds, hue)} = {_fmt(hue_vals[0])}" if hue is not None else ""), fontsize=10)
    fig.tight_layout()
    _diagnostic_footnote(fig, ds)
    return fig


def _input_band(ax, xs, lo, hi, col, label) -> None:
    """The input band of a file of ``mcio uncertain``: the 2.5 .. 97.5 % range over parameter sets
    of each set's mean response, shaded (hatched, to tell it from a percentile band); a lone
    point gets a narrow shaded column."""
    xs, lo, hi = (np.atleast_1d(np.asarray(v, float)) for v in (xs, lo, hi))
    if xs.size == 1:
        half = 0.01 * max(abs(float(xs[0])), 1.0)
        xs, lo, hi = np.array([xs[0] - half, xs[0] + half]), np.repeat(lo, 2), np.repeat(hi, 2)
    ax.fill_between(xs, lo, hi, color=col, alpha=0.15, hatch="///", edgecolor=col, lw=0.6, label=label,
                    zorder=1)


def _diagnostic_footnote(fig, ds) -> None:
    """Say on the figure what an analyst must not miss: points whose warm-up MSER judged too
    short, and unstable points."""
    notes = []
    if "warmup_adequate" in ds:
        bad = int((np.asarray(ds["warmup_adequate"].values) == 0).sum())
        if bad:
            notes.append(f"warm-up shorter than the initial transient at {bad} point(s) (see warmup_mser_ios)")
    if "unstable" in ds:
        bad = int(np.asarray(ds["unstable"].values).astype(bool).sum())
        if bad:
            notes.append(f"{bad} unstable point(s) (hollow grey: not a steady state)")
    if notes:
        fig.subplots_adjust(bottom=0.16)
        fig.text(0.01, 0.01, "Note: " + "; ".join(notes), fontsize=8, color="0.3", ha="left", va="bottom")


def _annotate_points(ax, xs, ys, values, col) -> None:
    """Name each point by its sweep value (past a knee several share one x); a label that would
    overlap one already drawn is left out, so the rest stay readable."""
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    placed = []
    for xx, yy, v in sorted(zip(xs, ys, values), key=lambda t: -t[1]):
        a = ax.annotate(_fmt(v), (xx, yy), textcoords="offset points", xytext=(-4, 3), ha="right",
                        fontsize=7, color=col)
        box = a.get_window_extent(renderer)
        if any(box.overlaps(b) for b in placed):
            a.remove()
        else:
            placed.append(box)


def _stacked_bars(ax, names, comps, labels, measured=None) -> None:
    """Stacked component bars, one per name; ``measured`` (same layout) drawn as hatched bars beside."""
    pos = np.arange(len(names), dtype=float)
    width = 0.38 if measured is not None else 0.6
    bottom = np.zeros(len(names))
    colors = ("#999999", "#1f77b4", "#ff7f0e", "#2ca02c")
    for comp, lab, col in zip(comps, labels, colors):
        comp = np.asarray(comp, float)
        ax.bar(pos - (width / 2 if measured is not None else 0), comp, width, bottom=bottom, label=lab,
               color=col, alpha=0.85)
        bottom = bottom + comp
    if measured is not None:
        bottom = np.zeros(len(names))
        for comp, lab, col in zip(measured, labels, colors):
            comp = np.nan_to_num(np.asarray(comp, float))
            ax.bar(pos + width / 2, comp, width, bottom=bottom, color=col, alpha=0.45, hatch="//",
                   edgecolor="k", lw=0.5)
            bottom = bottom + comp
        ax.bar([np.nan], [0], color="white", hatch="//", edgecolor="k", label="measured (hatched)")
    ax.set_xticks(pos)
    ax.set_xticklabels(names, rotation=20 if max(map(len, names)) > 8 else 0, ha="right" if max(map(len, names)) > 8 else "center")


def plot_components(ds, by: str = "variant", measured: Mapping | None = None, title: str | None = None):
    """Per-phase / per-variant bars of the response components (IOSQ, pend, disconnect, connect),
    the model's beside the measured ones — the chart of a seed scenario's report.

    ``ds``: a Dataset with dimension ``by`` (e.g. a sweep over variants) and the component
    variables (means over replications are taken). ``measured``: {component variable, e.g.
    "connect_ms": [one value per ``by`` value, NaN where unknown]}.
    """
    import matplotlib
    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    if by not in ds.dims:
        raise McioError("by", by, f"must be a dimension of the results: {', '.join(sweep_dims(ds)) or '(none)'}")
    other = [d for d in sweep_dims(ds) if d != by]
    ds = ds.isel({d: 0 for d in other})
    names = [_fmt(v) for v in ds[by].values]
    comps = [np.atleast_1d(_mean(ds[c], "replication")[0] if "replication" in ds[c].dims else ds[c].values)
             for c, _ in COMPONENTS]
    meas = None
    if measured is not None:
        meas = []
        for c, _ in COMPONENTS:
            vals = np.asarray(measured.get(c, [np.nan] * len(names)), float)
            if vals.shape != (len(names),):
                raise McioError(f"measured.{c}", list(vals), f"needs one value per {by} ({len(names)})")
            meas.append(vals)
    fig, ax = plt.subplots(figsize=(max(6.0, 1.3 * len(names) + 3), 4.8))
    _stacked_bars(ax, names, comps, [lab for _, lab in COMPONENTS], meas)
    ax.set_ylabel("mean time per I/O (ms)")
    ax.set_xlabel(_dim_label(ds, by))
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8)
    ax.set_title(title or ds.attrs.get("title", "response components"), fontsize=11)
    fig.tight_layout()
    return fig


def save_plot(ds, path, dpi: int = 110, **kw) -> None:
    """Draw :func:`plot_curves` into ``path`` (PNG unless the suffix says otherwise)."""
    import matplotlib.pyplot as plt
    fig = plot_curves(ds, **kw)
    try:
        save_figure(fig, path, dpi=dpi)
    finally:
        plt.close(fig)


def save_figure(fig, path, dpi: int = 110) -> None:
    """Render ``fig`` (format from ``path``'s suffix, PNG without one) and store it at ``path``
    atomically: a failed render or write leaves whatever was at ``path`` unchanged."""
    import io
    from pathlib import Path
    from .store import write_bytes
    suffix = Path(path).suffix[1:].lower()
    buf = io.BytesIO()
    fig.savefig(buf, dpi=dpi, format=suffix or None)
    write_bytes(buf.getvalue(), path)


def _quantile(q, levels: np.ndarray, level: float, hue: str | None = None, i: int = 0):
    """The values of ``q`` (values, dims; one of them "quantile" with ``levels``) at ``level``,
    at index ``i`` of ``hue`` (see :func:`_pick`); None if ``levels`` lacks ``level``."""
    k = np.flatnonzero(np.isclose(levels, level))
    if not k.size:
        return None
    values, dims = q
    axis = dims.index("quantile")
    return _pick((np.take(values, int(k[0]), axis=axis), dims[:axis] + dims[axis + 1:]), hue, i)


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


__all__ = ["plot_curves", "plot_components", "save_plot", "save_figure", "sweep_dims", "field_label", "default_x", "check_band"]
