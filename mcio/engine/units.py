"""A configuration's control units and workloads as kernel inputs (kernels/stations.py,
kernels/workloads.py): ``units_inputs`` completes a :class:`.pack.Packed` from its tables.

The single-path model (``tables.legacy``) keeps its arrays as they are and gets the one control
unit's two stations on its usual rows of draws (its results do not change). Any other
configuration: the control units' stations (control unit u: host adapter 2u, back end 2u + 1,
each with its servers and its own service distribution; control units after the first draw from
rows of their own, ``layout.CU_ROW_NAMES`` with the control unit's name), its devices, path groups
and I/O classes from the tables, and its workloads (open: the Poisson streams merged at the total
rate, each class drawn with probability rate_w * share_k / total; closed: the slots partitioned by
workload population, classes drawn within the slot's workload). Refused (McioError): open and
closed workloads mixed; several open workloads with non-Poisson arrivals or a trace (a merged
renewal stream is not a renewal stream of the same kind); a closed workload bound to devices.
Units: ms, KB.
"""
from __future__ import annotations

import numpy as np

from ..errors import McioError
from ..kernels import layout as L
from ..kernels.blockrng import row_keys
from ..kernels.histogram import HIST_BUCKETS
from ..kernels.stations import N_ST
from ..kernels.workloads import N_DS, N_WL
from ..model import Dist, Model
from .pack_links import link_ip
from .tables import Tables

OPEN_SLOTS = 1 << 16          # I/Os an open model may hold before it is called unstable


def alias_table(p: np.ndarray):
    """Walker's alias method: O(1) device choice under any skew. Returns (prob float64[n],
    alias int64[n]); ``p`` is left as it is. Built over Python floats and lists (the same IEEE
    double operations as on NumPy's scalars, ~2.4x faster for 1,024 devices: NumPy's element
    access dominated the event path's packing)."""
    n = len(p)
    prob = (np.asarray(p, dtype=np.float64) * n).tolist()
    alias = list(range(n))
    small = [i for i in range(n) if prob[i] < 1.0]
    large = [i for i in range(n) if prob[i] >= 1.0]
    while small and large:
        s, l = small.pop(), large.pop()
        alias[s] = l
        prob[l] -= 1.0 - prob[s]
        (small if prob[l] < 1.0 else large).append(l)
    for i in small + large:
        prob[i] = 1.0
    return np.array(prob, dtype=np.float64), np.array(alias, dtype=np.int64)




def _groups_arrays(groups, n_ch: int):
    """Path groups as the kernels' arrays: (grp_ptr, grp_ch, chg_ptr, chg)."""
    grp_ptr = np.cumsum([0] + [len(g) for g in groups]).astype(np.int64)
    grp_ch = np.array([ch for g in groups for ch in g], np.int64)
    ch_groups = [[gi for gi, g in enumerate(groups) if ch in g] for ch in range(n_ch)]
    chg_ptr = np.cumsum([0] + [len(x) for x in ch_groups]).astype(np.int64)
    chg = np.array([gi for x in ch_groups for gi in x] or [0], np.int64)
    return grp_ptr, grp_ch, chg_ptr, chg


def is_open(tables: Tables) -> bool:
    """True for open workloads (arrival rates), False for closed (populations); mixed: refused."""
    pop, rate = np.asarray(tables.wl_population), np.asarray(tables.wl_rate_iops)
    if (pop > 0).all() and (rate == 0).all():
        return False
    if (pop == 0).all() and (rate > 0).all():
        return True
    raise McioError("workloads", list(tables.wl_name),
                    "every workload must be open (a rate, population 0) or every one closed (a population, rate 0)")


def _alias_tables(tables: Tables):
    """Each workload's Walker alias table over its devices, concatenated: (al_ptr, al_prob,
    al_idx (within the workload), al_dev)."""
    ptr = np.asarray(tables.wl_dev_ptr, np.int64)
    probs, idxs = [], []
    for w in range(len(tables.wl_name)):
        wt = np.asarray(tables.wl_dev_weight[ptr[w]:ptr[w + 1]], float)
        if len(wt) == 0 or not wt.sum() > 0:
            raise McioError(f"workloads.{tables.wl_name[w]}.devices", len(wt), "needs a device with a positive weight")
        s = wt.sum()
        p, a = alias_table(wt if s == 1.0 else wt / s)
        probs.append(p)
        idxs.append(a)
    return (ptr, np.concatenate(probs), np.concatenate(idxs).astype(np.int64),
            np.asarray(tables.wl_dev, np.int64))


def _class_groups(tables: Tables, open_: bool, shares: np.ndarray):
    """The class groups: open, one of every class (probability rate_w * share_k / total);
    closed, one per workload (its classes, by share). (grp_ptr, grp_cls, grp_cum, cls_cum)."""
    nc = len(tables.cls_name)
    cls_wl = np.asarray(tables.cls_wl, np.int64)
    if open_:
        rate = np.asarray(tables.wl_rate_iops, float)
        p = shares * (rate / rate.sum())[cls_wl]
        cum = np.cumsum(p)
        return np.array([0, nc], np.int64), np.arange(nc, dtype=np.int64), cum, cum
    ptr, cls, cum = [0], [], []
    for w in range(len(tables.wl_name)):
        ks = np.flatnonzero(cls_wl == w)
        if len(ks) == 0:
            raise McioError(f"workloads.{tables.wl_name[w]}", "no class", "a workload needs an I/O class")
        s = shares[ks]
        cls.extend(ks)
        cum.extend(np.cumsum(s / s.sum() if abs(s.sum() - 1.0) > 1e-12 else s))
        ptr.append(len(cls))
    return (np.array(ptr, np.int64), np.array(cls, np.int64), np.array(cum, float),
            np.cumsum(shares))


def units_inputs(pk, model: Model, tables: Tables) -> None:
    """Complete ``pk`` (a Packed of ``model``) with the control units' and workloads' inputs
    ``pk.un`` from ``tables``; for a configuration other than the single-path model, also its
    devices, path groups, classes, slots, arrival stream and rows of draws (see the module)."""
    U = tables.n_cus
    D = len(tables.dev_lcu)
    servers = np.empty(2 * U, np.int64)
    servers[0::2] = tables.cu_ha_servers
    servers[1::2] = tables.cu_be_servers
    cu_row = np.empty(2 * U, np.int64)
    cu_row[:2] = (L.D_HA, L.D_BACKEND)
    cu_row[2:] = L.N_ROWS + np.arange(2 * U - 2)
    if tables.legacy:
        nc = len(pk.cls_kb)
        wl = (np.array([0, 1], np.int64), np.zeros(1, np.int64), np.ones(1), np.zeros(1, np.int64),
              np.zeros(nc, np.int64), np.array([0, 1], np.int64), np.ones(1), np.zeros(1, np.int64),
              np.zeros(1, np.int64))
        pk.un = (cu_row, servers, np.zeros(D, np.int64), wl)
        pk.n_workloads = 0
        return
    w, c, cu = model.workload, model.channels, model.control_unit
    if len(set(tables.cu_name)) != U:
        raise McioError("control_units", list(tables.cu_name), "control-unit names must be distinct")
    open_ = is_open(tables)
    W = len(tables.wl_name)
    ev, ec = list(pk.ev), list(pk.ec)
    rows = [list(r) for r in pk.dp] + [[0.0] * 5 for _ in range(L.N_ROWS - L.N_DIST)]
    names = list(L.ROW_NAMES)
    rows[L.D_HA] = tables.cu_ha_service_ms[0].kernel_row(ev, ec)
    rows[L.D_BACKEND] = tables.cu_be_service_ms[0].kernel_row(ev, ec)
    for u in range(1, U):
        for kind, dist in enumerate((tables.cu_ha_service_ms[u], tables.cu_be_service_ms[u])):
            rows.append(dist.kernel_row(ev, ec))
            names.append(L.CU_ROW_NAMES[kind].format(tables.cu_name[u]))
    traced = bool(w.get("arrival_trace_ms")) and w["type"] == "open"
    if open_:
        if W > 1 and (traced or w["arrival_scv"] != 1.0):
            raise McioError("workload.arrival_scv" if not traced else "workload.arrival_trace_ms",
                            w["arrival_trace_ms"] if traced else w["arrival_scv"],
                            "several open workloads merge as Poisson streams only: arrival_scv = 1, no trace")
        total = float(np.sum(tables.wl_rate_iops))
        rows[L.D_INTERARRIVAL] = Dist.from_mean_scv(1000.0 / total, w["arrival_scv"]).kernel_row(ev, ec)
        slots = OPEN_SLOTS
    else:
        if w["type"] == "closed" and w["binding"] == "device":
            raise McioError("workload.binding", "device", "a configuration's workloads choose devices by weight")
        slots = int(np.sum(tables.wl_population))
    shares = np.asarray(tables.cls_share, float)
    grp_ptr, grp_cls, grp_cum, cls_cum = _class_groups(tables, open_, shares)
    slot_grp = (np.zeros(1, np.int64) if open_
                else np.repeat(np.arange(W, dtype=np.int64), np.asarray(tables.wl_population, np.int64)))
    wl = (grp_ptr, grp_cls, grp_cum, slot_grp, np.asarray(tables.cls_wl, np.int64)) + _alias_tables(tables)
    # the classes (MP work: the first channel's, until per-channel MP work reads tables.mp_ms)
    nc = len(tables.cls_name)
    rec = np.asarray(tables.cls_records, float)
    cls_mp = np.zeros((nc, L.N_MPW))
    cls_mp[:, :2] = tables.mp_ms[0]
    cls_mp[:, L.MPW_WAKE] = c["mp_wake_us"] / 1000.0
    cls_mp[:, L.MPW_FIFO] = 1.0 if c["mp_order"] == "fifo" else 0.0
    cls_proto = np.empty((nc, 2))
    cls_proto[:, 0] = (c["protocol_us_per_command_ccw"] + cu["cu_us_per_command_ccw"]) * rec / 1000.0
    cls_proto[:, 1] = (c["protocol_us_per_io_zhpf"] + (c["protocol_us_per_command_zhpf"]
                                                       + cu["cu_us_per_command_zhpf"]) * rec) / 1000.0
    pk.cls_cum, pk.cls_kb, pk.cls_miss = cls_cum, np.asarray(tables.cls_kb, float), np.asarray(tables.cls_miss, float)
    pk.cls_mp, pk.cls_proto = cls_mp, cls_proto
    pk.dev_grp = np.asarray(tables.dev_grp, np.int64)
    pk.grp_ptr, pk.grp_ch, pk.chg_ptr, pk.chg = _groups_arrays(tables.groups, tables.n_channels)
    pk.bound_dev = np.zeros(1, np.int64)
    pk.dp = np.array(rows, np.float64)
    pk.ev, pk.ec = np.asarray(ev, float), np.asarray(ec, float)
    pk.row_keys = row_keys(names)
    ip = pk.ip
    ip[L.IP_OPEN] = int(open_)
    ip[L.IP_SLOTS] = slots
    # a link's list of transfers holds as many as can cross it, now counted with the workloads'
    # slots (pack's count was the model's own population's: a link could overflow its row)
    ip[L.IP_LN_SLOTS], ip[L.IP_ROUTES_GENERAL] = link_ip(tables, slots)
    ip[L.IP_DEVICES] = D
    ip[L.IP_CHANNELS] = tables.n_channels
    ip[L.IP_CLASSES] = nc
    ip[L.IP_GROUPS] = len(tables.groups)
    ip[L.IP_BIND] = 0
    ip[L.IP_TRACE] = int(open_ and traced)
    ip[L.IP_HA_SERVERS] = tables.cu_ha_servers[0]
    ip[L.IP_BE_SERVERS] = tables.cu_be_servers[0]
    ip[L.IP_WORKLOADS] = 1
    pk.un = (cu_row, servers, np.asarray(tables.dev_cu, np.int64), wl)
    pk.n_workloads = W


def unit_outputs(pk):
    """A replication's zeroed unit outputs for ``pk``: (sts float64[2U, N_ST], wls float64[W, N_WL],
    whist int64[W, HIST_BUCKETS], dvs float64[D, N_DS]); W = D = 0 for the single-path model."""
    S = len(pk.un[0])
    W = pk.n_workloads
    D = len(pk.un[2]) if W else 0
    return (np.zeros((S, N_ST)), np.zeros((W, N_WL)), np.zeros((W, HIST_BUCKETS), np.int64),
            np.zeros((D, N_DS)))
