"""One self-contained HTML report of a sweep or of a comparison, to hand on: the configuration,
the curves and component stacks (mcio.plot's figures, embedded as base64 PNG), the table, the
flags (unstable points, short warm-up) and, for a comparison, the before/after with paired CIs.

Nothing in the file refers to the network: no external CSS, script, font or image; it opens the
same offline, in a mail attachment or years later.
"""
from __future__ import annotations

import base64
import difflib
import html
import io
import math

import numpy as np

from ..errors import McioError
from .table import Table, cell_text, compare_table, is_compare, sweep_dims, sweep_table

CSS = """
body { font-family: sans-serif; margin: 1.5em auto; max-width: 1180px; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; border-bottom: 1px solid #ccc; margin-top: 1.6em; }
table { border-collapse: collapse; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 2px 6px; }
th { background: #eef; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.ci { text-align: right; color: #666; } td.flag { color: #a00; }
pre { background: #f6f6f6; padding: 0.6em; font-size: 0.8em; overflow-x: auto; }
.flags { color: #a00; } .ok { color: #070; } img { max-width: 100%; }
dl.meta dt { float: left; width: 11em; color: #555; } dl.meta dd { margin-left: 11em; }
"""


def _png(fig, dpi: int = 100) -> str:
    """A matplotlib figure as an ``<img>`` with a base64 PNG data URI (the figure is closed)."""
    import matplotlib.pyplot as plt
    buf = io.BytesIO()
    try:
        fig.savefig(buf, format="png", dpi=dpi)
    finally:
        plt.close(fig)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<img alt="figure" src="data:image/png;base64,{data}">'


def table_html(tab: Table, table_id: str = "points") -> str:
    """``tab`` as an HTML table (one ``<tr>`` per row in its ``<tbody>``)."""
    e = html.escape
    head = "".join(f'<th title="{e(c.long_name)}">{e(c.header)}</th>' for c in tab.columns)
    rows = []
    for r in tab.rows:
        cells = []
        for v, c in zip(r, tab.columns):
            cls = {"value": "num", "ci": "ci", "flag": "flag"}.get(c.kind, "key")
            cells.append(f'<td class="{cls}">{e(cell_text(v, c))}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    notes = "".join(f"<p>{e(n)}</p>" for n in tab.notes)
    return (f'<div style="overflow-x: auto"><table id="{table_id}"><thead><tr>{head}</tr></thead><tbody>\n' + "\n".join(rows)
            + f"\n</tbody></table></div>{notes}")


def _meta(ds, keys) -> str:
    e = html.escape
    items = [f"<dt>{e(k)}</dt><dd>{e(' '.join(str(ds.attrs[k]).split()))}</dd>" for k in keys if k in ds.attrs]
    return '<dl class="meta">' + "".join(items) + "</dl>"


def _flags_html(ds) -> str:
    """The points an analyst must not miss: unstable (no steady state) and short warm-up."""
    e = html.escape
    dims = sweep_dims(ds)
    lines = []

    def where(flat):
        if not dims:
            return "the point"
        idx = np.unravel_index(flat, tuple(ds.sizes[d] for d in dims))
        return ", ".join(f"{d} = {ds[d].values[k]}" for d, k in zip(dims, idx))
    if "unstable" in ds:
        flags = np.atleast_1d(ds["unstable"].transpose(*dims).values).ravel()
        reasons = (np.atleast_1d(ds["unstable_reason"].transpose(*dims).values).ravel()
                   if "unstable_reason" in ds else [""] * flags.size)
        for i in np.flatnonzero(flags):
            lines.append(f"unstable at {where(i)}: not a steady state, its figures are missing "
                         f"({reasons[i] or 'open load over capacity'})")
    if "warmup_adequate" in ds:
        ok = np.atleast_1d(ds["warmup_adequate"].transpose(*dims).values).ravel()
        for i in np.flatnonzero(ok == 0):
            lines.append(f"short warm-up at {where(i)}: MSER cuts past [run] warmup in most "
                         "replications and the cut moves the mean beyond its noise (see warmup_mser_ios)")
    if not lines:
        return '<p class="ok">No flags: every point is stable and its warm-up adequate.</p>'
    return '<ul class="flags">' + "".join(f"<li>{e(s)}</li>" for s in lines) + "</ul>"


def _sweep_body(ds) -> list[str]:
    from ..plot import plot_components, plot_curves
    e = html.escape
    parts = [f"<h1>{e(ds.attrs.get('title', 'mcio sweep'))}</h1>",
             _meta(ds, ("source", "scenario", "date_created", "mcio_version", "seed", "replications", "ios",
                        "warmup_rule", "sweep_keys")),
             "<h2>Flags</h2>", _flags_html(ds), "<h2>Curves and component stacks</h2>"]
    if "sample" in ds.dims:   # a run with uncertain inputs (mcio uncertain): its two bands
        parts.append(_png(_uncertain_figure(ds)))
        parts.append(_sensitivity_html(ds))
    else:
        try:
            parts.append(_png(plot_curves(ds)))
        except McioError as err:  # a dataset the curves cannot show (said, not hidden)
            parts.append(f"<p>curves not drawn: {e(str(err))}</p>")
    if "variant" in ds.dims and ds.sizes["variant"] > 1 and "sample" not in ds.dims:
        parts.append(_png(plot_components(ds, by="variant")))
    parts += ["<h2>Table</h2>", table_html(sweep_table(ds)), "<h2>Configuration</h2>"]
    if ds.attrs.get("spec_toml"):
        parts.append("<p>The spec as run:</p><pre>" + e(str(ds.attrs["spec_toml"])) + "</pre>")
    if ds.attrs.get("model_toml"):
        parts.append("<p>The base model, every field that counts:</p><pre>" + e(str(ds.attrs["model_toml"])) + "</pre>")
    return parts


def _uncertain_figure(ds):
    """The mean response at the nominal inputs with its simulation 95 % CI (error bars) and the
    input band (shaded, 2.5 .. 97.5 % over parameter sets) along the first sweep axis; for one
    point, the distribution of the parameter sets' means with both bands marked."""
    import matplotlib
    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    dims = sweep_dims(ds)
    fig, ax = plt.subplots(figsize=(10, 4.6))
    if dims and np.issubdtype(np.asarray(ds[dims[0]].values).dtype, np.number):
        d = ds.isel({k: 0 for k in dims[1:]})
        x = np.asarray(d[dims[0]].values, float)
        y = np.asarray(d["response_ms"].mean("replication").values, float)
        ax.fill_between(x, d["response_ms_input_lo"].values, d["response_ms_input_hi"].values, alpha=0.25,
                        label="input band (2.5-97.5 % over parameter sets)")
        ax.errorbar(x, y, yerr=np.asarray(d["response_ms_ci95"].values, float), marker="o", capsize=3,
                    label="nominal inputs, simulation 95 % CI")
        ax.set_xlabel(dims[0])
        ax.set_ylabel("mean response time (ms)")
    else:
        d = ds.isel({k: 0 for k in dims})
        means = np.asarray(d["response_ms_samples"].mean("replication").values, float)
        ax.hist(means[np.isfinite(means)], bins=max(8, means.size // 4), color="#4c72b0", alpha=0.7,
                label="parameter sets' mean response")
        nom, ci = float(d["response_ms"].mean()), float(d["response_ms_ci95"])
        ax.axvspan(nom - ci, nom + ci, color="k", alpha=0.3, label="nominal inputs, simulation 95 % CI")
        for end in ("lo", "hi"):
            ax.axvline(float(d[f"response_ms_input_{end}"]), color="#d62728", ls="--",
                       label="input band (2.5-97.5 %)" if end == "lo" else None)
        ax.set_xlabel("mean response time (ms)")
        ax.set_ylabel("parameter sets")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("response: simulation CI and input band", fontsize=10)
    fig.tight_layout()
    return fig


def _sensitivity_html(ds) -> str:
    e = html.escape
    dims = sweep_dims(ds)
    d = ds.isel({k: 0 for k in dims})
    keys = [str(k) for k in ds["input"].values]
    share = np.asarray(d["response_ms_variance_share"].values, float)
    rho = np.asarray(d["response_ms_rank_corr"].values, float)
    rows = "".join(f"<tr><td>{e(keys[i])}</td><td class=\"num\">{100 * share[i]:.0f} %</td>"
                   f"<td class=\"num\">{rho[i]:+.2f}</td></tr>" for i in np.argsort(-np.nan_to_num(share, nan=-1)))
    return (f"<p>Inputs: {e(str(ds.attrs.get('uncertain_inputs', '')))}. Sensitivity of the mean response"
            + (" (first point)" if dims else "") + ":</p><table id=\"sensitivity\"><thead><tr><th>input</th>"
            "<th>variance share</th><th>rank correlation</th></tr></thead><tbody>" + rows + "</tbody></table>")


def _compare_figure(ds):
    """Each headline figure's change B - A in % of A with its paired 95 % CI (bars) and the
    unpaired CI (thin line beside), so the gain of pairing shows."""
    import matplotlib
    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    a = np.asarray(ds["a"].values, float)
    ok = np.isfinite(ds["rel_diff"].values) & (a != 0)
    names = [str(f) for f in np.asarray(ds["figure"].values)[ok]]
    rel = 100 * np.asarray(ds["rel_diff"].values, float)[ok]
    pci = 100 * np.asarray(ds["diff_ci95"].values, float)[ok] / np.abs(a[ok])
    uci = 100 * np.asarray(ds["diff_ci95_unpaired"].values, float)[ok] / np.abs(a[ok])
    fig, ax = plt.subplots(figsize=(11, 0.45 * len(names) + 1.6))
    y = np.arange(len(names))
    ax.barh(y, rel, xerr=pci, color="#4c72b0", alpha=0.8, capsize=3,
            label="change with paired 95 % CI")
    ax.errorbar(rel, y + 0.3, xerr=uci, fmt="none", ecolor="0.5", lw=1, capsize=2,
                label="unpaired 95 % CI (as if independent)")
    ax.set_yticks(y)
    ax.set_yticklabels(names)
    ax.invert_yaxis()
    ax.axvline(0, color="k", lw=0.8)
    ax.set_xlabel(f"{ds.attrs.get('label_b', 'B')} versus {ds.attrs.get('label_a', 'A')} (% of A)")
    ax.grid(alpha=0.3, axis="x")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return fig


def _compare_body(ds) -> list[str]:
    e = html.escape
    la, lb = ds.attrs.get("label_a", "A"), ds.attrs.get("label_b", "B")
    tab = compare_table(ds)
    sig = [r[0] for r in tab.rows if math.isfinite(r[4]) and math.isfinite(r[5]) and abs(r[4]) > r[5]]
    parts = [f"<h1>{e(ds.attrs.get('title', 'mcio compare'))}</h1>",
             _meta(ds, ("label_a", "label_b", "seed", "replications", "ios", "pairing")),
             "<h2>Before / after</h2>",
             f"<p>{e(lb)} against {e(la)}: each figure's difference with its paired 95 % CI (both runs on "
             f"the same random numbers, replication by replication) and the unpaired CI beside it. "
             f"Differences beyond their paired CI: {e(', '.join(sig) or 'none')}.</p>",
             _png(_compare_figure(ds)), table_html(tab, "figures"), "<h2>Configuration</h2>"]
    ta, tb = str(ds.attrs.get("model_a_toml", "")), str(ds.attrs.get("model_b_toml", ""))
    diff = list(difflib.unified_diff(ta.splitlines(), tb.splitlines(), la, lb, lineterm="", n=1))
    parts.append("<p>What differs between the models:</p><pre>" + e("\n".join(diff) or "(the same model)") + "</pre>")
    parts.append(f"<p>Model {e(la)}, every field resolved:</p><pre>{e(ta)}</pre>")
    return parts


def render_report(ds) -> str:
    """The HTML text of the report of ``ds`` (a sweep's results, or a comparison's)."""
    from .._version import __version__
    body = _compare_body(ds) if is_compare(ds) else _sweep_body(ds)
    title = html.escape(str(ds.attrs.get("title", "mcio report")))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{title}</title><style>{CSS}</style></head><body>\n" + "\n".join(body)
            + f"\n<hr><p>Written by mcio {html.escape(__version__)}: a Monte Carlo simulation; every figure is "
              "an estimate with its 95 % confidence interval.</p></body></html>\n")


def write_report(results: str, out: str) -> None:
    """Read ``results`` (a sweep file or ``mcio compare -o`` file) and write its report to ``out``."""
    from ..store import check_writable, write_bytes
    from ..batch import open_results
    ds = open_results(results)
    check_writable(out)
    text = render_report(ds)
    write_bytes(text.encode("utf-8"), out)   # atomic: a failed write leaves OUT as it was


__all__ = ["render_report", "write_report", "table_html"]
