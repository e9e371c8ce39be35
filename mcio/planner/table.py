"""A sweep (or a comparison) as a table in RMF's vocabulary and units: one row per point, the
variants and sweep axes as leading columns, each figure's 95 % CI half-width beside its value.

Figures come from the results Dataset (DESIGN.md §4): a mean over replications, and the stored
``<name>_ci95_<unit>`` half-width where the file has one, else the Student-t half-width of the
replications' own values. Busy fractions are shown in % (as RMF does), rates in SSCH/s; headers
take the units and long names of the Dataset's own attributes.
"""
from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field

import numpy as np

from ..engine.tables import LEVEL_DIMS
from ..errors import McioError
from ..model.text import for_terminal

ENGINE_DIMS = ("replication", "quantile", "device", "sample", "input") + LEVEL_DIMS

#: figure -> (RMF-style short label, scale, unit shown (None: the variable's own units))
LABELS = {
    "throughput_iops": ("I/O rate", 1.0, "SSCH/s"),
    "response_ms": ("resp", 1.0, None),
    "iosq_ms": ("IOSQ", 1.0, None),
    "pend_ms": ("pend", 1.0, None),
    "cmr_ms": ("CMR", 1.0, None),
    "disconnect_ms": ("disc", 1.0, None),
    "connect_ms": ("conn", 1.0, None),
    "device_busy": ("dev busy", 100.0, "%"),
    "device_busy_zvm": ("dev busy z/VM", 100.0, "%"),
    "channel_busy": ("chan busy", 100.0, "%"),
    "link_busy": ("link busy", 100.0, "%"),
    "cu_ha_busy": ("HA busy", 100.0, "%"),
    "backend_busy": ("back-end busy", 100.0, "%"),
    "open_exchanges_mean": ("OE avg", 1.0, None),
    "open_exchanges_max": ("OE max", 1.0, None),
    "deferred_iops": ("defer", 1.0, "/s"),
    "channel_ssch_iops": ("chan rate", 1.0, "SSCH/s"),
    "channel_mb_s": ("chan MB/s", 1.0, "MB/s"),
}
DEFAULT_VARS = ("throughput_iops", "response_ms", "iosq_ms", "pend_ms", "disconnect_ms", "connect_ms",
                "response_p90_ms", "device_busy", "channel_busy")
#: channel variables summed over channels (rates, counts); the others are averaged (busy fractions)
_SUMMED = ("deferred_iops", "channel_ssch_iops", "channel_mb_s", "open_exchanges_mean")


@dataclass
class Column:
    """One column: ``header`` (label and unit), ``kind`` ("key", "value", "ci", "flag"), the
    long name (the Dataset's ``long_name``), and the decimals of its text form."""
    header: str
    kind: str
    long_name: str = ""
    decimals: int | None = None


@dataclass
class Table:
    """Rows of cells (str for keys and flags, float for values and CIs) under ``columns``."""
    title: str
    columns: list[Column]
    rows: list[list] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _t975(dof: float) -> float:
    from scipy import special
    return float(special.stdtrit(dof, 0.975)) if dof > 0 else float("nan")


def sweep_dims(ds) -> list[str]:
    """The sweep dimensions of a results Dataset (the variant first, as stored)."""
    return [d for d in ds.dims if d not in ENGINE_DIMS]


def available_vars(ds) -> list[str]:
    """Figures a table of ``ds`` can show: variables over a sweep / replication layout, and
    ``response_pNN_ms`` for each stored quantile."""
    out = [v for v, da in ds.data_vars.items()
           if np.issubdtype(da.dtype, np.number) and "quantile" not in da.dims and "device" not in da.dims
           and "_ci95" not in v and v not in ("unstable", "warmup_adequate")
           and "sample" not in da.dims and "input" not in da.dims and "_input_" not in v]
    if "response_quantile_ms" in ds:
        out += [f"response_p{100 * float(q):g}_ms" for q in ds["quantile"].values]
    return out


def _quantile_name(name: str) -> float | None:
    if name.startswith("response_p") and name.endswith("_ms"):
        try:
            return float(name[len("response_p"):-3]) / 100.0
        except ValueError:
            return None
    return None


def _stored_ci(ds, name: str):
    """The stored ``<stem>_ci95_<unit>`` variable of ``name`` (response_ms -> response_ci95_ms)."""
    stem, _, unit = name.rpartition("_")
    for cand in (f"{stem}_ci95_{unit}", f"{name}_ci95"):
        if cand in ds:
            return ds[cand]
    return None


def _figure(ds, name: str, row_dims: list[str]):
    """(values, CI half-widths, unit, long name) of figure ``name`` as arrays over ``row_dims``."""
    q = _quantile_name(name)
    if q is not None and name not in ds:
        levels = np.asarray(ds["quantile"].values, float)
        k = np.flatnonzero(np.isclose(levels, q))
        if not k.size:
            raise McioError("--vars", name, f"the file holds no such quantile; allowed: "
                            f"{', '.join(f'response_p{100 * v:g}_ms' for v in levels)}")
        v = ds["response_quantile_ms"].isel(quantile=int(k[0]))
        ci = (ds["response_quantile_ci95_ms"].isel(quantile=int(k[0])) if "response_quantile_ci95_ms" in ds
              else None)
        return (_arr(v, row_dims), None if ci is None else _arr(ci, row_dims), "ms",
                f"{100 * q:g}th percentile of response time (all replications merged)")
    da = ds[name]
    for d in LEVEL_DIMS:
        if d != "channel" and d in da.dims and d not in row_dims:
            raise McioError("--vars", name, f"a figure per {d}: show it with --by {d}")
    if "channel" in da.dims and "channel" not in row_dims:
        if name == "open_exchanges_max":
            da = da.max("channel")
        elif name in _SUMMED:
            da = da.sum("channel", min_count=1)
        else:
            da = da.mean("channel")
    long = da.attrs.get("long_name", ds[name].attrs.get("long_name", name))
    unit = ds[name].attrs.get("units", "")
    if "replication" in da.dims:
        reps = np.moveaxis(_arr(da, row_dims + ["replication"], keep_missing=True), -1, 0)
        with np.errstate(invalid="ignore"):
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                mean = np.nanmean(reps, axis=0)
                n = np.sum(np.isfinite(reps), axis=0)
                sd = np.nanstd(reps, axis=0, ddof=1)
        stored = _stored_ci(ds, name)
        if stored is not None and "channel" not in stored.dims:
            ci = _arr(stored, row_dims)
        else:
            ci = np.vectorize(_t975)(np.maximum(n - 1, 0)) * sd / np.sqrt(np.maximum(n, 1))
        return mean, ci, unit, long
    return _arr(da, row_dims), None, unit, long


def _arr(da, dims: list[str], keep_missing: bool = False) -> np.ndarray:
    """``da``'s values ordered and broadcast over ``dims`` (a dimension ``da`` lacks repeats)."""
    extra = [d for d in dims if d not in da.dims]
    if extra:
        da = da.expand_dims({d: da.coords[d].size if d in da.coords else 1 for d in extra})
    sizes = [da.sizes[d] for d in dims]
    return np.broadcast_to(np.asarray(da.transpose(*dims).values, float), sizes)


def _decimals(unit: str) -> int | None:
    return {"ms": 3, "%": 1, "SSCH/s": 1, "/s": 1, "MB/s": 2}.get(unit)


def _shown_unit(name: str, unit: str) -> tuple[str, float]:
    if name in LABELS:
        label, scale, shown = LABELS[name]
        return (shown if shown is not None else unit), scale
    return ("SSCH/s" if unit == "s-1" else ("" if unit == "1" else unit)), 1.0


def sweep_table(ds, vars: list[str] | tuple[str, ...] | None = None, by: str | None = None) -> Table:
    """The sweep Dataset ``ds`` as a :class:`Table`: one row per point (and per channel with
    ``by="channel"``), the sweep dims as leading columns (``by`` first), then for each figure in
    ``vars`` (default :data:`DEFAULT_VARS`, those the file holds) its value and 95 % CI
    half-width, then the flags (unstable, short warm-up)."""
    dims = sweep_dims(ds)
    allowed_by = dims + [d for d in LEVEL_DIMS if d in ds.dims]
    if by is not None and by not in allowed_by:
        raise McioError("--by", by, f"must be a dimension of the results; allowed: {', '.join(allowed_by) or '(none)'}")
    have = available_vars(ds)
    if vars:
        names = [v.strip() for item in vars for v in str(item).split(",") if v.strip()]
        for v in names:
            if v not in have and (_quantile_name(v) is None or "response_quantile_ms" not in ds):
                raise McioError("--vars", v, f"not a figure of this file; allowed: {', '.join(have)}")
    else:
        names = [v for v in DEFAULT_VARS if v in have]
    # a sweep dim named by ``by`` leads; ``channel`` splits each point's row (as RMF's channel report)
    row_dims = ([by] if by in dims else []) + [d for d in dims if d != by] + ([by] if by in LEVEL_DIMS else [])
    cols = [Column(_dim_header(ds, d), "key", ds[d].attrs.get("long_name", ds[d].attrs.get("mcio_key", d))
                   if d in ds.coords else d) for d in row_dims]
    data = []
    for name in names:
        v, ci, unit, long = _figure(ds, name, row_dims)
        shown, scale = _shown_unit(name, unit)
        label = LABELS.get(name, (name.rsplit("_", 1)[0] if name.endswith(f"_{unit}") else name,))[0]
        if _quantile_name(name) is not None:
            label = f"resp p{100 * _quantile_name(name):g}"
        dec = _decimals(shown)
        cols.append(Column(f"{label} {shown}".strip(), "value", long, dec))
        data.append(v * scale)
        if ci is not None:
            cols.append(Column("±95%", "ci", f"95 % CI half-width of {label}", dec))
            data.append(ci * scale)
        if f"{name}_input_lo" in ds:   # a run with uncertain inputs: the input band beside the CI
            for end in ("lo", "hi"):
                cols.append(Column(f"input {'2.5' if end == 'lo' else '97.5'}%", "value",
                                   ds[f"{name}_input_{end}"].attrs.get("long_name", ""), dec))
                data.append(_arr(ds[f"{name}_input_{end}"], row_dims) * scale)
    flags = _flags(ds, row_dims)
    if flags is not None:
        cols.append(Column("flags", "flag", "unstable: open load over capacity (no steady state); "
                           "short warm-up: the mean still carries the start's transient (raise [run] warmup)"))
    tab = Table(ds.attrs.get("title", "mcio sweep"), cols)
    shape = tuple(ds.sizes[d] for d in row_dims)
    # (a level's names: its coordinate, or in a file its ``<dim>_label``)
    coords = [np.atleast_1d(ds[f"{d}_label"].values) if f"{d}_label" in ds.coords
              else np.atleast_1d(ds[d].values) if d in ds.coords else np.arange(ds.sizes[d]) for d in row_dims]
    for idx in np.ndindex(*shape):
        row = [_fmt(coords[k][i]) for k, i in enumerate(idx)]
        row += [float(a[idx]) for a in data]
        if flags is not None:
            row.append(flags[idx])
        tab.rows.append(row)
    if ds.attrs.get("replications"):
        tab.notes.append(f"{ds.attrs['replications']} replications x {ds.attrs.get('ios', '?')} I/Os per point, "
                         f"seed {ds.attrs.get('seed', '?')}; ±95%: half-width of the 95 % CI over replications")
    return tab


def _flags(ds, row_dims) -> np.ndarray | None:
    if "unstable" not in ds and "warmup_adequate" not in ds:
        return None
    shape = tuple(ds.sizes[d] for d in row_dims)
    out = np.full(shape, "", dtype=object)
    if "unstable" in ds:
        bad = np.broadcast_to(_arr(ds["unstable"], row_dims), shape).astype(bool)
        out[bad] = "unstable"
    if "warmup_adequate" in ds:
        short = np.broadcast_to(_arr(ds["warmup_adequate"], row_dims), shape) == 0
        out[short] = np.where(out[short] == "", "short warm-up", out[short] + ", short warm-up")
    return out


def _dim_header(ds, d: str) -> str:
    return d.replace("__mean", " mean").replace("__scv", " SCV")


def compare_table(ds) -> Table:
    """A comparison Dataset (``mcio compare -o``) as a :class:`Table`: one row per headline
    figure, both values, the difference B - A with its paired and unpaired 95 % CIs, the change."""
    la, lb = ds.attrs.get("label_a", "A"), ds.attrs.get("label_b", "B")
    cols = [Column("figure", "key", "headline figure"), Column("unit", "key", "unit (UDUNITS)"),
            Column(la, "value", f"mean over replications, {la}"), Column(lb, "value", f"mean over replications, {lb}"),
            Column(f"{lb} - {la}", "value", "difference B - A"),
            Column("±95% paired", "ci", "paired 95 % CI half-width (common random numbers)"),
            Column("±95% unpaired", "ci", "Welch 95 % CI half-width, as if the runs were independent"),
            Column("change %", "value", "relative difference (B - A) / A, in %", 1)]
    tab = Table(ds.attrs.get("title", "mcio compare"), cols)
    for i, f in enumerate(ds["figure"].values):
        tab.rows.append([str(f), str(ds["figure_units"].values[i]), float(ds["a"].values[i]),
                         float(ds["b"].values[i]), float(ds["diff"].values[i]), float(ds["diff_ci95"].values[i]),
                         float(ds["diff_ci95_unpaired"].values[i]), 100.0 * float(ds["rel_diff"].values[i])])
    tab.notes.append(f"{ds.attrs.get('replications', '?')} paired replications x {ds.attrs.get('ios', '?')} I/Os, "
                     f"seed {ds.attrs.get('seed', '?')}: {ds.attrs.get('pairing', '')}")
    return tab


def is_compare(ds) -> bool:
    """Whether ``ds`` is a comparison Dataset (``mcio compare -o``) rather than a sweep."""
    return "figure" in ds.dims and "diff_ci95" in ds


def results_table(ds, vars=None, by: str | None = None) -> Table:
    """:func:`compare_table` or :func:`sweep_table`, whichever ``ds`` is."""
    if is_compare(ds):
        if vars or by:
            raise McioError("--vars" if vars else "--by", vars or by,
                            "a comparison file has one row per figure: no --vars or --by")
        return compare_table(ds)
    return sweep_table(ds, vars, by)


def _fmt(v) -> str:
    if isinstance(v, (float, np.floating)):
        return f"{float(v):g}"
    if isinstance(v, bytes):
        return v.decode()
    return str(v)


def cell_text(value, col: Column) -> str:
    """A cell as the text table shows it ('-' for a missing figure)."""
    if isinstance(value, str):
        return value
    if value is None or not math.isfinite(value):
        return "-"
    if col.kind == "ci":
        return f"±{value:.{col.decimals}f}" if col.decimals is not None else f"±{value:.3g}"
    if col.decimals is not None:
        return f"{value:.{col.decimals}f}"
    return f"{value:.4g}"


def format_text(tab: Table, legend: bool = True) -> str:
    """The table as aligned text (keys left, figures right), its notes and a legend of the
    columns' long names below."""
    cells = [[cell_text(v, c) for v, c in zip(r, tab.columns)] for r in tab.rows]
    heads = [c.header for c in tab.columns]
    widths = [max([len(h)] + [len(r[k]) for r in cells]) for k, h in enumerate(heads)]

    def line(row):
        return "  ".join(s.ljust(w) if c.kind in ("key", "flag") else s.rjust(w)
                         for s, w, c in zip(row, widths, tab.columns)).rstrip()
    out = [for_terminal(tab.title), line(heads)] + [line(r) for r in cells]
    out += tab.notes
    if legend:
        seen = set()
        for c in tab.columns:
            if c.kind in ("value", "flag") and c.header not in seen and c.long_name:
                seen.add(c.header)
                out.append(f"  {c.header}: {c.long_name}")
    return "\n".join(out)


def format_csv(tab: Table) -> str:
    """The table as CSV (one header row; figures with 6 significant digits, empty where missing;
    a CI column is headed by its figure's header and ' ±95%')."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    heads, prev = [], ""
    for c in tab.columns:
        heads.append(f"{prev} ±95%" if c.kind == "ci" and c.header == "±95%" else c.header)
        if c.kind == "value":
            prev = c.header
    w.writerow(heads)
    for r in tab.rows:
        w.writerow([v if isinstance(v, str) else ("" if v is None or not math.isfinite(v) else f"{v:.6g}")
                    for v in r])
    return buf.getvalue()


__all__ = ["Table", "Column", "sweep_table", "compare_table", "results_table", "is_compare", "format_text",
           "format_csv", "available_vars", "DEFAULT_VARS"]
