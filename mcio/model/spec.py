"""The model: typed, validated parameter objects, loaded from and saved to TOML.

Sections (TOML tables): ``[workload]``, ``[[io]]`` (one table per I/O class), ``[devices]``,
``[channels]``, ``[control_unit]``. Every field carries its unit in its name. Each section is a
plain dict after validation; :class:`Model` holds them and knows how to change one dotted field.
"""
from __future__ import annotations

import copy
import dataclasses
import difflib
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, NamedTuple

from ..errors import McioError
from ..idcache import IdentityCache
from . import effect, topology_model
from .checks import (MAX_RATE_IOPS, MAX_SCV, MIN_MEDIA_MB_S, MIN_ROTATION_MS,
                     choice, dist, integer, num, optional_list, paths, text, trace)
from .costs import mp_us_per_io
from .dist import Dist
from .positional import positional_demand_ms, positional_parameters


class Field(NamedTuple):
    """One declared model field: its checker, its default (None: unset) and what it means."""

    check: Callable
    default: Any
    doc: str


F = Field
# Bounds are physical: no channel subsystem starts more than 1e8 SSCH/s, below 1e-3 SSCH/s a
# run's clock (ms, float64) would lose the resolution of its service times; links from 0.01
# MB/s (slower than any channel) to 1e6 MB/s (300x FICON Express32S); MP work up to 1 s per I/O.
SECTIONS: dict[str, dict[str, Field]] = {
    "workload": {
        "type": F(choice("open", "closed"), "closed", "open: I/Os arrive at a rate; closed: a fixed number are kept outstanding"),
        "rate_iops": F(num(lo=1e-3, hi=MAX_RATE_IOPS), 1000.0, "open: arrival rate (SSCH/s)"),
        "arrival_scv": F(num(hi=MAX_SCV), 1.0, "open: squared coefficient of variation of the gaps (1 = Poisson, 0 = evenly spaced)"),
        "arrival_trace_ms": F(trace, None, "open: arrival times (ms), replayed cyclically from a random start; replaces rate_iops"),
        "population": F(integer(1, 1_000_000), 1, "closed: I/Os kept outstanding (at most 1e6: each costs the kernel ~170 bytes of state per replication)"),
        "think_ms": F(dist, 0.0, "closed: delay before a finished I/O is reissued (ms)"),
        "binding": F(choice("random", "device"), "random", "closed: each I/O picks a device by the skew (random) or keeps one device (device)"),
    },
    "io": {  # one per class
        "name": F(text, "io", "class name (reports)"),
        "share": F(num(lo=0.0, lo_open=True, hi=1e9), 1.0, "relative frequency of the class (shares are normalised to sum to 1)"),
        "kb": F(num(hi=1e6), 4.0, "data per I/O, KB (1 KB = 1000 B)"),
        "records": F(integer(1, 1_000_000), 1, "commands (CCWs; DCWs in z/HPF) per I/O"),
        "miss_ratio": F(num(hi=1.0), 0.0, "fraction of the class's I/Os that disconnect (cache miss: back-end service)"),
    },
    "devices": {
        "count": F(integer(1, 1_000_000), 1, "devices (volumes, FCTC devices)"),
        "aliases": F(integer(0, 255), 0, "PAV aliases per device (static) or in the shared pool (hyperpav)"),
        "alias_mode": F(choice("static", "hyperpav"), "static", "static PAV aliases per device, or one HyperPAV pool"),
        "skew": F(choice("uniform", "zipf", "hotset", "weights"), "uniform", "how I/Os spread over the devices"),
        "zipf_s": F(num(hi=100.0), 1.0, "zipf: exponent s of 1 / rank**s"),
        "hot_fraction": F(num(lo=0.0, lo_open=True, hi=1.0), 0.2, "hotset: fraction of devices that are hot"),
        "hot_share": F(num(hi=1.0), 0.8, "hotset: fraction of I/Os that go to the hot devices"),
        "weights": F(optional_list(num(hi=1e12)), None, "weights: one relative weight per device"),
        "paths": F(paths, None, "channel indices per device (one list for all, or one per device); default: every channel"),
        "geometry": F(choice("emulated", "3390", "3380"), "emulated", "emulated: no positional parts (a miss is back-end service); 3390 / 3380: a rotating disk whose misses seek and rotate (needs control_unit.miss_policy read_through or staging)"),
        "cylinders": F(integer(1, 65520), None, "positional: cylinders per volume; default: the geometry's reference model (3390-3: 3,339; 3380-K: 2,655)"),
        "rotation_ms": F(num(lo=MIN_ROTATION_MS, hi=1000.0), None, "positional: one revolution (ms); rotational latency is uniform over it; default 14.2 (3390), 16.7 (3380); at least 1e-6 ms: the run's clock (ms, float64) resolves no shorter time over the longest run (1e9 ms x 2**-52 = 2.2e-7 ms)"),
        "media_mb_s": F(num(lo=MIN_MEDIA_MB_S, hi=1e4), None, "positional: data rate off the head (MB/s = KB/ms); default 4.2 (3390), 3.0 (3380); at least 1e-3 MB/s: one I/O's media transfer (io.kb <= 1e6 KB) must fit in the longest duration a run holds (1e9 ms)"),
        "cylinder_kb": F(num(lo=0.0, lo_open=True, hi=1e6), None, "positional: data per cylinder (KB): how far a sequential I/O moves the arm; default 4 KB blocks, 15 tracks: 737.28 (3390, 12 per track), 614.4 (3380, 10)"),
        "seek_settle_ms": F(num(hi=100.0), 2.0, "positional: seek time of a 1-cylinder move's fixed part: seek(d) = seek_settle_ms + seek_ms_per_sqrt_cyl * sqrt(d) for d >= 1, 0 for d = 0 (ms; assumed, not published)"),
        "seek_ms_per_sqrt_cyl": F(num(hi=100.0), None, "positional: the seek curve's sqrt(distance) coefficient (ms); default: the curve whose mean over random access is the published average seek of the reference model (3390-3: 12.5 ms over 3,339 cylinders; 3380-K: 16 ms over 2,655)"),
        "p_sequential": F(num(hi=1.0), 0.0, "positional: share of media reads that continue the previous one on the volume (same cylinder, or the next when they cross it); the rest jump to a uniform position in the span"),
        "span_cylinders": F(integer(1, 65520), None, "positional: cylinders the random jumps spread over (the data's extent, from cylinder 0); default: all"),
    },
    "channels": {
        "count": F(integer(1, 256), 1, "channels (CHPIDs)"),
        "link_mb_s": F(num(lo=0.01, hi=1e6), 800.0, "link data rate, MB/s (1 MB/s = 1 KB/ms), shared by the channel's transfers"),
        "max_open_exchanges": F(integer(1, 100_000), 64, "open exchanges (concurrent I/Os) per channel"),
        "selection": F(choice("rotate", "least_busy"), "rotate", "channel choice within a path group"),
        "zhpf_share": F(num(hi=1.0), 0.0, "fraction of I/Os in transport mode (z/HPF)"),
        "mp_us_per_io_ccw": F(num(hi=1e6), 20.0, "channel MP work per command-mode I/O, fixed part (us)"),
        "mp_us_per_command_ccw": F(num(hi=1e6), 0.0, "channel MP work per command (CCW) (us)"),
        "mp_us_per_kb_ccw": F(num(hi=1e6), 0.0, "channel MP work per KB in command mode (us)"),
        "mp_us_per_io_zhpf": F(num(hi=1e6), 10.0, "channel MP work per z/HPF I/O, fixed part (us)"),
        "mp_us_per_command_zhpf": F(num(hi=1e6), 0.0, "channel MP work per DCW in transport mode (us)"),
        "mp_us_per_kb_zhpf": F(num(hi=1e6), 0.0, "channel MP work per KB in transport mode (us)"),
        "mp_scv": F(num(hi=MAX_SCV), 0.0, "SCV of the MP work per I/O (0: deterministic; else gamma)"),
        "mp_start_fraction": F(num(hi=1.0), 1.0, "share of the MP work done at the start (in pend); the rest ends the I/O"),
        "mp_wake_us": F(num(hi=1e6), 0.0, "wake-up work of an idle MP (us): a piece of MP work (start or end) that finds "
                        "the MP idle costs this much more, so the work per I/O, w + wake x (P(idle at its start) + "
                        "P(idle at its end)), falls with load; 0: none. Event engine only"),
        "mp_order": F(choice("end_first", "fifo"), "end_first", "order of the MP's waiting work: 'end_first' serves an "
                      "I/O's end work before waiting start work (exchanges close promptly); 'fifo' serves start and "
                      "end work in one arrival-order queue (end work then waits behind starts, in connect)"),
        "protocol_us_per_command_ccw": F(num(hi=1e6), 0.0, "connect-time handshake per command in command mode (us)"),
        "protocol_us_per_io_zhpf": F(num(hi=1e6), 0.0, "connect-time handshake per z/HPF I/O (us)"),
        "protocol_us_per_command_zhpf": F(num(hi=1e6), 0.0, "connect-time handshake per DCW of a TCCB in transport mode (us)"),
    },
    "control_unit": {
        "ha_servers": F(integer(1, 100_000), 1, "host-adapter processors (parallel CMR service)"),
        "ha_service_us": F(dist, 0.0, "host-adapter work per I/O: the CMR service (us)"),
        "backend_servers": F(integer(1, 1_000_000), 1, "back-end servers (ranks, partner systems)"),
        "backend_service_ms": F(dist, 0.0, "back-end service per disconnected I/O (ms)"),
        "cu_us_per_command_ccw": F(num(hi=1e6), 0.0, "control-unit work per CCW, in connect (us)"),
        "cu_us_per_command_zhpf": F(num(hi=1e6), 0.0, "control-unit work per DCW, in connect (us)"),
        "miss_policy": F(choice("backend", "read_through", "staging"), "backend", "how a cache miss is read: backend (back-end service, emulated devices); positional devices: read_through (disconnect = seek + latency, then a connect paced by the media) or staging (disconnect = seek + latency + the transfer at media speed into cache, then a connect at link speed)"),
    },
}


#: Every top-level model section: the legacy ones and ``topology`` (a planner's configuration,
#: :mod:`.topology`; not a flat table of fields, so not in SECTIONS).
MODEL_SECTIONS = (*SECTIONS, "topology")

SECTION_DOCS = {
    "workload": "how I/Os are issued",
    "io": "one table per I/O class ([[io]])",
    "devices": "volumes, aliases, access skew, path groups",
    "channels": "FICON channels: MP work, link, open exchanges, z/HPF",
    "control_unit": "host adapter (CMR) and back end (disconnect)",
}


def _unknown_key(where: str, key: str, allowed) -> McioError:
    near = difflib.get_close_matches(key, list(allowed), n=1, cutoff=0.6)
    hint = f"did you mean {near[0]!r}? " if near else ""
    return McioError(f"{where}.{key}" if where else key, None, f"unknown key; {hint}allowed: {', '.join(allowed)}")


def _section(sec: str, raw: dict, where: str) -> dict:
    fields = SECTIONS[sec]
    if not isinstance(raw, dict):
        raise McioError(where, raw, "must be a TOML table")
    for k in raw:
        if k not in fields:
            err = _unknown_key(where, k, fields)
            raise McioError(err.field, raw[k], err.allowed)
    return {k: f.check(f"{where}.{k}", raw.get(k, f.default)) if (k in raw or f.default is not None)
            else None for k, f in fields.items()}


#: What a model makes from its sections alone (device weights, mean demands), by the sections'
#: identity: a sweep's points share the sections no axis changes (:meth:`Model.replace`)
DERIVED_KEPT = 8      # (a million devices' weights are 8 MB)
_DERIVED = IdentityCache(DERIVED_KEPT)


def _clean(sec: dict) -> dict:
    """A section's fields as TOML holds them: distributions as tables, unset fields left out."""
    return {k: (v.to_toml() if isinstance(v, Dist) else v) for k, v in sec.items() if v is not None}


class ModelDict(dict):
    """A model's sections as :meth:`Model.to_dict` writes them, with ``user_set``: the fields its
    user set (the rest were written because every field is)."""

    def __init__(self, *args, user_set: dict | None = None, **kw):
        super().__init__(*args, **kw)
        self.user_set = dict(user_set or {})


@dataclass(frozen=True)
class Model:
    """A validated model. Sections are dicts of clean values; ``io`` is a list of class dicts."""

    workload: dict
    io: list
    devices: dict
    channels: dict
    control_unit: dict
    #: the fields the user set (not left at their defaults): ``section.field`` (``io.field`` for
    #: a class's) -> (where it was set, its value); :mod:`.effect` checks that each counts
    user_set: dict = field(default_factory=dict, compare=False, repr=False)
    #: the planner's configuration (:class:`.topology.Topology`), or None: the single-path model
    #: the legacy sections describe. With one, those sections hold its aggregates (channels.count,
    #: devices.count, workload type and load, [[io]] = its kernel classes) and the defaults of
    #: what its elements leave unset (docs/topology.md).
    topology: Any = field(default=None, repr=False)

    # ---- construction ----
    @classmethod
    def from_dict(cls, raw: dict, where: str = "model", *, user_set: dict | None = None) -> "Model":
        """A validated model from its sections (a dict as TOML holds it). Every field set in
        ``raw`` is the user's (``user_set``: given instead, e.g. by :meth:`replace`), and must
        count under the model's options (:mod:`.effect`), unless a caller checks a set of
        models together (:func:`.effect.deferred`)."""
        if user_set is None and isinstance(raw, ModelDict):
            user_set = raw.user_set
        m = cls._from_dict(raw, where, user_set)
        if not effect.is_deferred():
            effect.check_model(m)
        return m

    @classmethod
    def _from_dict(cls, raw: dict, where: str, user_set: dict | None) -> "Model":
        if not isinstance(raw, dict):
            raise McioError(where, raw, "must be a table")
        allowed = MODEL_SECTIONS
        for k in raw:
            if k not in allowed:
                near = difflib.get_close_matches(k, allowed, n=1, cutoff=0.6)
                raise McioError(f"{k}", raw[k], "unknown section; " + (f"did you mean {near[0]!r}? " if near else "")
                                + f"allowed: {', '.join(allowed)}")
        if "topology" in raw:
            topology_model.refuse_conflicts(raw)
        io_raw = raw.get("io", [{}])
        if isinstance(io_raw, dict):
            io_raw = [io_raw]
        if not isinstance(io_raw, list) or not io_raw:
            raise McioError("io", io_raw, "must be a non-empty list of I/O classes ([[io]] tables)")
        m = cls(
            workload=_section("workload", raw.get("workload", {}), "workload"),
            io=[_section("io", c, f"io[{i}]") for i, c in enumerate(io_raw)],
            devices=_section("devices", raw.get("devices", {}), "devices"),
            channels=_section("channels", raw.get("channels", {}), "channels"),
            control_unit=_section("control_unit", raw.get("control_unit", {}), "control_unit"),
            user_set={},
        )
        m.user_set.update(_user_set(m, raw, io_raw) if user_set is None else user_set)
        if "topology" in raw:
            m = topology_model.attach(m, raw["topology"], SECTIONS)
        m._cross_check()
        return m

    @classmethod
    def from_toml(cls, path) -> "Model":
        return cls.from_dict(load_toml(path))

    def _cross_check(self) -> None:
        d, c, w = self.devices, self.channels, self.workload
        if d["paths"] is not None:
            if len(d["paths"]) not in (1, d["count"]):
                raise McioError("devices.paths", d["paths"],
                                f"must hold 1 path group (all devices) or one per device ({d['count']})")
            for i, p in enumerate(d["paths"]):
                for ch in p:
                    if ch >= c["count"]:
                        raise McioError(f"devices.paths[{i}]", p,
                                        f"channel index {ch} does not exist; channels.count = {c['count']}")
        if d["skew"] == "weights":
            wts = d["weights"]
            if wts is None or len(wts) != d["count"] or sum(wts) <= 0:
                raise McioError("devices.weights", wts,
                                f"skew = 'weights' needs {d['count']} non-negative weights with a positive sum")
        positional = d["geometry"] != "emulated"
        if positional != (self.control_unit["miss_policy"] != "backend"):
            raise McioError("control_unit.miss_policy", self.control_unit["miss_policy"],
                            "read_through or staging on a positional device (devices.geometry 3390 / 3380); "
                            "backend on an emulated one" if positional else
                            "backend on an emulated device (devices.geometry = 'emulated'); read_through "
                            "and staging read a positional device's media")
        if positional and d["aliases"] > 0:
            raise McioError("devices.aliases", d["aliases"], "0 on a positional device (one arm: two I/Os "
                            "cannot seek it at once; PAV came with emulated volumes)")
        if positional:
            pos = self.positional()
            if pos["span_cylinders"] > pos["cylinders"]:
                raise McioError("devices.span_cylinders", pos["span_cylinders"],
                                f"must be <= devices.cylinders ({pos['cylinders']})")
        if w["type"] == "closed" and w["binding"] == "device":
            n_used = int((self.device_weights() > 0).sum())
            if w["population"] % n_used:
                raise McioError("workload.population", w["population"],
                                f"binding = 'device' needs a multiple of the {n_used} devices in use")

    def positional(self) -> dict | None:
        """The positional-service parameters with the geometry's defaults filled in (ms, KB,
        KB/ms, cylinders), or None on an emulated device (:func:`.positional.positional_parameters`)."""
        return positional_parameters(self.devices, self.control_unit["miss_policy"])

    # ---- output ----
    def to_dict(self) -> dict:
        """Every field (defaults included) as TOML holds it. The dict remembers which fields the
        user set (:class:`ModelDict`): a model rebuilt from it, changed or not (a calibration
        row's load), counts as set only what the user set, not every field written."""
        d = {"workload": _clean(self.workload), "io": [_clean(c) for c in self.io],
             "devices": _clean(self.devices), "channels": _clean(self.channels),
             "control_unit": _clean(self.control_unit)}
        if self.topology is not None:       # (its aggregates are derived: not written)
            d = topology_model.to_dict(d, self.topology)
        return ModelDict(d, user_set=self.user_set)

    def to_toml(self) -> str:
        """The model as a TOML model file that reads back as this model (``Model.from_dict``):
        every field that counts under its options, resolved (:func:`.effect.effective_toml`); a
        field without effect (a builder's zHPF costs at ``zhpf_share = 0``) is left out, since
        read back it would be the user's and refused. :meth:`to_dict`: every field."""
        return effect.effective_toml(self)

    # ---- changing one field (sweeps) ----
    def get(self, key: str):
        sec, *rest = key.split(".")
        d = self._sections_dict(sec, copy_io=None, mutable=False)
        node = d.get(sec)
        for part in rest:
            if isinstance(node, list):
                node = node[int(part)] if part.isdigit() and int(part) < len(node) else None
            elif isinstance(node, dict):
                node = node.get(part, None)
        if node is None:
            raise McioError(key, None, "no such model field")
        return node

    def replace(self, key: str, value, *, where: str | None = None, check: bool = True) -> "Model":
        """A new model with dotted field ``key`` (e.g. ``workload.population``, ``io.0.kb``) set,
        by the user (``where``: how errors name it, default ``key``). ``check``: that every field
        the user set counts (:mod:`.effect`); a sweep checks its points together instead."""
        parts = key.split(".")
        if parts[0] not in MODEL_SECTIONS:
            raise McioError(key, value, f"unknown section {parts[0]!r}; allowed: {', '.join(MODEL_SECTIONS)}")
        # One field of one legacy section: only that section (that class) is copied and checked
        # again; the others are this model's, already valid (a sweep builds a model per point,
        # and the whole model's copy and check were most of a small point's cost).
        one = self.topology is None and parts[0] in SECTIONS and len(parts) >= (3 if parts[0] == "io" else 2)
        io_i = int(parts[1]) if one and parts[0] == "io" and parts[1].isdigit() else None
        if one and parts[0] == "io" and (io_i is None or io_i >= len(self.io)):
            one = False     # (the whole model's path names the bad index)
        d = self._sections_dict(parts[0], copy_io=io_i) if one else copy.deepcopy(self.to_dict())
        node = d
        for i, part in enumerate(parts[:-1]):
            if isinstance(node, list):
                if not part.isdigit() or int(part) >= len(node):
                    raise McioError(key, value, ("io class" if parts[0] == "io" else parts[i - 1])
                                   + f" index must be 0..{len(node) - 1}")
                node = node[int(part)]
            else:
                node = node.setdefault(part, {})
        last = parts[-1]
        if isinstance(node, list):
            raise McioError(key, value, "name a field of an io class, e.g. io.0.kb")
        node[last] = value
        user = dict(self.user_set)
        user[effect.canonical(key)] = (where or key, value)
        m = self._with_section(parts, d, io_i, user) if one else Model._from_dict(d, "model", user)
        if check and not effect.is_deferred():
            effect.check_model(m)
        return m

    def _sections_dict(self, sec: str, copy_io: int | None, mutable: bool = True) -> dict:
        """``{sec: ...}`` as :meth:`to_dict` writes that section (``mutable``: deep-copied, for
        the caller to change), the whole model's dict when it has a topology or ``sec`` is not a
        legacy section. ``io``: the list of classes, class ``copy_io`` deep-copied, the others
        as :meth:`to_dict` writes them."""
        if self.topology is not None or sec not in SECTIONS:
            return self.to_dict()
        if sec != "io":
            return {sec: copy.deepcopy(_clean(getattr(self, sec))) if mutable else _clean(getattr(self, sec))}
        return {"io": [copy.deepcopy(_clean(c)) if i == copy_io else _clean(c) for i, c in enumerate(self.io)]}

    def _with_section(self, parts: list, d: dict, io_i: int | None, user: dict) -> "Model":
        """This model with section ``parts[0]`` (class ``io_i`` of ``io``) replaced by ``d``'s,
        checked as :meth:`_from_dict` checks it, and the model's cross-checks run again. One
        known field set whole (``sec.field``, ``io.N.field``): that field alone is checked, the
        others are this model's checked values already."""
        sec = parts[0]
        where = f"io[{io_i}]" if sec == "io" else sec
        raw = d["io"][io_i] if sec == "io" else d[sec]
        old = self.io[io_i] if sec == "io" else getattr(self, sec)
        name = parts[-1]
        field = SECTIONS[sec].get(name)
        if len(parts) == (3 if sec == "io" else 2) and field is not None:
            checked = {**old, name: field.check(f"{where}.{name}", raw[name])}
        else:
            checked = _section(sec, raw, where)
        if sec == "io":
            io = list(self.io)
            io[io_i] = checked
            new = {"io": io}
        else:
            new = {sec: checked}
        m = dataclasses.replace(self, **new, user_set=user)
        m._cross_check()
        return m

    # ---- derived quantities used by the engine and the capacity check ----
    def device_weights(self):
        """Each device's share of the I/Os (float64[devices], summing to 1; a new array)."""
        if self.topology is not None:
            return topology_model.device_weights(self)
        return _DERIVED.get((self.devices,), self._device_weights, "device_weights").copy()

    def _device_weights(self):
        import numpy as np
        d = self.devices
        n = d["count"]
        if d["skew"] == "uniform":
            w = np.ones(n)
        elif d["skew"] == "zipf":
            w = 1.0 / np.arange(1, n + 1) ** d["zipf_s"]
        elif d["skew"] == "hotset":
            n_hot = max(1, int(round(d["hot_fraction"] * n)))
            w = np.empty(n)
            w[:n_hot] = d["hot_share"] / n_hot
            w[n_hot:] = (1.0 - d["hot_share"]) / max(1, n - n_hot)
            if n_hot == n:
                w[:] = 1.0 / n
        else:
            w = np.asarray(d["weights"], dtype=float)
        return w / w.sum()

    def notes(self) -> list[str]:
        """What the model does that its author may not expect, one line each (``mcio validate``
        prints them): shares renormalised, defaults that cost time."""
        out = []
        tot = sum(c["share"] for c in self.io)
        if len(self.io) > 1 and abs(tot - 1.0) > 1e-9 and tot < 1.0 + 1e-9 and all(c["share"] <= 1 for c in self.io):
            norm = ", ".join(f"{c['share'] / tot:.3g}" for c in self.io)
            out.append(f"io shares sum to {tot:g}, not 1: they are relative weights, renormalised to {norm}")
        return out

    def class_shares(self):
        import numpy as np
        s = np.array([c["share"] for c in self.io])
        return s / s.sum()

    def mean_demands_ms(self) -> dict:
        """Mean service demand per I/O at each station, in ms (no queueing)."""
        if self.topology is not None:
            return topology_model.mean_demands_ms(self)
        return dict(_DERIVED.get((self.io, self.channels, self.control_unit, self.devices),
                                 self._mean_demands_ms, "mean_demands_ms"))

    def _mean_demands_ms(self) -> dict:
        c, cu = self.channels, self.control_unit
        shares = self.class_shares()
        z = c["zhpf_share"]
        mp = xfer = proto = miss = 0.0
        for s, cl in zip(shares, self.io):
            mp_ccw = mp_us_per_io(c, "ccw", cl["records"], cl["kb"])
            mp_z = mp_us_per_io(c, "zhpf", cl["records"], cl["kb"])
            mp += s * ((1 - z) * mp_ccw + z * mp_z) / 1000.0
            proto += s * ((1 - z) * (c["protocol_us_per_command_ccw"] + cu["cu_us_per_command_ccw"]) * cl["records"]
                          + z * (c["protocol_us_per_io_zhpf"]
                                 + (c["protocol_us_per_command_zhpf"] + cu["cu_us_per_command_zhpf"]) * cl["records"])) / 1000.0
            xfer += s * cl["kb"] / c["link_mb_s"]
            miss += s * cl["miss_ratio"]
        dem = {"mp": mp, "link": xfer, "protocol": proto, "ha": cu["ha_service_us"].mean / 1000.0,
               "backend": miss * cu["backend_service_ms"].mean}
        pos = self.positional()
        if pos is not None:
            dem["backend"] = 0.0
            dem["device"] = positional_demand_ms(pos, shares, self.io, self.channels["link_mb_s"])
        return dem

    def open_bottleneck(self) -> tuple[str, float, float]:
        """(station, utilisation, arrival rate in I/O/s) of an open workload's busiest station.

        Utilisations come from mean demands only, so this is a necessary stability condition;
        the engine also detects overload at run time. Closed workloads return ("", 0, 0).
        """
        w = self.workload
        if w["type"] != "open":
            return "", 0.0, 0.0
        if self.topology is not None:
            return topology_model.open_bottleneck(self)
        rate_per_ms = w["rate_iops"] / 1000.0
        if w["arrival_trace_ms"] is not None:
            tr = w["arrival_trace_ms"]
            rate_per_ms = (len(tr) - 1) / (tr[-1] - tr[0])
        dem = self.mean_demands_ms()
        c, cu, d = self.channels, self.control_unit, self.devices
        service = sum(dem.values())
        hottest = float(self.device_weights().max())
        util = {
            "channel MP": rate_per_ms * dem["mp"] / c["count"],
            "link": rate_per_ms * dem["link"] / c["count"],
            "host adapter": rate_per_ms * dem["ha"] / cu["ha_servers"],
            "back end": rate_per_ms * dem["backend"] / cu["backend_servers"],
            "hottest device": rate_per_ms * hottest * service / (1 + d["aliases"]),
        }
        if d["alias_mode"] == "hyperpav":   # the pool serves every device: bases + aliases in all
            util["devices and alias pool"] = rate_per_ms * service / (d["count"] + d["aliases"])
        name, u = max(util.items(), key=lambda kv: kv[1])
        return name, u, rate_per_ms * 1000.0

    def check_open_capacity(self) -> None:
        """Raise if an open workload's rate meets or exceeds some station's capacity."""
        name, u, rate = self.open_bottleneck()
        u, rate = float(u), float(rate)      # (plain numbers in the message, never np.float64(...))
        if u >= 1.0 and self.topology is not None:
            raise topology_model.capacity_error(self, name, u, rate)
        if u >= 1.0:
            field = "workload.rate_iops" if self.workload["arrival_trace_ms"] is None else "workload.arrival_trace_ms"
            cap = rate / u
            allowed = (f"allowed: rate_iops < {cap:.6g}" if math.isfinite(cap) and cap > 0
                       else f"no rate fits: the {name} alone is at capacity")
            raise McioError(field, round(rate, 6),
                            f"open load at or over capacity ({name} utilisation {u:.3f} >= 1); {allowed}")


def _user_set(m: "Model", raw: dict, io_raw: list) -> dict:
    """The fields ``raw`` sets to other than their defaults: ``section.field`` -> (its dotted
    name, its value). A field written at its default is not "set": a model mcio wrote (every
    field, ``Model.to_toml``) reads back as it was."""
    out = {}

    def put(sec: str, clean: dict, sub, where: str):
        for k, v in sub.items() if isinstance(sub, dict) else ():
            f = SECTIONS[sec][k]
            default = None if f.default is None else f.check(f"{where}.{k}", f.default)
            if clean[k] != default:
                out.setdefault(f"{sec}.{k}", (f"{where}.{k}", v))

    for sec in ("workload", "devices", "channels", "control_unit"):
        put(sec, getattr(m, sec), raw.get(sec, {}), sec)
    for i, c in enumerate(io_raw):
        put("io", m.io[i], c, f"io[{i}]")
    return out


def load_toml(path) -> dict:
    """Read a TOML file with errors that name the file."""
    p = Path(path)
    if not p.exists():
        raise McioError("file", str(p), "does not exist")
    try:
        return tomllib.loads(p.read_text())
    except tomllib.TOMLDecodeError as e:
        raise McioError("file", str(p), f"is not valid TOML ({e})") from None
    except (OSError, UnicodeDecodeError) as e:
        raise McioError("file", str(p), f"cannot be read ({e})") from None
