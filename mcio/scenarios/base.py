"""The Scenario contract: a named, documented parameter set, the Model(s) it builds, and the
measured figures it must reproduce.

A scenario declares

- :attr:`Scenario.params`: every parameter as a :class:`Param` (value, unit, bounds, provenance
  ``seed`` / ``IBM`` / ``assumed`` / ``fitted`` / ``derived``, and the reason for the value);
- :meth:`Scenario.build` (``params`` dict -> :class:`~mcio.Model`);
- :attr:`Scenario.variants`: named parameter overrides (``{"classic": {...}, "zhpf": {...}}``;
  one variant ``"default"`` if it has none);
- :attr:`Scenario.figures`: the measured figures as :class:`Figure` rows (variant, quantity,
  measured value or range, tolerance);
- optionally :meth:`Scenario.derive` (post-processing: a variant's simulated Dataset -> the
  quantities its figures name, each as (value, 95 % CI half-width)) and
  :meth:`Scenario.evaluate` (for scenarios whose figures are not a Dataset's, e.g. I/O counts).

:meth:`Scenario.reproduce` runs every variant a figure needs and returns one
:class:`FigureResult` per figure; ``mcio reproduce NAME [--json]`` prints them with what each
figure tests (its kind, :data:`FIGURE_KINDS`) and a summary (:mod:`.report`). Register with
:func:`mcio.scenarios.register_scenario`.
"""
from __future__ import annotations

import abc
import dataclasses
import math
from dataclasses import asdict, dataclass, field
from typing import Any, Mapping, Sequence

from ..errors import McioError
from .report import FIGURE_KINDS, format_table, summary, summary_line  # noqa: F401  (importable from here)

PROVENANCE = ("seed", "IBM", "assumed", "fitted", "derived")


@dataclass(frozen=True)
class Param:
    """One scenario parameter. ``unit`` is a UDUNITS-style string ("ms", "us", "KB", "1", ...);
    ``bounds`` (lo, hi) are physical bounds, inclusive (None: unbounded on that side, or the
    value is not a number); ``provenance`` one of PROVENANCE; ``reason`` says why this value."""

    name: str
    value: Any
    unit: str
    provenance: str
    reason: str
    bounds: tuple[float | None, float | None] | None = None
    #: the allowed values of a text (or other) parameter; None: any of the default's kind
    choices: tuple | None = None
    #: a further check of the value (``value, field name`` -> the clean value, or McioError)
    validate: Any = None

    def __post_init__(self):
        if self.provenance not in PROVENANCE:
            raise ValueError(f"Param {self.name}: provenance {self.provenance!r} not in {PROVENANCE}")

    def check(self, value, where: str) -> Any:
        """``value`` if it is allowed, else McioError naming ``where.name``: of the default's kind
        (a flag takes true/false, a text a string without NUL, a number a finite number, an
        integer an integral one), one of ``choices`` and within ``bounds``."""
        name = f"{where}.{self.name}"
        if isinstance(self.value, bool) and not isinstance(value, bool):
            raise McioError(name, value, "must be true or false")
        if isinstance(self.value, str):
            if not isinstance(value, str):
                raise McioError(name, value, "must be a string")
            from ..model.text import check_text
            check_text(name, value)
        if isinstance(self.value, (tuple, list)) and self.validate is None:   # (a validator says more)
            if not isinstance(value, (tuple, list)):
                raise McioError(name, value, "must be a list")
            if all(isinstance(x, str) for x in self.value):
                from ..model.text import check_text
                for i, x in enumerate(value):
                    check_text(f"{name}[{i}]", x)
        if isinstance(self.value, dict) and not isinstance(value, dict):
            raise McioError(name, value, "must be a table")
        if self.choices is not None and value not in self.choices:
            raise McioError(name, value, f"must be one of {', '.join(map(repr, self.choices))}")
        if (isinstance(self.value, (int, float)) and not isinstance(self.value, bool)
                and (isinstance(value, bool) or not isinstance(value, (int, float)))):
            raise McioError(name, value, f"must be a number ({self.unit})")
        if isinstance(value, (int, float)) and not isinstance(value, bool) and not isinstance(self.value, bool):
            if not math.isfinite(value):
                raise McioError(name, value, f"must be a finite number ({self.unit})")
            if isinstance(self.value, int) and not float(value).is_integer():
                raise McioError(name, value, f"must be an integer ({self.unit})")
        if self.validate is not None:
            value = self.validate(value, name)
        if self.bounds is None:
            return value
        lo, hi = self.bounds
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise McioError(f"{where}.{self.name}", value, "must be a finite number"
                            + (f" in [{lo}, {hi}] {self.unit}" if lo is not None or hi is not None else ""))
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise McioError(f"{where}.{self.name}", value,
                            f"must be in [{'-inf' if lo is None else lo}, {'inf' if hi is None else hi}] {self.unit}")
        return value


@dataclass(frozen=True)
class ParamCondition:
    """An option under which a scenario parameter counts: ``option`` in the spec's words,
    ``param`` the parameter that decides it and ``test`` its values that make it hold;
    ``counts_with`` / ``ignored_with``: one value of ``param`` each way (the enumerating test
    uses them)."""

    option: str
    param: str
    test: Any
    counts_with: Any
    ignored_with: Any

    def holds(self, vals: Mapping) -> bool:
        return bool(self.test(vals.get(self.param)))

    def state(self, vals: Mapping) -> str:
        return f"{self.param} = {vals.get(self.param)!r}"


ALWAYS_COUNTS = ()


@dataclass(frozen=True)
class Tolerance:
    """How close the model must be. ``rel``: |model - measured| <= rel x |measured|; ``abs``:
    <= abs (in the figure's unit). Both given: either suffices. A range figure (measured is
    (lo, hi)) is within when lo - abs <= model <= hi + abs (abs defaults to 0 there)."""

    rel: float | None = None
    abs: float | None = None

    def within(self, measured, model: float) -> bool | None:
        if measured is None or model is None or not math.isfinite(model):
            return None if measured is None else False
        if isinstance(measured, (tuple, list)):
            slack = self.abs or 0.0
            return measured[0] - slack <= model <= measured[1] + slack
        err = abs(model - measured)
        ok = False
        if self.rel is not None:
            ok |= err <= self.rel * abs(measured)
        if self.abs is not None:
            ok |= err <= self.abs
        return ok

    def text(self) -> str:
        parts = []
        if self.rel is not None:
            parts.append(f"{100 * self.rel:g} %")
        if self.abs is not None:
            parts.append(f"{self.abs:g} abs")
        return " or ".join(parts) if parts else "in range"


@dataclass(frozen=True)
class Figure:
    """One figure of a seed: the ``quantity`` the scenario's ``variant`` computes, beside the
    ``measured`` value (a number, a (lo, hi) range for a text statement, or None for a
    prediction whose measurement is lost). ``source`` says where in the seed it is; ``note``
    anything an analyst must know (e.g. "imposed by the load: tests nothing")."""

    name: str
    variant: str
    quantity: str
    measured: float | tuple[float, float] | None
    tolerance: Tolerance = field(default_factory=Tolerance)
    unit: str = ""
    source: str = ""
    note: str = ""
    #: what the figure tests (one of FIGURE_KINDS): ``fitted`` (in a calibration loss or a fit
    #: target), ``imposed`` (set by the load or an input), ``identity`` (follows from other figures
    #: by a law, e.g. Little's), ``predicted`` (no parameter was set from it); "" = not yet judged
    kind: str = ""


@dataclass
class FigureResult:
    """A figure beside the model's value and its 95 % CI half-width (0 for exact counts)."""

    figure: str
    variant: str
    quantity: str
    unit: str
    measured: float | list | None
    model: float | None
    ci95: float | None
    tolerance: str
    within: bool | None
    error: float | None
    note: str = ""
    kind: str = ""

    def to_json(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class RunSize:
    """The simulation budget ``reproduce`` uses by default."""

    ios: int = 100_000
    replications: int = 4
    seed: int = 1


class Scenario(abc.ABC):
    """Base class; subclasses set the class attributes and implement :meth:`build`."""

    name: str = ""
    description: str = ""
    params: tuple[Param, ...] = ()
    variants: Mapping[str, Mapping[str, Any]] = {"default": {}}
    figures: tuple[Figure, ...] = ()
    run_size: RunSize = RunSize()
    #: parameters ``mcio calibrate`` fits by default (searched within their Params' bounds)
    calibration_params: tuple[str, ...] = ()
    #: parameter -> the names of the figures it was set from (a fit's targets, or a value read off
    #: a figure): each of them is ``fitted`` (tests/test_figure_kinds.py checks it, and that every
    #: parameter of provenance ``fitted`` is here)
    fit_targets: Mapping[str, tuple[str, ...]] = {}
    #: what :attr:`RunSize.ios` counts for this scenario (printed by ``mcio reproduce``)
    ios_meaning: str = "I/Os"
    #: parameter -> the :class:`ParamCondition` s under which it counts (all must hold); a
    #: parameter not here always counts. A parameter the user sets where it has no effect is an
    #: error naming the option that would make it count (tests/test_field_effect.py enumerates them).
    param_effect: Mapping[str, tuple] = {}

    # ---- parameters ----------------------------------------------------------------------

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise McioError(f"scenario_params.{name}", name,
                        f"unknown parameter of scenario {self.name!r}; allowed: "
                        f"{', '.join(p.name for p in self.params) or '(none)'} or a dotted model field")

    def defaults(self) -> dict:
        return {p.name: p.value for p in self.params}

    def resolve(self, overrides: Mapping[str, Any] | None = None, variant: str | None = None) -> dict:
        """The parameter values: defaults, then the variant's overrides, then ``overrides``;
        each checked against its Param. Dotted keys (model fields) pass through unchecked and
        are applied by :meth:`model` after :meth:`build`."""
        vals = self.defaults()
        layers = []
        if variant is not None:
            if variant not in self.variants:
                raise McioError("variant", variant, f"unknown variant of {self.name!r}; allowed: "
                                f"{', '.join(self.variants)}")
            layers.append(self.variants[variant])
        layers.append(overrides or {})
        for layer in layers:
            for k, v in layer.items():
                if "." in k:
                    vals[k] = v
                else:
                    vals[k] = self.param(k).check(v, "scenario_params")
        return vals

    # ---- models ----------------------------------------------------------------------------

    @abc.abstractmethod
    def build(self, params: dict):
        """``params`` (every Param's name -> value) -> :class:`~mcio.Model` (every scenario
        implements it; a subclass without it cannot be instantiated)."""

    def model(self, variant: str | None = None, **overrides):
        """The Model of ``variant`` (default: the first) with ``overrides`` (parameter names or
        dotted model fields; a number given for a distribution field sets its mean)."""
        from ..model import Model
        from ..model import effect
        if variant is None:
            variant = next(iter(self.variants))
        vals = self.resolve(overrides, variant)
        if not effect.is_deferred():
            self.check_effective([(dict(overrides or {}), variant)])
        dotted = {k: vals.pop(k) for k in list(vals) if "." in k}
        with effect.deferred():   # (the scenario's own choices are not the user's: only overrides count)
            m = self.build(vals)
        if not isinstance(m, Model):
            raise McioError("scenario", self.name, "build() did not return a Model")
        m = dataclasses.replace(m, user_set={})
        for k, v in dotted.items():
            cur = m.get(k)
            if isinstance(cur, dict) and "mean" in cur and isinstance(v, (int, float)):
                v = {**cur, "mean": v}
            m = m.replace(k, v, where=f"scenario_params.{k}", check=False)
        if not effect.is_deferred():
            effect.check_model(m)
        return m

    def check_effective(self, sets) -> None:
        """Raise for a parameter the user set that counts under none of ``sets`` where it is set:
        ``sets`` is a list of (the user's overrides, the scenario variant they apply to); a
        parameter's conditions are :attr:`param_effect`'s (absent: it always counts)."""
        counted: dict[str, tuple] = {}
        for over, variant in sets:
            vals = None
            for k, v in over.items():
                if "." in k or k == "variant" or (k in counted and counted[k][0]):
                    continue
                conds = self.param_effect.get(k, ALWAYS_COUNTS)
                if vals is None:
                    vals = self.resolve({q: x for q, x in over.items() if q != "variant"},
                                        over.get("variant", variant) or next(iter(self.variants)))
                bad = next((c for c in conds if not c.holds(vals)), None)
                if bad is None:
                    counted[k] = (True,)
                elif k not in counted:
                    counted[k] = (False, v, bad, vals)
        for k, got in counted.items():
            if not got[0]:
                _, v, c, vals = got
                raise McioError(f"scenario_params.{k}", v, f"has no effect with {c.state(vals)}: it counts only "
                                                          f"with {c.option}; remove it or set that parameter")

    # ---- figures ---------------------------------------------------------------------------

    def derive(self, variant: str, ds) -> dict[str, tuple[float, float]]:
        """A variant's Dataset -> {quantity: (value, 95 % CI half-width)}. The default gives the
        headline RMF figures (means over replications; channel figures summed over channels)."""
        return headline(ds)

    def stream(self, variant: str) -> int:
        """The random stream (engine ``point``) ``variant`` is simulated on; 0 for every variant
        by default (common random numbers across variants)."""
        return 0

    def simulations(self, variant: str, run: RunSize) -> list:
        """The engine runs :meth:`evaluate` makes for ``variant`` at ``run``, as
        :class:`mcio.batch.estimates.Simulation` (the time and memory estimates of ``mcio
        reproduce``): one run of :meth:`model` by default. A scenario that simulates otherwise
        (several runs a variant, other sizes) says so here; ``tests/test_estimate_logic.py`` checks
        each scenario's list against the runs its :meth:`evaluate` makes."""
        from ..batch.estimates import Simulation
        return [Simulation.of(self.model(variant), run.ios, run.replications)]

    def reproduce_simulations(self, run: RunSize | None = None, variants: Sequence[str] | None = None) -> list:
        """The engine runs :meth:`reproduce` makes (:meth:`simulations` of each variant it needs)."""
        run = run or self.run_size
        needed = [v for v in dict.fromkeys(f.variant for f in self.figures) if variants is None or v in variants]
        return [s for v in needed for s in self.simulations(v, run)]

    def evaluate(self, variant: str, run: RunSize) -> dict[str, tuple[float, float]]:
        """Simulate ``variant`` at ``run`` and return :meth:`derive` of its Dataset."""
        from ..engine import simulate
        ds = simulate(self.model(variant), ios=run.ios, replications=run.replications, seed=run.seed,
                      point=self.stream(variant))
        if "unstable" in ds and int(ds["unstable"]):
            # (a figure of a run flagged unstable, e.g. too short for a steady state, is no figure)
            raise McioError("--ios", run.ios, f"variant {variant!r}: {ds.attrs.get('unstable_reason') or 'unstable'}")
        return self.derive(variant, ds)

    def reproduce(self, run: RunSize | None = None, variants: Sequence[str] | None = None) -> list[FigureResult]:
        """Every figure (of ``variants``, default all) beside the model's value."""
        run = run or self.run_size
        for v in variants or ():
            if v not in self.variants:
                raise McioError("--variant", v, f"unknown variant of {self.name!r}; allowed: {', '.join(self.variants)}")
        needed = [v for v in dict.fromkeys(f.variant for f in self.figures) if variants is None or v in variants]
        values = {v: self.evaluate(v, run) for v in needed}
        out = []
        for f in self.figures:
            if f.variant not in values:
                continue
            got = values[f.variant].get(f.quantity)
            if got is None:
                raise McioError("figure", f.name, f"variant {f.variant!r} computes no quantity {f.quantity!r}")
            model, ci = (float(got[0]), float(got[1])) if isinstance(got, tuple) else (float(got), 0.0)
            meas = list(f.measured) if isinstance(f.measured, (tuple, list)) else f.measured
            err = None
            if isinstance(meas, (int, float)) and meas != 0 and math.isfinite(model):
                err = (model - meas) / abs(meas)
            out.append(FigureResult(f.name, f.variant, f.quantity, f.unit, meas, model, ci,
                                    f.tolerance.text() if f.measured is not None else "",
                                    f.tolerance.within(f.measured, model), err, f.note, f.kind))
        return out


def headline(ds) -> dict[str, tuple[float, float]]:
    """The figures an analyst reads first, from a simulate() Dataset: component means (ms),
    throughput (SSCH/s), busy fractions, open exchanges; each (mean over replications, CI95)."""
    from ..engine import ci95_halfwidth
    out = {}

    def put(name, per_rep):
        import numpy as np
        x = np.asarray(per_rep, float)
        out[name] = (float(x.mean()), float(ci95_halfwidth(x)) if x.size > 1 else 0.0)

    for comp in ("response", "iosq", "pend", "cmr", "disconnect", "connect"):
        put(f"{comp}_ms", ds[f"{comp}_ms"].values)
    put("service_ms", (ds.pend_ms + ds.disconnect_ms + ds.connect_ms).values)
    put("throughput_iops", ds.throughput_iops.values)
    put("device_busy", ds.device_busy.values)
    put("device_busy_zvm", ds.device_busy_zvm.values)
    put("channel_busy", ds.channel_busy.mean("channel").values)
    put("link_busy", ds.link_busy.mean("channel").values)
    put("open_exchanges_mean", ds.open_exchanges_mean.sum("channel").values)
    put("open_exchanges_max", ds.open_exchanges_max.max("channel").values)
    put("cu_ha_busy", ds.cu_ha_busy.values)
    put("backend_busy", ds.backend_busy.values)
    return out
