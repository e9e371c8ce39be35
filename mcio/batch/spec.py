"""The sweep spec: its TOML (a path, a string or a dict) parsed and validated into a
:class:`SweepSpec`, which maps each point of the grid to its coordinates, model and random stream.

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
their differences are sharper than their CIs).
"""
from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np
import tomli_w

from ..errors import McioError
from ..model import Model
from ..model.spec import MODEL_SECTIONS, load_toml
from ..model import effect
from ..model.text import check_text
from .estimates import check_size, estimate
from .grid import MAX_AXIS_VALUES, VARIANT_DIM, Axis, apply_coords, flatten_keys, parse_axes, set_field

#: Run sizes (engine/limits.py, one home: the API checks them too): the kernels' int64 counters
#: hold them with room to spare (ios + warm-up per replication), replications with a CI (>= 2)
#: and within memory reach, seeds numpy's SeedSequence and the netCDF int64 attribute both take.
from ..engine.limits import MAX_RUN_IOS, RUN_BOUNDS  # noqa: E402,F401


def check_run_option(option: str, key: str, value) -> None:
    """Refuse (McioError naming ``option``, e.g. ``--replications``) a command-line run size
    outside :data:`RUN_BOUNDS` [``key``]; None (not given) passes."""
    if value is None:
        return
    lo, hi = RUN_BOUNDS[key]
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise McioError(option, value, f"must be an integer in [{lo}, {hi}]")


#: Grid size: points in all.
MAX_POINTS = 10_000_000
#: Grids up to this many points have every point's model built and checked at load; larger ones
#: have every axis value checked on the base model (ranges of more than SAMPLED_VALUES values at
#: that many evenly spaced values, both ends included: bounds are intervals) and the rest when run.
EAGER_POINTS = 10_000
#: Grids up to this many points also keep every point's model built at load (a model is ~2.7 kB,
#: more than a point's results: larger grids build each point's model again when it runs).
KEEP_MODELS_POINTS = 1_000
SAMPLED_VALUES = 1_000
#: Nesting of tables and arrays a spec may have (a model needs 4).
MAX_DEPTH = 32
TOP_KEYS = ("title", "description", "model", "scenario", "scenario_params", "variants", "sweep", "run")
RUN_KEYS = ("replications", "ios", "warmup", "seed", "precision", "precision_of", "max_ios")
RUN_DEFAULTS = {"replications": 4, "ios": 200_000, "warmup": None, "seed": 0, "precision": None,
                "precision_of": ("response_ms",), "max_ios": None}
#: Variables a precision target may name (per-replication means; channel figures averaged).
PRECISION_VARS = ("response_ms", "iosq_ms", "pend_ms", "cmr_ms", "disconnect_ms", "connect_ms",
                  "throughput_iops", "device_busy", "device_busy_zvm", "channel_busy", "link_busy",
                  "open_exchanges_mean", "cu_ha_busy", "backend_busy")
#: Without [run] max_ios, a precision target may spend up to this many times [run] ios per replication.
MAX_IOS_FACTOR = 100


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
        return apply_coords(base, self.axes, self.coords(p))

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
    bare = [k for k in raw if k in MODEL_SECTIONS]
    if bare and "model" not in raw and "scenario" not in raw:
        raw = {**{k: v for k, v in raw.items() if k not in MODEL_SECTIONS}, "model": {k: raw[k] for k in bare}}
    for k in raw:
        if k == "uncertain":   # (read by mcio.planner.uncertain; a sweep would ignore it in silence)
            raise McioError(k, "[uncertain]", "input uncertainty is run by `mcio uncertain SPEC` "
                            "(mcio.planner.uncertain); sweep, run and validate take fixed inputs: "
                            "remove the section here")
        if k not in TOP_KEYS:
            raise McioError(k, raw[k], f"unknown key in sweep spec; allowed: {', '.join(TOP_KEYS)} "
                                       f"(or the model sections {', '.join(MODEL_SECTIONS)})")
    title = check_text("title", raw.get("title", "mcio sweep"))
    if "description" in raw:
        check_text("description", raw["description"])

    if "model" in raw and "scenario" in raw:
        raise McioError("scenario", raw["scenario"], "give either [model] tables or scenario = ..., not both")
    if "scenario_params" in raw and "scenario" not in raw:
        raise McioError("scenario_params", raw["scenario_params"], "needs scenario = \"name\"")
    scenario = raw.get("scenario")
    with effect.deferred():   # (a field counts if it counts at some point of the sweep: checked below)
        return _parse_models(raw, text, source, title, scenario)


def _parse_models(raw: dict, text, source: str, title: str, scenario) -> SweepSpec:
    if scenario is not None:
        from ..scenarios import build_scenario
        model = build_scenario(scenario, raw.get("scenario_params", {}))
    else:
        m = raw.get("model", {})
        if not isinstance(m, dict):
            raise McioError("model", m, "must be a table holding the model sections")
        model = _prefixed(lambda: Model.from_dict(m), "model.")
        for k, (where, v) in list(model.user_set.items()):
            model.user_set[k] = ("model." + where, v)

    run = _parse_run(raw.get("run", {}))
    axes = parse_axes(raw.get("sweep", {}), model)
    variants = _parse_variants(raw.get("variants"), scenario is not None)
    bases = tuple(_variant_model(model, scenario, raw.get("scenario_params", {}), name, over)
                  for name, over in variants)
    if scenario is not None:
        _check_scenario_params(scenario, raw.get("scenario_params", {}), variants)
    spec = SweepSpec(text=text if text is not None else tomli_w.dumps(raw), raw=raw, title=title, model=model,
                     axes=axes, run=run, scenario=scenario, source=source, variants=variants, _bases=bases)
    n = math.prod(len(a.values) for a in axes)
    if n > MAX_POINTS:
        raise McioError("sweep", f"{n} points", f"a grid may have at most {MAX_POINTS} points; split the sweep")
    check_size(spec, estimate(spec, fast_path=False))
    if n <= EAGER_POINTS:
        # build every point's model now: a bad axis value fails at validation, not mid-sweep
        models = (spec.point_model(p) for p in range(spec.n_points))
        if spec.n_points > KEEP_MODELS_POINTS:
            effect.check_models(models)   # (one model at a time: none kept)
            return spec
        models = tuple(models)
        effect.check_models(models)
        return SweepSpec(**{**spec.__dict__, "_models": models})
    sampled = [*(bases or (model,))]
    for a in axes:  # a large grid: each axis value on the base model (points are built when run)
        vals = a.values
        if len(vals) > SAMPLED_VALUES:
            idx = np.unique(np.linspace(0, len(vals) - 1, SAMPLED_VALUES).round().astype(np.int64))
            vals = [vals[i] for i in idx]
        for v in vals:
            sampled.append(apply_coords(model, (a,), {a.dim: v}))
    sampled.append(apply_coords(model, axes, spec.coords(0)))
    sampled.append(apply_coords(model, axes, spec.coords(spec.n_points - 1)))
    effect.check_models(sampled)
    return spec


def _check_scenario_params(scenario: str, params, variants) -> None:
    """Every scenario parameter the spec sets counts in some variant where it is set."""
    from ..scenarios import SCENARIO_OBJECTS
    sc = SCENARIO_OBJECTS.get(scenario)
    if sc is None or not isinstance(params, dict):
        return
    sets = [({**params, **{k: v for k, v in over.items() if "." not in k}}, None) for _, over in variants] \
        or [(dict(params), None)]
    sc.check_effective(sets)


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
        check_text("variants", name)
        if not name or not isinstance(over, dict):
            raise McioError(where, over, "must be a table of overrides (dotted model fields"
                            + (" or scenario parameters)" if scenario_spec else ")"))
        flat = {}
        for k, v in over.items():
            if k in MODEL_SECTIONS and isinstance(v, dict):
                flat.update(dict(flatten_keys(v, k + ".")))
            else:
                flat[k] = v
        for k in flat:
            if "." in k:
                if k.split(".")[0] not in MODEL_SECTIONS:
                    raise McioError(f"{where}.{k}", flat[k], f"unknown model section {k.split('.')[0]!r}; "
                                                            f"allowed: {', '.join(MODEL_SECTIONS)}")
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
        from ..scenarios import build_scenario
        try:
            model = build_scenario(scenario, {**(scenario_params or {}), **params})
        except McioError as e:
            raise McioError(f"variants.{name}: {e.field}", e.value, e.allowed) from None
    for k, v in over.items():
        if "." in k:
            model = set_field(model, k, v, f"variants.{name}.{k}")
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
