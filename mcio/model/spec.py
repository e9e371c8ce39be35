"""The model: typed, validated parameter objects, loaded from and saved to TOML.

Sections (TOML tables): ``[workload]``, ``[[io]]`` (one table per I/O class), ``[devices]``,
``[channels]``, ``[control_unit]``. Every field carries its unit in its name. Each section is a
plain dict after validation; :class:`Model` holds them and knows how to change one dotted field.
"""
from __future__ import annotations

import copy
import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import tomli_w

from ..errors import McioError
from .dist import Dist, _number

# ---- field checkers: each takes (dotted name, raw value) and returns the clean value ----------


def num(lo=0.0, lo_open=False, hi=None, hi_open=False) -> Callable:
    def check(name, v):
        x = _number(name, v, lo=lo, lo_open=lo_open)
        if hi is not None and (x > hi or (hi_open and x == hi)):
            raise McioError(name, v, f"must be {'<' if hi_open else '<='} {hi:g}")
        return x
    return check


def integer(lo=0, hi=None) -> Callable:
    def check(name, v):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and not v.is_integer()):
            raise McioError(name, v, "must be an integer")
        v = int(v)
        if v < lo or (hi is not None and v > hi):
            raise McioError(name, v, f"must be an integer in [{lo}, {hi if hi is not None else 'inf'}]")
        return v
    return check


def choice(*opts) -> Callable:
    def check(name, v):
        if v not in opts:
            raise McioError(name, v, f"must be one of {', '.join(map(repr, opts))}")
        return v
    return check


def dist(name, v):
    return Dist.parse(name, v)


def text(name, v):
    if not isinstance(v, str):
        raise McioError(name, v, "must be a string")
    return v


def optional_list(item: Callable) -> Callable:
    def check(name, v):
        if v is None:
            return None
        if not isinstance(v, (list, tuple)):
            raise McioError(name, v, "must be a list")
        return [item(f"{name}[{i}]", x) for i, x in enumerate(v)]
    return check


def trace(name, v):
    """Arrival times (ms), non-decreasing, at least two: the gaps are replayed cyclically."""
    if v is None:
        return None
    times = optional_list(num())(name, v)
    if len(times) < 2:
        raise McioError(name, f"{len(times)} times", "needs at least 2 arrival times")
    for i in range(1, len(times)):
        if times[i] < times[i - 1]:
            raise McioError(f"{name}[{i}]", times[i], f"arrival times must not decrease (previous {times[i - 1]})")
    if times[-1] <= times[0]:
        raise McioError(name, "all equal", "arrival times must span a positive interval")
    return times


def paths(name, v):
    if v is None:
        return None
    if not isinstance(v, (list, tuple)) or not v:
        raise McioError(name, v, "must be a non-empty list of channel-index lists (one for all devices, or one per device)")
    out = []
    for i, p in enumerate(v):
        if not isinstance(p, (list, tuple)) or not p:
            raise McioError(f"{name}[{i}]", p, "device has no path: give a non-empty list of channel indices")
        idx = [integer(0)(f"{name}[{i}]", c) for c in p]
        if len(set(idx)) != len(idx):
            raise McioError(f"{name}[{i}]", p, "channel indices in a path group must be distinct")
        out.append(idx)
    return out


# ---- the sections: key -> (checker, default) -------------------------------------------------

SECTIONS: dict[str, dict[str, tuple[Callable, Any]]] = {
    "workload": {
        "type": (choice("open", "closed"), "closed"),
        "rate_iops": (num(lo=0.0, lo_open=True), 1000.0),          # open: arrival rate
        "arrival_scv": (num(), 1.0),                               # open: 1 = Poisson
        "arrival_trace_ms": (trace, None),                         # open: arrival times, replayed
        "population": (integer(1, 10_000_000), 1),                 # closed: I/Os kept outstanding
        "think_ms": (dist, 0.0),                                   # closed: delay before reissue
        "binding": (choice("random", "device"), "random"),         # closed: device per I/O or fixed
    },
    "io": {  # one per class
        "name": (text, "io"),
        "share": (num(lo=0.0, lo_open=True), 1.0),                 # relative frequency
        "kb": (num(), 4.0),                                        # data per I/O, KB (1 KB = 1000 B)
        "records": (integer(1, 1_000_000), 1),                     # commands (CCWs) per I/O
        "miss_ratio": (num(hi=1.0), 0.0),                          # fraction that disconnects
    },
    "devices": {
        "count": (integer(1, 1_000_000), 1),
        "aliases": (integer(0, 255), 0),                           # PAV: per device; HyperPAV: pool
        "alias_mode": (choice("static", "hyperpav"), "static"),    # static PAV or a HyperPAV pool
        "skew": (choice("uniform", "zipf", "hotset", "weights"), "uniform"),
        "zipf_s": (num(), 1.0),
        "hot_fraction": (num(lo=0.0, lo_open=True, hi=1.0), 0.2),
        "hot_share": (num(hi=1.0), 0.8),
        "weights": (optional_list(num()), None),
        "paths": (paths, None),                                    # channel indices per device
    },
    "channels": {
        "count": (integer(1, 256), 1),
        "link_mb_s": (num(lo=0.0, lo_open=True), 800.0),           # 1 MB/s = 1 KB/ms
        "max_open_exchanges": (integer(1, 100_000), 64),
        "selection": (choice("rotate", "least_busy"), "rotate"),
        "zhpf_share": (num(hi=1.0), 0.0),                          # fraction of I/Os in transport mode
        "mp_us_per_io_ccw": (num(), 20.0),
        "mp_us_per_command_ccw": (num(), 0.0),
        "mp_us_per_kb_ccw": (num(), 0.0),
        "mp_us_per_io_zhpf": (num(), 10.0),
        "mp_us_per_command_zhpf": (num(), 0.0),
        "mp_us_per_kb_zhpf": (num(), 0.0),
        "mp_scv": (num(), 0.0),                                    # variability of MP work
        "mp_start_fraction": (num(hi=1.0), 1.0),                   # share of MP work done at start
        "protocol_us_per_command_ccw": (num(), 0.0),               # connect-time handshakes
        "protocol_us_per_io_zhpf": (num(), 0.0),
        "protocol_us_per_command_zhpf": (num(), 0.0),              # per DCW of a TCCB, in connect
    },
    "control_unit": {
        "ha_servers": (integer(1, 100_000), 1),                    # host-adapter processors
        "ha_service_us": (dist, 0.0),                              # per I/O: the CMR service
        "backend_servers": (integer(1, 1_000_000), 1),             # ranks / partner servers
        "backend_service_ms": (dist, 0.0),                         # per disconnected I/O
        "cu_us_per_command_ccw": (num(), 0.0),                     # CU work per CCW, in connect
        "cu_us_per_command_zhpf": (num(), 0.0),                    # CU work per DCW, in connect
    },
}


def _section(sec: str, raw: dict, where: str) -> dict:
    fields = SECTIONS[sec]
    if not isinstance(raw, dict):
        raise McioError(where, raw, "must be a TOML table")
    for k in raw:
        if k not in fields:
            raise McioError(f"{where}.{k}", raw[k], f"unknown key; allowed: {', '.join(fields)}")
    return {k: chk(f"{where}.{k}", raw.get(k, default)) if (k in raw or default is not None)
            else None for k, (chk, default) in fields.items()}


@dataclass(frozen=True)
class Model:
    """A validated model. Sections are dicts of clean values; ``io`` is a list of class dicts."""

    workload: dict
    io: list
    devices: dict
    channels: dict
    control_unit: dict

    # ---- construction ----
    @classmethod
    def from_dict(cls, raw: dict, where: str = "model") -> "Model":
        if not isinstance(raw, dict):
            raise McioError(where, raw, "must be a table")
        allowed = ("workload", "io", "devices", "channels", "control_unit")
        for k in raw:
            if k not in allowed:
                raise McioError(f"{k}", raw[k], f"unknown section; allowed: {', '.join(allowed)}")
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
        )
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
        if w["type"] == "closed" and w["binding"] == "device":
            n_used = int((self.device_weights() > 0).sum())
            if w["population"] % n_used:
                raise McioError("workload.population", w["population"],
                                f"binding = 'device' needs a multiple of the {n_used} devices in use")

    # ---- output ----
    def to_dict(self) -> dict:
        def clean(sec: dict) -> dict:
            return {k: (v.to_toml() if isinstance(v, Dist) else v) for k, v in sec.items() if v is not None}
        return {"workload": clean(self.workload), "io": [clean(c) for c in self.io],
                "devices": clean(self.devices), "channels": clean(self.channels),
                "control_unit": clean(self.control_unit)}

    def to_toml(self) -> str:
        return tomli_w.dumps(self.to_dict())

    # ---- changing one field (sweeps) ----
    def get(self, key: str):
        sec, *rest = key.split(".")
        d = self.to_dict()
        node = d.get(sec)
        for part in rest:
            if isinstance(node, list):
                node = node[int(part)] if part.isdigit() and int(part) < len(node) else None
            elif isinstance(node, dict):
                node = node.get(part, None)
        if node is None:
            raise McioError(key, None, "no such model field")
        return node

    def replace(self, key: str, value) -> "Model":
        """A new model with dotted field ``key`` (e.g. ``workload.population``, ``io.0.kb``) set."""
        d = copy.deepcopy(self.to_dict())
        parts = key.split(".")
        if parts[0] not in SECTIONS:
            raise McioError(key, value, f"unknown section {parts[0]!r}; allowed: {', '.join(SECTIONS)}")
        node = d
        for i, part in enumerate(parts[:-1]):
            if isinstance(node, list):
                if not part.isdigit() or int(part) >= len(node):
                    raise McioError(key, value, f"io class index must be 0..{len(node) - 1}")
                node = node[int(part)]
            else:
                node = node.setdefault(part, {})
        last = parts[-1]
        if isinstance(node, list):
            raise McioError(key, value, "name a field of an io class, e.g. io.0.kb")
        node[last] = value
        return Model.from_dict(d)

    # ---- derived quantities used by the engine and the capacity check ----
    def device_weights(self):
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

    def class_shares(self):
        import numpy as np
        s = np.array([c["share"] for c in self.io])
        return s / s.sum()

    def mean_demands_ms(self) -> dict:
        """Mean service demand per I/O at each station, in ms (no queueing)."""
        c, cu = self.channels, self.control_unit
        shares = self.class_shares()
        z = c["zhpf_share"]
        mp = xfer = proto = miss = 0.0
        for s, cl in zip(shares, self.io):
            mp_ccw = c["mp_us_per_io_ccw"] + c["mp_us_per_command_ccw"] * cl["records"] + c["mp_us_per_kb_ccw"] * cl["kb"]
            mp_z = c["mp_us_per_io_zhpf"] + c["mp_us_per_command_zhpf"] * cl["records"] + c["mp_us_per_kb_zhpf"] * cl["kb"]
            mp += s * ((1 - z) * mp_ccw + z * mp_z) / 1000.0
            proto += s * ((1 - z) * (c["protocol_us_per_command_ccw"] + cu["cu_us_per_command_ccw"]) * cl["records"]
                          + z * (c["protocol_us_per_io_zhpf"]
                                 + (c["protocol_us_per_command_zhpf"] + cu["cu_us_per_command_zhpf"]) * cl["records"])) / 1000.0
            xfer += s * cl["kb"] / c["link_mb_s"]
            miss += s * cl["miss_ratio"]
        return {"mp": mp, "link": xfer, "protocol": proto, "ha": cu["ha_service_us"].mean / 1000.0,
                "backend": miss * cu["backend_service_ms"].mean}

    def open_bottleneck(self) -> tuple[str, float, float]:
        """(station, utilisation, arrival rate in I/O/s) of an open workload's busiest station.

        Utilisations come from mean demands only, so this is a necessary stability condition;
        the engine also detects overload at run time. Closed workloads return ("", 0, 0).
        """
        w = self.workload
        if w["type"] != "open":
            return "", 0.0, 0.0
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
        if u >= 1.0:
            field = "workload.rate_iops" if self.workload["arrival_trace_ms"] is None else "workload.arrival_trace_ms"
            raise McioError(field, round(rate, 6),
                            f"open load at or over capacity ({name} utilisation {u:.3f} >= 1); "
                            f"allowed: rate_iops < {rate / u:.6g}")


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
