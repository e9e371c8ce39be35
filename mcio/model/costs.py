"""The channel MP's work per I/O, from the [channels] fields (us): the one home of the formula for
the engine's packing (:func:`mcio.engine.pack`), the model's mean demands
(:meth:`mcio.model.Model.mean_demands_ms`) and the scenarios' hand calculations.

An I/O in mode ``m`` (``ccw``: command mode, ``zhpf``: transport mode) of ``commands`` commands
(CCWs, or DCWs of one TCCB) moving ``kb`` KB costs the MP
``mp_us_per_io_m + mp_us_per_command_m x commands + mp_us_per_kb_m x kb`` us.
"""
from __future__ import annotations

from typing import Mapping

MODES = ("ccw", "zhpf")


def mp_us(per_io_us: float, per_command_us: float, per_kb_us: float, commands: float, kb: float) -> float:
    """MP work of one I/O (us): ``per_io_us + per_command_us x commands + per_kb_us x kb``."""
    return per_io_us + per_command_us * commands + per_kb_us * kb


def mp_us_per_io(channels: Mapping, mode: str, commands: float, kb: float) -> float:
    """MP work of one I/O in ``mode`` (one of :data:`MODES`) of ``commands`` commands and ``kb``
    KB (us), from a validated [channels] section's ``mp_us_per_{io,command,kb}_<mode>``."""
    return mp_us(channels[f"mp_us_per_io_{mode}"], channels[f"mp_us_per_command_{mode}"],
                 channels[f"mp_us_per_kb_{mode}"], commands, kb)
