"""Closed single-class product-form networks: exact Mean Value Analysis.

:func:`mva_closed`: exact MVA with queue (FIFO exponential or PS), delay (infinite server) and
``"multi:k"`` (k exponential servers, load dependent, service rate ``min(j, k)/D`` with ``j`` jobs
present) stations, plus a think time.

Pure NumPy/SciPy (no Numba). Units: every time (service means, demands, think times, waits,
responses, quantiles, the ``t`` of a CDF) is in whatever time unit the caller uses consistently,
e.g. all in ms; every rate (arrival rate, throughput) is per that same unit (per ms). Counts
(queue lengths, numbers in system, populations) and probabilities are dimensionless.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy.special import gammaln

from ..errors import McioError
from .checks import _nonneg, _posint

__all__ = ["MvaResult", "mva_closed"]


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
