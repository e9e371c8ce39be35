"""The control units', LCUs' and workloads' results (issue 28) in RMF's vocabulary: the extra
Dataset variables of a configuration given as tables (not of the single-path model, whose
Dataset stays as it is).

``extra_vars(tables, sts, wls, whist, dvs, T_ms)`` turns the kernels' per-station, per-workload
and per-device accumulators (kernels/stations.py, kernels/workloads.py; stacked by replication)
into ``assemble``'s extra entries ``{name: (dims, array, attrs, is_coord)}``:

- per control unit, dims ("replication", "control_unit"): ``control_unit_ssch_iops`` (SSCH/s),
  ``control_unit_ha_busy`` and ``control_unit_backend_busy`` (utilisation: busy server-ms per ms
  per server), ``control_unit_{response,pend,disconnect,connect}_ms`` (means per I/O);
- per LCU, dims ("replication", "lcu"): ``lcu_ssch_iops`` and ``lcu_{response,pend,disconnect,
  connect}_ms`` (the sums of its devices' I/Os), coordinate ``lcu_control_unit``;
- per workload, dims ("replication", "workload"): ``workload_ssch_iops`` and
  ``workload_{response,iosq,pend,cmr,disconnect,connect}_ms``, each with its 95 % CI half-width
  over replications (dims ("workload",), ``_ci95`` before the unit), ``workload_response_std_ms``,
  and the response-time quantiles of the workload's histogram, all replications merged
  (``workload_response_quantile_ms``, dims ("workload", "quantile")) with their CI
  (``workload_response_quantile_ci95_ms``).

Coordinates ``control_unit``, ``lcu`` and ``workload`` carry the names. A mean over no I/O is NaN.
Times in ms, rates in s-1 (SSCH/s).
"""
from __future__ import annotations

import numpy as np

from ..kernels.histogram import hist_quantiles_into
from ..kernels.stations import ST_WORK_MS
from ..kernels.workloads import DS_N, DS_SUM, WL_N, WL_SQ, WL_SUM
from .results import QUANTILES, _attrs, ci95_halfwidth
from .tables import Tables

COMPONENTS = ("response", "iosq", "pend", "cmr", "disconnect", "connect")   # WL_SUM + i, DS_SUM + i
_LONG = {"response": "response time (IOSQ + pend + disconnect + connect)", "iosq": "IOSQ time",
         "pend": "pend time (incl. CMR)", "cmr": "command response (CMR) delay",
         "disconnect": "disconnect time", "connect": "connect time"}
_LEVEL_COMPONENTS = ("response", "pend", "disconnect", "connect")


def _entry(data, dims, units, long_name, is_coord=False):
    return (tuple(dims), np.asarray(data), _attrs(units, long_name), is_coord)


def _mean(sums, n):
    """sums / n, NaN where n is 0."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, sums / np.where(n > 0, n, 1.0), np.nan)


def _by(groups: np.ndarray, n_groups: int, x: np.ndarray) -> np.ndarray:
    """x[R, D, ...] summed over the devices of each group (groups int64[D]): [R, n_groups, ...]."""
    out = np.zeros((x.shape[0], n_groups) + x.shape[2:])
    for g in range(n_groups):
        out[:, g] = x[:, groups == g].sum(axis=1)
    return out


def _ci(x: np.ndarray) -> np.ndarray:
    """95 % CI half-width over replications (axis 0); NaN with one replication."""
    return ci95_halfwidth(x, axis=0) if x.shape[0] > 1 else np.full(x.shape[1:], np.nan)


def _level(prefix: str, what: str, dvs_g: np.ndarray, T_ms: np.ndarray, dim: str) -> dict:
    """SSCH/s and mean response, pend, disconnect, connect of a level (control unit, LCU) from
    its devices' summed accumulators dvs_g[R, G, N_DS]."""
    dims = ("replication", dim)
    n = dvs_g[:, :, DS_N]
    out = {f"{prefix}_ssch_iops": _entry(n / T_ms[:, None] * 1000.0, dims, "s-1", f"I/O rate (SSCH/s) per {what}")}
    for comp in _LEVEL_COMPONENTS:
        i = COMPONENTS.index(comp)
        out[f"{prefix}_{comp}_ms"] = _entry(_mean(dvs_g[:, :, DS_SUM + i], n), dims, "ms",
                                            f"mean {_LONG[comp]} per {what}")
    return out


def extra_vars(tables: Tables, sts, wls, whist, dvs, T_ms) -> dict:
    """The per-control-unit, per-LCU and per-workload variables (module docstring) from the
    accumulators stacked by replication: sts float64[R, 2U, N_ST], wls float64[R, W, N_WL],
    whist int64[R, W, HIST_BUCKETS], dvs float64[R, D, N_DS]; T_ms float64[R] the measured
    interval of each replication (ms)."""
    with np.errstate(divide="ignore", invalid="ignore"):    # (a replication stopped before measuring)
        return _extra_vars(tables, sts, wls, whist, dvs, T_ms)


def _extra_vars(tables: Tables, sts, wls, whist, dvs, T_ms) -> dict:
    T_ms = np.asarray(T_ms, float)
    U, NL, W = tables.n_cus, len(tables.lcu_name), len(tables.wl_name)
    out: dict = {}
    # ---- control units
    cu_dvs = _by(np.asarray(tables.dev_cu), U, dvs)
    out.update(_level("control_unit", "control unit", cu_dvs, T_ms, "control_unit"))
    dims = ("replication", "control_unit")
    ha = sts[:, 0::2, ST_WORK_MS] / T_ms[:, None] / np.asarray(tables.cu_ha_servers, float)
    be = sts[:, 1::2, ST_WORK_MS] / T_ms[:, None] / np.asarray(tables.cu_be_servers, float)
    out["control_unit_ha_busy"] = _entry(ha, dims, "1", "host-adapter utilisation per control unit")
    out["control_unit_backend_busy"] = _entry(be, dims, "1", "back-end utilisation per control unit")
    # ---- LCUs
    out.update(_level("lcu", "LCU", _by(np.asarray(tables.dev_lcu), NL, dvs), T_ms, "lcu"))
    # ---- workloads
    dims = ("replication", "workload")
    n = wls[:, :, WL_N]
    rate = n / T_ms[:, None] * 1000.0
    out["workload_ssch_iops"] = _entry(rate, dims, "s-1", "I/O rate (SSCH/s) per workload")
    out["workload_ssch_ci95_iops"] = _entry(_ci(rate), ("workload",), "s-1",
                                            "95% CI half-width of the I/O rate per workload")
    for i, comp in enumerate(COMPONENTS):
        m = _mean(wls[:, :, WL_SUM + i], n)
        out[f"workload_{comp}_ms"] = _entry(m, dims, "ms", f"mean {_LONG[comp]} per workload")
        out[f"workload_{comp}_ci95_ms"] = _entry(_ci(m), ("workload",), "ms",
                                                 f"95% CI half-width of mean {comp} per workload over replications")
    mean = _mean(wls[:, :, WL_SUM], n)
    with np.errstate(invalid="ignore"):
        var = _mean(wls[:, :, WL_SQ], n) - mean * mean
    out["workload_response_std_ms"] = _entry(np.sqrt(np.maximum(var, 0.0)), dims, "ms",
                                             "standard deviation of response time per workload")
    P = len(QUANTILES)
    R = whist.shape[0]
    q = np.empty((W, P))
    q_ci = np.empty((W, P))
    rep = np.empty((R, P))
    probs = np.array(QUANTILES)
    for w in range(W):
        hist_quantiles_into(np.ascontiguousarray(whist[:, w, :]), probs, rep, q[w])
        q_ci[w] = _ci(rep)
    out["workload_response_quantile_ms"] = _entry(q, ("workload", "quantile"), "ms",
                                                  "response-time quantile per workload (all replications merged)")
    out["workload_response_quantile_ci95_ms"] = _entry(q_ci, ("workload", "quantile"), "ms",
                                                       "95% CI half-width of the quantile per workload over replications")
    # ---- coordinates (names)
    out["control_unit"] = _entry(np.array(tables.cu_name, dtype=str), ("control_unit",), "1",
                                 "control unit", is_coord=True)
    out["lcu"] = _entry(np.array(tables.lcu_name, dtype=str), ("lcu",), "1", "logical control unit (LCU)",
                        is_coord=True)
    out["lcu_control_unit"] = _entry(np.array([tables.cu_name[u] for u in tables.lcu_cu], dtype=str), ("lcu",),
                                     "1", "the LCU's control unit", is_coord=True)
    out["workload"] = _entry(np.array(tables.wl_name, dtype=str), ("workload",), "1",
                             "workload (LPAR or application)", is_coord=True)
    return out
