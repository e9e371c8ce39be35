"""The bounds physics sets on a stable point's figures, and the run length a steady-state figure
needs: a point whose run was too short for them is flagged unstable, with the reason, never
stored as stable.

- **Busy** in [0, 1] per server: each channel's MP and link, the host adapters and the back end
  (their figures are per server already), a device's exposures (the base and its static aliases,
  or the devices and the HyperPAV pool, over the devices). A busy figure counts the whole of each
  measured I/O's work, also the part before the interval began (an I/O in service when it
  began): an edge of about one service per server, c / n of the figure for c servers and n
  measured I/Os. A figure over its bound is taken as that edge only where the edge is small
  (EDGE_SERVICES x c / n <= MAX_EDGE) and covers it: allowed, bound x (1 + EDGE_SERVICES x c / n);
  else the run was too short.
- **Throughput** of an open load at most what was offered, beyond sampling error: the measured
  interval holds ``n`` completions of ``n`` arrivals, whose gaps sum to the interval within a
  relative error of sqrt(SCV / n); allowed: rate x n / (n - 1) x (1 + 5 sqrt(max(SCV, 1) / n)).
- **Components** summing to the response: IOSQ + pend + disconnect + connect (to rounding).
- **Run length**: an open load's measured interval is the sum of its arrival gaps, of relative
  error sqrt(SCV / n): at least ``MIN_GAPS_PER_SCV`` x max(1, SCV) measured I/Os (error <= 0.5)
  and two (one I/O spans no gap).

These are not clipped: a figure past its bound says the run did not reach a steady state (a
burst of arrivals, a busy period cut by the run's end) and the point is flagged.
"""
from __future__ import annotations

import math

import numpy as np

from ..idcache import IdentityCache

#: measured I/Os per unit of arrival SCV (max(1, SCV)) an open run needs: relative error of its
#: measured interval sqrt(SCV / n) <= 0.5
MIN_GAPS_PER_SCV = 4
#: rounding slack on bounds that hold exactly (sums of float64 durations)
ROUNDING = 1e-9
#: sampling slack of the throughput bound, in relative standard errors
THROUGHPUT_Z = 5.0
#: services per server a busy figure may count beyond its interval's (see the module's doc)
EDGE_SERVICES = 3.0
#: the largest relative edge a figure over its bound may be excused by
MAX_EDGE = 0.01


def arrival_scv(model) -> float:
    """The SCV of an open load's arrival gaps (a trace's, from its gaps; 1 where undefined)."""
    w = model.workload
    tr = w["arrival_trace_ms"]
    if tr is None:
        return float(w["arrival_scv"])
    gaps = np.diff(np.asarray(tr, float))
    m = gaps.mean()
    return float(gaps.var() / m**2) if m > 0 else 1.0


def offered_iops(model) -> float | None:
    """The rate an open load offers (I/Os per second); None for a closed load."""
    w = model.workload
    if w["type"] != "open":
        return None
    tr = w["arrival_trace_ms"]
    if tr is None:
        return float(w["rate_iops"])
    return (len(tr) - 1) / (tr[-1] - tr[0]) * 1000.0


def too_short(model, ios: int) -> str:
    """Why ``ios`` measured I/Os per replication cannot give ``model`` a steady-state figure
    ("" if they can)."""
    if model.workload["type"] != "open":
        return ""
    scv = arrival_scv(model)
    need = max(2, math.ceil(MIN_GAPS_PER_SCV * max(1.0, scv)))
    if ios < need:
        return (f"run too short: {ios} measured I/O(s) per replication; an open load whose arrival gaps have "
                f"SCV {scv:g} needs at least {need} for its measured interval (raise run.ios)")
    return ""


def device_servers(model) -> float:
    """Exposures per device (mean over devices): the bound of device busy."""
    d = model.devices
    if d["alias_mode"] == "hyperpav":
        return (d["count"] + d["aliases"]) / d["count"]
    return 1.0 + d["aliases"]


_LIMITS = IdentityCache(256)   # model -> its limits: a sweep's points share their models' figures


def _limits(model):
    """``model``'s figures for :func:`violation` (made once per model): per busy figure (name,
    bound per server, servers, whether it counts misses only), the offered rate, the arrival SCV."""
    return _LIMITS.get((model,), lambda: _make_limits(model))


def _make_limits(model):
    d, cu, ch = model.devices, model.control_unit, model.channels
    tot = sum(c["share"] for c in model.io)
    miss = sum(c["share"] * c["miss_ratio"] for c in model.io) / tot
    dev = device_servers(model)
    stations = (("channel_busy", 1.0, ch["count"], False), ("link_busy", 1.0, ch["count"], False),
                ("cu_ha_busy", 1.0, cu["ha_servers"], False), ("backend_busy", 1.0, cu["backend_servers"], True),
                ("device_busy", dev, d["count"] * dev, False), ("device_busy_zvm", dev, d["count"] * dev, False))
    rate = offered_iops(model)
    return stations, miss, rate, arrival_scv(model) if rate is not None else 1.0


def _within(x: np.ndarray, lo: float, hi: float) -> bool:
    """Every element of ``x`` in [lo, hi] (NaN is not). A point's figures are a few values a
    replication: Python's comparisons over them cost less than NumPy's reductions' set-up."""
    if x.size > 64:
        return bool(x.min() >= lo and x.max() <= hi)
    return all(lo <= v <= hi for v in x.ravel().tolist())


def violation(model, part) -> str:
    """The first bound a stable point's figures break ("" if none), as the unstable reason."""
    var = part.vars
    stations, miss, rate, scv = _limits(model)
    n = np.asarray(var["ios_measured"][1], float) if "ios_measured" in var else None
    n_min = max(1.0, float(n.min())) if n is not None and n.size else 1.0
    for name, bound, servers, misses_only in stations:
        if name not in var:
            continue
        x = np.asarray(var[name][1], float)
        if not x.size:
            continue
        n_used = n_min * max(miss, 1.0 / n_min) if misses_only else n_min
        edge = EDGE_SERVICES * servers / n_used
        top = bound * (1 + ROUNDING + (edge if edge <= MAX_EDGE else 0.0))
        if _within(x, -ROUNDING, top):      # (NaN is not: looked at below)
            continue
        bad = ~((x >= -ROUNDING) & (x <= top))
        if bad.any():
            worst = float(x[bad].flat[np.argmax(np.abs(x[bad]))])
            return (f"run too short for a steady state: {name} {worst:.6g} outside [0, {bound:g}] "
                    f"(busy per server at most 1; raise run.ios)")
    if rate is not None and n is not None and "throughput_iops" in var:
        # (per replication; the replications' n differ only when a run was cut short)
        m = max(2.0, n_min)
        slack = m / (m - 1) * (1 + THROUGHPUT_Z * math.sqrt(max(1.0, scv) / m))
        thr = float(np.max(var["throughput_iops"][1]))
        if not thr <= rate * slack:
            return (f"run too short for a steady state: throughput {thr:.6g} I/Os per second "
                    f"above the {rate:.6g} offered beyond sampling error (raise run.ios)")
    names = ("iosq_ms", "pend_ms", "disconnect_ms", "connect_ms", "response_ms")
    if all(c in var for c in names):
        iosq, pend, disc, conn, resp = (var[c][1] for c in names)
        for r in range(resp.shape[0]):
            total = float(iosq[r]) + float(pend[r]) + float(disc[r]) + float(conn[r])
            if not abs(total - float(resp[r])) <= 1e-6 * max(abs(float(resp[r])), 1e-9):
                return (f"components do not sum to the response: IOSQ + pend + disconnect + connect "
                        f"{total:.6g} ms, response {float(resp[r]):.6g} ms")
    return ""
