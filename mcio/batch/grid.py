"""The grid of a sweep: its axes (a dotted model field, a dimension name, the values), the values
a ``[sweep]`` entry expands to, a point's coordinates set on a :class:`mcio.model.Model`, and the
attributes of each sweep dimension's coordinate.

Points are numbered in C order over the grid (the last axis varies fastest); the spec
(:class:`mcio.batch.spec.SweepSpec`) maps a point to its coordinates and model with the functions
here.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..engine.tables import LEVEL_DIMS
from ..errors import McioError
from ..model import Model
from ..model.spec import MODEL_SECTIONS

#: Values per axis (a range's values are materialised per axis only).
MAX_AXIS_VALUES = 1_000_000
VARIANT_DIM = "variant"
# dims the engine already uses and names of its variables: a sweep dim must not collide with them
RESERVED_DIMS = ("replication", "quantile", "device", "point", VARIANT_DIM) + LEVEL_DIMS
UNIT_OF_SUFFIX = (("_mb_s", "Mbyte s-1"), ("_iops", "s-1"), ("_ms", "ms"), ("_us", "us"), ("_kb", "kB"))


@dataclass(frozen=True)
class Axis:
    """One sweep axis: the dotted model ``key``, its dataset dimension name and its values."""

    key: str
    dim: str
    values: tuple

    @property
    def attrs(self) -> dict:
        parts = self.key.split(".")
        last = parts[-2] if parts[-1] == "mean" and len(parts) > 2 else parts[-1]  # a distribution's mean
        units = next((u for suf, u in UNIT_OF_SUFFIX if last.endswith(suf) or last == suf[1:]), "1")
        a = {"long_name": f"model field {self.key}", "mcio_key": self.key}
        if not isinstance(self.values[0], str):
            a["units"] = units
        return a


def _axis_values(key: str, v, base_value) -> tuple:
    """The values of axis ``key`` from its ``[sweep]`` entry ``v``: a list, one value, or a range
    ``{start, stop, num[, log]}`` (rounded and deduplicated on an integer field, whose current
    value is ``base_value``)."""
    name = f"sweep.{key}"
    if isinstance(v, dict):
        for k in v:
            if k not in ("start", "stop", "num", "log"):
                raise McioError(f"{name}.{k}", v[k], "unknown key; allowed: start, stop, num, log")
        for k in ("start", "stop", "num"):
            if k not in v:
                raise McioError(f"{name}.{k}", None, "is required for a range axis {start, stop, num[, log]}")
            if isinstance(v[k], bool) or not isinstance(v[k], (int, float)) or not math.isfinite(v[k]):
                raise McioError(f"{name}.{k}", v[k], "must be a finite number")
        num = v["num"]
        if not isinstance(num, int) and not float(num).is_integer() or not 1 <= num <= MAX_AXIS_VALUES:
            raise McioError(f"{name}.num", num, f"must be an integer in [1, {MAX_AXIS_VALUES}]")
        log = v.get("log", False)
        if not isinstance(log, bool):
            raise McioError(f"{name}.log", log, "must be true or false")
        start, stop, num = float(v["start"]), float(v["stop"]), int(num)
        if log:
            if start <= 0 or stop <= 0:
                bad = "start" if start <= 0 else "stop"
                raise McioError(f"{name}.{bad}", v[bad], "log = true needs start > 0 and stop > 0")
            vals = np.geomspace(start, stop, num)
        else:
            vals = np.linspace(start, stop, num)
        if isinstance(base_value, int) and not isinstance(base_value, bool):
            # an integer field: round and drop duplicates (a log range of small integers repeats)
            vals = list(dict.fromkeys(int(round(x)) for x in vals))
        else:
            vals = [float(x) for x in vals]
        return tuple(vals)
    if isinstance(v, list):
        if not v:
            raise McioError(name, v, "must list at least one value")
        if len(v) > MAX_AXIS_VALUES:
            raise McioError(name, f"{len(v)} values", f"at most {MAX_AXIS_VALUES} values per axis")
        for i, x in enumerate(v):
            if isinstance(x, float) and not math.isfinite(x):
                raise McioError(f"{name}[{i}]", x, "must be a finite number")
        kinds = {str if isinstance(x, str) else (bool if isinstance(x, bool) else float if isinstance(x, (int, float)) else None) for x in v}
        if None in kinds or bool in kinds or len(kinds) > 1:
            raise McioError(name, v, "values must be all numbers or all strings")
        if len(set(v)) != len(v):
            raise McioError(name, v, "values must be distinct")
        if kinds == {float} and not all(isinstance(x, int) for x in v):
            v = [float(x) for x in v]
        return tuple(v)
    if isinstance(v, (int, float, str)) and not isinstance(v, bool):
        return (v,)
    raise McioError(name, v, "must be a list of values or a range {start, stop, num[, log]}")


def parse_axes(sweep, model: Model) -> tuple[Axis, ...]:
    """The ``[sweep]`` table -> its axes, in the spec's order, each with its dimension name."""
    if not isinstance(sweep, dict):
        raise McioError("sweep", sweep, "must be a table of \"dotted.model.key\" = values")
    keys = flatten_keys(sweep)
    lasts = [_short_name(k) for k, _ in keys]
    axes = []
    seen = set()
    for (key, v), last in zip(keys, lasts):
        if key in seen:
            raise McioError(f"sweep.{key}", v, "is given twice (a quoted \"a.b\" key and a dotted a.b key name "
                                               "the same field); give each axis once")
        seen.add(key)
        if key.split(".")[0] not in MODEL_SECTIONS:
            raise McioError(f"sweep.{key}", v, f"unknown model section {key.split('.')[0]!r}; "
                                               f"allowed: {', '.join(MODEL_SECTIONS)} (e.g. \"workload.population\")")
        try:
            base = model.get(key)
        except McioError:
            base = None
        values = _axis_values(key, v, base)
        dim = last if (lasts.count(last) == 1 and last.isidentifier() and last not in RESERVED_DIMS) \
            else key.replace(".", "__")
        if dim in {a.dim for a in axes}:
            raise McioError(f"sweep.{key}", v, f"its dimension name {dim!r} is taken by another axis")
        axes.append(Axis(key, dim, values))
    return tuple(axes)


def _short_name(key: str) -> str:
    """The dimension name an axis gets if no other axis claims it: the field name, or
    field__mean for a distribution's parameter (``control_unit.backend_service_ms.mean``)."""
    parts = key.split(".")
    if len(parts) > 2 and parts[-1] in ("mean", "scv") and not parts[-2].isdigit():
        return f"{parts[-2]}__{parts[-1]}"
    return parts[-1]


def flatten_keys(sweep: dict, prefix: str = "") -> list[tuple[str, Any]]:
    """``"workload.population" = [...]`` and ``workload.population = [...]`` (a nested table) alike."""
    out = []
    for k, v in sweep.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and not set(v) & {"start", "stop", "num", "log"}:
            out += flatten_keys(v, key + ".")
        else:
            out.append((key, v))
    return out


def apply_coords(model: Model, axes, coords: dict) -> Model:
    """``model`` with the field of each of ``axes`` set to its value in ``coords`` (by dim name)."""
    for a in axes:
        model = set_field(model, a.key, coords[a.dim], f"sweep.{a.key}")
    return model


def set_field(model: Model, field_key: str, value, where: str) -> Model:
    """``model`` with dotted ``field_key`` set to ``value``; errors name ``where``."""
    key, set_to = field_key, value
    parent, _, sub = key.rpartition(".")
    if sub in ("mean", "scv") and parent.count(".") >= 1:
        try:
            base = model.get(parent)
        except McioError:
            base = None
        if isinstance(base, (int, float)):
            # a deterministic duration is a bare number: its mean is the number itself;
            # giving it an SCV makes it a gamma of that mean
            key, set_to = parent, (value if sub == "mean" else {"dist": "gamma", "mean": base, "scv": value})
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            cur = model.get(key)
        except McioError:
            cur = None
        if isinstance(cur, dict):
            # a bare number on a distribution field sets its mean and keeps its shape (writing
            # 1.0 for an exponential of mean 1.376 must not make it a constant)
            if "mean" not in cur:
                raise McioError(where, value, f"{key} is an empirical distribution: give its values "
                                f"as a table, e.g. {{dist = \"empirical\", values = [...], weights = [...]}}")
            set_to = {**cur, "mean": value}
    try:
        return model.replace(key, set_to, where=where, check=False)   # (the spec checks its points together)
    except McioError as e:
        raise McioError(where if e.field == field_key else e.field, e.value,
                        e.allowed if e.field == field_key else f"{e.allowed} (at {where} = {value!r})") from None
    except (TypeError, AttributeError, KeyError, IndexError):
        raise McioError(where, value, "is not a settable model field") from None


def dim_attrs(spec) -> dict[str, dict]:
    """The attributes of each sweep dimension's coordinate (the variant first, if any)."""
    out = {}
    if spec.variants:
        out[VARIANT_DIM] = {"long_name": "named variant of the spec ([variants.NAME] tables)",
                            "mcio_key": "variants"}
    out.update({a.dim: a.attrs for a in spec.axes})
    return out
