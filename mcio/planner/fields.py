"""Reading and setting one numeric model field by its dotted key, for the planner's searches and
draws: ``workload.rate_iops``, ``devices.aliases``, ``control_unit.backend_service_ms.mean`` (the
mean of a distribution, its shape kept; a bare number is a deterministic duration)."""
from __future__ import annotations

from ..errors import McioError


def get_value(model, key: str, option: str = "--grow"):
    """The numeric value of field ``key`` (a distribution's mean for ``.mean``); McioError naming
    ``option`` if the key is no numeric field."""
    parent, _, sub = key.rpartition(".")
    try:
        if sub == "mean" and parent.count(".") >= 1:
            cur = model.get(parent)
            cur = cur.get("mean") if isinstance(cur, dict) else cur
        else:
            cur = model.get(key)
    except McioError:
        cur = None
    if isinstance(cur, bool) or not isinstance(cur, (int, float)):
        raise McioError(option, key, "must name a numeric model field, e.g. channels.count, devices.aliases, "
                        "workload.rate_iops, control_unit.backend_service_ms.mean")
    return cur


def set_value(model, key: str, value):
    """A new model with field ``key`` set to ``value`` (a distribution's mean, its shape kept)."""
    parent, _, sub = key.rpartition(".")
    if sub == "mean" and parent.count(".") >= 1:
        cur = model.get(parent)
        if isinstance(cur, dict):
            return model.replace(parent, {**cur, "mean": value})
        return model.replace(parent, value)
    return model.replace(key, value)


__all__ = ["get_value", "set_value"]
