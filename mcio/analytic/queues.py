"""Open single-station queues (FIFO, Poisson arrivals): closed-form means and quantiles.

- :func:`mm1`, :func:`mm1_response_quantile`, :func:`mm1_wait_quantile`
- :func:`mmc`, :func:`erlang_b`, :func:`erlang_c`, :func:`mmc_wait_quantile`,
  :func:`mmc_response_cdf`, :func:`mmc_response_quantile`
- :func:`mg1` (Pollaczek-Khinchine), :func:`md1`

Pure NumPy/SciPy (no Numba). Units: every time (service means, demands, think times, waits,
responses, quantiles, the ``t`` of a CDF) is in whatever time unit the caller uses consistently,
e.g. all in ms; every rate (arrival rate, throughput) is per that same unit (per ms). Counts
(queue lengths, numbers in system, populations) and probabilities are dimensionless.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
from scipy.optimize import brentq

from ..errors import McioError
from .checks import _nonneg, _posint, _positive, _prob, _stable_rho

__all__ = [
    "QueueMetrics",
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
]


@dataclass(frozen=True)
class QueueMetrics:
    """Steady-state means of an open FIFO queue with Poisson arrivals.

    Times in the caller's unit, ``arrival_rate`` per that unit, counts dimensionless.

    Fields: ``arrival_rate`` (lambda), ``service_mean`` (E[S]), ``service_scv`` (squared
    coefficient of variation of S; 1 for exponential), ``servers`` (c), ``rho`` (per-server
    utilisation lambda*E[S]/c), ``prob_wait`` (P(wait > 0): Erlang C for M/M/c, rho for M/G/1),
    ``mean_wait`` (Wq, time in queue before service), ``mean_response`` (W = Wq + E[S]),
    ``mean_in_queue`` (Lq = lambda*Wq), ``mean_in_system`` (L = lambda*W).
    """

    arrival_rate: float
    service_mean: float
    service_scv: float
    servers: int
    rho: float
    prob_wait: float
    mean_wait: float
    mean_response: float
    mean_in_queue: float
    mean_in_system: float

    def as_dict(self) -> dict:
        return asdict(self)


def _metrics(lam: float, s: float, scv: float, c: int, pw: float, wq: float) -> QueueMetrics:
    w = wq + s
    return QueueMetrics(
        arrival_rate=lam,
        service_mean=s,
        service_scv=scv,
        servers=c,
        rho=lam * s / c,
        prob_wait=pw,
        mean_wait=wq,
        mean_response=w,
        mean_in_queue=lam * wq,
        mean_in_system=lam * w,
    )


def mm1(arrival_rate: float, service_mean: float) -> QueueMetrics:
    """M/M/1 FIFO means.

    ``arrival_rate`` (>= 0, per time unit), ``service_mean`` (> 0, time units); needs
    ``rho = arrival_rate * service_mean < 1``. Wq = rho*E[S]/(1-rho), W = E[S]/(1-rho).
    """
    lam = _nonneg("arrival_rate", arrival_rate)
    s = _positive("service_mean", service_mean)
    rho = _stable_rho(lam, s)
    return _metrics(lam, s, 1.0, 1, rho, rho * s / (1.0 - rho))


def mm1_response_quantile(arrival_rate: float, service_mean: float, p: float) -> float:
    """p-quantile (0 <= p < 1) of the M/M/1 FIFO response time, in time units.

    The response time is exponential with rate mu - lambda: t_p = -ln(1-p) / (mu - lambda).
    """
    lam = _nonneg("arrival_rate", arrival_rate)
    s = _positive("service_mean", service_mean)
    p = _prob("p", p)
    _stable_rho(lam, s)
    return -math.log1p(-p) / (1.0 / s - lam)


def mm1_wait_quantile(arrival_rate: float, service_mean: float, p: float) -> float:
    """p-quantile (0 <= p < 1) of the M/M/1 FIFO wait in queue, in time units.

    The wait has an atom of mass 1-rho at 0 and P(Wq > t) = rho*exp(-(mu-lambda) t), so
    t_p = 0 for p <= 1-rho, else ln(rho/(1-p)) / (mu - lambda).
    """
    return mmc_wait_quantile(arrival_rate, service_mean, 1, p)


def erlang_b(c: int, a: float) -> float:
    """Erlang B blocking probability of c servers offered ``a`` Erlangs (a = lambda*E[S] >= 0).

    Computed with the stable recursion B(0) = 1, B(k) = a*B(k-1) / (k + a*B(k-1)); fine for c in
    the thousands.
    """
    c = _posint("c", c)
    a = _nonneg("a", a)
    b = 1.0
    for k in range(1, c + 1):
        ab = a * b
        b = ab / (k + ab)
    return b


def erlang_c(c: int, a: float) -> float:
    """Erlang C: probability that an arrival waits in an M/M/c queue.

    ``c`` servers (integer >= 1), ``a`` offered load in Erlangs (a = lambda*E[S], 0 <= a < c).
    C = B / (1 - (a/c)(1 - B)) with B the Erlang B value (stable for large c).
    """
    c = _posint("c", c)
    a = _nonneg("a", a)
    if a >= c:
        raise McioError("a", a, f"offered load must be < c = {c} (rho = a/c < 1) for a stable queue")
    b = erlang_b(c, a)
    return b / (1.0 - (a / c) * (1.0 - b))


def mmc(arrival_rate: float, service_mean: float, c: int) -> QueueMetrics:
    """M/M/c FIFO means.

    ``arrival_rate`` (>= 0, per time unit), ``service_mean`` (> 0, time units, per server),
    ``c`` servers (integer >= 1); needs ``rho = arrival_rate*service_mean/c < 1``.
    prob_wait = Erlang C, Wq = C * E[S] / (c (1 - rho)).
    """
    lam = _nonneg("arrival_rate", arrival_rate)
    s = _positive("service_mean", service_mean)
    c = _posint("c", c)
    rho = _stable_rho(lam, s, c)
    pw = erlang_c(c, lam * s)
    return _metrics(lam, s, 1.0, c, pw, pw * s / (c * (1.0 - rho)))


def mmc_wait_quantile(arrival_rate: float, service_mean: float, c: int, p: float) -> float:
    """p-quantile (0 <= p < 1) of the M/M/c FIFO wait in queue, in time units.

    P(Wq > t) = C * exp(-(c*mu - lambda) t) with C the Erlang C value, an atom of mass 1-C at 0:
    t_p = 0 for p <= 1-C, else ln(C/(1-p)) / (c*mu - lambda).
    """
    lam = _nonneg("arrival_rate", arrival_rate)
    s = _positive("service_mean", service_mean)
    c = _posint("c", c)
    p = _prob("p", p)
    _stable_rho(lam, s, c)
    pw = erlang_c(c, lam * s)
    if 1.0 - p >= pw:
        return 0.0
    return math.log(pw / (1.0 - p)) / (c / s - lam)


def mmc_response_cdf(t, arrival_rate: float, service_mean: float, c: int):
    """P(response <= t) for M/M/c FIFO; ``t`` a scalar or array in time units (t < 0 gives 0).

    Response = Wq + S with S ~ Exp(mu) independent of Wq, Wq = 0 w.p. 1-C and Exp(theta)
    w.p. C, theta = c*mu - lambda. With d = theta - mu:

        P(T > t) = e^{-mu t} [ 1 + C * mu * (1 - e^{-d t}) / d ],

    whose d -> 0 limit (theta == mu) is e^{-mu t} (1 + C mu t); it is evaluated as
    e^{-mu t} + C mu e^{-min(mu, theta) t} (-expm1(-|d| t)) / |d|, exact near d = 0 and free of
    overflow for large t.
    Returns a float for scalar ``t``, else an array of ``t``'s shape.
    """
    lam = _nonneg("arrival_rate", arrival_rate)
    s = _positive("service_mean", service_mean)
    c = _posint("c", c)
    _stable_rho(lam, s, c)
    tt = np.asarray(t, dtype=float)
    if np.isnan(tt).any():
        raise McioError("t", t, "must not be NaN")
    pw = erlang_c(c, lam * s)
    mu = 1.0 / s
    theta = c * mu - lam
    ad = abs(theta - mu)
    tp = np.maximum(tt, 0.0)
    with np.errstate(over="ignore", invalid="ignore"):
        # e^{-mu t} (1 - e^{-d t}) / d == e^{-min(mu, theta) t} (1 - e^{-|d| t}) / |d|: no overflow
        g = tp if ad == 0.0 else -np.expm1(-ad * tp) / ad
        surv = np.exp(-mu * tp) + pw * mu * np.exp(-min(mu, theta) * tp) * g
    # t = inf: 0 * inf when theta == mu; the survival is 0 there.
    surv = np.where(np.isinf(tp), 0.0, surv)
    cdf = np.where(tt < 0.0, 0.0, np.clip(1.0 - surv, 0.0, 1.0))
    return float(cdf) if cdf.ndim == 0 else cdf


def mmc_response_quantile(arrival_rate: float, service_mean: float, c: int, p: float) -> float:
    """p-quantile (0 <= p < 1) of the M/M/c FIFO response time, in time units.

    Inverts :func:`mmc_response_cdf` numerically (Brent, relative tolerance ~1e-13).
    """
    lam = _nonneg("arrival_rate", arrival_rate)
    s = _positive("service_mean", service_mean)
    c = _posint("c", c)
    p = _prob("p", p)
    _stable_rho(lam, s, c)
    if p == 0.0:
        return 0.0
    hi = s
    while mmc_response_cdf(hi, lam, s, c) < p:
        hi *= 2.0
    return brentq(lambda x: mmc_response_cdf(x, lam, s, c) - p, 0.0, hi, xtol=1e-300, rtol=4e-15,
                  maxiter=500)


def mg1(arrival_rate: float, service_mean: float, service_scv: float) -> QueueMetrics:
    """M/G/1 FIFO means by Pollaczek-Khinchine.

    ``arrival_rate`` (>= 0, per time unit), ``service_mean`` (> 0, time units), ``service_scv``
    (squared coefficient of variation of S, >= 0; 0 deterministic, 1 exponential). E[S^2] =
    E[S]^2 (1 + scv), Wq = lambda E[S^2] / (2 (1 - rho)). prob_wait = rho.
    """
    lam = _nonneg("arrival_rate", arrival_rate)
    s = _positive("service_mean", service_mean)
    scv = _nonneg("service_scv", service_scv)
    rho = _stable_rho(lam, s)
    es2 = s * s * (1.0 + scv)
    return _metrics(lam, s, scv, 1, rho, lam * es2 / (2.0 * (1.0 - rho)))


def md1(arrival_rate: float, service_mean: float) -> QueueMetrics:
    """M/D/1 FIFO means: :func:`mg1` with ``service_scv = 0`` (Wq = rho E[S] / (2 (1-rho)))."""
    return mg1(arrival_rate, service_mean, 0.0)
