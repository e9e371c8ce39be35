"""How a ``[topology]`` sits in a :class:`mcio.model.Model`: the legacy fields it refuses, the
aggregates it writes into the legacy sections (so that code reading them — the run's length
checks, the packing of the I/O pool, estimates — sees the whole configuration), its to_dict form,
and its capacity check (the Model methods dispatch here when a model has a topology).
"""
from __future__ import annotations

import math
from dataclasses import replace

from ..errors import McioError
from .topology import CONFLICTS, Topology


def _tt():
    from . import topology_tables      # (late: it imports NumPy, which `mcio --help` must not pay for)
    return topology_tables

#: what the legacy sections hold for a topology (derived): not written by to_dict, refused if given
DERIVED = ("channels.count", "devices.count", "workload.type", "workload.rate_iops", "workload.population")


def refuse_conflicts(raw: dict) -> None:
    """Raise for a legacy field a [topology] replaces (naming both), or one it cannot take."""
    for key, why in CONFLICTS.items():
        sec, f = key.split(".")
        if isinstance(raw.get(sec), dict) and f in raw[sec]:
            raise McioError(key, raw[sec][f], f"conflicts with [topology]: {why}; remove {key}")
    if "io" in raw:
        raise McioError("io", raw["io"], "conflicts with [topology]: the I/O classes are each workload's "
                                         "[[topology.workload.io]]; remove [[io]]")
    w, d, cu = (raw.get(k) if isinstance(raw.get(k), dict) else {} for k in ("workload", "devices", "control_unit"))
    wls = raw["topology"].get("workload") if isinstance(raw.get("topology"), dict) else None
    if isinstance(wls, list) and wls and isinstance(wls[0], dict) and "type" in w:
        kind = "open" if "rate_iops" in wls[0] else "closed"
        if w["type"] != kind:
            raise McioError("workload.type", w["type"], f"conflicts with [topology]: its workloads are {kind} (they "
                            f"give {'rate_iops' if kind == 'open' else 'population'}); remove workload.type")
    if w.get("binding", "random") != "random":
        raise McioError("workload.binding", w["binding"], "must be 'random' with a [topology] (each workload "
                                                          "picks its devices by its skew)")
    if d.get("geometry", "emulated") != "emulated":
        raise McioError("devices.geometry", d["geometry"], "must be 'emulated' with a [topology] (its control "
                                                           "units have a cache and a back end, no positional disks)")
    if cu.get("miss_policy", "backend") != "backend":
        raise McioError("control_unit.miss_policy", cu["miss_policy"], "must be 'backend' with a [topology]")


def attach(m, raw_topology, fields: dict):
    """``m`` (legacy sections parsed) with its topology: validated, and its aggregates written into
    the legacy sections (channels.count, devices.count, workload type / rate / population, [[io]])."""
    sections = {"workload": m.workload, "devices": m.devices, "channels": m.channels,
                "control_unit": m.control_unit}
    topo = Topology(raw_topology, sections, m.user_set)
    view = _tt().legacy_view(topo.parsed)
    if m.workload["type"] != view["workload.type"] and "workload.type" in m.user_set:
        where, value = m.user_set["workload.type"]
        raise McioError(where, value, f"conflicts with [topology]: its workloads are {view['workload.type']} "
                                      f"(they give {'rate_iops' if view['workload.type'] == 'open' else 'population'}); "
                                      "remove workload.type")
    SECTIONS = fields               # (the model's declared fields: spec.SECTIONS)
    out = {k: dict(v) for k, v in sections.items()}
    for key in DERIVED:
        sec, f = key.split(".")
        value = view[key]
        if key == "workload.rate_iops" and view["workload.type"] != "open":
            value = SECTIONS[sec][f].default
        if key == "workload.population" and view["workload.type"] != "closed":
            value = SECTIONS[sec][f].default
        try:
            out[sec][f] = SECTIONS[sec][f].check(key, value)
        except McioError as e:
            raise McioError("topology", f"{key} = {value!r}", f"the topology's {key} is out of bounds: {e.allowed}") from None
    # the control units' servers together: what the totals cu_ha_busy / backend_busy are per
    # (mcio/kernels/stats.py's per=) and physics' bounds count (else a 4-server unit's busy read 4x)
    topo.legacy = {k: out["control_unit"][k] for k in TOTALS}
    for k in TOTALS:
        out["control_unit"][k] = sum(int(u[k]) for u in topo.parsed["cus"])
    io = [{k: SECTIONS["io"][k].check(f"io[{i}].{k}", v) for k, v in c.items()} for i, c in enumerate(view["io"])]
    return replace(m, io=io, topology=topo, **out)


#: legacy fields that hold the topology's totals once attached (to_dict gives back the user's own)
TOTALS = ("ha_servers", "backend_servers")


def to_dict(d: dict, topo: Topology) -> dict:
    """A model dict without what its topology derives, and with the topology."""
    d = dict(d)
    for key in DERIVED:
        sec, f = key.split(".")
        d[sec] = {k: v for k, v in d[sec].items() if k != f}
    d.pop("io", None)
    d["control_unit"] = {**d["control_unit"], **getattr(topo, "legacy", {})}
    d["topology"] = topo.to_dict()
    return d


def _compiled(m):
    topo = m.topology
    if topo._tables is None:
        topo.tables()
    return topo._tables


def device_weights(m):
    return _tt().all_device_weights(m.topology.parsed)


def mean_demands_ms(m) -> dict:
    return _tt().mean_demands_ms(_compiled(m), m.topology.parsed, _sections(m))


def _sections(m) -> dict:
    return {"workload": m.workload, "devices": m.devices, "channels": m.channels, "control_unit": m.control_unit}


def open_bottleneck(m) -> tuple[str, float, float]:
    """(station, utilisation, total arrival rate in I/Os per second) of the busiest station of an
    open topology: each channel's MP, each link (channel, ISL, CU port, card data), each card's
    starts, each control unit's host adapter and back end, and the hottest device."""
    t = _compiled(m)
    util = _tt().utilisations(t, m.topology.parsed, _sections(m))
    rate_per_ms = float(t.wl_rate_iops.sum()) / 1000.0
    service = sum(_tt().mean_demands_ms(t, m.topology.parsed, _sections(m)).values())
    w = device_weights(m)
    d = m.devices
    hottest = int(w.argmax())
    util[f"hottest device (LCU {t.lcu_name[t.dev_lcu[hottest]]})"] = rate_per_ms * float(w[hottest]) * service / (1 + d["aliases"])
    if d["alias_mode"] == "hyperpav":
        util["devices and alias pool"] = rate_per_ms * service / (d["count"] + d["aliases"])
    name, u = max(util.items(), key=lambda kv: kv[1])
    return name, u, rate_per_ms * 1000.0


def capacity_error(m, name: str, u: float, rate: float) -> McioError:
    """The error of an open topology at or over a station's capacity: load_scale is the knob."""
    s = m.topology.parsed["load_scale"]
    cap = s / u
    allowed = (f"allowed: load_scale < {cap:.6g}" if math.isfinite(cap) and cap > 0
               else f"no load fits: the {name} alone is at capacity")
    return McioError("topology.load_scale", s, f"open load at or over capacity ({name} utilisation {u:.3f} >= 1 "
                                               f"at {rate:.6g} I/Os per second in all); {allowed}")


__all__ = ["refuse_conflicts", "attach", "to_dict", "device_weights", "mean_demands_ms", "open_bottleneck",
           "capacity_error", "DERIVED"]
