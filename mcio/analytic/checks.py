"""Argument checks shared by the closed forms (:mod:`~mcio.analytic.queues`) and MVA
(:mod:`~mcio.analytic.mva`): each raises :class:`mcio.errors.McioError` naming the argument (or
``"rho"`` when the load is not stable)."""

from __future__ import annotations

import math
import numbers

from ..errors import McioError

def _real(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise McioError(name, value, "must be a real number")
    v = float(value)
    if not math.isfinite(v):
        raise McioError(name, value, "must be finite")
    return v


def _positive(name: str, value) -> float:
    v = _real(name, value)
    if v <= 0.0:
        raise McioError(name, value, "must be > 0")
    return v


def _nonneg(name: str, value) -> float:
    v = _real(name, value)
    if v < 0.0:
        raise McioError(name, value, "must be >= 0")
    return v


def _posint(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise McioError(name, value, "must be an integer >= 1")
    v = int(value)
    if v < 1:
        raise McioError(name, value, "must be an integer >= 1")
    return v


def _prob(name: str, value) -> float:
    v = _real(name, value)
    if not 0.0 <= v < 1.0:
        raise McioError(name, value, "must satisfy 0 <= p < 1")
    return v


def _stable_rho(arrival_rate: float, service_mean: float, c: int = 1) -> float:
    rho = arrival_rate * service_mean / c
    if rho >= 1.0:
        raise McioError("rho", rho, "must be < 1 for a stable queue (arrival_rate * service_mean / c)")
    return rho
