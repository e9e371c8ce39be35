"""Closed-form queueing results and exact Mean Value Analysis, used as test oracles and quick curves.

Pure NumPy/SciPy (no Numba). Units: every time (service means, demands, think times, waits,
responses, quantiles, the ``t`` of a CDF) is in whatever time unit the caller uses consistently,
e.g. all in ms; every rate (arrival rate, throughput) is per that same unit (per ms). Counts
(queue lengths, numbers in system, populations) and probabilities are dimensionless.

One concept per module:

- :mod:`~mcio.analytic.queues`: open single-station models (FIFO, Poisson arrivals):
  :func:`mm1`, :func:`mm1_response_quantile`, :func:`mm1_wait_quantile`; :func:`mmc`,
  :func:`erlang_b`, :func:`erlang_c`, :func:`mmc_wait_quantile`, :func:`mmc_response_cdf`,
  :func:`mmc_response_quantile`; :func:`mg1` (Pollaczek-Khinchine), :func:`md1`;
- :mod:`~mcio.analytic.mva`: closed single-class product-form networks: :func:`mva_closed`, exact
  MVA with queue (FIFO exponential or PS), delay (infinite server) and ``"multi:k"`` (k
  exponential servers, load dependent, service rate ``min(j, k)/D`` with ``j`` jobs present)
  stations, plus a think time;
- :mod:`~mcio.analytic.checks`: the argument checks both share.

Bad inputs raise :class:`mcio.errors.McioError` naming the argument (or ``"rho"`` when the load is
not stable).
"""

from __future__ import annotations

from .mva import MvaResult, mva_closed
from .queues import (
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
