"""Which model fields count under which options: nothing the user sets is ignored in silence.

:data:`EFFECT` maps every declared field (``section.field``; an ``[[io]]`` field as ``io.field``)
to the conditions under which it has an effect (all must hold), or to :data:`ALWAYS`. A field the
user set (in a model file, a spec's ``[model]``, a variant, a sweep axis or a scenario's dotted
override: :attr:`mcio.model.Model.user_set`) whose conditions fail is an error naming the option
that would make it count. A field left at its default is not "set". Over a sweep, a field counts
if it counts at some point where it is set (sweeping ``workload.type`` over open and closed with
``rate_iops`` set is fine; setting ``rate_iops`` on a closed load everywhere is not).

Each :class:`Condition` carries two model fragments, ``counts_under`` and ``ignored_under``, that
make it hold and fail: tests/test_field_effect.py enumerates every field x condition with them.
"""
from __future__ import annotations

import contextvars
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable

from ..errors import McioError


@dataclass(frozen=True)
class Condition:
    """An option under which a field counts: ``option`` says it in the spec's words, ``holds``
    tests a :class:`~mcio.model.Model`; the fragments (model dicts) make it hold or fail."""

    option: str
    holds: Callable
    counts_under: dict
    ignored_under: dict

    def state(self, model) -> str:
        """What the model has instead (for the error), e.g. "workload.type = 'closed'"."""
        return self.now(model) if self.now is not None else ""

    now: Callable | None = None


ALWAYS = ()

_POSITIONAL = {"devices": {"geometry": "3390"}, "control_unit": {"miss_policy": "read_through"}}
_EMULATED = {"devices": {"geometry": "emulated"}, "control_unit": {"miss_policy": "backend"}}

OPEN = Condition("workload.type = 'open'", lambda m: m.workload["type"] == "open",
                 {"workload": {"type": "open"}}, {"workload": {"type": "closed"}},
                 lambda m: f"workload.type = {m.workload['type']!r}")
CLOSED = Condition("workload.type = 'closed'", lambda m: m.workload["type"] == "closed",
                   {"workload": {"type": "closed"}}, {"workload": {"type": "open"}},
                   lambda m: f"workload.type = {m.workload['type']!r}")
NO_TRACE = Condition("no workload.arrival_trace_ms (a trace replaces the rate and its SCV)",
                     lambda m: m.workload["arrival_trace_ms"] is None,
                     {"workload": {"type": "open"}},
                     {"workload": {"type": "open", "arrival_trace_ms": [0.0, 1.0, 3.0]}},
                     lambda m: "workload.arrival_trace_ms is set")
ALIASES = Condition("devices.aliases > 0", lambda m: m.devices["aliases"] > 0,
                    {"devices": {"aliases": 2}}, {"devices": {"aliases": 0}},
                    lambda m: f"devices.aliases = {m.devices['aliases']}")
POSITIONAL = Condition("devices.geometry = '3390' or '3380' (a positional device)",
                       lambda m: m.devices["geometry"] != "emulated", _POSITIONAL, _EMULATED,
                       lambda m: f"devices.geometry = {m.devices['geometry']!r}")
BACKEND = Condition("control_unit.miss_policy = 'backend' (an emulated device's misses)",
                    lambda m: m.control_unit["miss_policy"] == "backend", _EMULATED, _POSITIONAL,
                    lambda m: f"control_unit.miss_policy = {m.control_unit['miss_policy']!r}")
CCW = Condition("channels.zhpf_share < 1 (some I/Os in command mode)", lambda m: m.channels["zhpf_share"] < 1.0,
                {"channels": {"zhpf_share": 0.5}}, {"channels": {"zhpf_share": 1.0}},
                lambda m: f"channels.zhpf_share = {m.channels['zhpf_share']:g}")
ZHPF = Condition("channels.zhpf_share > 0 (some I/Os in transport mode)", lambda m: m.channels["zhpf_share"] > 0.0,
                 {"channels": {"zhpf_share": 0.5}}, {"channels": {"zhpf_share": 0.0}},
                 lambda m: f"channels.zhpf_share = {m.channels['zhpf_share']:g}")


def _skew(kind: str) -> Condition:
    frag = {"devices": {"count": 4, "skew": kind}}
    if kind == "weights":
        frag["devices"]["weights"] = [1.0, 2.0, 3.0, 4.0]
    return Condition(f"devices.skew = {kind!r}", lambda m: m.devices["skew"] == kind, frag,
                     {"devices": {"count": 4, "skew": "uniform"}}, lambda m: f"devices.skew = {m.devices['skew']!r}")


#: field -> the conditions under which it counts (all must hold); ALWAYS: under every option.
EFFECT: dict[str, tuple[Condition, ...]] = {
    "workload.type": ALWAYS,
    "workload.rate_iops": (OPEN, NO_TRACE),
    "workload.arrival_scv": (OPEN, NO_TRACE),
    "workload.arrival_trace_ms": (OPEN,),
    "workload.population": (CLOSED,),
    "workload.think_ms": (CLOSED,),
    "workload.binding": (CLOSED,),
    "io.name": ALWAYS,
    "io.share": ALWAYS,   # (a weight: with one class normalised to 1; builders such as mcio.stream's set it)
    "io.kb": ALWAYS,
    "io.records": ALWAYS,
    "io.miss_ratio": ALWAYS,
    "devices.count": ALWAYS,
    "devices.aliases": ALWAYS,
    "devices.alias_mode": (ALIASES,),
    "devices.skew": ALWAYS,
    "devices.zipf_s": (_skew("zipf"),),
    "devices.hot_fraction": (_skew("hotset"),),
    "devices.hot_share": (_skew("hotset"),),
    "devices.weights": (_skew("weights"),),
    "devices.paths": ALWAYS,
    "devices.geometry": ALWAYS,
    "devices.cylinders": (POSITIONAL,),
    "devices.rotation_ms": (POSITIONAL,),
    "devices.media_mb_s": (POSITIONAL,),
    "devices.cylinder_kb": (POSITIONAL,),
    "devices.seek_settle_ms": (POSITIONAL,),
    "devices.seek_ms_per_sqrt_cyl": (POSITIONAL,),
    "devices.p_sequential": (POSITIONAL,),
    "devices.span_cylinders": (POSITIONAL,),
    "channels.count": ALWAYS,
    "channels.link_mb_s": ALWAYS,
    "channels.max_open_exchanges": ALWAYS,
    "channels.selection": ALWAYS,
    "channels.zhpf_share": ALWAYS,
    "channels.mp_us_per_io_ccw": (CCW,),
    "channels.mp_us_per_command_ccw": (CCW,),
    "channels.mp_us_per_kb_ccw": (CCW,),
    "channels.mp_us_per_io_zhpf": (ZHPF,),
    "channels.mp_us_per_command_zhpf": (ZHPF,),
    "channels.mp_us_per_kb_zhpf": (ZHPF,),
    "channels.mp_scv": ALWAYS,
    "channels.mp_start_fraction": ALWAYS,
    "channels.mp_wake_us": ALWAYS,        # (the event engine's; a non-zero value turns the fast path off)
    "channels.mp_order": ALWAYS,          # (likewise)
    "channels.protocol_us_per_command_ccw": (CCW,),
    "channels.protocol_us_per_io_zhpf": (ZHPF,),
    "channels.protocol_us_per_command_zhpf": (ZHPF,),
    "control_unit.ha_servers": ALWAYS,
    "control_unit.ha_service_us": ALWAYS,
    "control_unit.backend_servers": (BACKEND,),
    "control_unit.backend_service_ms": (BACKEND,),
    "control_unit.cu_us_per_command_ccw": (CCW,),
    "control_unit.cu_us_per_command_zhpf": (ZHPF,),
    "control_unit.miss_policy": ALWAYS,
}


def canonical(key: str) -> str:
    """The table's name of a dotted field: ``io.0.kb`` -> ``io.kb``; a distribution's parameter
    (``control_unit.backend_service_ms.mean``) -> its field."""
    parts = key.split(".")
    if parts[0] == "io" and len(parts) > 1 and parts[1].isdigit():
        parts = [parts[0]] + parts[2:]
    return ".".join(parts[:2])


def failing(model, field: str) -> Condition | None:
    """The first condition of ``field`` that ``model`` fails (None: the field counts)."""
    for c in EFFECT.get(field, ALWAYS):
        if not c.holds(model):
            return c
    return None


def effective_dict(model) -> dict:
    """The model's fields as :meth:`~mcio.model.Model.to_dict` writes them, less those with no
    effect under its options (:data:`EFFECT`): what counts. A model file of it reads back
    (``Model.from_dict``) as the same model for the engine (a field left out takes its default,
    which counts no more than the value did), with nothing set in vain; ``to_dict``'s every
    field does not, where a builder (a scenario) set such a field (e.g. zHPF costs at
    ``zhpf_share = 0``): read back as a file, it is the user's and refused."""
    d = model.to_dict()
    out = {}
    for sec, val in d.items():
        if sec == "io":
            out[sec] = [{k: v for k, v in c.items() if failing(model, f"io.{k}") is None} for c in val]
        else:
            out[sec] = {k: v for k, v in val.items() if failing(model, f"{sec}.{k}") is None}
    return out


def effective_toml(model) -> str:
    """:func:`effective_dict` as TOML: a model file that reads back as ``model``."""
    import tomli_w
    return tomli_w.dumps(effective_dict(model))


def ignored_error(field: str, where: str, value, cond: Condition, model) -> McioError:
    now = cond.state(model)
    return McioError(where, value, f"has no effect{' with ' + now if now else ''}: it counts only with "
                                   f"{cond.option}; remove it or set that option")


# ---- when to check ---------------------------------------------------------------------------
# A sweep spec checks its models together (a field counts if it counts at some point where it is
# set), so while one is parsed the per-model checks (Model.from_dict, Scenario.model) wait.
_DEFERRED = contextvars.ContextVar("mcio_effect_checks_deferred", default=False)


@contextmanager
def deferred():
    """Within: Model.from_dict and Scenario.model leave the field-effect check to the caller."""
    token = _DEFERRED.set(True)
    try:
        yield
    finally:
        _DEFERRED.reset(token)


def is_deferred() -> bool:
    return _DEFERRED.get()


def check_model(model, prefix: str = "") -> None:
    """Raise for the first field the user set in ``model`` that has no effect there."""
    check_models([model], prefix)


def check_models(models, prefix: str = "") -> None:
    """Raise for a field the user set that counts at none of ``models`` where it is set (the
    points of a sweep: its variants' bases and axis values)."""
    counted: dict[str, tuple] = {}      # field -> (counts somewhere, where, value, condition, model)
    for m in models:
        for field, (where, value) in m.user_set.items():
            if field in counted and counted[field][0]:
                continue
            cond = failing(m, field)
            if cond is None:
                counted[field] = (True,)
            elif field not in counted:
                counted[field] = (False, where, value, cond, m)
    for field, got in counted.items():
        if not got[0]:
            _, where, value, cond, m = got
            raise ignored_error(field, prefix + where, value, cond, m)
