"""Closed-form queueing results and exact Mean Value Analysis, used as test oracles and quick curves.

Pure NumPy/SciPy (no Numba). Units: every time (service means, demands, think times, waits,
responses, quantiles, the ``t`` of a CDF) is in whatever time unit the caller uses consistently,
e.g. all in ms; every rate (arrival rate, throughput) is per that same unit (per ms). Counts
(queue lengths, numbers in system, populations) and probabilities are dimensionless.

Open single-station models (FIFO, Poisson arrivals):

- :func:`mm1`, :func:`mm1_response_quantile`, :func:`mm1_wait_quantile`
- :func:`mmc`, :func:`erlang_b`, :func:`erlang_c`, :func:`mmc_wait_quantile`,
  :func:`mmc_response_cdf`, :func:`mmc_response_quantile`
- :func:`mg1` (Pollaczek-Khinchine), :func:`md1`

Closed single-class product-form networks:

- :func:`mva_closed`: exact MVA with queue (FIFO exponential or PS), delay (infinite server) and
  ``"multi:k"`` (k exponential servers, load dependent, service rate ``min(j, k)/D`` with ``j``
  jobs present) stations, plus a think time.

Bad inputs raise :class:`mcio.errors.McioError` naming the argument (or ``"rho"`` when the load is
not stable).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import asdict, dataclass
from typing import Sequence

import numpy as np
from scipy.optimize import brentq
from scipy.special import gammaln

from ..errors import McioError

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


# ----------------------------------------------------------------------------------------------
# validation helpers
# ----------------------------------------------------------------------------------------------

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


# ----------------------------------------------------------------------------------------------
# open single-station models
# ----------------------------------------------------------------------------------------------

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


# ----------------------------------------------------------------------------------------------
# closed networks: exact MVA
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class MvaResult:
    """Exact MVA of a closed single-class network, for populations n = 1..N.

    Arrays are read-only; row i is population ``n[i] = i + 1``; columns follow the stations.

    - ``population``: N; ``n``: int array (N,) = 1..N
    - ``demands`` (time units), ``kinds`` (normalised: "queue", "delay", "multi:k"),
      ``servers`` (per station: 1 for queue, k for multi:k, 0 for delay), ``think_time``
    - ``throughput`` (N,): X(n), jobs per time unit
    - ``response`` (N,): R(n) = sum_k R_k(n), time units, excluding think time
    - ``residence`` (N, K): R_k(n), time per job (visit-weighted) at station k
    - ``queue_length`` (N, K): Q_k(n), mean jobs at station k (waiting + in service)
    - ``utilisation`` (N, K): X(n)*D_k / servers_k (per-server busy fraction) for queue and
      multi stations; X(n)*D_k (mean number in service) for delay stations

    Identities: X(n) * (think_time + R(n)) = n, Q_k = X * R_k.
    """

    population: int
    n: np.ndarray
    demands: tuple
    kinds: tuple
    servers: tuple
    think_time: float
    throughput: np.ndarray
    response: np.ndarray
    residence: np.ndarray
    queue_length: np.ndarray
    utilisation: np.ndarray

    @property
    def cycle_time(self) -> np.ndarray:
        """R(n) + think_time, time units."""
        return self.response + self.think_time

    def at(self, n: int) -> dict:
        """Scalars and per-station lists for one population n (1 <= n <= N)."""
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or not 1 <= n <= self.population:
            raise McioError("n", n, f"must be an integer in 1..{self.population}")
        i = int(n) - 1
        return {
            "n": int(n),
            "throughput": float(self.throughput[i]),
            "response": float(self.response[i]),
            "residence": self.residence[i].tolist(),
            "queue_length": self.queue_length[i].tolist(),
            "utilisation": self.utilisation[i].tolist(),
        }


def _parse_kind(kind, i: int) -> tuple[str, int]:
    """Return (normalised kind, servers); servers 0 means infinite (delay)."""
    field = f"kinds[{i}]"
    if not isinstance(kind, str):
        raise McioError(field, kind, 'must be "queue", "delay" or "multi:k"')
    k = kind.strip().lower()
    if k in ("queue", "ps", "fcfs", "fifo"):
        return "queue", 1
    if k in ("delay", "is", "infinite"):
        return "delay", 0
    if k.startswith("multi:"):
        try:
            m = int(k.split(":", 1)[1])
        except ValueError:
            m = 0
        if m < 1:
            raise McioError(field, kind, 'multi:k needs an integer k >= 1, e.g. "multi:4"')
        return ("queue", 1) if m == 1 else (f"multi:{m}", m)
    raise McioError(field, kind, 'must be "queue", "delay" or "multi:k"')


def _log_conv(la: np.ndarray, lb: np.ndarray, chunk: int = 512) -> np.ndarray:
    """log of the convolution of exp(la) and exp(lb), truncated to len(la) (== len(lb)).

    All terms are positive, so the result carries only rounding error: no cancellation.
    """
    n1 = la.shape[0]
    out = np.empty(n1)
    lb_pad = np.concatenate([lb, [-np.inf]])  # index -1 -> -inf for j > n
    j = np.arange(n1)
    for start in range(0, n1, chunk):
        rows = np.arange(start, min(start + chunk, n1))
        idx = rows[:, None] - j[None, :]
        idx = np.where(idx < 0, -1, idx)
        m = la[None, :] + lb_pad[idx]
        mx = m.max(axis=1)
        safe = np.where(np.isfinite(mx), mx, 0.0)
        with np.errstate(divide="ignore"):
            out[rows] = safe + np.log(np.exp(m - safe[:, None]).sum(axis=1))
        out[rows[~np.isfinite(mx)]] = -np.inf
    return out


def _log_conv_geometric(la: np.ndarray, logx: float) -> np.ndarray:
    """log of the convolution of exp(la) with x^j (a load-independent queue): c(n) = a(n) + x c(n-1)."""
    out = np.empty_like(la)
    prev = la[0]
    out[0] = prev
    for i in range(1, la.shape[0]):
        a = la[i]
        b = logx + prev
        hi, lo = (a, b) if a >= b else (b, a)
        prev = hi + math.log1p(math.exp(lo - hi)) if lo > -math.inf else hi
        out[i] = prev
    return out


def mva_closed(population: int, demands: Sequence[float], kinds, think_time: float = 0.0,
               method: str = "auto") -> MvaResult:
    """Exact MVA for a closed single-class product-form network, populations 1..``population``.

    Parameters
    ----------
    population : int >= 1
        N, the number of jobs circulating (e.g. I/Os kept outstanding).
    demands : sequence of float >= 0, time units
        Service demand per job cycle at each station (visit ratio x mean service time per visit).
        For a ``multi:k`` station it is the demand on one server (the mean service time of a job
        with the visit ratio folded in), i.e. the station serves at rate min(j, k)/D with j jobs.
    kinds : sequence of str (or one str for all stations)
        Per station: ``"queue"`` (single server, FIFO exponential or processor sharing: same
        formula), ``"delay"`` (infinite server), ``"multi:k"`` (k exponential servers, FIFO).
    think_time : float >= 0, time units
        Z, a delay every job spends between cycles (not counted in ``response``).
    method : "auto" | "convolution" | "recursive"
        How multi-server stations are solved (queue/delay-only networks always use the plain MVA
        recursion, exact and stable). ``"auto"``/``"convolution"``: the normalising constants of
        the load-dependent stations are built by convolution in log space, so every sum has
        positive terms only; exact to rounding for N in the thousands at any utilisation.
        ``"recursive"``: the textbook load-dependent MVA marginal-probability recursion
        (p_k(j|n) = X(n) D_k / min(j,k) p_k(j-1|n-1), p_k(0|n) = 1 - sum), with tiny negative
        probabilities clamped to 0; it loses accuracy when the station is heavily used and N is
        large, kept as a cross-check.

    Returns
    -------
    MvaResult
        throughput X(n) (per time unit), response R(n) (time units, excl. think time), residence
        R_k(n), queue_length Q_k(n), utilisation, over n = 1..N.

    Cost: O(N K) without multi-server stations; O(N^2 (K + L^2)) with L of them.
    """
    N = _posint("population", population)
    Z = _nonneg("think_time", think_time)
    if isinstance(demands, (str, bytes)) or not hasattr(demands, "__len__"):
        raise McioError("demands", demands, "must be a sequence of demands >= 0 (time units)")
    D = np.array([_nonneg(f"demands[{i}]", d) for i, d in enumerate(demands)], dtype=float)
    K = D.shape[0]
    if K == 0:
        raise McioError("demands", demands, "must name at least one station")
    if isinstance(kinds, str):
        kinds = [kinds] * K
    if not hasattr(kinds, "__len__") or len(kinds) != K:
        raise McioError("kinds", kinds, f"must be one kind per station ({K} stations)")
    parsed = [_parse_kind(k, i) for i, k in enumerate(kinds)]
    kind_names = tuple(p[0] for p in parsed)
    servers = tuple(p[1] for p in parsed)
    if D.sum() + Z <= 0.0:
        raise McioError("demands", demands, "demands and think_time cannot all be 0")
    if method not in ("auto", "convolution", "recursive"):
        raise McioError("method", method, 'must be "auto", "convolution" or "recursive"')

    is_queue = np.array([k == "queue" for k in kind_names])
    multi = [i for i, k in enumerate(kind_names) if k.startswith("multi:") and D[i] > 0.0]

    X = np.empty(N)
    Q = np.zeros((N, K))
    Rk = np.zeros((N, K))

    if not multi:
        q_prev = np.zeros(K)
        for i in range(N):
            n = i + 1
            r = np.where(is_queue, D * (1.0 + q_prev), D)
            x = n / (Z + r.sum())
            X[i] = x
            Rk[i] = r
            q_prev = x * r
            Q[i] = q_prev
    elif method == "recursive":
        _mva_recursive(N, D, Z, kind_names, servers, X, Rk, Q)
    else:
        _mva_convolution(N, D, Z, kind_names, servers, multi, X, Rk, Q)

    srv = np.array([m if m > 0 else 1 for m in servers], dtype=float)
    U = X[:, None] * D[None, :] / srv[None, :]
    R = Rk.sum(axis=1)
    arrays = [np.arange(1, N + 1), X, R, Rk, Q, U]
    for a in arrays:
        a.flags.writeable = False
    return MvaResult(
        population=N,
        n=arrays[0],
        demands=tuple(float(d) for d in D),
        kinds=kind_names,
        servers=servers,
        think_time=Z,
        throughput=X,
        response=R,
        residence=Rk,
        queue_length=Q,
        utilisation=U,
    )


def _mva_recursive(N, D, Z, kinds, servers, X, Rk, Q):
    """Textbook load-dependent MVA (marginal probabilities), clamping tiny negatives."""
    K = D.shape[0]
    probs = {i: np.array([1.0]) for i, k in enumerate(kinds) if k.startswith("multi:")}
    q_prev = np.zeros(K)
    for i in range(N):
        n = i + 1
        r = np.empty(K)
        for k in range(K):
            if kinds[k] == "queue":
                r[k] = D[k] * (1.0 + q_prev[k])
            elif kinds[k] == "delay":
                r[k] = D[k]
            else:
                m = servers[k]
                j = np.arange(1, n + 1)
                r[k] = D[k] * np.sum(j / np.minimum(j, m) * probs[k])  # probs[k] = p(j-1|n-1)
        x = n / (Z + r.sum())
        X[i] = x
        Rk[i] = r
        q_prev = x * r
        Q[i] = q_prev
        for k, p_old in probs.items():
            m = servers[k]
            j = np.arange(1, n + 1)
            pj = x * D[k] / np.minimum(j, m) * p_old
            p0 = max(0.0, 1.0 - pj.sum())
            p_new = np.concatenate([[p0], pj])
            p_new = np.maximum(p_new, 0.0)
            p_new /= p_new.sum()
            probs[k] = p_new


def _mva_convolution(N, D, Z, kinds, servers, multi, X, Rk, Q):
    """Exact solution through log-space normalising constants (positive sums only).

    Scale every demand by b = max_k D_k / servers_k over queue and multi stations, so station
    factors f_k(j) = (D_k/b)^j / prod_{i<=j} min(i, m_k) stay moderate, then
    G = f_1 * ... * f_K (convolution), X(n) = G(n-1) / (b G(n)); queue and delay stations follow
    the usual MVA formulas from X, and each multi station k has
    Q_k(n) = sum_j j f_k(j) G_{-k}(n-j) / G(n), where G_{-k} omits station k.
    """
    K = D.shape[0]
    j = np.arange(N + 1, dtype=float)
    b = max(D[k] / (servers[k] if servers[k] > 0 else math.inf) for k in range(K)
            if kinds[k] != "delay")
    b = b if b > 0.0 else max(D.max(), Z)

    # base: all queue and delay stations plus the think time (delay stations merge into one)
    lg_base = np.full(N + 1, -np.inf)
    lg_base[0] = 0.0
    dsum = Z + sum(D[k] for k in range(K) if kinds[k] == "delay")
    if dsum / b > 0.0:        # (a denormal think time can underflow the ratio to zero)
        lg_base = j * math.log(dsum / b) - gammaln(j + 1.0)
    for k in range(K):
        if kinds[k] == "queue" and D[k] > 0.0:
            lg_base = _log_conv_geometric(lg_base, math.log(D[k] / b))

    logf = {}
    for k in multi:
        m = servers[k]
        logf[k] = j * math.log(D[k] / b) - np.concatenate(
            [[0.0], np.cumsum(np.log(np.minimum(np.arange(1, N + 1), m)))])

    def conv_except(skip):
        lg = lg_base
        for k in multi:
            if k != skip:
                lg = _log_conv(lg, logf[k])
        return lg

    lG = conv_except(None)
    x = np.exp(lG[:-1] - lG[1:]) / b  # X(n), n = 1..N
    X[:] = x

    for k in range(K):
        if kinds[k] == "queue":
            qk = np.empty(N)
            prev = 0.0
            for i in range(N):
                prev = D[k] * x[i] * (1.0 + prev)
                qk[i] = prev
            Q[:, k] = qk
        elif kinds[k] == "delay":
            Q[:, k] = D[k] * x
    with np.errstate(divide="ignore"):
        logj = np.log(j)
    for k in multi:
        lnum = _log_conv(logf[k] + logj, conv_except(k))
        Q[:, k] = np.exp(lnum[1:] - lG[1:])
    Rk[:] = Q / x[:, None]
