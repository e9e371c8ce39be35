"""The measured intervals run on a model (the base, or a changed one): per interval, each
workload at its LCU's measured rate (times the model's ``topology.load_scale``), and the model's
figures beside the measured ones in RMF's columns, with the model's 95 % CI over replications
and the error.

Columns (:data:`METRICS`): I/O rate (SSCH/s), response, IOSQ, pend, disconnect, connect (ms,
per I/O over all devices, as RMF's totals weigh them), device busy (% DEV UTIL, RMF's connect +
disconnect, mean over the devices) and channel busy (% UTILIZATION, mean over the channels). A
measured figure the data do not hold is NaN and its error is not given.
"""
from __future__ import annotations

import copy

import numpy as np
import pandas as pd

from ..errors import McioError

#: metric -> (model variable, measured column of Observed.totals, scale to the printed unit, label)
METRICS = {
    "ssch_per_s": ("throughput_iops", "ssch_per_s", 1.0, "I/O rate /s"),
    "resp_ms": ("response_ms", "resp_ms", 1.0, "response ms"),
    "iosq_ms": ("iosq_ms", "iosq_ms", 1.0, "IOSQ ms"),
    "pend_ms": ("pend_ms", "pend_ms", 1.0, "pend ms"),
    "disc_ms": ("disconnect_ms", "disc_ms", 1.0, "disconnect ms"),
    "conn_ms": ("connect_ms", "conn_ms", 1.0, "connect ms"),
    "dev_util_pct": ("device_busy", "dev_util_pct", 100.0, "device busy %"),
    "channel_busy_pct": ("channel_busy", "channel_busy_pct", 100.0, "channel busy %"),
}
#: figures compared as a difference (busy in points, IOSQ in ms: often 0), the rest as a ratio
POINTS = ("dev_util_pct", "channel_busy_pct")
DIFFERENCE = POINTS + ("iosq_ms",)


def interval_rates(obs, workload_lcu: dict) -> pd.DataFrame:
    """interval x workload: the measured rate of each workload's LCU (0 where the LCU is idle)."""
    r = obs.lcu["ssch_per_s"].unstack("lcu").reindex(obs.totals.index).fillna(0.0)
    return pd.DataFrame({w: r[lc] if lc in r.columns else 0.0 for w, lc in workload_lcu.items()}, index=r.index)


def interval_model(model, rates: dict):
    """``model`` with each workload of ``rates`` (name -> SSCH/s) at that rate (at least 1e-3)."""
    from ..model import Model
    d = copy.deepcopy(model.to_dict())
    for w in d.get("topology", {}).get("workload", []):
        if w.get("name") in rates:
            w["rate_iops"] = float(max(rates[w["name"]], 1e-3))
    return Model.from_dict(d, where="replayed interval")


def _ci(x) -> float:
    from ..engine import ci95_halfwidth
    return float(ci95_halfwidth(np.asarray(x, float))) if len(x) > 1 else float("nan")


def _figures(ds) -> dict:
    """The model's figures (printed units) and their 95 % CI over replications."""
    ci_var = {"throughput_iops": "throughput_ci95_iops"}
    ci_var.update({v: v[:-3] + "_ci95_ms" for v, *_r in METRICS.values() if v.endswith("_ms")})
    out = {}
    for k, (var, _m, scale, _l) in METRICS.items():
        a = ds[var]
        if "channel" in a.dims:
            a = a.mean("channel")
        v = a.values * scale
        out[k] = float(np.nanmean(v))
        out[k + "_ci95"] = float(ds[ci_var[var]].values) * scale if var in ci_var else _ci(v)
    return out


def replay(model, obs, intervals, workload_lcu: dict, ios: int = 50_000, replications: int = 4,
           seed: int = 1, progress=None) -> pd.DataFrame:
    """One row per interval: ``model_<metric>``, ``model_<metric>_ci95``, ``measured_<metric>``,
    ``error_<metric>`` (ratio - 1, or points for busy), ``status`` ('' or why not simulated)."""
    from ..engine import simulate
    rates = interval_rates(obs, workload_lcu)
    rows = []
    for i, t in enumerate(intervals):
        r = {"interval": pd.Timestamp(t)}
        meas = obs.totals.loc[t]
        try:
            m = interval_model(model, rates.loc[t].to_dict())
            ds = simulate(m, ios=ios, replications=replications, seed=seed, point=i)
            f = _figures(ds)
            r["status"] = str(ds.attrs.get("unstable_reason", ""))
        except McioError as e:
            f = {k: float("nan") for k in METRICS} | {k + "_ci95": float("nan") for k in METRICS}
            r["status"] = f"not simulated: {e}"
        for k, (_v, col, _s, _l) in METRICS.items():
            mv = float(meas.get(col, np.nan))
            r[f"model_{k}"], r[f"model_{k}_ci95"], r[f"measured_{k}"] = f[k], f[k + "_ci95"], mv
            if k in DIFFERENCE:
                r[f"error_{k}"] = f[k] - mv
            else:
                r[f"error_{k}"] = f[k] / mv - 1.0 if np.isfinite(mv) and mv > 0 else float("nan")
        rows.append(r)
        if progress:
            progress(f"  interval {pd.Timestamp(t)}: {r['status'] or 'ok'}")
    return pd.DataFrame(rows).set_index("interval")


def format_table(df: pd.DataFrame, title: str = "model vs measured") -> str:
    """Per interval, a block: metric, model +/- CI, measured, error; then the mean |error|."""
    out = [f"{title} (model: mean +/- 95 % CI over replications; error: model / measured - 1; busy in points, IOSQ in ms)"]
    for t, r in df.iterrows():
        out.append(f"interval {t:%Y-%m-%d %H:%M:%S}" + (f"  [{r['status']}]" if r["status"] else ""))
        out.append(f"  {'':<16}{'model':>12}{'+/- CI':>10}{'measured':>12}{'error':>10}")
        for k, (_v, _c, _s, label) in METRICS.items():
            mv, ci, me, er = r[f"model_{k}"], r[f"model_{k}_ci95"], r[f"measured_{k}"], r[f"error_{k}"]
            fmt = ".1f" if k in ("ssch_per_s",) else ".2f" if k in POINTS else ".4g"
            err = ("-" if not np.isfinite(er) else f"{er:+.2f} pt" if k in POINTS else f"{er:+.3f} ms"
                   if k in DIFFERENCE else f"{100 * er:+.1f} %")
            out.append(f"  {label:<16}{format(mv, fmt):>12}{format(ci, '.2g') if np.isfinite(ci) else '-':>10}"
                       f"{format(me, fmt) if np.isfinite(me) else '-':>12}{err:>10}")
    out.append("mean |error| over the intervals: " + ", ".join(
        f"{METRICS[k][3]} {np.nanmean(np.abs(df[f'error_{k}'])) * (1 if k in DIFFERENCE else 100):.3g}"
        + (" pt" if k in POINTS else " ms" if k in DIFFERENCE else " %") for k in METRICS if np.isfinite(df[f"error_{k}"]).any()))
    return "\n".join(out)


def format_wide(df: pd.DataFrame, title: str = "model vs measured") -> str:
    """One line per interval: each metric's model value and, in brackets, the measured one
    (busy in %, times in ms); the planner's view of a day on a changed model."""
    heads = {"ssch_per_s": ("I/O /s", 9, ".0f"), "resp_ms": ("resp ms", 8, ".4f"), "pend_ms": ("pend", 7, ".4f"),
             "disc_ms": ("disc", 7, ".4f"), "conn_ms": ("conn", 7, ".4f"), "dev_util_pct": ("dev %", 6, ".2f"),
             "channel_busy_pct": ("chan %", 6, ".2f")}
    out = [f"{title}: model (measured) per interval",
           f"{'interval':<17}" + "".join(f"{h:>{2 * w + 3}}" for h, w, _f in heads.values())]
    for t, r in df.iterrows():
        cells = []
        for k, (_h, w, f) in heads.items():
            mv, me = r[f"model_{k}"], r[f"measured_{k}"]
            cells.append(f"{format(mv, f) if np.isfinite(mv) else '-':>{w}} ({format(me, f) if np.isfinite(me) else '-':>{w}})")
        out.append(f"{t:%Y-%m-%d %H:%M} " + "".join(f"{c:>{2 * heads[k][1] + 3}}" for c, k in zip(cells, heads))
                   + (f"  [{r['status']}]" if r["status"] else ""))
    return "\n".join(out)


def to_dataset(df: pd.DataFrame, attrs: dict | None = None):
    """The per-interval table as an xarray Dataset (dimension ``interval``, labelled by its start,
    ISO 8601 text: the store writes no datetime type)."""
    import xarray as xr
    ds = xr.Dataset({c: ("interval", df[c].to_numpy()) for c in df.columns if c != "status"},
                    coords={"interval": np.array([f"{t:%Y-%m-%dT%H:%M:%S}" for t in df.index], dtype=str)})
    ds["status"] = ("interval", df["status"].astype(str).to_numpy())
    for k, (_v, _c, _s, label) in METRICS.items():
        for pre in ("model_", "measured_"):
            ds[pre + k].attrs["long_name"] = f"{label} ({pre[:-1]})"
        ds[f"model_{k}_ci95"].attrs["long_name"] = f"95 % CI half-width of the model's {label}"
    ds.attrs.update({"title": "mcio base replay: model vs measured per interval", **(attrs or {})})
    return ds


__all__ = ["METRICS", "interval_rates", "interval_model", "replay", "format_table", "format_wide", "to_dataset"]
