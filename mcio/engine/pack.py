"""Model -> kernel inputs: the only writer of the layout indices (mcio/kernels/layout.py).

Validation and unit conversion happen above the kernels (they trust their inputs); kernels run
in ms and KB.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..idcache import IdentityCache
from ..kernels import layout as L
from ..kernels.blockrng import row_keys
from ..model import Dist, Model
from ..model.costs import MODES, mp_us_per_io
from .pack_links import link_arrays, link_ip
from .tables import Tables, path_groups, tables_of
from .units import OPEN_SLOTS, _groups_arrays, unit_outputs, units_inputs
from .units import alias_table as _alias_table



# ---------------------------------------------------------------------------- random streams


def stream_states(seed: int, point: int, replications: int) -> np.ndarray:
    """xoshiro256** states, one per replication, keyed by (seed, point, replication)."""
    seed, point = int(seed), int(point)
    out = np.array([np.random.SeedSequence(entropy=seed, spawn_key=(point, r)).generate_state(4, np.uint64)
                    for r in range(replications)], dtype=np.uint64).reshape(replications, 4)
    out[~out.any(axis=1), 0] = 1      # the all-zero state is xoshiro's only fixed point
    return out


# ---------------------------------------------------------------------------- packing


def _dist_row(d: Dist, ev: list, ec: list) -> list:
    """The kernels' table row of ``d`` (``Dist.kernel_row``; the kind's own module knows it)."""
    return d.kernel_row(ev, ec)


@dataclass
class Packed:
    """Everything a kernel needs, as arrays (see mcio/kernels/layout.py)."""

    fp: np.ndarray
    ip: np.ndarray
    dp: np.ndarray
    ev: np.ndarray
    ec: np.ndarray
    cls_cum: np.ndarray
    cls_kb: np.ndarray
    cls_miss: np.ndarray
    cls_mp: np.ndarray
    cls_proto: np.ndarray
    al_prob: np.ndarray
    al_idx: np.ndarray
    dev_grp: np.ndarray
    bound_dev: np.ndarray
    grp_ptr: np.ndarray
    grp_ch: np.ndarray
    chg_ptr: np.ndarray
    chg: np.ndarray
    trace: np.ndarray
    row_keys: np.ndarray        # uint64[N_ROWS]: each row of draws' stream key (blockrng.row_key)
    tables: Tables | None = None   # the configuration the arrays were packed from
    lk: tuple = ()              # channels, links, routes, cards (engine/pack_links.py)
    un: tuple = ()              # the control units' and workloads' inputs (engine/units.py)
    n_workloads: int = 0        # W of the per-workload outputs (0: the single-path model, none)

    def unit_outputs(self):
        """A replication's zeroed outputs sts, wls, whist, dvs (engine/units.py)."""
        return unit_outputs(self)


def pack(model: Model, ios: int, warmup: int, tables: Tables | None = None, fast_path: bool = False) -> Packed:
    """Convert a validated model into kernel arrays (ms, KB, KB/ms); ``tables``: its configuration
    (None: :func:`.tables.tables_of`). ``fast_path``: only what the fast path's kernel reads
    (kernels/fastpath.py: no devices' alias table, path groups, links or control units, which
    were a tenth of a small sweep point's cost); the event kernel's arrays are left None and its
    ip entries 0, and the configuration's tables are not made (``Packed.tables``: ``tables``)."""
    if tables is None and not fast_path:
        tables = tables_of(model)
    w, d, c, cu = model.workload, model.devices, model.channels, model.control_unit
    is_open = w["type"] == "open"
    ev: list = []
    ec: list = []
    rows = [[0.0] * 5 for _ in range(L.N_DIST)]      # a row no field fills: constant 0
    arr = Dist("deterministic", 1.0)
    if is_open:
        mean_gap = 1000.0 / w["rate_iops"]   # (a trace replaces the rate; see below)
        arr = Dist.from_mean_scv(mean_gap, w["arrival_scv"])
    rows[L.D_INTERARRIVAL] = _dist_row(arr, ev, ec)
    rows[L.D_THINK] = _dist_row(w["think_ms"], ev, ec)
    rows[L.D_HA] = _dist_row(cu["ha_service_us"].scaled(1e-3), ev, ec)
    rows[L.D_BACKEND] = _dist_row(cu["backend_service_ms"], ev, ec)
    mp_shape = Dist.from_mean_scv(1.0, c["mp_scv"], exponential=False)
    rows[L.D_MP_SHAPE] = _dist_row(mp_shape, ev, ec)
    pos = model.positional()
    if pos is not None:
        rows[L.D_ROTATION] = _dist_row(Dist.uniform(0.0, pos["rotation_ms"]), ev, ec)
    dp = np.array(rows, dtype=np.float64)

    shares = model.class_shares()
    n_cls = len(model.io)
    # columns 0, 1: MP work by mode; MPW_WAKE, MPW_FIFO: the MP's wake-up work and order (layout.py)
    cls_mp = np.zeros((n_cls, L.N_MPW))
    cls_mp[:, L.MPW_WAKE] = c["mp_wake_us"] / 1000.0
    cls_mp[:, L.MPW_FIFO] = 1.0 if c["mp_order"] == "fifo" else 0.0
    cls_proto = np.zeros((n_cls, 2))
    for k, cl in enumerate(model.io):
        for m, mode in enumerate(MODES):
            cls_mp[k, m] = mp_us_per_io(c, mode, cl["records"], cl["kb"]) / 1000.0
        # connect-time work per command (channel protocol + control unit), per I/O in z/HPF
        cls_proto[k, 0] = (c["protocol_us_per_command_ccw"] + cu["cu_us_per_command_ccw"]) * cl["records"] / 1000.0
        cls_proto[k, 1] = (c["protocol_us_per_io_zhpf"] + (c["protocol_us_per_command_zhpf"]
                                                           + cu["cu_us_per_command_zhpf"]) * cl["records"]) / 1000.0

    n_dev = d["count"]
    n_ch = c["count"]
    slots = OPEN_SLOTS if is_open else w["population"]
    bind = (not is_open) and w["binding"] == "device"
    ev_arrays = None if fast_path else _device_arrays(model, n_dev, n_ch, slots, bind)
    # a trace of arrival times is replayed as its gaps, cyclically, from a random start per replication
    trace = np.diff(w["arrival_trace_ms"]) if w["arrival_trace_ms"] else np.ones(1)

    ip = np.zeros(L.N_IP, np.int64)
    ip[L.IP_OPEN] = int(is_open)
    ip[L.IP_SLOTS] = slots
    ip[L.IP_DEVICES] = n_dev
    ip[L.IP_EXPOSURES] = 1 + d["aliases"]
    ip[L.IP_CHANNELS] = n_ch
    if not fast_path:
        ip[L.IP_OE_CAP] = int(tables.ch_oe_cap.max())
        ip[L.IP_LN_SLOTS], ip[L.IP_ROUTES_GENERAL] = link_ip(tables, slots)
    ip[L.IP_SELECTION] = 0 if c["selection"] == "rotate" else 1
    ip[L.IP_HA_SERVERS] = cu["ha_servers"]
    ip[L.IP_BE_SERVERS] = cu["backend_servers"]
    ip[L.IP_WARMUP] = warmup
    ip[L.IP_MEASURE] = ios
    ip[L.IP_BIND] = int(bind)
    ip[L.IP_CLASSES] = n_cls
    ip[L.IP_TRACE] = int(is_open and w["arrival_trace_ms"] is not None)
    ip[L.IP_GROUPS] = 0 if fast_path else len(ev_arrays[4])
    ip[L.IP_HYPERPAV] = int(d["alias_mode"] == "hyperpav")
    if pos is not None:
        ip[L.IP_POSITIONAL] = 1
        ip[L.IP_MISS_POLICY] = {"read_through": L.MISS_READ_THROUGH, "staging": L.MISS_STAGING}[pos["miss_policy"]]
        ip[L.IP_SPAN_CYL] = pos["span_cylinders"]
    fp = np.zeros(L.N_FP)
    if pos is not None:
        fp[L.FP_SEEK_SETTLE_MS] = pos["seek_settle_ms"]
        fp[L.FP_SEEK_MS_PER_SQRT_CYL] = pos["seek_ms_per_sqrt_cyl"]
        fp[L.FP_MEDIA_KB_PER_MS] = pos["media_mb_s"]     # 1 MB/s = 1 KB/ms
        fp[L.FP_CYLINDER_KB] = pos["cylinder_kb"]
        fp[L.FP_P_SEQUENTIAL] = pos["p_sequential"]
    fp[L.FP_MP_START_FRACTION] = c["mp_start_fraction"]
    fp[L.FP_LINK_KB_PER_MS] = c["link_mb_s"]         # 1 MB/s = 1 KB/ms
    fp[L.FP_ZHPF_SHARE] = c["zhpf_share"]
    cls = (np.cumsum(shares), np.array([cl["kb"] for cl in model.io], float),
           np.array([cl["miss_ratio"] for cl in model.io], float), cls_mp, cls_proto)
    ev_a, ec_a = np.asarray(ev or [0.0], float), np.asarray(ec or [1.0], float)
    if fast_path:   # (legacy tables only: the same link rate and MP work as fp's and cls_mp's)
        return Packed(fp, ip, dp, ev_a, ec_a, *cls, *(None,) * 8, trace, row_keys(L.ROW_NAMES), tables)
    lk = link_arrays(tables)
    if lk[8] is not None:        # channels alike: the kernel reads these (engine/pack_links.py)
        fp[L.FP_LINK_KB_PER_MS] = tables.ln_kb_per_ms[0]
        if tables.legacy:        # (a configuration's own classes: units_inputs sets its cls_mp)
            cls_mp[:, :2] = tables.mp_ms[0]
    pk = Packed(fp, ip, dp, ev_a, ec_a, *cls, *ev_arrays[:4], *ev_arrays[5:], trace, row_keys(L.ROW_NAMES),
                tables, lk)
    units_inputs(pk, model, tables)
    return pk


#: The event kernel's device arrays by the devices section (and channel count) they are made
#: from: the points of a sweep that changes no device field share one section object
#: (Model.replace) and so these arrays, which the kernels only read (the alias table of 1,024
#: devices was ~0.5 ms a point). A few sections only: a million devices' arrays are ~40 MB.
DEVICE_ARRAYS_KEPT = 4
_DEVICE_ARRAYS = IdentityCache(DEVICE_ARRAYS_KEPT)


def _device_arrays(model: Model, n_dev: int, n_ch: int, slots: int, bind: bool) -> tuple:
    """The event kernel's device and path-group arrays: (al_prob, al_idx, dev_grp, bound_dev,
    groups (a list: ip's count), grp_ptr, grp_ch, chg_ptr, chg)."""
    d = model.devices

    def make():
        weights = model.device_weights()
        al_prob, al_idx = _alias_table(weights)
        # path groups: distinct channel sets; each device belongs to one
        groups, dev_grp = path_groups(d["paths"], n_dev, n_ch)
        return al_prob, al_idx, dev_grp, groups, _groups_arrays(groups, n_ch), np.flatnonzero(weights > 0)

    # (a topology's devices are not the devices section's: made each time)
    shared = _DEVICE_ARRAYS.get((d,), make, n_ch) if model.topology is None else make()
    al_prob, al_idx, dev_grp, groups, (grp_ptr, grp_ch, chg_ptr, chg), used = shared
    bound_dev = np.resize(used, slots).astype(np.int64) if bind else np.zeros(1, np.int64)
    return al_prob, al_idx, dev_grp, bound_dev, groups, grp_ptr, grp_ch, chg_ptr, chg
