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
import sys
import threading
import tomllib
import types
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np
import tomli_w

from .errors import McioError
from .model import Model
from .model.spec import SECTIONS, load_toml

TOP_KEYS = ("title", "description", "model", "scenario", "scenario_params", "variants", "sweep", "run")
VARIANT_DIM = "variant"
RUN_KEYS = ("replications", "ios", "warmup", "seed")
RUN_DEFAULTS = {"replications": 4, "ios": 200_000, "warmup": None, "seed": 0}
# dims the engine already uses and names of its variables: a sweep dim must not collide with them
RESERVED_DIMS = ("replication", "channel", "quantile", "device", "point", VARIANT_DIM)
UNIT_OF_SUFFIX = (("_mb_s", "MB s-1"), ("_iops", "s-1"), ("_ms", "ms"), ("_us", "us"), ("_kb", "kB"))


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
    if isinstance(spec_or_path, dict):
        raw, source = spec_or_path, "<dict>"
        text = tomli_w.dumps(raw)
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


def parse_spec(raw: dict, text: str | None = None, source: str = "<dict>") -> SweepSpec:
    if not isinstance(raw, dict):
        raise McioError("spec", raw, "must be a TOML table")
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
    # build every point's model now: a bad axis value fails at validation, not mid-sweep
    models = tuple(spec.point_model(p) for p in range(spec.n_points))
    return SweepSpec(**{**spec.__dict__, "_models": models})


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
    out = {**RUN_DEFAULTS, **run}
    for k, lo in (("replications", 1), ("ios", 1), ("seed", 0), ("warmup", 0)):
        v = out[k]
        if k == "warmup" and v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise McioError(f"run.{k}", v, f"must be an integer >= {lo}")
    if out["replications"] < 2:
        # one replication has no confidence interval; the engine decides what to report
        pass
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
        if not isinstance(num, int) and not float(num).is_integer() or num < 1:
            raise McioError(f"{name}.num", num, "must be an integer >= 1")
        log = v.get("log", False)
        if not isinstance(log, bool):
            raise McioError(f"{name}.log", log, "must be true or false")
        start, stop, num = float(v["start"]), float(v["stop"]), int(num)
        if log:
            if start <= 0 or stop <= 0:
                raise McioError(f"{name}.start", start if start <= 0 else stop, "log = true needs start > 0 and stop > 0")
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
    for (key, v), last in zip(keys, lasts):
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
    """The engine's simulate, imported late (tests may substitute a fake here)."""
    from .engine import simulate
    return simulate(model, **kw)


def dim_attrs(spec: SweepSpec) -> dict[str, dict]:
    """The attributes of each sweep dimension's coordinate (the variant first, if any)."""
    out = {}
    if spec.variants:
        out[VARIANT_DIM] = {"long_name": "named variant of the spec ([variants.NAME] tables)",
                            "mcio_key": "variants"}
    out.update({a.dim: a.attrs for a in spec.axes})
    return out


def run_point(spec: SweepSpec, p: int):
    """Simulate point ``p`` of ``spec``; the Dataset carries the point's sweep coordinates as
    scalar coordinates (one entry per axis)."""
    r = spec.run
    ds = _simulate(spec.point_model(p), ios=r["ios"], replications=r["replications"], seed=r["seed"],
                   warmup=r["warmup"], point=spec.stream_index(p), allow_unstable=True)
    c = spec.coords(p)
    for dim, attrs in dim_attrs(spec).items():
        ds = ds.assign_coords({dim: c[dim]})
        ds[dim].attrs.update(attrs)
    ds.attrs["point"] = p
    return ds


def sweep(spec_or_path, out=None, resume: bool = False, progress: Callable | None = None, dask=None,
          worker_threads: int | None = None):
    """Run every point of a sweep spec and return the assembled :class:`xarray.Dataset`.

    ``out``: an HDF5 path. Finished points are kept in ``OUT.parts/`` as they complete; the final
    file appears (atomically) only when every point is done, then the parts go. ``resume=True``
    continues an interrupted sweep into the same ``out`` without recomputing finished points.
    ``progress(done, total, ios)`` is called once before the first new point (``ios = 0``) and
    after each point, with the I/Os that point simulated.

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
    if out is None:
        parts = [None] * total
        if progress:
            progress(0, total, 0)
        with closing(_compute(spec, range(total), dask, worker_threads)) as results:
            for i, (p, ds, ios) in enumerate(results, 1):
                parts[p] = ds
                if progress:
                    progress(i, total, ios)
        return assemble(spec, parts)

    out = Path(out)
    if resume and out.exists() and not store.parts_dir(out).exists():
        ds = store.open_results(out)
        if not spec.same_as(ds.attrs.get("spec_toml", "")):
            raise McioError("--resume", str(out), "holds a finished sweep of a different spec; "
                                                  "choose another output or drop --resume to overwrite it")
        if progress:
            progress(total, total, 0)
        return ds
    run = store.PartStore(out, spec.text, resume=resume, same_spec=spec.same_as)
    done = run.finished(total)
    if progress:
        progress(len(done), total, 0)
    fresh = {}  # points computed here stay in memory: reading a part back costs as much as writing it
    todo = [p for p in range(total) if p not in done]
    try:
        with closing(_compute(spec, todo, dask, worker_threads, store=run)) as results:
            for p, ds, ios in results:  # a Dask cluster is shut down (if started here) on leaving
                fresh[p] = ds
                done.add(p)
                if progress:
                    progress(len(done), total, ios)
    except BaseException:
        if not done:
            run.remove()  # nothing finished (e.g. no scheduler there): leave nothing behind
        raise
    parts = [fresh[p] if p in fresh else run.read(p) for p in range(total)]
    ds = assemble(spec, parts)
    store.write_results(ds, out)
    run.remove()
    return ds


def _compute(spec: SweepSpec, points, dask=None, worker_threads=None, store=None):
    """Yield ``(point, Dataset, I/Os simulated)`` for ``points``, each stored in ``store`` (a
    PartStore) first if given: in point order in-process, in completion order on Dask."""
    if dask is None:
        for p in points:
            ds = run_point(spec, p)
            if store is not None:
                store.write(p, ds)
            yield p, ds, _ios_simulated(ds)
        return
    from .distributed import Cluster
    from .store import dataset_from_bytes

    points = list(points)
    if not points:
        return
    with Cluster(dask, worker_threads) as cluster, closing(cluster.run(spec, points, point_task)) as results:
        for p, data, ios in results:
            if store is not None:
                store.write_bytes(p, data)  # the worker's file, byte for byte: no re-encoding here
            yield p, dataset_from_bytes(data, f"point {p}"), ios


_RUN_LOCK = threading.Lock()  # one point at a time per worker process (Numba's workqueue layer is not thread-safe)


@functools.lru_cache(maxsize=4)
def _spec_of(text: str) -> SweepSpec:
    return parse_spec(tomllib.loads(text), text=text)


def point_task(spec_text: str, p: int, threads: int | None = None) -> tuple[bytes, int]:
    """Simulate point ``p`` of the sweep whose TOML is ``spec_text`` (a Dask task, on a worker):
    the content of its part file and the I/Os simulated. ``threads``: Numba threads for this task
    (results do not depend on it). A bad input raises McioError, which pickles back to the client."""
    from .store import netcdf_bytes

    with _RUN_LOCK:
        if threads is not None:
            import numba
            numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
        ds = run_point(_spec_of(spec_text), p)
    return netcdf_bytes(ds), _ios_simulated(ds)


def _ios_simulated(ds) -> int:
    """I/Os a point pushed through the engine, warm-up included (for the progress rate)."""
    a = ds.attrs
    try:
        return int(a.get("replications", 1)) * (int(a.get("ios", 0)) + int(a.get("warmup_ios", 0)))
    except (TypeError, ValueError):
        return 0


def assemble(spec: SweepSpec, parts: list):
    """Stack per-point Datasets (in point order) into one with the sweep axes as dimensions."""
    import xarray as xr
    from . import store

    if len(parts) != spec.n_points:
        raise McioError("parts", len(parts), f"need all {spec.n_points} points")
    fixed = []
    for ds in parts:
        ds = ds.drop_vars([d for d in spec.dims if d in ds.coords])
        # index-less engine dims get integer labels so points of different sizes (e.g. a
        # channels.count axis) align, the shorter padded with NaN
        ds = ds.assign_coords({d: np.arange(n) for d, n in ds.sizes.items() if d not in ds.coords})
        fixed.append(ds)
    stacked = xr.concat(fixed, dim="point", join="outer", combine_attrs="override",
                        data_vars="all", coords="different", compat="equals", fill_value=np.nan)
    shape = spec.shape
    attrs = dim_attrs(spec)
    coords = {}
    if spec.variants:
        coords[VARIANT_DIM] = xr.Variable((VARIANT_DIM,), np.asarray(spec.variant_names, dtype=object),
                                          attrs[VARIANT_DIM])
    coords.update({a.dim: xr.Variable((a.dim,), np.asarray(a.values), a.attrs) for a in spec.axes})
    for name, c in stacked.coords.items():
        if "point" not in c.dims:
            coords[name] = c
    data_vars = {}
    for name, v in stacked.data_vars.items():
        if "point" not in v.dims:
            data_vars[name] = v
            continue
        v = v.transpose("point", ...)
        arr = np.asarray(v.values).reshape(shape + v.shape[1:])
        data_vars[name] = xr.Variable(spec.dims + v.dims[1:], arr, dict(v.attrs))
    first = parts[0]
    for name in data_vars:
        if name in first.variables:
            data_vars[name].attrs = dict(first[name].attrs)
            enc = {k: first[name].encoding[k] for k in ("dtype",) if k in first[name].encoding}
            data_vars[name].encoding.update(enc)
    ds = xr.Dataset(data_vars, coords=coords)
    for name in ds.coords:
        if name in first.coords and not ds[name].attrs:
            ds[name].attrs.update(first[name].attrs)
    ds.attrs = store.global_attrs(spec, first.attrs)
    return ds


def open_results(path):
    """The Dataset stored at ``path`` by :func:`sweep` (loaded into memory, file closed)."""
    from .store import open_results as _open
    return _open(path)


__all__ = ["Axis", "SweepSpec", "load_spec", "parse_spec", "sweep", "run_point", "point_task", "assemble",
           "open_results"]


class _CallableModule(types.ModuleType):
    """``mcio.sweep(spec, out=...)`` runs a sweep even where ``mcio.sweep`` names this module
    (importing a submodule rebinds the package attribute to the module, shadowing a function)."""

    def __call__(self, *args, **kwargs):
        return sweep(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
