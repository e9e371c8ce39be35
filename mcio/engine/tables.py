"""The I/O configuration as tables: what the kernels read about channels, links, feature cards,
control units, LCUs, devices, workloads and I/O classes (issue 28: the topology as data).

One :class:`Tables` describes any configuration: a planner's ``[topology]``
(:mod:`mcio.model.topology` compiles it) or today's single-path model (:func:`legacy_tables`:
one control unit, one LCU, one workload, every channel half duplex, no director, no card limit).
:mod:`mcio.engine.pack` turns it into kernel arrays; :mod:`mcio.engine.topology_results` labels
the per-level outputs with its names. Units: ms, KB, KB/ms (1 MB/s = 1 KB/ms).

Directions: 0 = read (data control unit -> host), 1 = write (host -> control unit). A half-duplex
channel's link serves both (``ch_link[c, 0] == ch_link[c, 1]``); a full-duplex one has a link per
direction.

A transfer crosses the links of its route, by (channel c, control unit u, direction d):
``rt_ln[rt_ptr[i]:rt_ptr[i + 1]]`` with ``i = (c * U + u) * 2 + d``; the first is always the
channel's own link ``ch_link[c, d]``, then (if any) the ISL it crosses in that direction, the
control unit's port link, the card's data limit. Each link is processor-shared by the transfers
crossing it; a transfer moves at the least of its links' shares.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

# (not ``from ..model import Model``: mcio.model.topology_tables builds Tables, so this module may
# import only mcio.model's leaf modules, or the import graph would have a cycle)
from ..model.costs import MODES, mp_us_per_io

READ, WRITE = 0, 1
LINK_KINDS = ("channel", "isl", "cu_port", "card", "ch_path")
#: the results' per-level dimensions (a configuration's figures per element; never sweep axes)
LEVEL_DIMS = ("channel", "link", "card", "control_unit", "lcu", "workload")


@dataclass
class Tables:
    """A configuration as arrays (shapes: C channels, Lk links, K cards, U control units, NL
    LCUs, D devices, G path groups, W workloads, NC kernel I/O classes)."""

    # ---- channels (C) ----
    ch_name: list                  # CHPID labels
    ch_oe_cap: np.ndarray          # int64[C] open exchanges
    ch_card: np.ndarray            # int64[C] the feature card, -1: none
    ch_link: np.ndarray            # int64[C, 2] the channel's link by direction (the same twice: half duplex)
    mp_ms: np.ndarray              # float64[C, NC, 2] MP work per I/O of class k on channel c by mode (0 CCW, 1 z/HPF), ms
    # ---- links (Lk) ----
    ln_name: list
    ln_kind: list                  # LINK_KINDS
    ln_dir: list                   # "read", "write" or "both"
    ln_kb_per_ms: np.ndarray       # float64[Lk] data rate
    # ---- routes: the links a transfer crosses, by (channel, control unit, direction) ----
    rt_ptr: np.ndarray             # int64[C * U * 2 + 1]
    rt_ln: np.ndarray              # int64[:]
    # ---- feature cards (K) ----
    card_name: list
    card_start_ms: np.ndarray      # float64[K] card work per I/O start (1000 / max I/O rate, ms); 0: no limit
    # ---- control units (U) ----
    cu_name: list
    cu_ha_servers: np.ndarray      # int64[U]
    cu_ha_service_ms: list         # U Dists (ms)
    cu_be_servers: np.ndarray      # int64[U]
    cu_be_service_ms: list         # U Dists (ms)
    # ---- LCUs (NL) and devices (D) ----
    lcu_name: list
    lcu_cu: np.ndarray             # int64[NL]
    dev_lcu: np.ndarray            # int64[D]
    dev_cu: np.ndarray             # int64[D]
    groups: list                   # G tuples of channel indices: the path groups
    dev_grp: np.ndarray            # int64[D]
    # ---- workloads (W) ----
    wl_name: list
    wl_rate_iops: np.ndarray       # float64[W] open: arrival rate
    wl_population: np.ndarray      # int64[W] closed: I/Os outstanding
    wl_dev_ptr: np.ndarray         # int64[W + 1]: workload w's devices are wl_dev[ptr[w]:ptr[w + 1]]
    wl_dev: np.ndarray             # int64[:]
    wl_dev_weight: np.ndarray      # float64[:] their relative access weights
    # ---- kernel I/O classes (NC) ----
    cls_name: list
    cls_wl: np.ndarray             # int64[NC] the class's workload
    cls_dir: np.ndarray            # int64[NC] READ or WRITE
    cls_share: np.ndarray          # float64[NC] share of its workload's I/Os (sums to 1 per workload)
    cls_kb: np.ndarray             # float64[NC]
    cls_records: np.ndarray        # int64[NC]
    cls_miss: np.ndarray           # float64[NC]
    #: the single-path case (no [topology]): the kernels keep their one-CU, one-workload code
    legacy: bool = field(default=False)
    #: float64[C, NC, 2] connect-time work (protocol + control unit per command, ms) of class k on
    #: channel c by mode, where a channel's protocol time is its own (its generation's
    #: ``protocol_scale``, issue 30); None: every channel's is the class's (the packed cls_proto)
    ch_proto_ms: np.ndarray | None = field(default=None)

    @property
    def n_channels(self) -> int:
        return len(self.ch_name)

    @property
    def n_cus(self) -> int:
        return len(self.cu_name)

    def route(self, c: int, u: int, d: int) -> np.ndarray:
        """The links a transfer on channel ``c`` to control unit ``u`` in direction ``d`` crosses."""
        i = (c * self.n_cus + u) * 2 + d
        return self.rt_ln[self.rt_ptr[i]:self.rt_ptr[i + 1]]


def path_groups(paths, n_dev: int, n_ch: int):
    """Distinct channel sets and each device's: ``paths`` None (every channel), one list for all
    devices, or one per device. Returns (groups: list of tuples, dev_grp int64[D])."""
    if paths is None:
        return [tuple(range(n_ch))], np.zeros(n_dev, np.int64)
    per_dev = paths if len(paths) == n_dev else paths * n_dev
    groups, dev_grp = [], np.empty(n_dev, np.int64)
    index: dict = {}
    for i, p in enumerate(per_dev):
        key = tuple(p)
        if key not in index:
            index[key] = len(groups)
            groups.append(key)
        dev_grp[i] = index[key]
    return groups, dev_grp


def legacy_tables(model: "Model") -> Tables:  # noqa: F821 (mcio.model.Model)
    """The single-path model as tables: C half-duplex channels alike (link = channel index), one
    control unit, one LCU holding every device, one workload, the model's [[io]] classes (reads)."""
    w, d, c, cu = model.workload, model.devices, model.channels, model.control_unit
    C, D = c["count"], d["count"]
    n_cls = len(model.io)
    mp_ms = np.zeros((C, n_cls, 2))
    for k, cl in enumerate(model.io):
        for m, mode in enumerate(MODES):
            mp_ms[:, k, m] = mp_us_per_io(c, mode, cl["records"], cl["kb"]) / 1000.0
    ch_link = np.repeat(np.arange(C, dtype=np.int64)[:, None], 2, axis=1)
    rt_ptr = np.arange(2 * C + 1, dtype=np.int64)
    rt_ln = np.repeat(np.arange(C, dtype=np.int64), 2)
    groups, dev_grp = path_groups(d["paths"], D, C)
    is_open = w["type"] == "open"
    return Tables(
        ch_name=[f"{i}" for i in range(C)], ch_oe_cap=np.full(C, c["max_open_exchanges"], np.int64),
        ch_card=np.full(C, -1, np.int64), ch_link=ch_link, mp_ms=mp_ms,
        ln_name=[f"{i}" for i in range(C)], ln_kind=["channel"] * C, ln_dir=["both"] * C,
        ln_kb_per_ms=np.full(C, float(c["link_mb_s"])), rt_ptr=rt_ptr, rt_ln=rt_ln,
        card_name=[], card_start_ms=np.zeros(0),
        cu_name=["cu0"], cu_ha_servers=np.array([cu["ha_servers"]], np.int64),
        cu_ha_service_ms=[cu["ha_service_us"].scaled(1e-3)],
        cu_be_servers=np.array([cu["backend_servers"]], np.int64), cu_be_service_ms=[cu["backend_service_ms"]],
        lcu_name=["lcu0"], lcu_cu=np.zeros(1, np.int64), dev_lcu=np.zeros(D, np.int64),
        dev_cu=np.zeros(D, np.int64), groups=groups, dev_grp=dev_grp,
        wl_name=["workload"], wl_rate_iops=np.array([w["rate_iops"] if is_open else 0.0]),
        wl_population=np.array([0 if is_open else w["population"]], np.int64),
        wl_dev_ptr=np.array([0, D], np.int64), wl_dev=np.arange(D, dtype=np.int64),
        wl_dev_weight=np.asarray(model.device_weights(), float),
        cls_name=[cl["name"] for cl in model.io], cls_wl=np.zeros(n_cls, np.int64),
        cls_dir=np.zeros(n_cls, np.int64), cls_share=np.asarray(model.class_shares(), float),
        cls_kb=np.array([cl["kb"] for cl in model.io], float),
        cls_records=np.array([cl["records"] for cl in model.io], np.int64),
        cls_miss=np.array([cl["miss_ratio"] for cl in model.io], float), legacy=True)


def tables_of(model: "Model") -> Tables:  # noqa: F821
    """The model's configuration as tables: its ``[topology]`` compiled (:mod:`mcio.model.topology`)
    or, without one, :func:`legacy_tables`."""
    topo = getattr(model, "topology", None)
    if topo is None:
        return legacy_tables(model)
    return topo.tables(model)


__all__ = ["LEVEL_DIMS", "tables_of", "Tables", "legacy_tables", "path_groups", "READ", "WRITE", "LINK_KINDS"]
