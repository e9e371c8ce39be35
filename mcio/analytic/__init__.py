"""Closed-form queueing results and exact Mean Value Analysis, used as test oracles and quick curves."""
from __future__ import annotations

from .mva import (
    MvaResult,
    QueueMetrics,
    erlang_b,
    erlang_c,
    md1,
    mg1,
    mm1,
    mm1_response_quantile,
    mm1_wait_quantile,
    mmc,
    mmc_response_cdf,
    mmc_response_quantile,
    mmc_wait_quantile,
    mva_closed,
)

__all__ = [
    "QueueMetrics",
    "MvaResult",
    "mm1",
    "mm1_response_quantile",
    "mm1_wait_quantile",
    "erlang_b",
    "erlang_c",
    "mmc",
    "mmc_wait_quantile",
    "mmc_response_cdf",
    "mmc_response_quantile",
    "mg1",
    "md1",
    "mva_closed",
]
