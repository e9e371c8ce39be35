"""The model fields' checkers: each takes (dotted name, raw value) and returns the clean value or
raises McioError (field, value, what is allowed), and carries ``schema``, its JSON Schema fragment
(mcio/model/schema.py builds the spec schema from them, so the schema and the validation cannot
drift apart); and the bounds physics sets on durations, rates and a positional device."""
from __future__ import annotations

from typing import Callable

from ..errors import McioError
from .dist import KINDS, Dist, _number
from .text import check_text


def _with_schema(check: Callable, schema: dict) -> Callable:
    check.schema = schema
    return check


def num(lo=0.0, lo_open=False, hi=None, hi_open=False) -> Callable:
    rng = f"{'>' if lo_open else '>='} {lo:g}" + ("" if hi is None else f" and {'<' if hi_open else '<='} {hi:g}")

    def check(name, v):
        try:
            x = _number(name, v, lo=lo, lo_open=lo_open)
        except McioError as e:
            if "finite" in e.allowed or "a number" in e.allowed:
                raise
            raise McioError(name, v, f"must be {rng}") from None
        if hi is not None and (x > hi or (hi_open and x == hi)):
            raise McioError(name, v, f"must be {rng}")
        return x
    sch = {"type": "number", ("exclusiveMinimum" if lo_open else "minimum"): lo}
    if hi is not None:
        sch["exclusiveMaximum" if hi_open else "maximum"] = hi
    return _with_schema(check, sch)


def integer(lo=0, hi=None) -> Callable:
    def check(name, v):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and not v.is_integer()):
            raise McioError(name, v, "must be an integer")
        v = int(v)
        if v < lo or (hi is not None and v > hi):
            raise McioError(name, v, f"must be an integer in [{lo}, {hi if hi is not None else 'inf'}]")
        return v
    sch = {"type": "integer", "minimum": lo}
    if hi is not None:
        sch["maximum"] = hi
    return _with_schema(check, sch)


def choice(*opts) -> Callable:
    def check(name, v):
        if v not in opts:
            raise McioError(name, v, f"must be one of {', '.join(map(repr, opts))}")
        return v
    return _with_schema(check, {"enum": list(opts)})


#: Largest mean (in the field's own unit) and SCV a duration may have: beyond them a run's clock
#: loses the resolution of its shortest durations (2**53 ulps), and no I/O path has such delays.
MAX_DURATION = 1e9
MAX_SCV = 1e4
#: A positional device's bounds from the same limits: one I/O's media transfer (io.kb <= 1e6 KB)
#: takes at most MAX_DURATION ms; a revolution is no shorter than the clock resolves over a run of
#: MAX_DURATION ms (its ulp there, 1.2e-7 ms, rounded up).
MIN_MEDIA_MB_S = 1e6 / MAX_DURATION
MIN_ROTATION_MS = 1e-6
#: No channel subsystem starts more than 1e8 SSCH/s (an open load's rate, or a trace's mean rate).
MAX_RATE_IOPS = 1e8


def _dist(name, v):
    d = Dist.parse(name, v)
    if d.kind == "uniform" and d.high > MAX_DURATION:
        raise McioError(f"{name}.high", d.high, f"must be <= {MAX_DURATION:g} (in the field's unit)")
    if d.mean > MAX_DURATION:
        raise McioError(name if not isinstance(v, dict) else f"{name}.mean", d.mean,
                        f"must be <= {MAX_DURATION:g} (in the field's unit)")
    if d.scv > MAX_SCV:
        raise McioError(f"{name}.scv" if isinstance(v, dict) else name, d.scv, f"must be <= {MAX_SCV:g}")
    if d.kind == "empirical" and max(d.values) > MAX_DURATION:
        raise McioError(f"{name}.values", max(d.values), f"must be <= {MAX_DURATION:g} (in the field's unit)")
    return d


_DIST_SCHEMA = {"oneOf": [
    {"type": "number", "minimum": 0, "maximum": MAX_DURATION, "description": "deterministic duration"},
    {"type": "object", "required": ["dist"], "additionalProperties": False,
     "properties": {"dist": {"enum": list(KINDS)},
                    "mean": {"type": "number", "minimum": 0, "maximum": MAX_DURATION},
                    "scv": {"type": "number", "minimum": 0, "maximum": MAX_SCV},
                    "values": {"type": "array", "items": {"type": "number", "minimum": 0}, "minItems": 1},
                    "weights": {"type": "array", "items": {"type": "number", "minimum": 0}, "minItems": 1}}}]}
dist = _with_schema(_dist, _DIST_SCHEMA)


def _text(name, v):
    return check_text(name, v)


text = _with_schema(_text, {"type": "string"})


def optional_list(item: Callable) -> Callable:
    def check(name, v):
        if v is None:
            return None
        if not isinstance(v, (list, tuple)):
            raise McioError(name, v, "must be a list")
        return [item(f"{name}[{i}]", x) for i, x in enumerate(v)]
    return _with_schema(check, {"type": "array", "items": getattr(item, "schema", {})})


def _trace(name, v):
    """Arrival times (ms), non-decreasing, at least two: the gaps are replayed cyclically."""
    if v is None:
        return None
    times = optional_list(num(hi=MAX_DURATION * 1e3))(name, v)
    if len(times) < 2:
        raise McioError(name, f"{len(times)} times", "needs at least 2 arrival times")
    for i in range(1, len(times)):
        if times[i] < times[i - 1]:
            raise McioError(f"{name}[{i}]", times[i], f"arrival times must not decrease (previous {times[i - 1]})")
    if times[-1] <= times[0]:
        raise McioError(name, "all equal", "arrival times must span a positive interval")
    rate_iops = (len(times) - 1) / (times[-1] - times[0]) * 1000.0
    if not rate_iops <= MAX_RATE_IOPS:
        raise McioError(name, f"{len(times)} times over {times[-1] - times[0]:g} ms",
                        f"their mean rate ({rate_iops:g} I/Os per second) must be at most {MAX_RATE_IOPS:g}, "
                        "as workload.rate_iops's")
    return times


trace = _with_schema(_trace, {"type": "array", "items": {"type": "number", "minimum": 0}, "minItems": 2})


def _paths(name, v):
    if v is None:
        return None
    if not isinstance(v, (list, tuple)) or not v:
        raise McioError(name, v, "must be a non-empty list of channel-index lists (one for all devices, or one per device)")
    out = []
    for i, p in enumerate(v):
        if not isinstance(p, (list, tuple)) or not p:
            raise McioError(f"{name}[{i}]", p, "device has no path: give a non-empty list of channel indices")
        idx = [integer(0, 255)(f"{name}[{i}]", c) for c in p]
        if len(set(idx)) != len(idx):
            raise McioError(f"{name}[{i}]", p, "channel indices in a path group must be distinct")
        out.append(idx)
    return out


paths = _with_schema(_paths, {"type": "array", "minItems": 1, "items": {
    "type": "array", "minItems": 1, "uniqueItems": True, "items": {"type": "integer", "minimum": 0, "maximum": 255}}})
