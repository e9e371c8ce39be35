"""The scenario registry: named, documented parameter sets that build a :class:`~mcio.Model`.

``SCENARIOS`` maps a name to a callable ``build(**params) -> Model``. Its one-line description is
the callable's ``description`` attribute, else the first line of its docstring. A sweep spec names
one with ``scenario = "name"`` and passes keyword arguments from ``[scenario_params]``.

To add a scenario, write a :class:`~.base.Scenario` subclass in a module here (a sub-package if
it needs several modules, as :mod:`.isfc`) and register an instance in this file, e.g.::

    from .isfc import SCENARIO as _ISFC_LINK
    register_scenario(_ISFC_LINK)

(the scenario modules never import this one: registering here keeps the imports acyclic).
A plain builder ``build(**params) -> Model`` may still be registered with :func:`register`.
"""
from __future__ import annotations

import inspect
from typing import Callable

from ..errors import McioError
from ..model import Model

SCENARIOS: dict[str, Callable[..., Model]] = {}


def register(name: str, description: str | None = None):
    """Decorator: add ``build`` to SCENARIOS under ``name`` with a one-line ``description``."""
    def add(build: Callable[..., Model]) -> Callable[..., Model]:
        if description is not None:
            try:
                build.description = description
            except AttributeError:  # e.g. a functools.partial or builtin: keep it beside
                _DESCRIPTIONS[name] = description
        SCENARIOS[name] = build
        return build
    return add


_DESCRIPTIONS: dict[str, str] = {}

#: name -> Scenario object (the contract of scenarios/base.py); every entry is also in SCENARIOS
SCENARIO_OBJECTS: dict = {}


def register_scenario(scenario):
    """Register a :class:`~mcio.scenarios.base.Scenario` instance under its ``name``: sweeps and
    calibration see its ``model(**overrides)``; ``mcio reproduce`` its figures."""
    def build(**overrides):
        variant = overrides.pop("variant", None)
        return scenario.model(variant, **overrides)
    build.__doc__ = scenario.description
    build.description = scenario.description
    build.defaults = scenario.defaults
    build.calibration_params = scenario.calibration_params
    build.scenario = scenario
    SCENARIOS[scenario.name] = build
    SCENARIO_OBJECTS[scenario.name] = scenario
    return scenario


def get_scenario(name):
    """The Scenario object registered as ``name`` (McioError if there is none)."""
    if not isinstance(name, str) or name not in SCENARIO_OBJECTS:
        raise McioError("scenario", name, "no scenario with measured figures of that name; allowed: "
                        f"{', '.join(sorted(SCENARIO_OBJECTS)) or '(none)'}")
    return SCENARIO_OBJECTS[name]


def describe(name: str) -> str:
    """The one-line description of scenario ``name``."""
    build = SCENARIOS[name]
    text = _DESCRIPTIONS.get(name) or getattr(build, "description", None) or inspect.getdoc(build) or ""
    return text.strip().splitlines()[0] if text.strip() else ""


def build_scenario(name, params: dict | None = None) -> Model:
    """Build scenario ``name`` with keyword ``params``; errors name the scenario and the parameter."""
    if not isinstance(name, str) or name not in SCENARIOS:
        raise McioError("scenario", name, f"unknown scenario; allowed: {', '.join(sorted(SCENARIOS)) or '(none)'}")
    params = {} if params is None else params
    if not isinstance(params, dict):
        raise McioError("scenario_params", params, "must be a TOML table of keyword arguments")
    build = SCENARIOS[name]
    try:
        sig = inspect.signature(build)
    except (TypeError, ValueError):
        sig = None
    if sig is not None and not any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        known = [p for p in sig.parameters if sig.parameters[p].kind in (sig.parameters[p].POSITIONAL_OR_KEYWORD,
                                                                         sig.parameters[p].KEYWORD_ONLY)]
        for k in params:
            if k not in known:
                raise McioError(f"scenario_params.{k}", params[k],
                                f"unknown parameter of scenario {name!r}; allowed: {', '.join(known) or '(none)'}")
    model = build(**params)
    if not isinstance(model, Model):
        raise McioError("scenario", name, "the scenario builder did not return a Model")
    return model


# ---- a tiny built-in example ----------------------------------------------------------------


def mm1_demo(rate_iops: float = 500.0, service_ms: float = 1.0) -> Model:
    """M/M/1 demo: Poisson arrivals at ``rate_iops`` to one device whose only work is an
    exponential back-end (disconnect) time of mean ``service_ms``; channel and CU cost nothing.

    Mean response is ``service_ms / (1 - rate_iops * service_ms / 1000)`` (an oracle for tests).
    """
    return Model.from_dict({
        "workload": {"type": "open", "rate_iops": rate_iops},
        "io": [{"name": "read", "kb": 0.0, "miss_ratio": 1.0}],
        "devices": {"count": 1},
        "channels": {"count": 1, "mp_us_per_io_ccw": 0.0, "mp_us_per_io_zhpf": 0.0},
        "control_unit": {"backend_service_ms": {"dist": "exponential", "mean": service_ms}},
    }, where="scenario mm1-demo", user_set={})


def _mm1_scenario():
    from .base import Figure, Param, RunSize, Scenario, Tolerance

    class _MM1(Scenario):
        name = "mm1-demo"
        description = "M/M/1 demo: Poisson I/Os to one device with exponential disconnect (open)"
        params = (Param("rate_iops", 500.0, "s-1", "assumed", "half the server's capacity", (1e-6, None)),
                  Param("service_ms", 1.0, "ms", "assumed", "a round service time", (1e-9, None)))
        variants = {"rho50": {}, "rho90": {"rate_iops": 900.0}}
        # the 'measurements' are the M/M/1 closed form S / (1 - rho); 3 % is ~10 CI half-widths
        # (predicted: nothing is fitted, the engine's queue against the closed form; the busy is rate x S)
        figures = (Figure("rho 0.5: response", "rho50", "response_ms", 2.0, Tolerance(rel=0.03), "ms",
                          "M/M/1: S / (1 - rho)", kind="predicted"),
                   Figure("rho 0.9: response", "rho90", "response_ms", 10.0, Tolerance(rel=0.12), "ms",
                          "M/M/1: S / (1 - rho)", kind="predicted"),
                   Figure("rho 0.5: device busy", "rho50", "device_busy", 0.5, Tolerance(abs=0.01), "1",
                          "utilisation law", kind="identity"))
        run_size = RunSize(ios=200_000, replications=4, seed=1)

        def build(self, p):
            return mm1_demo(p["rate_iops"], p["service_ms"])

    return _MM1()


__all__ = ["SCENARIOS", "SCENARIO_OBJECTS", "register", "register_scenario", "get_scenario", "describe",
           "build_scenario", "mm1_demo"]

register_scenario(_mm1_scenario())

from .ficon_channel import SCENARIO as _FICON_CHANNEL  # noqa: E402
from .isfc import SCENARIO as _ISFC_LINK  # noqa: E402

register_scenario(_FICON_CHANNEL)
register_scenario(_ISFC_LINK)

from .zhpf_dump import SCENARIO as _zhpf_dump  # noqa: E402

register_scenario(_zhpf_dump)

from .cms import CMS_COMMIT as _CMS_COMMIT  # noqa: E402

register_scenario(_CMS_COMMIT)

from .dasd import SCENARIO as _dasd_mdc  # noqa: E402

register_scenario(_dasd_mdc)

from .validation import SCENARIO as _validation  # noqa: E402

register_scenario(_validation)
