"""The fitted parameters: the scenario, its model at given values (scenario parameters or dotted
model fields), their starting values and search bounds, and the fixed overrides (``--set``).
"""
from __future__ import annotations

import tomllib
from typing import Sequence

from ..errors import McioError
from ..model import Model
from ..scenarios.base import Scenario


class ModelScenario:
    """Any model (a spec file's, a base model's from ``mcio base``) in the place of a scenario: its
    fitted parameters are dotted model fields (``topology.control_unit.0.ha_service_us``,
    ``channels.mp_us_per_io_ccw``, ...), started at the model's own values."""

    calibration_params: tuple = ()
    calibration_start: dict = {}

    def __init__(self, model: Model, name: str = "model"):
        self._model = model
        self.name = name

    def defaults(self) -> dict:
        return {}

    def param(self, name: str):
        raise McioError("--params", name, "a model (not a scenario) is fitted by dotted model fields, e.g. "
                                          "topology.control_unit.0.ha_service_us or channels.mp_us_per_io_ccw")

    def model(self, variant=None, **params) -> Model:
        for k in params:
            self.param(k)
        return self._model


def resolve_scenario(scenario):
    """A :class:`~mcio.scenarios.base.Scenario` instance, the name of a registered one, a
    :class:`~mcio.model.Model` or the path of a model / base spec (``*.toml``: a
    :class:`ModelScenario`)."""
    if isinstance(scenario, (Scenario, ModelScenario)):
        return scenario
    if isinstance(scenario, Model):
        return ModelScenario(scenario)
    if isinstance(scenario, str) and scenario.endswith(".toml"):
        from pathlib import Path
        if not Path(scenario).exists():
            raise McioError("--scenario", scenario, "no such spec file")
        from ..batch import load_spec
        return ModelScenario(load_spec(Path(scenario)).point_model(0), Path(scenario).stem)
    from ..scenarios import SCENARIO_OBJECTS
    if not isinstance(scenario, str) or scenario not in SCENARIO_OBJECTS:
        raise McioError("--scenario", scenario, "unknown scenario (calibration needs one on the Scenario "
                        f"contract); allowed: {', '.join(sorted(SCENARIO_OBJECTS)) or '(none)'}")
    return SCENARIO_OBJECTS[scenario]


def build_model(scn, values: dict, base: dict | None = None) -> Model:
    """The scenario's model with ``values`` (its parameters or dotted model fields) set over ``base``.

    A dotted field that holds a distribution keeps its shape: the value sets its mean.
    """
    merged = {**(base or {}), **values}
    params = {k: v for k, v in merged.items() if "." not in k}
    m = scn.model(None, **params)
    for k, v in merged.items():
        if "." not in k:
            continue
        cur = m.get(k)
        if isinstance(cur, dict):
            if "mean" not in cur:
                raise McioError(k, cur, "an empirical distribution cannot be fitted; give a gamma or exponential")
            v = {**cur, "mean": v}
        m = m.replace(k, v)
    return m


def start_values(scn: Scenario, params: Sequence[str], start: dict | None, base: dict | None) -> dict:
    """Starting values of the fitted parameters; reject integer and non-numeric ones."""
    start = dict(start or {})
    # the scenario's declared starting point (if any), not its current (fitted) values: the fit
    # must not depend on the result it produced last time, or its command would not reproduce it
    cal_start = dict(getattr(scn, "calibration_start", None) or {})
    dflt = {**scn.defaults(), **(base or {})}
    m = build_model(scn, {}, base)
    out = {}
    for name in params:
        if name in start:
            v = start[name]
        elif name in cal_start:
            v = cal_start[name]
        elif "." in name:
            v = m.get(name)
            if isinstance(v, dict):
                v = v.get("mean")
        else:
            scn.param(name)  # McioError naming the allowed parameters
            v = dflt[name]
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise McioError(name, v, "cannot be fitted: not a number")
        if isinstance(v, int) and name not in start:
            raise McioError(name, v, "is an integer parameter (a count); the optimiser fits continuous "
                                     "parameters only: fix it with --set and compare runs")
        if v <= 0:
            raise McioError(name, v, "is fitted on a log scale and needs a positive starting value")
        out[name] = float(v)
    return out


def search_bounds(scn: Scenario, params: Sequence[str], x0: dict, bounds: dict | None = None) -> dict:
    """(lo, hi) per fitted parameter: ``bounds``, else its Param's bounds (a bound at or below 0 or
    missing: start / 10, start x 10, the fit being on a log scale); a dotted field: start / 10 ..
    start x 10."""
    out = {}
    for k in params:
        if bounds and k in bounds:
            lo, hi = bounds[k]
        else:
            pb = scn.param(k).bounds if "." not in k else None
            lo, hi = pb if pb is not None else (None, None)
            lo = lo if isinstance(lo, (int, float)) and lo > 0 else x0[k] / 10.0
            hi = hi if isinstance(hi, (int, float)) else x0[k] * 10.0
        if not (0 < lo < hi):
            raise McioError(f"bounds.{k}", (lo, hi), "must be 0 < lo < hi")
        if not lo <= x0[k] <= hi:
            raise McioError(k, x0[k], f"starting value outside its bounds [{lo:g}, {hi:g}]")
        out[k] = (float(lo), float(hi))
    return out


def parse_set(items) -> dict:
    """``name=value`` strings (``--set``) -> {name: value}; a value is read as TOML, else kept as text."""
    out = {}
    for it in items:
        if "=" not in it:
            raise McioError("--set", it, "must be name=value")
        k, v = it.split("=", 1)
        k = k.strip()
        try:
            val = tomllib.loads(f"x = {v.strip()}")["x"]
        except tomllib.TOMLDecodeError:
            val = v.strip()
        out[k] = val
    return out
