"""Batch sweeps: a TOML spec expands into a grid of model points, each simulated, assembled into one
labelled :class:`xarray.Dataset` (sweep axes as dimensions) and, if asked, stored as HDF5.

A spec holds a model (``[model.workload]``, ``[[model.io]]``, ... exactly like a model file) or a
named scenario (``scenario = "mm1-demo"`` plus ``[scenario_params]``), the sweep axes and the run::

    title = "Knee of one FICON channel"
    scenario = "mm1-demo"
    [scenario_params]
    service_ms = 1.0
    [sweep]                      # several axes make a grid (C order: the last axis varies fastest)
    "workload.rate_iops" = {start = 100, stop = 900, num = 9}        # linear
    "control_unit.backend_service_ms" = [0.5, 1.0]                     # explicit values
    # {start = 1, stop = 400, num = 12, log = true} spaces geometrically
    [run]
    replications = 4
    ios = 20000                  # per replication, after warm-up
    warmup = 2000                # omit for the engine's automatic rule
    seed = 1

Named variants give the grid one more dimension, ``variant`` (a string coordinate, the first
dimension): each ``[variants.NAME]`` table overrides fields of the base, dotted model fields
(``"channels.zhpf_share" = 1.0``, or a ``[variants.NAME.channels]`` table) or, in a scenario spec,
scenario parameters (``zhpf_share = 1.0``)::

    [variants.ccw]               # nothing overridden: the base as it is
    [variants.zhpf]
    zhpf_share = 1.0

Point ``p`` (0..P-1, C order over the grid) is simulated on its own random stream, keyed by its
index over the sweep axes alone (:meth:`SweepSpec.stream_index`; ``p`` itself without variants):
the variants of one set of axis values share their random numbers (common random numbers, so
their differences are sharper than their CIs). Points run in this process, or with ``dask=...`` one task each on a Dask cluster
(:mod:`mcio.distributed`); either way they are assembled by index, so the results are the same.
"""
from __future__ import annotations

import functools
import math
import os
import sys
import threading
import tomllib
import types
import warnings
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np
import tomli_w

from . import gcscope, interrupt
from .errors import McioError
from .interrupt import SweepInterrupted
from .model import Model
from .model.spec import SECTIONS, load_toml

#: Run sizes the kernels' int64 counters hold with room to spare (ios + warm-up per replication),
#: replications with a CI (>= 2) and within memory reach, seeds numpy's SeedSequence and the
#: netCDF int64 attribute both take.
MAX_RUN_IOS = 2**62
RUN_BOUNDS = {"replications": (2, 10_000), "ios": (1, MAX_RUN_IOS), "warmup": (0, MAX_RUN_IOS),
              "seed": (0, 2**63 - 1)}
#: Grid sizes: values per axis, points in all (a range's values are materialised per axis only).
MAX_AXIS_VALUES = 1_000_000
MAX_POINTS = 10_000_000
#: Grids up to this many points have every point's model built and checked at load; larger ones
#: have every axis value checked on the base model (ranges of more than SAMPLED_VALUES values at
#: that many evenly spaced values, both ends included: bounds are intervals) and the rest when run.
EAGER_POINTS = 10_000
SAMPLED_VALUES = 1_000
#: Nesting of tables and arrays a spec may have (a model needs 4).
MAX_DEPTH = 32
TOP_KEYS = ("title", "description", "model", "scenario", "scenario_params", "variants", "sweep", "run")
VARIANT_DIM = "variant"
RUN_KEYS = ("replications", "ios", "warmup", "seed", "precision", "precision_of", "max_ios")
RUN_DEFAULTS = {"replications": 4, "ios": 200_000, "warmup": None, "seed": 0, "precision": None,
                "precision_of": ("response_ms",), "max_ios": None}
#: Variables a precision target may name (per-replication means; channel figures averaged).
PRECISION_VARS = ("response_ms", "iosq_ms", "pend_ms", "cmr_ms", "disconnect_ms", "connect_ms",
                  "throughput_iops", "device_busy", "device_busy_zvm", "channel_busy", "link_busy",
                  "open_exchanges_mean", "cu_ha_busy", "backend_busy")
#: Without [run] max_ios, a precision target may spend up to this many times [run] ios per replication.
MAX_IOS_FACTOR = 100
# dims the engine already uses and names of its variables: a sweep dim must not collide with them
RESERVED_DIMS = ("replication", "channel", "quantile", "device", "point", VARIANT_DIM)
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


@dataclass(frozen=True)
class SweepSpec:
    """A validated sweep spec. ``text`` is its TOML (stored in results to check resumes)."""

    text: str
    raw: dict
    title: str
    model: Model
    axes: tuple[Axis, ...]
    run: dict
    scenario: str | None = None
    source: str = "<dict>"
    #: (name, overrides) per named variant, in the spec's order; () without variants
    variants: tuple = ()
    _bases: tuple = field(default=(), repr=False, compare=False)   # the base model of each variant
    _models: tuple = field(default=(), repr=False, compare=False)

    @property
    def variant_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.variants)

    @property
    def axes_shape(self) -> tuple[int, ...]:
        return tuple(len(a.values) for a in self.axes)

    @property
    def shape(self) -> tuple[int, ...]:
        return ((len(self.variants),) if self.variants else ()) + self.axes_shape

    @property
    def n_points(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) if self.shape else 1

    @property
    def dims(self) -> tuple[str, ...]:
        return ((VARIANT_DIM,) if self.variants else ()) + tuple(a.dim for a in self.axes)

    def coords(self, p: int) -> dict[str, Any]:
        """The coordinates (by dim name: the variant's name, then the sweep-axis values) of point ``p``."""
        idx = np.unravel_index(p, self.shape) if self.shape else ()
        out = {}
        if self.variants:
            out[VARIANT_DIM] = self.variants[idx[0]][0]
            idx = idx[1:]
        out.update({a.dim: a.values[i] for a, i in zip(self.axes, idx)})
        return out

    def stream_index(self, p: int) -> int:
        """The random stream (engine ``point``) of point ``p``: its index over the sweep axes alone,
        so that every variant of the same axis values gets the same stream (``p`` without variants)."""
        if not self.variants:
            return p
        return p % int(np.prod(self.axes_shape, dtype=np.int64)) if self.axes else 0

    def variant_index(self, p: int) -> int:
        return p // (int(np.prod(self.axes_shape, dtype=np.int64)) if self.axes else 1) if self.variants else 0

    def point_model(self, p: int) -> Model:
        """The model of point ``p``: the base model (of its variant) with every axis field set."""
        if not 0 <= p < self.n_points:
            raise McioError("point", p, f"must be in 0..{self.n_points - 1}")
        if self._models:
            return self._models[p]
        base = self._bases[self.variant_index(p)] if self._bases else self.model
        return _apply(base, self.axes, self.coords(p))

    def points(self) -> Iterator[tuple[int, dict, Model]]:
        for p in range(self.n_points):
            yield p, self.coords(p), self.point_model(p)

    def same_as(self, other_text: str) -> bool:
        """Whether TOML ``other_text`` describes the same sweep (comments and layout ignored)."""
        try:
            return tomllib.loads(other_text) == tomllib.loads(self.text)
        except tomllib.TOMLDecodeError:
            return False


# ---- parsing ----------------------------------------------------------------------------------


def load_spec(spec_or_path) -> SweepSpec:
    """A :class:`SweepSpec` from a path (str or Path), a TOML string (if it contains a newline or
    '='), a dict, or an existing SweepSpec. Raises McioError naming the bad key."""
    if isinstance(spec_or_path, SweepSpec):
        return spec_or_path
    try:
        return _load_spec(spec_or_path)
    except RecursionError:
        raise McioError("spec", "<nested>", f"nests tables or arrays too deeply (at most {MAX_DEPTH} levels)") from None


def _load_spec(spec_or_path) -> SweepSpec:
    if isinstance(spec_or_path, dict):
        raw, source = _plain(spec_or_path, "spec", 0), "<dict>"
        try:
            text = tomli_w.dumps(raw)
        except (TypeError, ValueError) as e:
            raise McioError("spec", "<dict>", f"cannot be written as TOML ({e})") from None
    elif isinstance(spec_or_path, (str, Path)) and not (isinstance(spec_or_path, str)
                                                        and ("\n" in spec_or_path or "=" in spec_or_path)):
        source = str(spec_or_path)
        raw = load_toml(spec_or_path)
        text = Path(spec_or_path).read_text()
    elif isinstance(spec_or_path, str):
        source = "<string>"
        try:
            raw = tomllib.loads(spec_or_path)
        except tomllib.TOMLDecodeError as e:
            raise McioError("spec", "<string>", f"is not valid TOML ({e})") from None
        text = spec_or_path
    else:
        raise McioError("spec", type(spec_or_path).__name__, "must be a path, a TOML string, a dict or a SweepSpec")
    return parse_spec(raw, text=text, source=source)


def _plain(v, where: str, depth: int):
    """A Python spec value as TOML holds it: numpy scalars as numbers, arrays, tuples and ranges as
    lists; a key set to None is omitted (its default). Anything else, or nesting deeper than
    MAX_DEPTH, is a McioError naming where."""
    if depth > MAX_DEPTH:
        raise McioError(where, "<nested>", f"nests tables or arrays too deeply (at most {MAX_DEPTH} levels)")
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if not isinstance(k, str):
                raise McioError(f"{where}.{k!r}", x, "keys must be strings")
            if x is not None:
                out[k] = _plain(x, f"{where}.{k}" if where != "spec" else k, depth + 1)
        return out
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    if isinstance(v, (str, int, float)):
        return str(v) if isinstance(v, str) else v
    if isinstance(v, np.ndarray) and v.ndim == 0:
        return _plain(v.item(), where, depth)
    if isinstance(v, range) and len(v) > MAX_AXIS_VALUES:
        raise McioError(where, f"range of {len(v)} values", f"at most {MAX_AXIS_VALUES} values")
    if isinstance(v, (list, tuple, range, np.ndarray)):
        if len(v) > MAX_AXIS_VALUES:
            raise McioError(where, f"{len(v)} values", f"at most {MAX_AXIS_VALUES} values")
        out = []
        for i, x in enumerate(v.tolist() if isinstance(v, np.ndarray) else v):
            if x is None:
                raise McioError(f"{where}[{i}]", None, "None is not a value (omit the key for its default)")
            out.append(_plain(x, f"{where}[{i}]", depth + 1))
        return out
    raise McioError(where, v if isinstance(v, (complex,)) else type(v).__name__,
                    "must be a number, string, boolean, list or table")


def parse_spec(raw: dict, text: str | None = None, source: str = "<dict>") -> SweepSpec:
    if not isinstance(raw, dict):
        raise McioError("spec", raw, "must be a TOML table")
    _check_depth(raw, "spec", 0)
    raw = dict(raw)
    # a bare model file (sections at the top level) is a spec with no sweep
    bare = [k for k in raw if k in SECTIONS]
    if bare and "model" not in raw and "scenario" not in raw:
        raw = {**{k: v for k, v in raw.items() if k not in SECTIONS}, "model": {k: raw[k] for k in bare}}
    for k in raw:
        if k not in TOP_KEYS:
            raise McioError(k, raw[k], f"unknown key in sweep spec; allowed: {', '.join(TOP_KEYS)} "
                                       f"(or the model sections {', '.join(SECTIONS)})")
    title = raw.get("title", "mcio sweep")
    if not isinstance(title, str):
        raise McioError("title", title, "must be a string")
    if "description" in raw and not isinstance(raw["description"], str):
        raise McioError("description", raw["description"], "must be a string")

    if "model" in raw and "scenario" in raw:
        raise McioError("scenario", raw["scenario"], "give either [model] tables or scenario = ..., not both")
    if "scenario_params" in raw and "scenario" not in raw:
        raise McioError("scenario_params", raw["scenario_params"], "needs scenario = \"name\"")
    scenario = raw.get("scenario")
    if scenario is not None:
        from .scenarios import build_scenario
        model = build_scenario(scenario, raw.get("scenario_params", {}))
    else:
        m = raw.get("model", {})
        if not isinstance(m, dict):
            raise McioError("model", m, "must be a table holding the model sections")
        model = _prefixed(lambda: Model.from_dict(m), "model.")

    run = _parse_run(raw.get("run", {}))
    axes = _parse_axes(raw.get("sweep", {}), model)
    variants = _parse_variants(raw.get("variants"), scenario is not None)
    bases = tuple(_variant_model(model, scenario, raw.get("scenario_params", {}), name, over)
                  for name, over in variants)
    spec = SweepSpec(text=text if text is not None else tomli_w.dumps(raw), raw=raw, title=title, model=model,
                     axes=axes, run=run, scenario=scenario, source=source, variants=variants, _bases=bases)
    n = math.prod(len(a.values) for a in axes)
    if n > MAX_POINTS:
        raise McioError("sweep", f"{n} points", f"a grid may have at most {MAX_POINTS} points; split the sweep")
    check_size(spec, estimate(spec, fast_path=False))
    if n <= EAGER_POINTS:
        # build every point's model now: a bad axis value fails at validation, not mid-sweep
        models = tuple(spec.point_model(p) for p in range(spec.n_points))
        return SweepSpec(**{**spec.__dict__, "_models": models})
    for a in axes:  # a large grid: each axis value on the base model (points are built when run)
        vals = a.values
        if len(vals) > SAMPLED_VALUES:
            idx = np.unique(np.linspace(0, len(vals) - 1, SAMPLED_VALUES).round().astype(np.int64))
            vals = [vals[i] for i in idx]
        for v in vals:
            _apply(model, (a,), {a.dim: v})
    _apply(model, axes, spec.coords(0))
    _apply(model, axes, spec.coords(spec.n_points - 1))
    return spec


def _check_depth(v, where: str, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise McioError(where, "<nested>", f"nests tables or arrays too deeply (at most {MAX_DEPTH} levels)")
    if isinstance(v, dict):
        for k, x in v.items():
            _check_depth(x, f"{where}.{k}" if where != "spec" else str(k), depth + 1)
    elif isinstance(v, list):
        for i, x in enumerate(v[:64]):  # long flat lists need no walk beyond their first items' depth
            _check_depth(x, f"{where}[{i}]", depth + 1)


def _parse_variants(raw, scenario_spec: bool) -> tuple:
    """``[variants.NAME]`` tables -> ((name, {key: value}), ...). Keys: dotted model fields (a
    nested table under a model section is flattened) or, in a scenario spec, scenario parameters."""
    if raw is None:
        return ()
    if not isinstance(raw, dict) or not raw:
        raise McioError("variants", raw, "must be a table of named tables, e.g. [variants.zhpf]")
    out = []
    for name, over in raw.items():
        where = f"variants.{name}"
        if not name or not isinstance(over, dict):
            raise McioError(where, over, "must be a table of overrides (dotted model fields"
                            + (" or scenario parameters)" if scenario_spec else ")"))
        flat = {}
        for k, v in over.items():
            if k in SECTIONS and isinstance(v, dict):
                flat.update(dict(_flatten_keys(v, k + ".")))
            else:
                flat[k] = v
        for k in flat:
            if "." in k:
                if k.split(".")[0] not in SECTIONS:
                    raise McioError(f"{where}.{k}", flat[k], f"unknown model section {k.split('.')[0]!r}; "
                                                            f"allowed: {', '.join(SECTIONS)}")
            elif not scenario_spec:
                raise McioError(f"{where}.{k}", flat[k], "must be a dotted model field (e.g. "
                                "\"channels.zhpf_share\"); scenario parameters need scenario = \"name\"")
        out.append((name, flat))
    return tuple(out)


def _variant_model(model: Model, scenario, scenario_params, name: str, over: dict) -> Model:
    """The base model of variant ``name``: the scenario rebuilt with its parameter overrides (a
    scenario spec), then its dotted model fields set."""
    params = {k: v for k, v in over.items() if "." not in k}
    if params:
        from .scenarios import build_scenario
        try:
            model = build_scenario(scenario, {**(scenario_params or {}), **params})
        except McioError as e:
            raise McioError(f"variants.{name}: {e.field}", e.value, e.allowed) from None
    for k, v in over.items():
        if "." in k:
            model = _set_field(model, k, v, f"variants.{name}.{k}")
    return model


def _prefixed(fn: Callable, prefix: str):
    try:
        return fn()
    except McioError as e:
        raise McioError(prefix + e.field, e.value, e.allowed) from None


def _parse_run(run) -> dict:
    if not isinstance(run, dict):
        raise McioError("run", run, "must be a table")
    for k in run:
        if k not in RUN_KEYS:
            raise McioError(f"run.{k}", run[k], f"unknown key; allowed: {', '.join(RUN_KEYS)}")
    out = {**RUN_DEFAULTS, **{k: v for k, v in run.items() if v is not None}}
    for k, (lo, hi) in RUN_BOUNDS.items():
        v = out[k]
        if k == "warmup" and v is None:
            continue
        if isinstance(v, (np.integer,)):
            v = int(v)
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            why = " (one replication has no confidence interval)" if k == "replications" and v == 1 else ""
            raise McioError(f"run.{k}", v, f"must be an integer in [{lo}, {hi}]{why}")
        out[k] = v
    warm = out["warmup"] if out["warmup"] is not None else max(1000, out["ios"] // 10)
    if out["ios"] + warm > MAX_RUN_IOS:
        raise McioError("run.ios", out["ios"], f"ios + warm-up ({warm}) per replication must be at most 2**62 "
                                               "(the kernels count I/Os in int64)")
    return _parse_precision(out, warm)


def _parse_precision(out: dict, warm: int) -> dict:
    """``[run] precision`` (relative 95 % CI half-width), ``precision_of`` and ``max_ios``."""
    prec = out["precision"]
    if prec is None:
        return out
    if isinstance(prec, bool) or not isinstance(prec, (int, float)) or not 0.0 < prec < 1.0 or prec != prec:
        raise McioError("run.precision", prec, "must be a relative 95 % CI half-width in (0, 1), e.g. 0.01")
    of = out["precision_of"]
    of = [of] if isinstance(of, str) else of
    if not isinstance(of, (list, tuple)) or not of or any(v not in PRECISION_VARS for v in of):
        raise McioError("run.precision_of", of, f"must be a list of: {', '.join(PRECISION_VARS)}")
    mx = out["max_ios"]
    if mx is None:
        mx = min(out["ios"] * MAX_IOS_FACTOR, MAX_RUN_IOS - warm)
    if isinstance(mx, float) and mx.is_integer():
        mx = int(mx)
    if isinstance(mx, bool) or not isinstance(mx, int) or not out["ios"] <= mx <= MAX_RUN_IOS - warm:
        raise McioError("run.max_ios", mx, f"must be an integer in [run.ios = {out['ios']}, 2**62 - warm-up]")
    out.update(precision=float(prec), precision_of=tuple(of), max_ios=mx)
    return out


def _axis_values(key: str, v, base_value) -> tuple:
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


def _parse_axes(sweep, model: Model) -> tuple[Axis, ...]:
    if not isinstance(sweep, dict):
        raise McioError("sweep", sweep, "must be a table of \"dotted.model.key\" = values")
    keys = _flatten_keys(sweep)
    lasts = [_short_name(k) for k, _ in keys]
    axes = []
    seen = set()
    for (key, v), last in zip(keys, lasts):
        if key in seen:
            raise McioError(f"sweep.{key}", v, "is given twice (a quoted \"a.b\" key and a dotted a.b key name "
                                               "the same field); give each axis once")
        seen.add(key)
        if key.split(".")[0] not in SECTIONS:
            raise McioError(f"sweep.{key}", v, f"unknown model section {key.split('.')[0]!r}; "
                                               f"allowed: {', '.join(SECTIONS)} (e.g. \"workload.population\")")
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


def _flatten_keys(sweep: dict, prefix: str = "") -> list[tuple[str, Any]]:
    """``"workload.population" = [...]`` and ``workload.population = [...]`` (a nested table) alike."""
    out = []
    for k, v in sweep.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and not set(v) & {"start", "stop", "num", "log"}:
            out += _flatten_keys(v, key + ".")
        else:
            out.append((key, v))
    return out


def _apply(model: Model, axes, coords: dict) -> Model:
    for a in axes:
        model = _set_field(model, a.key, coords[a.dim], f"sweep.{a.key}")
    return model


def _set_field(model: Model, field_key: str, value, where: str) -> Model:
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
        return model.replace(key, set_to)
    except McioError as e:
        raise McioError(where if e.field == field_key else e.field, e.value,
                        e.allowed if e.field == field_key else f"{e.allowed} (at {where} = {value!r})") from None
    except (TypeError, AttributeError, KeyError, IndexError):
        raise McioError(where, value, "is not a settable model field") from None


# ---- running ----------------------------------------------------------------------------------


def _simulate(model: Model, **kw):
    """The engine's simulate_part (a :class:`mcio.part.Part`), imported late (tests may
    substitute a fake here)."""
    from .engine import simulate_part
    return simulate_part(model, **kw)


def _simulate_ds(model: Model, **kw):
    """:func:`_simulate` as a Dataset (the precision rounds read theirs by name)."""
    from .part import Part
    got = _simulate(model, **kw)
    return got.to_dataset() if isinstance(got, Part) else got


def dim_attrs(spec: SweepSpec) -> dict[str, dict]:
    """The attributes of each sweep dimension's coordinate (the variant first, if any)."""
    out = {}
    if spec.variants:
        out[VARIANT_DIM] = {"long_name": "named variant of the spec ([variants.NAME] tables)",
                            "mcio_key": "variants"}
    out.update({a.dim: a.attrs for a in spec.axes})
    return out


def run_point(spec: SweepSpec, p: int):
    """Simulate point ``p`` of ``spec``: :func:`point_part` as a Dataset, with the point's
    model as TOML (attribute ``model_toml``)."""
    return point_part(spec, p, describe=True).to_dataset()


def point_part(spec: SweepSpec, p: int, describe: bool = False, coords: dict | None = None):
    """Simulate point ``p`` of ``spec``; the Part (plain arrays, :mod:`mcio.part`) carries the
    point's sweep coordinates as scalar coordinates (one entry per axis). An unstable point keeps
    ``unstable_reason`` (attr) and NaN for every figure that needs a steady state; a result that is
    not finite where it must be, or fewer I/Os measured than asked without the point being
    flagged, is a bug: AssertionError. ``describe``: keep the point's ``model_toml`` (a sweep's
    file has the spec and base model instead). ``coords``: ``spec.coords(p)``, if made already."""
    from .part import Part
    r = spec.run
    c, attrs_of = spec.coords(p) if coords is None else coords, dim_attrs(spec)
    if r.get("precision") is not None:
        # rounds until the target CI is met or max_ios spent (mcio/precision.py)
        from .precision import simulate_to_precision
        ds = simulate_to_precision(spec.point_model(p), r["precision"], r["precision_of"], ios=r["ios"],
                                   max_ios=r["max_ios"], replications=r["replications"], seed=r["seed"],
                                   point=spec.stream_index(p), warmup=r["warmup"], simulate=_simulate_ds,
                                   allow_unstable=True, describe=describe)
        part = Part.from_dataset(ds)
        part = _checked(part, int(part.data("ios_used")), p)
    else:
        part = _simulate(spec.point_model(p), ios=r["ios"], replications=r["replications"], seed=r["seed"],
                         warmup=r["warmup"], point=spec.stream_index(p), allow_unstable=True, describe=describe,
                         coords={dim: (c[dim], attrs) for dim, attrs in attrs_of.items()})
        if not isinstance(part, Part):   # (a substitute that returns a Dataset)
            part = Part.from_dataset(part)
        part = _checked(part, r["ios"], p)
    for dim, attrs in attrs_of.items():
        if dim not in part.vars:   # (the engine's own Part has them, in its buffer)
            part.vars[dim] = ((), np.asarray(c[dim]), dict(attrs), True)
    part.attrs["point"] = p
    part.point = p
    part.coords = dict(c)
    return part


#: Figures that exist only at a steady state: NaN at an unstable point (its queue kept growing, so
#: a mean, a quantile or a CI of it describes the run's length, not the system). Every variable in
#: ms is one; these are the others.
STEADY_STATE_ONLY = ("in_system_mean", "iosq_queue_mean", "mp_queue_mean", "open_exchanges_mean")
#: Figures a stable point must have finite (every replication).
MUST_BE_FINITE = ("response_ms", "iosq_ms", "pend_ms", "cmr_ms", "disconnect_ms", "connect_ms",
                  "response_ci95_ms", "throughput_iops", "throughput_ci95_iops", "device_busy",
                  "in_system_mean", "ios_measured", "sim_time_s")


def _checked(part, ios_asked: int, p: int):
    """The engine's Part of point ``p``, blanked where unstable and checked where stable."""
    var = part.vars
    unstable = bool(int(var["unstable"][1])) if "unstable" in var else False
    if unstable:
        if not part.attrs.get("unstable_reason"):
            part.attrs["unstable_reason"] = "unstable (the engine gave no reason)"
        for name, (dims, a, attrs, is_coord) in list(var.items()):
            if not is_coord and a.dtype.kind == "f" and (attrs.get("units") == "ms" or name in STEADY_STATE_ONLY):
                var[name] = (dims, np.full(a.shape, np.nan), attrs, is_coord)
        return part
    part.attrs["unstable_reason"] = ""
    if "ios_measured" in var:
        n = np.asarray(var["ios_measured"][1])
        if (n < ios_asked).any():
            if interrupt.requested():
                raise _PointCut(p)
            raise AssertionError(f"sweep point {p}: {int(n.min())} I/Os measured in a replication, "
                                 f"{ios_asked} asked, and the point is not flagged unstable (an engine bug)")
    for name in MUST_BE_FINITE:
        if name in var and not np.isfinite(np.asarray(var[name][1], dtype=float)).all():
            raise AssertionError(f"sweep point {p}: {name} is not finite ({var[name][1]!r}) at a point "
                                 "not flagged unstable (an engine bug; nothing was stored)")
    return part


from .errors import McioWarning  # noqa: E402  (defined beside McioError: the CLI needs it without numpy)


#: Per-I/O cost on one thread, for the time estimate (measured on the development machine, a
#: 2-core x86-64 VM: event engine 0.7-3 M I/O/s per thread on small FICON models, fast path
#: ~18 M I/O/s); an estimate to within a factor of a few, which is what a warning needs.
EVENT_S_PER_IO = 400e-9
FASTPATH_S_PER_IO = 60e-9
POINT_OVERHEAD_S = 0.01     # packing, the Dataset, the part file: per point, whatever its size
WARN_AFTER_S = 300.0        # "a few minutes": a run estimated longer than this is announced
BASE_MEMORY_BYTES = 400 << 20   # the interpreter with numba, xarray, scipy imported
#: Bytes of kernel state per replication that runs at once: ~170 per I/O slot (population, or the
#: open models' 2**16-slot pool), plus per channel and device rows.
KERNEL_BYTES_PER_SLOT = 170


@dataclass(frozen=True)
class Estimate:
    """What a sweep will cost before it starts: points, I/Os, peak memory (bytes), time (s)."""

    points: int
    ios: int
    memory_bytes: int
    seconds: float
    machine_bytes: int | None
    threads: int
    point_bytes: int = 0      # of memory_bytes: one point's replications and kernel state
    results_bytes: int = 0    # of memory_bytes: every point's results, held for the final file

    def __str__(self):
        return (f"{self.points} point(s), {self.ios:.3g} I/Os: about {_human_s(self.seconds)} on {self.threads} "
                f"thread(s), peak memory about {self.memory_bytes / 2**30:.2f} GiB"
                + (f" of {self.machine_bytes / 2**30:.1f} GiB" if self.machine_bytes else ""))


def _human_s(s: float) -> str:
    if s < 120:
        return f"{s:.0f} s"
    if s < 7200:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.1f} h"


def machine_memory() -> int | None:
    """Physical memory of this machine in bytes (psutil if present, else sysconf), or None."""
    try:
        import psutil
        return int(psutil.virtual_memory().total)
    except Exception:  # noqa: BLE001 - psutil is optional
        pass
    try:
        return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def _axis_max(spec: "SweepSpec", key: str, base):
    vals = [max(a.values) for a in spec.axes if a.key == key and not isinstance(a.values[0], str)]
    return max([base] + vals) if vals else base


def estimate(spec_or_path, threads: int | None = None, fast_path: bool | None = None) -> Estimate:
    """Peak memory and run time of a sweep, from its sizes alone (nothing is simulated).

    Memory: every replication's result arrays (the engine allocates them all at once, then stacks
    them: the response-time histogram alone is 42 kB per replication), the kernel state of the
    replications running at once, and every point's results held for the final file (twice: the
    parts and the assembled Dataset). Time: I/Os (warm-up included) x a per-I/O cost on
    ``threads`` threads (default: the cores) plus a per-point overhead."""
    spec = load_spec(spec_or_path)
    r = spec.run
    R = r["replications"]
    warm = r["warmup"] if r["warmup"] is not None else max(1000, r["ios"] // 10)
    m = spec.model
    C = _axis_max(spec, "channels.count", m.channels["count"])
    D = _axis_max(spec, "devices.count", m.devices["count"])
    slots = _axis_max(spec, "workload.population", m.workload["population"]) if m.workload["type"] == "closed" \
        else 1 << 16
    if threads is None:
        try:
            threads = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            threads = os.cpu_count() or 1
    running = max(1, min(R, threads))
    hist, n_acc, n_ch, n_dev, n_rows = _kernel_sizes()
    per_rep_out = 8 * (n_acc + C * n_ch + D * n_dev + hist + 64)
    kernel = running * (KERNEL_BYTES_PER_SLOT * (slots + D) + 8 * 4 * 8 * n_rows)
    per_point_result = 8 * (R * (24 + 8 * C + 4) + 64)
    P = spec.n_points
    point_bytes = 2 * R * per_rep_out + kernel
    results_bytes = 2 * P * per_point_result
    memory = BASE_MEMORY_BYTES + point_bytes + results_bytes
    ios = P * R * (r["ios"] + warm)
    if fast_path is None:
        from .engine import fast_path_applies
        fast_path = fast_path_applies(m)
    cost = FASTPATH_S_PER_IO if fast_path else EVENT_S_PER_IO
    seconds = ios * cost / running + P * POINT_OVERHEAD_S
    return Estimate(P, ios, int(memory), float(seconds), machine_memory(), running, int(point_bytes),
                    int(results_bytes))


def _kernel_sizes() -> tuple[int, int, int, int, int]:
    """(histogram buckets, accumulators, per-channel and per-device counters, random-stream rows)
    from the kernels if loaded (importing them costs Numba's start-up), else their current values."""
    hist = getattr(sys.modules.get("mcio.kernels.histogram"), "HIST_BUCKETS", 5250)
    L = sys.modules.get("mcio.kernels.layout")
    return (int(hist), int(getattr(L, "N_ACC", 24)), int(getattr(L, "N_CH", 7)), int(getattr(L, "N_DEV", 2)),
            int(getattr(L, "N_ROWS", 16)))


def check_size(spec, est: Estimate | None = None) -> Estimate:
    """Refuse (McioError) a sweep whose estimated peak memory exceeds this machine's memory."""
    est = est or estimate(spec, fast_path=False)
    if est.machine_bytes and est.memory_bytes > est.machine_bytes:
        field = "run.replications" if est.point_bytes >= est.results_bytes else "sweep"
        raise McioError(field, spec.run["replications"] if field == "run.replications" else f"{spec.n_points} points",
                        f"needs about {est.memory_bytes / 2**30:.1f} GiB, more than this machine's "
                        f"{est.machine_bytes / 2**30:.1f} GiB; run fewer replications or points (or split the sweep)")
    return est


def _warn_if_long(spec, threads=None) -> Estimate:
    est = estimate(spec, threads=threads)
    check_size(spec, est)
    if est.seconds > WARN_AFTER_S:
        warnings.warn(McioWarning(f"this sweep is large: {est}"), stacklevel=3)
    return est


class _Progress:
    """The caller's ``progress(done, total, ios)``, also fed within a point from the kernels'
    shared counter (:func:`mcio.interrupt.counter`) by a ticker thread; a point's last call reports
    only the I/Os not already reported."""

    TICK_S = 0.5

    def __init__(self, fn, total: int, tick: bool):
        self.fn, self.total, self.done, self.partial = fn, total, 0, 0
        self.lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None
        if fn is not None and tick:
            self._thread = threading.Thread(target=self._run, name="mcio-progress", daemon=True)

    def start(self, done: int) -> None:
        self.done = done
        interrupt.counter()[:] = 0  # reset here and after each point: the next point counts from 0
        if self.fn:
            self.fn(done, self.total, 0)
        if self._thread is not None:
            self._thread.start()

    def _run(self):
        ctr = interrupt.counter()
        while not self._stop.wait(self.TICK_S):
            with self.lock:
                c = int(ctr.sum())  # (one slot, or one per replication if the kernels want no sharing)
                if c > self.partial:
                    delta, self.partial = c - self.partial, c
                    try:
                        self.fn(self.done, self.total, delta)
                    except Exception:  # noqa: BLE001 - a failing display must not stop the sweep
                        return

    def point_done(self, done: int, ios: int) -> None:
        with self.lock:
            delta, self.partial = max(0, ios - self.partial), 0
            interrupt.counter()[:] = 0
            self.done = done
        if self.fn:
            self.fn(done, self.total, delta)

    def close(self):
        self._stop.set()
        if self._thread is not None and self._thread.is_alive():
            self._thread.join(timeout=2)


def sweep(spec_or_path, out=None, resume: bool = False, progress: Callable | None = None, dask=None,
          worker_threads: int | None = None):
    """Run every point of a sweep spec and return the assembled :class:`xarray.Dataset`.

    ``out``: an HDF5 path. Finished points are kept in ``OUT.parts/`` as they complete; the final
    file appears (atomically) only when every point is done, then the parts go. ``OUT.lock`` keeps
    a second sweep off the same output. ``resume=True`` continues an interrupted sweep into the
    same ``out`` without recomputing finished points; every part is checked first and a damaged
    one recomputed (a McioWarning says which and why).
    ``progress(done, total, ios)`` is called once before the first new point (``ios = 0``), after
    each point with the I/Os it simulated, and, when the kernels report it, within a point with
    ``done`` unchanged and the I/Os completed since the last call.

    Ctrl-C (SIGINT) stops the sweep after saving every finished point: :class:`SweepInterrupted`
    (a KeyboardInterrupt) saying ``interrupted: N of M points saved; resume with --resume``. A run
    estimated beyond this machine's memory is refused (McioError); beyond a few minutes, a
    McioWarning gives the estimate first.

    ``dask``: run the points on a Dask cluster instead of in this process: a scheduler address
    (``"tcp://host:8786"``), ``"local"`` or ``"local:N"`` (a LocalCluster of N single-thread worker
    processes, closed on return) or a ``distributed.Client``. Results are identical to the
    in-process run (see :mod:`mcio.distributed`). ``worker_threads``: Numba threads per point on a
    worker (default: the cores divided among the workers of ``"local:N"``, else the workers' own).
    """
    from . import store

    spec = load_spec(spec_or_path)
    total = spec.n_points
    if dask is not None:  # a bad address or a missing package fails before anything is written
        from .distributed import import_distributed, parse_address
        if isinstance(dask, str):
            parse_address(dask)
        import_distributed(dask)
    _warn_if_long(spec)
    if out is None:
        return _run_points(spec, None, set(), {}, progress, dask, worker_threads)
    out = store.check_writable(out)
    with store.OutputLock(out):
        if resume and out.exists() and not store.parts_dir(out).exists():
            ds = store.open_results(out)
            if not spec.same_as(ds.attrs.get("spec_toml", "")):
                raise McioError("--resume", str(out), "holds a finished sweep of a different spec; "
                                                      "choose another output or drop --resume to overwrite it")
            if progress:
                progress(total, total, 0)
            return ds
        run = store.PartStore(out, spec.text, resume=resume, same_spec=spec.same_as)
        good, bad = run.validate(total, spec.coords) if resume else ({}, {})
        if bad:
            shown = "; ".join(f"{k if isinstance(k, str) else f'point {k}'}: {v}" for k, v in list(bad.items())[:10])
            more = f" (and {len(bad) - 10} more)" if len(bad) > 10 else ""
            n_re = sum(1 for k in bad if not isinstance(k, str))
            warnings.warn(McioWarning(f"--resume: {len(bad)} damaged record(s) in {str(run.log)!r}"
                                      f"{f', {n_re} point(s) recomputed' if n_re else ''}: {shown}{more}"),
                          stacklevel=2)
        return _run_points(spec, run, set(good), good, progress, dask, worker_threads)


@gcscope.older_objects_frozen()
def _run_points(spec, run, done: set, parts: dict, progress, dask, worker_threads):
    """Compute the points not in ``done`` (storing each in ``run``, a PartStore, if given), then
    assemble (and with ``run`` write the final file). Ctrl-C ends in SweepInterrupted."""
    from . import store
    total = spec.n_points
    todo = [p for p in range(total) if p not in done]
    prog = _Progress(progress, total, tick=dask is None)
    computed = 0
    stopped = False
    try:
        with interrupt.handling():
            prog.start(len(done))
            try:
                with closing(_compute(spec, todo, dask, worker_threads, store=run)) as results:
                    for p, part, ios in results:  # a Dask cluster is shut down (if started here) on leaving
                        parts[p] = part
                        done.add(p)
                        computed += 1
                        prog.point_done(len(done), ios)
                        if interrupt.requested():
                            stopped = True
                            break
            except (KeyboardInterrupt, _PointCut):
                stopped = True
            if stopped:
                raise interrupt.SweepInterrupted(len(done), total, run.out if run is not None else None)
    except BaseException:
        prog.close()
        if run is not None:
            if done:
                run.close()
            else:
                run.remove()  # nothing finished (e.g. no scheduler there): leave nothing behind
        raise
    prog.close()
    ds = assemble(spec, [parts[p] for p in range(total)])
    if run is not None:
        try:
            store.write_results(ds, run.out, chunk_dims=spec.dims)
        except BaseException:
            run.close()   # (e.g. disk full: every point stays in the log; --resume writes the file)
            raise
        run.remove()
    return ds


class _PointCut(Exception):
    """A point the kernels stopped short on request (Ctrl-C): not a result, not saved."""


def _compute(spec: SweepSpec, points, dask=None, worker_threads=None, store=None):
    """Yield ``(point, Part, I/Os simulated)`` for ``points``, each stored in ``store`` (a
    PartStore) first if given: in point order in-process, in completion order on Dask."""
    if dask is None:
        for p in points:
            part = point_part(spec, p)
            if store is not None:
                store.write(p, part, part.coords)
            yield p, part, _ios_simulated(part)
        return
    from .distributed import Cluster
    from .store import read_part

    points = list(points)
    if not points:
        return
    with Cluster(dask, worker_threads) as cluster, closing(cluster.run(spec, points, point_task)) as results:
        for p, data, ios in results:
            if store is not None:
                store.write_bytes(p, data)  # the worker's file, byte for byte: no re-encoding here
            try:
                part = read_part(data, None, p)
            except Exception as e:  # noqa: BLE001 - a worker that sent something else
                raise McioError("part", f"point {p}", f"the Dask worker's result is not a part ({e})") from None
            yield p, part, ios


_RUN_LOCK = threading.Lock()  # one point at a time per worker process (Numba's workqueue layer is not thread-safe)


@functools.lru_cache(maxsize=4)
def _spec_of(text: str) -> SweepSpec:
    return parse_spec(tomllib.loads(text), text=text)


def point_task(spec_text: str, p: int, threads: int | None = None) -> tuple[bytes, int]:
    """Simulate point ``p`` of the sweep whose TOML is ``spec_text`` (a Dask task, on a worker):
    the content of its part file and the I/Os simulated. ``threads``: Numba threads for this task
    (results do not depend on it). A bad input raises McioError, which pickles back to the client."""
    from .store import part_bytes, spec_hash

    with _RUN_LOCK:
        if threads is not None:
            import numba
            numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
        spec = _spec_of(spec_text)
        part = point_part(spec, p)
    return part_bytes(part, spec_hash(spec_text), p, part.coords), _ios_simulated(part)


def _ios_simulated(part) -> int:
    """I/Os a point pushed through the engine, warm-up included (for the progress rate)."""
    a = part.attrs
    try:
        return int(a.get("replications", 1)) * (int(a.get("ios", 0)) + int(a.get("warmup_ios", 0)))
    except (TypeError, ValueError):
        return 0


def assemble(spec: SweepSpec, parts: list):
    """Stack per-point results (Datasets or :class:`mcio.store.Part`, in point order) into one
    Dataset with the sweep axes as dimensions, plus ``unstable_reason`` over them. Engine dims of
    different sizes (e.g. a ``channels.count`` axis) align by label, the shorter padded with NaN."""
    import xarray as xr
    from . import store
    from .part import variable

    if len(parts) != spec.n_points:
        raise McioError("parts", len(parts), f"need all {spec.n_points} points")
    parts = [q if isinstance(q, store.Part) else store.Part.from_dataset(q) for q in parts]
    first = parts[0]
    axis_dims = set(spec.dims)
    # engine dims: their labels in every part must be prefixes of the longest (0..n-1, quantiles)
    labels = {}
    for q in parts:
        for name, (dims, a, attrs, is_coord) in q.vars.items():
            if is_coord and dims == (name,):
                cur = labels.get(name)
                short, long_ = (cur, a) if cur is None or len(a) > len(cur) else (a, cur)
                if short is not None and not np.array_equal(long_[:len(short)], short):
                    raise McioError("parts", name, "labels differ between points; cannot align them")
                labels[name] = long_
    shape = spec.shape
    P = spec.n_points
    data_vars = {}
    names = list(dict.fromkeys(n for q in parts for n, v in q.vars.items() if not v[3]))
    stacked = _stacked_buffers(parts)
    for name in names:
        if stacked is not None and name in stacked:
            dims, attrs = first.vars[name][0], first.vars[name][2]
            arr = stacked[name]
            data_vars[name] = variable(spec.dims + tuple(dims), arr.reshape(shape + arr.shape[1:]), dict(attrs))
            continue
        held = [q.vars[name] for q in parts if name in q.vars]
        dims, a0, attrs = held[0][0], held[0][1], held[0][2]
        full = tuple(len(labels[d]) if d in labels else a0.shape[i] for i, d in enumerate(dims))
        padded = len(held) < P or any(v[1].shape != full for v in held)
        if a0.dtype.kind == "U":
            arr = np.full((P,) + full, "", dtype=f"<U{max(1, max(v[1].dtype.itemsize // 4 for v in held))}")
        elif padded:
            arr = np.full((P,) + full, np.nan, dtype=np.result_type(a0.dtype, np.float64))
        else:
            arr = np.empty((P,) + full, dtype=a0.dtype)
        for i, q in enumerate(parts):
            if name in q.vars:
                a = q.vars[name][1]
                arr[(i,) + tuple(slice(0, n) for n in a.shape)] = a
        data_vars[name] = variable(spec.dims + tuple(dims), arr.reshape(shape + full), dict(attrs))
    reason = np.array([str(q.attrs.get("unstable_reason", "")) for q in parts], dtype=object)  # as read back (CF chars decode to str objects)
    data_vars["unstable_reason"] = variable(spec.dims, reason.reshape(shape), {
        "units": "1", "long_name": "why the point is unstable (its steady-state figures are NaN); empty if stable"})
    attrs_of = dim_attrs(spec)
    coords = {}
    if spec.variants:
        coords[VARIANT_DIM] = variable((VARIANT_DIM,), np.asarray(spec.variant_names, dtype=object),
                                          attrs_of[VARIANT_DIM])
    coords.update({a.dim: variable((a.dim,), np.asarray(a.values), a.attrs) for a in spec.axes})
    for name, lab in labels.items():
        if name in axis_dims:
            continue
        attrs = next(q.vars[name][2] for q in parts if name in q.vars)
        coords[name] = variable((name,), np.asarray(lab), dict(attrs))
    for name, (dims, a, attrs, is_coord) in first.vars.items():  # scalar coordinates equal in every point
        if is_coord and not dims and name not in axis_dims:
            if all(name in q.vars and np.array_equal(q.vars[name][1], a) for q in parts):
                coords[name] = variable((), a, dict(attrs))
    ds = xr.Dataset(data_vars, coords=coords)
    ds.attrs = store.global_attrs(spec, first.attrs)
    return ds


def _stacked_buffers(parts: list) -> dict | None:
    """Every data variable of ``parts`` stacked over the points, {name: array[P, ...]}, from the
    engine's buffers (:class:`mcio.part.Layout`): one copy of all the buffers, then one per
    variable, where stacking variable by variable cost a 400-point grid ~70 ms (40 variables x
    400 assignments). Only where every part was made by one layout and holds its variables
    under its names, shapes and dtypes: a part whose entries were replaced since (an unstable
    point's blanked figures) gets its own arrays copied into its row. None otherwise (the
    caller stacks variable by variable)."""
    p0 = parts[0].packed
    if p0 is None:
        return None
    layout = p0[0]
    stale = []
    for i, q in enumerate(parts):
        if q.packed is None or q.packed[0] is not layout:
            return None
        if q.packed_prefix() is None:
            names = tuple(q.vars)[:len(layout.names)]
            if names != layout.names or any(
                    np.asarray(q.vars[n][1]).dtype != dt or np.shape(q.vars[n][1]) != sh
                    for n, dt, sh in zip(layout.names, layout.dtypes, layout.shapes)):
                return None
            stale.append(i)
    P, nbytes = len(parts), layout.nbytes
    everything = np.frombuffer(b"".join([q.packed[1] for q in parts]), np.uint8).reshape(P, nbytes)
    out = {}
    for name, (_, _, is_coord), dt, sh, off in zip(layout.names, layout.metas, layout.dtypes, layout.shapes,
                                                    layout.offsets):
        if is_coord:
            continue
        n = dt.itemsize * math.prod(sh)
        a = everything[:, off:off + n].copy().view(dt).reshape((P,) + sh)   # (its own, writeable, even for one point)
        for i in stale:   # (their own arrays, not the buffer's: replaced after assembly)
            a[i] = parts[i].vars[name][1]
        out[name] = a
    return out


def open_results(path):
    """The Dataset stored at ``path`` by :func:`sweep` (loaded into memory, file closed)."""
    from .store import open_results as _open
    return _open(path)


__all__ = ["Axis", "SweepSpec", "load_spec", "parse_spec", "sweep", "run_point", "point_part", "point_task", "assemble",
           "open_results", "estimate", "Estimate", "check_size", "McioWarning", "SweepInterrupted"]


class _CallableModule(types.ModuleType):
    """``mcio.sweep(spec, out=...)`` runs a sweep even where ``mcio.sweep`` names this module
    (importing a submodule rebinds the package attribute to the module, shadowing a function)."""

    def __call__(self, *args, **kwargs):
        return sweep(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
