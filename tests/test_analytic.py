"""Independent checks of mcio.analytic: identities, direct birth-death / CTMC solutions, properties."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import quad
from scipy.special import gammaln, logsumexp

from mcio.analytic import (
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
from mcio.errors import McioError

# ---------------------------------------------------------------------------------------------
# independent oracles built here
# ---------------------------------------------------------------------------------------------


def erlang_c_direct(c, a):
    """Erlang C from its defining sum, in log space."""
    k = np.arange(c)
    log_terms = k * math.log(a) - gammaln(k + 1)
    log_last = c * math.log(a) - gammaln(c + 1) + math.log(c / (c - a))
    return math.exp(log_last - logsumexp(np.append(log_terms, log_last)))


def finite_source(N, Z, D, c):
    """M/M/c//N (machine repairman with c repairers) by direct birth-death probabilities.

    Returns (throughput, mean number at the station).
    """
    k = np.arange(N + 1)
    birth = (N - k[:-1]) / Z                      # k -> k+1
    death = np.minimum(k[1:], c) / D              # k+1 -> k
    logp = np.concatenate([[0.0], np.cumsum(np.log(birth) - np.log(death))])
    p = np.exp(logp - logsumexp(logp))
    x = float(np.sum(p * np.minimum(k, c) / D))
    return x, float(np.sum(p * k))


def ctmc_cyclic(N, demands, servers):
    """Brute-force CTMC of a cyclic closed network (visit ratio 1 at each station).

    ``servers[k]`` is the number of servers (math.inf for a delay station); station k serves at
    rate min(n_k, servers[k]) / demands[k]. Solves pi Q = 0 with numpy. Returns (X, Q_k array).
    """
    K = len(demands)
    states = [s for s in itertools.product(range(N + 1), repeat=K) if sum(s) == N]
    index = {s: i for i, s in enumerate(states)}
    S = len(states)
    G = np.zeros((S, S))
    for s in states:
        i = index[s]
        for k in range(K):
            if s[k] == 0:
                continue
            rate = min(s[k], servers[k]) / demands[k]
            t = list(s)
            t[k] -= 1
            t[(k + 1) % K] += 1
            G[i, index[tuple(t)]] += rate
            G[i, i] -= rate
    A = np.vstack([G.T, np.ones(S)])
    rhs = np.zeros(S + 1)
    rhs[-1] = 1.0
    pi = np.linalg.lstsq(A, rhs, rcond=None)[0]
    occ = np.array(states, dtype=float)
    x = float(sum(pi[i] * min(s[0], servers[0]) / demands[0] for i, s in enumerate(states)))
    return x, pi @ occ


def two_station_chain(N, d_a, m_a, d_b, m_b):
    """Two stations in a cycle: a birth-death chain on n_a; generator solved with numpy."""
    S = N + 1
    G = np.zeros((S, S))
    for na in range(S):
        nb = N - na
        if nb > 0:  # B completes -> A gains a job
            r = min(nb, m_b) / d_b
            G[na, na + 1] += r
            G[na, na] -= r
        if na > 0:
            r = min(na, m_a) / d_a
            G[na, na - 1] += r
            G[na, na] -= r
    A = np.vstack([G.T, np.ones(S)])
    rhs = np.zeros(S + 1)
    rhs[-1] = 1.0
    pi = np.linalg.lstsq(A, rhs, rcond=None)[0]
    na = np.arange(S)
    x = float(pi @ (np.minimum(na, m_a) / d_a))
    return x, float(pi @ na)


# ---------------------------------------------------------------------------------------------
# open models
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lam,s", [(0.0, 1.0), (0.3, 2.0), (0.95, 1.0), (900.0, 1e-3)])
def test_mm1_equals_mmc_with_one_server(lam, s):
    a, b = mm1(lam, s), mmc(lam, s, 1)
    for f in ("rho", "prob_wait", "mean_wait", "mean_response", "mean_in_queue", "mean_in_system"):
        assert getattr(a, f) == pytest.approx(getattr(b, f), rel=1e-12, abs=1e-15)


def test_mm1_textbook_values():
    r = mm1(0.8, 1.0)
    assert r.rho == pytest.approx(0.8)
    assert r.mean_response == pytest.approx(5.0)
    assert r.mean_wait == pytest.approx(4.0)
    assert r.mean_in_system == pytest.approx(4.0)
    assert r.mean_in_queue == pytest.approx(3.2)


@pytest.mark.parametrize("lam,s", [(0.5, 1.0), (0.05, 10.0), (3.0, 0.3)])
def test_md1_equals_mg1_scv0_and_mg1_scv1_equals_mm1(lam, s):
    d, g0, g1, m = md1(lam, s), mg1(lam, s, 0.0), mg1(lam, s, 1.0), mm1(lam, s)
    assert d == g0
    assert d.mean_wait == pytest.approx(m.mean_wait / 2)  # deterministic service halves the wait
    assert g1.mean_wait == pytest.approx(m.mean_wait, rel=1e-12)
    assert g1.mean_response == pytest.approx(m.mean_response, rel=1e-12)


@pytest.mark.parametrize("res", [mm1(0.7, 1.3 / 1.0 / 1.5), mmc(3.0, 1.0, 4), mmc(50.0, 0.19, 10),
                                 mg1(0.4, 2.0, 3.5), md1(0.9, 1.0)])
def test_littles_law(res):
    lam = res.arrival_rate
    assert res.mean_in_system == pytest.approx(lam * res.mean_response, rel=1e-12)
    assert res.mean_in_queue == pytest.approx(lam * res.mean_wait, rel=1e-12)
    assert res.mean_response == pytest.approx(res.mean_wait + res.service_mean, rel=1e-12)
    # L - Lq = mean number in service = c * rho
    assert res.mean_in_system - res.mean_in_queue == pytest.approx(res.servers * res.rho, rel=1e-9)


@pytest.mark.parametrize("c,a", [(1, 0.5), (2, 1.0), (10, 8.5), (50, 45.0), (300, 290.0), (1000, 950.0),
                                 (1000, 999.0), (1000, 10.0)])
def test_erlang_c_matches_direct_sum(c, a):
    assert erlang_c(c, a) == pytest.approx(erlang_c_direct(c, a), rel=1e-9)


def test_erlang_textbook_values():
    assert erlang_c(2, 1.0) == pytest.approx(1 / 3)
    assert erlang_b(2, 1.0) == pytest.approx(0.2)
    assert erlang_c(1, 0.7) == pytest.approx(0.7)


def test_mm1_quantiles():
    lam, s = 0.6, 1.0
    assert mm1_response_quantile(lam, s, 0.5) == pytest.approx(math.log(2) / 0.4)
    assert mm1_wait_quantile(lam, s, 0.3) == 0.0   # within the atom 1 - rho = 0.4
    assert mm1_wait_quantile(lam, s, 0.4) == 0.0
    t = mm1_wait_quantile(lam, s, 0.9)
    assert 0.6 * math.exp(-0.4 * t) == pytest.approx(0.1)
    assert mm1_wait_quantile(lam, s, 0.9) == mmc_wait_quantile(lam, s, 1, 0.9)


def test_mmc_wait_quantile_inverts_tail():
    lam, s, c = 7.0, 1.0, 8
    C = erlang_c(c, lam * s)
    for p in (0.5, 0.9, 0.99, 0.999):
        t = mmc_wait_quantile(lam, s, c, p)
        if p <= 1 - C:
            assert t == 0.0
        else:
            assert C * math.exp(-(c / s - lam) * t) == pytest.approx(1 - p, rel=1e-12)


def test_mmc_response_cdf_single_server_is_exponential():
    t = np.linspace(0, 20, 41)
    np.testing.assert_allclose(mmc_response_cdf(t, 0.7, 1.0, 1), -np.expm1(-0.3 * t), rtol=1e-12,
                               atol=1e-15)


@pytest.mark.parametrize("lam,s,c", [(2.5, 1.0, 3), (1.0, 1.0, 2), (0.2, 1.0, 4), (19.0, 0.5, 12)])
def test_mmc_response_cdf_against_numeric_convolution(lam, s, c):
    """Response = Wq + S: convolve the wait distribution with Exp(mu) numerically."""
    mu, C, theta = 1 / s, erlang_c(c, lam * s), c / s - lam

    def cdf(t):  # P(Wq + S <= t) = (1-C) F_S(t) + C int_0^t theta e^{-theta u} F_S(t-u) du
        inner = quad(lambda u: theta * math.exp(-theta * u) * (1 - math.exp(-mu * (t - u))), 0, t)[0]
        return (1 - C) * (1 - math.exp(-mu * t)) + C * inner

    for t in (0.1, 0.5, 1.0, 3.0, 8.0):
        assert mmc_response_cdf(t, lam, s, c) == pytest.approx(cdf(t), rel=1e-9, abs=1e-12)
    # the mean of the distribution equals the M/M/c mean response
    mean = quad(lambda t: 1 - mmc_response_cdf(t, lam, s, c), 0, np.inf)[0]
    assert mean == pytest.approx(mmc(lam, s, c).mean_response, rel=1e-8)


def test_mmc_response_cdf_special_case_is_continuous():
    # c*mu - lambda == mu: c = 2, mu = 1, lambda = 1
    exact = mmc_response_cdf(1.7, 1.0, 1.0, 2)
    C = erlang_c(2, 1.0)
    assert exact == pytest.approx(1 - math.exp(-1.7) * (1 + C * 1.7), rel=1e-14)
    for eps in (1e-6, -1e-6, 1e-10):
        assert mmc_response_cdf(1.7, 1.0 + eps, 1.0, 2) == pytest.approx(exact, abs=1e-5)
    assert mmc_response_cdf(-1.0, 1.0, 1.0, 2) == 0.0
    assert mmc_response_cdf(np.inf, 1.0, 1.0, 2) == 1.0


def test_mmc_response_quantile_inverts_cdf():
    for p in (0.01, 0.5, 0.95, 0.999):
        t = mmc_response_quantile(5.0, 1.0, 6, p)
        assert mmc_response_cdf(t, 5.0, 1.0, 6) == pytest.approx(p, rel=1e-10)
    assert mmc_response_quantile(0.5, 1.0, 1, 0.9) == pytest.approx(mm1_response_quantile(0.5, 1.0, 0.9))


# ---------------------------------------------------------------------------------------------
# closed networks: MVA
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kinds", [["queue", "delay", "multi:3"], ["multi:2", "multi:5", "queue"]])
def test_mva_population_one_is_sum_of_demands(kinds):
    d = [0.7, 2.0, 1.3]
    r = mva_closed(1, d, kinds, think_time=4.0)
    assert r.response[0] == pytest.approx(sum(d))
    assert r.throughput[0] == pytest.approx(1 / (4.0 + sum(d)))
    np.testing.assert_allclose(r.residence[0], d)


@pytest.mark.parametrize("N,Z,D", [(1, 5.0, 1.0), (5, 10.0, 1.0), (40, 10.0, 1.0), (60, 3.0, 0.25),
                                   (1000, 500.0, 1.0)])
def test_mva_machine_repairman(N, Z, D):
    r = mva_closed(N, [D], ["queue"], think_time=Z)
    for n in sorted({1, N // 2 or 1, N}):
        x, q = finite_source(n, Z, D, 1)
        assert r.throughput[n - 1] == pytest.approx(x, rel=1e-10)
        assert r.queue_length[n - 1, 0] == pytest.approx(q, rel=1e-9)
        assert r.response[n - 1] == pytest.approx(n / x - Z, rel=1e-9)


@pytest.mark.parametrize("method", ["auto", "recursive"])
@pytest.mark.parametrize("N,Z,D,c", [(3, 2.0, 1.0, 2), (12, 6.0, 2.0, 4), (30, 1.0, 1.0, 8)])
def test_mva_multi_server_vs_finite_source(method, N, Z, D, c):
    r = mva_closed(N, [D], [f"multi:{c}"], think_time=Z, method=method)
    for n in range(1, N + 1):
        x, q = finite_source(n, Z, D, c)
        assert r.throughput[n - 1] == pytest.approx(x, rel=1e-9)
        assert r.queue_length[n - 1, 0] == pytest.approx(q, rel=1e-8)


def test_mva_multi_server_large_population_stays_exact():
    """N = 1000 near saturation, where the marginal-probability recursion is known to drift."""
    N, Z, D, c = 1000, 40.0, 8.0, 8
    r = mva_closed(N, [D], [f"multi:{c}"], think_time=Z)
    for n in (10, 45, 50, 60, 200, 1000):
        x, q = finite_source(n, Z, D, c)
        assert r.throughput[n - 1] == pytest.approx(x, rel=1e-9)
        assert r.queue_length[n - 1, 0] == pytest.approx(q, rel=1e-9)
    assert np.all(r.throughput <= c / D * (1 + 1e-12))
    assert np.all(r.utilisation <= 1 + 1e-12)


@pytest.mark.parametrize("demands,servers,kinds", [
    ([1.0, 0.6], [2, 1], ["multi:2", "queue"]),
    ([2.0, 0.5, 3.0], [3, 1, math.inf], ["multi:3", "queue", "delay"]),
    ([1.5, 2.5, 0.8], [2, 3, 1], ["multi:2", "multi:3", "queue"]),
])
def test_mva_vs_brute_force_ctmc(demands, servers, kinds):
    N = 6
    for method in ("auto", "recursive"):
        r = mva_closed(N, demands, kinds, method=method)
        for n in range(1, N + 1):
            x, q = ctmc_cyclic(n, demands, servers)
            assert r.throughput[n - 1] == pytest.approx(x, rel=1e-9)
            np.testing.assert_allclose(r.queue_length[n - 1], q, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("N", [5, 80, 400])
def test_mva_two_station_multi_vs_ctmc_chain(N):
    r = mva_closed(N, [2.0, 0.6], ["multi:4", "queue"])
    x, qa = two_station_chain(N, 2.0, 4, 0.6, 1)
    assert r.throughput[-1] == pytest.approx(x, rel=1e-9)
    assert r.queue_length[-1, 0] == pytest.approx(qa, rel=1e-8)
    assert r.queue_length[-1, 1] == pytest.approx(N - qa, rel=1e-8)


def test_mva_littles_law_and_structure():
    Z = 3.0
    r = mva_closed(50, [1.0, 0.4, 2.0, 0.0], ["queue", "delay", "multi:4", "multi:2"], think_time=Z)
    n = r.n
    np.testing.assert_allclose(r.throughput * (Z + r.response), n, rtol=1e-12)
    np.testing.assert_allclose(r.queue_length.sum(axis=1) + r.throughput * Z, n, rtol=1e-10)
    np.testing.assert_allclose(r.queue_length, r.throughput[:, None] * r.residence, rtol=1e-12)
    np.testing.assert_allclose(r.utilisation[:, 2], r.throughput * 2.0 / 4)
    assert np.all(r.queue_length[:, 3] == 0.0)
    assert r.kinds == ("queue", "delay", "multi:4", "multi:2")
    assert r.servers == (1, 0, 4, 2)
    assert r.at(50)["throughput"] == r.throughput[-1]
    with pytest.raises(ValueError):
        r.throughput[0] = 1.0  # read-only


def test_mva_multi_one_is_queue_and_huge_multi_is_delay():
    a = mva_closed(20, [1.0, 0.5], ["multi:1", "queue"], think_time=1.0)
    b = mva_closed(20, [1.0, 0.5], ["queue", "queue"], think_time=1.0)
    np.testing.assert_allclose(a.throughput, b.throughput, rtol=1e-12)
    c = mva_closed(20, [1.0, 0.5], ["multi:50", "queue"], think_time=1.0)
    d = mva_closed(20, [1.0, 0.5], ["delay", "queue"], think_time=1.0)
    np.testing.assert_allclose(c.throughput, d.throughput, rtol=1e-10)
    np.testing.assert_allclose(c.queue_length, d.queue_length, rtol=1e-10)


def test_mva_large_queue_network_is_fast_and_bounded():
    r = mva_closed(1000, [0.5, 1.0, 0.25, 3.0], ["queue", "queue", "delay", "multi:4"], think_time=10.0)
    assert np.all(np.diff(r.throughput) >= -1e-12)
    assert r.throughput[-1] == pytest.approx(1.0, rel=1e-9)  # the bottleneck: queue with D = 1
    assert np.all(np.isfinite(r.residence))


# ---------------------------------------------------------------------------------------------
# bad inputs
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("call,field", [
    (lambda: mm1(1.0, 1.0), "rho"),
    (lambda: mm1(2.0, 1.0), "rho"),
    (lambda: mmc(4.0, 1.0, 4), "rho"),
    (lambda: mg1(0.6, 2.0, 1.0), "rho"),
    (lambda: md1(1.0, 1.0), "rho"),
    (lambda: mm1(-0.1, 1.0), "arrival_rate"),
    (lambda: mm1(float("nan"), 1.0), "arrival_rate"),
    (lambda: mm1(0.1, 0.0), "service_mean"),
    (lambda: mmc(0.1, 1.0, 0), "c"),
    (lambda: mmc(0.1, 1.0, 2.5), "c"),
    (lambda: mg1(0.1, 1.0, -1.0), "service_scv"),
    (lambda: mm1_response_quantile(0.1, 1.0, 1.0), "p"),
    (lambda: mmc_wait_quantile(0.1, 1.0, 2, -0.1), "p"),
    (lambda: mmc_response_cdf(float("nan"), 0.1, 1.0, 2), "t"),
    (lambda: erlang_c(3, 3.0), "a"),
    (lambda: erlang_c(3, -1.0), "a"),
    (lambda: mva_closed(0, [1.0], ["queue"]), "population"),
    (lambda: mva_closed(3, [1.0, -2.0], ["queue", "queue"]), r"demands\[1\]"),
    (lambda: mva_closed(3, [], []), "demands"),
    (lambda: mva_closed(3, [0.0], ["queue"]), "demands"),
    (lambda: mva_closed(3, [1.0, 1.0], ["queue"]), "kinds"),
    (lambda: mva_closed(3, [1.0], ["fifo-ish"]), r"kinds\[0\]"),
    (lambda: mva_closed(3, [1.0], ["multi:0"]), r"kinds\[0\]"),
    (lambda: mva_closed(3, [1.0], ["queue"], think_time=-1.0), "think_time"),
    (lambda: mva_closed(3, [1.0], ["multi:2"], method="magic"), "method"),
])
def test_bad_inputs_name_the_field(call, field):
    with pytest.raises(McioError, match=field) as e:
        call()
    assert e.value.field.startswith(field.replace("\\", ""))


# ---------------------------------------------------------------------------------------------
# properties
# ---------------------------------------------------------------------------------------------


@settings(max_examples=50, deadline=None)
@given(c=st.integers(1, 60), s=st.floats(1e-3, 100.0), frac=st.floats(0.01, 0.999))
def test_mmc_wait_decreases_with_servers(c, s, frac):
    lam = frac * c / s
    w = [mmc(lam, s, k).mean_wait for k in (c, c + 1, c + 5)]
    pw = [mmc(lam, s, k).prob_wait for k in (c, c + 1, c + 5)]
    assert w[0] >= w[1] >= w[2]
    assert pw[0] >= pw[1] >= pw[2]
    assert 0.0 <= pw[0] <= 1.0


_station = st.tuples(st.floats(0.01, 10.0), st.sampled_from(["queue", "delay", "multi:2", "multi:5"]))


@settings(max_examples=50, deadline=None)
@given(stations=st.lists(_station, min_size=1, max_size=4), N=st.integers(1, 40),
       Z=st.floats(0.0, 50.0))
def test_mva_throughput_monotone_and_bounded(stations, N, Z):
    d = [s[0] for s in stations]
    kinds = [s[1] for s in stations]
    r = mva_closed(N, d, kinds, think_time=Z)
    x = r.throughput
    assert np.all(np.diff(x) >= -1e-12 * x[1:])
    cap = [di / (1 if k == "queue" else int(k.split(":")[1])) for di, k in zip(d, kinds) if k != "delay"]
    if cap:
        assert np.all(x <= (1 + 1e-9) / max(cap))
    assert np.all(x <= r.n / (Z + sum(d)) * (1 + 1e-12))
    np.testing.assert_allclose(x * (Z + r.response), r.n, rtol=1e-9)
    if not any(k.startswith("multi") for k in kinds) or N <= 20:
        rec = mva_closed(N, d, kinds, think_time=Z, method="recursive")
        np.testing.assert_allclose(rec.throughput, x, rtol=1e-7)
