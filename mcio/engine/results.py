"""Raw accumulators -> the labelled results Dataset (DESIGN.md §4), and confidence intervals."""
from __future__ import annotations

import math

import numpy as np
import xarray as xr
from scipy import stats

from ..kernels import layout as L
from ..kernels.histogram import hist_quantiles
from ..model import Model

QUANTILES = (0.5, 0.9, 0.95, 0.99)


def ci95_halfwidth(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Student-t 95 % half-width of the mean of ``x`` along ``axis`` (replications)."""
    n = x.shape[axis]
    return stats.t.ppf(0.975, n - 1) * np.std(x, axis=axis, ddof=1) / math.sqrt(n)


def _var(data, dims, units, long_name):
    return xr.Variable(dims, data, attrs={"units": units, "long_name": long_name})


def assemble(model: Model, acc, chs, devs, hist, per_device: bool, extra: dict | None = None) -> xr.Dataset:
    """Turn raw accumulators into the labelled results Dataset."""
    R, C = chs.shape[0], chs.shape[1]
    n = np.maximum(acc[:, L.A_N], 1.0)
    T = np.maximum(acc[:, L.A_TIME_MS], 1e-300)
    unstable = bool(acc[:, L.A_UNSTABLE].any())
    v = {}
    names = {"response": "response time (IOSQ + pend + disconnect + connect)",
             "iosq": "IOSQ time (queued for the device)", "pend": "pend time (incl. CMR)",
             "cmr": "command response (CMR) delay", "disconnect": "disconnect time",
             "connect": "connect time"}
    sums = [L.A_SUM_RESP, L.A_SUM_IOSQ, L.A_SUM_PEND, L.A_SUM_CMR, L.A_SUM_DISC, L.A_SUM_CONN]
    for comp, k in zip(L.COMPONENTS, sums):
        mean = acc[:, k] / n
        v[f"{comp}_ms"] = _var(mean, ("replication",), "ms", "mean " + names[comp])
        v[f"{comp}_ci95_ms"] = _var(ci95_halfwidth(mean), (), "ms",
                                    f"95% CI half-width of mean {comp} over replications")
    sq = acc[:, L.A_SQ_RESP] / n - (acc[:, L.A_SUM_RESP] / n) ** 2
    v["response_std_ms"] = _var(np.sqrt(np.maximum(sq, 0.0)), ("replication",), "ms",
                                "standard deviation of response time")
    thr = acc[:, L.A_N] / T * 1000.0
    v["throughput_iops"] = _var(thr, ("replication",), "s-1", "I/O rate (SSCH/s)")
    v["throughput_ci95_iops"] = _var(ci95_halfwidth(thr), (), "s-1", "95% CI half-width of the I/O rate")
    total_hist = hist.sum(axis=0)
    v["response_quantile_ms"] = _var(hist_quantiles(total_hist, QUANTILES), ("quantile",), "ms",
                                     "response-time quantile (all replications merged)")
    per_rep = np.array([hist_quantiles(h, QUANTILES) for h in hist])
    v["response_quantile_rep_ms"] = _var(per_rep, ("replication", "quantile"), "ms",
                                         "response-time quantile per replication")
    v["response_quantile_ci95_ms"] = _var(ci95_halfwidth(per_rep, axis=0), ("quantile",), "ms",
                                          "95% CI half-width of the quantile over replications")
    v["in_system_mean"] = _var(acc[:, L.A_AREA_SYS] / T, ("replication",), "1",
                               "time-average number of I/Os in the system")
    v["iosq_queue_mean"] = _var(acc[:, L.A_AREA_IOSQ] / T, ("replication",), "1",
                                "time-average number of I/Os queued for devices (IOSQ)")
    v["mp_queue_mean"] = _var(acc[:, L.A_AREA_MPQ] / T, ("replication",), "1",
                              "time-average number of I/Os waiting for the channel MP (start work)")
    v["cu_ha_busy"] = _var(acc[:, L.A_AREA_HA] / T / model.control_unit["ha_servers"], ("replication",), "1",
                           "control-unit host-adapter utilisation")
    v["backend_busy"] = _var(acc[:, L.A_AREA_BE] / T / model.control_unit["backend_servers"], ("replication",),
                             "1", "back-end utilisation")
    v["device_busy"] = _var(acc[:, L.A_DEV_BUSY_MS] / T / model.devices["count"], ("replication",), "1",
                            "device busy, RMF definition: (disconnect + connect) / interval, mean over devices")
    v["device_busy_zvm"] = _var(acc[:, L.A_DEV_BUSY_ZVM_MS] / T / model.devices["count"], ("replication",), "1",
                                "device busy, z/VM definition: (pend + disconnect + connect) / interval, mean over devices")
    v["ios_measured"] = _var(acc[:, L.A_N], ("replication",), "1", "I/Os measured (after warm-up)")
    v["sim_time_s"] = _var(T / 1000.0, ("replication",), "s", "simulated measurement interval")
    Tc = T[:, None]
    v["channel_busy"] = _var(chs[:, :, L.C_MP_BUSY_MS] / Tc, ("replication", "channel"), "1",
                             "channel (MP) busy fraction, RMF channel utilisation")
    v["link_busy"] = _var(chs[:, :, L.C_LINK_BUSY_MS] / Tc, ("replication", "channel"), "1",
                          "link (bus) busy fraction")
    v["open_exchanges_mean"] = _var(chs[:, :, L.C_AREA_OE] / Tc, ("replication", "channel"), "1",
                                    "time-average open exchanges")
    v["open_exchanges_max"] = _var(chs[:, :, L.C_OE_MAX], ("replication", "channel"), "1",
                                   "peak open exchanges")
    v["deferred_iops"] = _var(chs[:, :, L.C_DEFERRED] / Tc * 1000.0, ("replication", "channel"), "s-1",
                              "I/Os deferred for lack of an open exchange, per second")
    v["channel_ssch_iops"] = _var(chs[:, :, L.C_SSCH] / Tc * 1000.0, ("replication", "channel"), "s-1",
                                  "I/O rate (SSCH/s) per channel")
    v["channel_mb_s"] = _var(chs[:, :, L.C_KB] / Tc, ("replication", "channel"), "MB s-1",
                             "data rate per channel (1 MB = 1000 KB)")
    if per_device:
        Td = T[:, None]
        v["device_ssch_iops"] = _var(devs[:, :, L.V_SSCH] / Td * 1000.0, ("replication", "device"), "s-1",
                                     "I/O rate (SSCH/s) per device")
        v["device_busy_by_device"] = _var(devs[:, :, L.V_BUSY_MS] / Td, ("replication", "device"), "1",
                                          "device busy per device, RMF definition")
    v["unstable"] = _var(np.int8(unstable), (), "1",
                         "1 if the open load outgrew the model (run stopped early), else 0")
    v.update(extra or {})          # one Dataset constructor: each later assignment is a merge
    coords = {"replication": np.arange(R), "channel": np.arange(C), "quantile": np.array(QUANTILES)}
    if per_device:
        coords["device"] = np.arange(model.devices["count"])
    ds = xr.Dataset(v, coords=coords)
    ds["quantile"].attrs.update(units="1", long_name="probability of the response-time quantile")
    ds["replication"].attrs.update(units="1", long_name="independent replication")
    ds["channel"].attrs.update(units="1", long_name="channel (CHPID) index")
    if per_device:
        ds["device"].attrs.update(units="1", long_name="device index")
    return ds
