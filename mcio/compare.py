"""What-if comparisons: two models run with common random numbers, the difference of every
headline figure with a paired 95 % confidence interval.

Replication r of both models uses the same random streams (keyed by seed, point, replication and
each row of draws' name), so the two runs see the same arrivals, the same service draws and the
same device choices wherever the models share them; the per-replication differences d_r = B_r - A_r
then vary far less than either run, and their Student-t interval (n - 1 degrees of freedom) is the
paired CI. The unpaired interval (Welch, as if the runs were independent) is reported beside it,
so the gain of pairing is visible.
"""
from __future__ import annotations

import math

import numpy as np
import xarray as xr

from .engine.results import ci95_halfwidth, t975
from .errors import McioError

#: figure -> (long name, units, per-replication values from a simulate() Dataset)
FIGURES = {
    "response_ms": ("mean response time", "ms", lambda ds: ds.response_ms.values),
    "iosq_ms": ("mean IOSQ time", "ms", lambda ds: ds.iosq_ms.values),
    "pend_ms": ("mean pend time", "ms", lambda ds: ds.pend_ms.values),
    "cmr_ms": ("mean CMR delay", "ms", lambda ds: ds.cmr_ms.values),
    "disconnect_ms": ("mean disconnect time", "ms", lambda ds: ds.disconnect_ms.values),
    "connect_ms": ("mean connect time", "ms", lambda ds: ds.connect_ms.values),
    "response_p90_ms": ("90th percentile of response", "ms",
                        lambda ds: ds.response_quantile_rep_ms.sel(quantile=0.9).values),
    "throughput_iops": ("I/O rate", "s-1", lambda ds: ds.throughput_iops.values),
    "channel_busy": ("channel MP busy, mean over channels", "1", lambda ds: ds.channel_busy.mean("channel").values),
    "device_busy": ("device busy (RMF)", "1", lambda ds: ds.device_busy.values),
    "open_exchanges_mean": ("open exchanges, sum over channels", "1",
                            lambda ds: ds.open_exchanges_mean.sum("channel").values),
}


def paired_ci95(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    """(mean of b - a, paired 95 % half-width, unpaired Welch 95 % half-width)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    n = a.size
    d = b - a
    paired = ci95_halfwidth(d)
    va, vb = a.var(ddof=1) / n, b.var(ddof=1) / n
    se = math.sqrt(va + vb)
    if se > 0:
        dof = (va + vb) ** 2 / (va**2 / (n - 1) + vb**2 / (n - 1)) if va + vb > 0 else n - 1
        unpaired = t975(dof) * se
    else:
        unpaired = 0.0
    return float(d.mean()), float(paired), float(unpaired)


def compare(model_a, model_b, ios: int = 200_000, replications: int = 8, seed: int = 0,
            labels: tuple[str, str] = ("A", "B"), warmup: int | None = None) -> xr.Dataset:
    """Simulate both models with the same streams; return a Dataset over ``figure`` with each
    model's mean, the difference B - A, its paired and unpaired 95 % CI half-widths and the
    relative difference."""
    from .engine import simulate
    from .model import Model
    for name, m in (("A", model_a), ("B", model_b)):
        if not isinstance(m, Model):
            raise McioError(f"compare.{name}", type(m).__name__, "must be an mcio.Model")
    if replications < 3:
        raise McioError("replications", replications, "a paired CI needs at least 3 replications")
    ds_a = simulate(model_a, ios=ios, replications=replications, seed=seed, warmup=warmup)
    ds_b = simulate(model_b, ios=ios, replications=replications, seed=seed, warmup=warmup)
    from .engine.limits import refuse_too_short
    for ds in (ds_a, ds_b):
        refuse_too_short(ds, "ios", ios)
    rows = []
    for fig, (_, _, get) in FIGURES.items():
        a, b = get(ds_a), get(ds_b)
        diff, pci, uci = paired_ci95(a, b)
        rows.append((a.mean(), b.mean(), diff, pci, uci, diff / a.mean() if a.mean() else np.nan))
    arr = np.array(rows)
    la, lb = labels

    def var(col, name, long, units_from_fig=True):
        units = [FIGURES[f][1] for f in FIGURES] if units_from_fig else "1"
        return xr.Variable(("figure",), arr[:, col], attrs={"long_name": long,
                                                              "units": units[0] if len(set(units)) == 1 else "1"})
    ds = xr.Dataset(
        {"a": (("figure",), arr[:, 0], {"long_name": f"mean over replications, {la}", "units": "1"}),
         "b": (("figure",), arr[:, 1], {"long_name": f"mean over replications, {lb}", "units": "1"}),
         "diff": (("figure",), arr[:, 2], {"long_name": f"{lb} - {la}", "units": "1"}),
         "diff_ci95": (("figure",), arr[:, 3], {"long_name": "paired 95% CI half-width of the difference "
                                                             "(common random numbers)", "units": "1"}),
         "diff_ci95_unpaired": (("figure",), arr[:, 4], {"long_name": "Welch 95% CI half-width as if the runs "
                                                                      "were independent", "units": "1"}),
         "rel_diff": (("figure",), arr[:, 5], {"long_name": f"({lb} - {la}) / {la}", "units": "1"}),
         "figure_units": (("figure",), np.array([FIGURES[f][1] for f in FIGURES]),
                          {"long_name": "unit of each figure (UDUNITS)"})},
        coords={"figure": ("figure", np.array(list(FIGURES)), {"long_name": "headline figure"})},
        attrs={"title": f"mcio compare: {la} vs {lb}", "Conventions": "CF-1.8", "seed": int(seed),
               "ios": int(ios), "replications": int(replications), "label_a": la, "label_b": lb,
               "model_a_toml": model_a.to_toml(), "model_b_toml": model_b.to_toml(),
               "pairing": "replication r of both models uses the same random streams"})
    return ds


def format_compare(ds: xr.Dataset) -> str:
    """The table an analyst reads: each figure, both values, the difference and its CIs."""
    la, lb = ds.attrs["label_a"], ds.attrs["label_b"]
    head = ("figure", la, lb, f"{lb} - {la}", "paired 95% CI", "unpaired CI", "change")
    body = []
    for i, f in enumerate(ds.figure.values):
        u = str(ds.figure_units.values[i])
        body.append((f"{f} [{u}]", f"{ds.a.values[i]:.4g}", f"{ds.b.values[i]:.4g}", f"{ds['diff'].values[i]:+.4g}",
                     f"±{ds.diff_ci95.values[i]:.3g}", f"±{ds.diff_ci95_unpaired.values[i]:.3g}",
                     f"{100 * ds.rel_diff.values[i]:+.1f} %" if np.isfinite(ds.rel_diff.values[i]) else "-"))
    widths = [max(len(r[k]) for r in [head] + body) for k in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [head] + body)


__all__ = ["compare", "paired_ci95", "format_compare", "FIGURES"]
