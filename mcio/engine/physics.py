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


def violation(model, part) -> str:
    """The first bound a stable point's figures break ("" if none), as the unstable reason."""
    def arr(name):
        return np.asarray(part.data(name), float) if name in part.vars else None

    n = arr("ios_measured")
    n_min = max(1.0, float(n.min())) if n is not None and n.size else 1.0
    d, cu = model.devices, model.control_unit
    shares = model.class_shares()
    miss = max(float(sum(s * c["miss_ratio"] for s, c in zip(shares, model.io))), 1.0 / n_min)
    exposures = d["count"] * device_servers(model)
    # (figure, bound per server, servers, measured I/Os that use them)
    stations = (("channel_busy", 1.0, model.channels["count"], n_min),
                ("link_busy", 1.0, model.channels["count"], n_min),
                ("cu_ha_busy", 1.0, cu["ha_servers"], n_min),
                ("backend_busy", 1.0, cu["backend_servers"], n_min * miss),
                ("device_busy", device_servers(model), exposures, n_min),
                ("device_busy_zvm", device_servers(model), exposures, n_min))
    for name, bound, servers, n_used in stations:
        x = arr(name)
        if x is None:
            continue
        edge = EDGE_SERVICES * servers / n_used
        top = bound * (1 + ROUNDING + (edge if edge <= MAX_EDGE else 0.0))
        bad = ~((x >= -ROUNDING) & (x <= top))
        if bad.any():
            worst = float(x[bad].flat[np.argmax(np.abs(x[bad]))])
            return (f"run too short for a steady state: {name} {worst:.6g} outside [0, {bound:g}] "
                    f"(busy per server at most 1; raise run.ios)")
    rate = offered_iops(model)
    thr = arr("throughput_iops")
    if rate is not None and thr is not None and n is not None:
        m = np.maximum(n, 2.0)
        slack = m / (m - 1) * (1 + THROUGHPUT_Z * np.sqrt(max(1.0, arrival_scv(model)) / m))
        over = thr > rate * slack
        if over.any():
            return (f"run too short for a steady state: throughput {float(thr[over].max()):.6g} I/Os per second "
                    f"above the {rate:.6g} offered beyond sampling error (raise run.ios)")
    parts = [arr(c) for c in ("iosq_ms", "pend_ms", "disconnect_ms", "connect_ms")]
    resp = arr("response_ms")
    if resp is not None and all(p is not None for p in parts):
        total = parts[0] + parts[1] + parts[2] + parts[3]
        off = np.abs(total - resp) > 1e-6 * np.maximum(np.abs(resp), 1e-9)
        if off.any():
            return (f"components do not sum to the response: IOSQ + pend + disconnect + connect "
                    f"{float(total[off][0]):.6g} ms, response {float(resp[off][0]):.6g} ms")
    return ""
