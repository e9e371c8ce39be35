"""Oracles for several control units and workloads (issue 28; kernels/stations.py,
kernels/workloads.py, engine/results_units.py): configurations built as Tables from a one-path
model (tests/units_tables.py) and run with ``simulate(model, ..., tables=T)``.

- identity: a configuration that is the single-path model's own tables (legacy=False) gives the
  single-path results to the bit;
- two independent control units, each with its own channels and workload, give the
  single-control-unit results per half (within CIs: the halves share one merged arrival stream
  or one set of rows of draws, so not the same draws);
- exact MVA: one closed workload spread over two control units with different services, sharing
  the channels (single class, product form: mcio.analytic.mva), and two closed workloads, one per
  control unit, sharing the channel MP and link (two classes: exact multi-class MVA below);
- the per-workload, per-control-unit and per-LCU figures add up to the totals.
"""
import dataclasses

import numpy as np
import pytest

from mcio import simulate
from mcio.engine.tables import legacy_tables
from mcio.model import Dist
from oracle_models import CLOSED_DEMANDS_MS, THINK_MS, closed_network, ficon_like, se_from_ci, se_multiplier
from units_tables import copies, two_closed_workloads

REPS = 16
K = se_multiplier(REPS, checks=60)      # SEs a difference may miss by (see oracle_models)
COMPS = ("response", "iosq", "pend", "disconnect", "connect")


def _se(ds, var: str) -> np.ndarray:
    """Standard error per entry of a per-replication variable (replication first)."""
    x = ds[var].values
    return x.std(axis=0, ddof=1) / np.sqrt(x.shape[0])


def _close(a, se_a, b, se_b, what: str, rel: float = 0.0):
    a, b = np.asarray(a, float), np.asarray(b, float)
    tol = K * np.sqrt(np.asarray(se_a) ** 2 + np.asarray(se_b) ** 2) + rel * np.abs(b)
    assert (np.abs(a - b) <= tol).all(), (what, a, b, tol)


def test_own_tables_give_the_single_path_results_to_the_bit():
    m = ficon_like(population=20, channels=2)
    a = simulate(m, ios=4_000, replications=2, seed=3)
    b = simulate(m, ios=4_000, replications=2, seed=3, tables=dataclasses.replace(legacy_tables(m), legacy=False))
    for v in a.data_vars:
        assert np.array_equal(a[v].values, b[v].values, equal_nan=True), v
    # and its per-level figures are the totals
    assert np.allclose(b.workload_response_ms.values[:, 0], b.response_ms.values, rtol=1e-12)
    assert np.allclose(b.control_unit_ha_busy.values[:, 0], b.cu_ha_busy.values, rtol=1e-12)
    assert np.allclose(b.control_unit_backend_busy.values[:, 0], b.backend_busy.values, rtol=1e-12)
    assert np.allclose(b.lcu_ssch_iops.values[:, 0], b.throughput_iops.values, rtol=1e-12)


@pytest.mark.parametrize("kind", ["closed", "open"])
def test_two_independent_control_units_give_the_single_results_per_half(kind):
    m = ficon_like(population=26, channels=2)
    if kind == "open":
        m = m.replace("workload.type", "open", check=False).replace("workload.rate_iops", 9000.0, check=False)
    ref = simulate(m, ios=15_000, replications=REPS, seed=5)
    T = copies(m, 2, names=["A", "B"])
    ds = simulate(m, ios=30_000, replications=REPS, seed=6, tables=T)
    assert list(ds.control_unit.values) == ["A", "B"] and list(ds.workload.values) == ["wl0", "wl1"]
    for h in range(2):
        _close(ds.workload_ssch_iops.values[:, h].mean(), _se(ds, "workload_ssch_iops")[h],
               ref.throughput_iops.values.mean(), _se(ref, "throughput_iops"), f"SSCH/s half {h}")
        for comp in COMPS:
            _close(ds[f"workload_{comp}_ms"].values[:, h].mean(), _se(ds, f"workload_{comp}_ms")[h],
                   ref[f"{comp}_ms"].values.mean(), _se(ref, f"{comp}_ms"), f"{comp} half {h}")
        _close(ds.control_unit_ha_busy.values[:, h].mean(), _se(ds, "control_unit_ha_busy")[h],
               ref.cu_ha_busy.values.mean(), _se(ref, "cu_ha_busy"), f"HA busy half {h}")
        _close(ds.control_unit_backend_busy.values[:, h].mean(), _se(ds, "control_unit_backend_busy")[h],
               ref.backend_busy.values.mean(), _se(ref, "backend_busy"), f"BE busy half {h}")
        _close(ds.lcu_response_ms.values[:, h].mean(), _se(ds, "lcu_response_ms")[h],
               ref.response_ms.values.mean(), _se(ref, "response_ms"), f"LCU response half {h}")
        # the percentiles of each half's histogram: within the CIs and the histogram's 1 %
        _close(ds.workload_response_quantile_ms.values[h], se_from_ci(ds.workload_response_quantile_ci95_ms.values[h], ds),
               ref.response_quantile_ms.values, se_from_ci(ref.response_quantile_ci95_ms.values, ref),
               f"quantiles half {h}", rel=0.01)
    # the channels of each half carry its own I/Os only
    ch = ds.channel_ssch_iops.mean("replication").values
    half = ds.workload_ssch_iops.mean("replication").values
    assert np.allclose([ch[:2].sum(), ch[2:].sum()], half, rtol=1e-12)


def _exact_two_class_mva(pops, demands, think_ms):
    """Exact multi-class MVA (Reiser-Lavenberg) of single-server FIFO/PS stations: ``demands``
    [class, station] (ms), ``think_ms`` each class's delay. Returns (X per ms, R ms) per class."""
    pops = tuple(pops)
    D = np.asarray(demands, float)
    C, S = D.shape
    Q = {}
    X = R = None
    for n in np.ndindex(*(p + 1 for p in pops)):
        q = np.zeros(S)
        X = np.zeros(C)
        R = np.zeros(C)
        for c in range(C):
            if n[c] == 0:
                continue
            prev = tuple(n[i] - (i == c) for i in range(C))
            rk = D[c] * (1.0 + Q[prev])
            R[c] = rk.sum()
            X[c] = n[c] / (think_ms + R[c])
            q += X[c] * rk
        Q[n] = q
    return X, R


def test_two_closed_workloads_on_two_control_units_against_exact_mva():
    """Two classes (one workload per control unit, populations 6 and 10) share the channel's MP
    (FIFO exponential, the same work for both) and link (PS); each has its control unit's host
    adapter and back end (single servers, exponential, different means): product form."""
    d = CLOSED_DEMANDS_MS
    m, T = two_closed_workloads(d["ha"], d["be"])
    demands = [[d["mp"], d["link"], d["ha"], d["be"], 0.0, 0.0],
               [d["mp"], d["link"], 0.0, 0.0, 0.12, 0.15]]
    X, R = _exact_two_class_mva((6, 10), demands, THINK_MS)
    ds = simulate(m, ios=40_000, replications=REPS, seed=8, tables=T)
    _close(ds.workload_response_ms.mean("replication").values, _se(ds, "workload_response_ms"), R, 0.0,
           "response", rel=1e-9)
    _close(ds.workload_ssch_iops.mean("replication").values, _se(ds, "workload_ssch_iops"), 1000 * X, 0.0,
           "throughput")
    # utilisation law per control unit, and disconnect = the back end's residence
    _close(ds.control_unit_ha_busy.mean("replication").values, _se(ds, "control_unit_ha_busy"),
           X * np.array([d["ha"], 0.12]), 0.0, "HA busy", rel=1e-9)
    _close(ds.control_unit_backend_busy.mean("replication").values, _se(ds, "control_unit_backend_busy"),
           X * np.array([d["be"], 0.15]), 0.0, "BE busy", rel=1e-9)


def test_one_closed_workload_over_two_control_units_against_exact_mva():
    """One class spread evenly over two control units' devices (visit ratio 1/2 each) with
    different services, sharing the channels: single-class product form (mcio.analytic.mva)."""
    from mcio.analytic import mva_closed
    d = CLOSED_DEMANDS_MS
    N = 12
    m = closed_network(N)
    T = copies(m, 2, share_channels=True)
    D = len(legacy_tables(m).dev_lcu)
    T = dataclasses.replace(
        T, wl_name=["all"], wl_population=np.array([N], np.int64), wl_rate_iops=np.zeros(1),
        wl_dev_ptr=np.array([0, 2 * D], np.int64), cls_name=T.cls_name[:1], cls_wl=np.zeros(1, np.int64),
        cls_dir=T.cls_dir[:1], cls_share=np.ones(1), cls_kb=T.cls_kb[:1], cls_records=T.cls_records[:1],
        cls_miss=T.cls_miss[:1], mp_ms=T.mp_ms[:, :1],
        cu_ha_service_ms=[Dist("exponential", d["ha"]), Dist("exponential", 0.08)],
        cu_be_service_ms=[Dist("exponential", d["be"]), Dist("exponential", 0.2)],
        cu_ha_servers=np.array([1, 1], np.int64), cu_be_servers=np.array([1, 1], np.int64))
    at = mva_closed(N, [d["mp"], d["link"], d["ha"] / 2, 0.04, d["be"] / 2, 0.1], ["queue"] * 6,
                    think_time=THINK_MS).at(N)
    ds = simulate(m, ios=30_000, replications=REPS, seed=12, tables=T)
    _close(ds.response_ms.values.mean(), _se(ds, "response_ms"), at["response"], 0.0, "response", rel=1e-9)
    _close(ds.throughput_iops.values.mean(), _se(ds, "throughput_iops"), 1000 * at["throughput"], 0.0, "X")
    res = at["residence"]
    # per control unit: half the I/Os each; its disconnect is its back end's residence per visit
    _close(ds.control_unit_ssch_iops.mean("replication").values, _se(ds, "control_unit_ssch_iops"),
           np.full(2, 500 * at["throughput"]), 0.0, "CU SSCH/s")
    _close(ds.control_unit_disconnect_ms.mean("replication").values, _se(ds, "control_unit_disconnect_ms"),
           2 * np.array([res[4], res[5]]), 0.0, "CU disconnect", rel=1e-9)
    _close(ds.control_unit_backend_busy.mean("replication").values, _se(ds, "control_unit_backend_busy"),
           at["throughput"] * np.array([d["be"] / 2, 0.1]), 0.0, "BE busy", rel=1e-9)


def test_per_level_figures_add_up_to_the_totals():
    m = ficon_like(population=30, channels=2)
    T = copies(m, 3, share_channels=True)
    T.wl_population = np.array([5, 10, 15], np.int64)
    T.lcu_name, T.lcu_cu = ["l0", "l1", "l2", "l3"], np.array([0, 1, 2, 2], np.int64)
    D = len(legacy_tables(m).dev_lcu)
    T.dev_lcu = np.concatenate([np.zeros(D), np.ones(D), np.full(D // 2, 2), np.full(D - D // 2, 3)]).astype(np.int64)
    ds = simulate(m, ios=8_000, replications=3, seed=2, tables=T)
    x = ds.throughput_iops.values
    for var in ("workload_ssch_iops", "control_unit_ssch_iops", "lcu_ssch_iops"):
        assert np.allclose(ds[var].values.sum(axis=1), x, rtol=1e-12), var
    n = ds.workload_ssch_iops.values
    for comp in ("response", "iosq", "pend", "cmr", "disconnect", "connect"):
        assert np.allclose((ds[f"workload_{comp}_ms"].values * n).sum(axis=1) / x, ds[f"{comp}_ms"].values,
                           rtol=1e-9), comp
    nl = ds.lcu_ssch_iops.values
    for comp in ("response", "pend", "disconnect", "connect"):
        assert np.allclose((ds[f"lcu_{comp}_ms"].values * nl).sum(axis=1) / x, ds[f"{comp}_ms"].values, rtol=1e-9)
        # a control unit's figure is its LCUs' together
        cu2 = (ds[f"lcu_{comp}_ms"].values * nl)[:, 2:].sum(axis=1) / nl[:, 2:].sum(axis=1)
        assert np.allclose(ds[f"control_unit_{comp}_ms"].values[:, 2], cu2, rtol=1e-9)
    assert list(ds.lcu_control_unit.values) == ["cu0", "cu1", "cu2", "cu2"]
    # the host adapters' areas add up to the single figure (its divisor: the model's servers)
    ha = ds.control_unit_ha_busy.values * T.cu_ha_servers
    assert np.allclose(ha.sum(axis=1), ds.cu_ha_busy.values * m.control_unit["ha_servers"], rtol=1e-9)
    assert ds.workload_response_quantile_ms.dims == ("workload", "quantile")


def test_what_the_merged_streams_cannot_take_is_refused():
    from mcio.errors import McioError
    m = ficon_like(population=10, channels=2)
    op = m.replace("workload.type", "open", check=False).replace("workload.rate_iops", 2000.0, check=False)
    with pytest.raises(McioError, match="Poisson"):       # several open workloads: Poisson only
        simulate(op.replace("workload.arrival_scv", 2.0, check=False), ios=1000, replications=2, tables=copies(op, 2))
    T = copies(m, 2)
    T.wl_rate_iops = np.array([100.0, 0.0])
    T.wl_population = np.array([0, 10], np.int64)
    with pytest.raises(McioError, match="open"):          # open and closed mixed
        simulate(m, ios=1000, replications=2, tables=T)
    with pytest.raises(McioError, match="fast_path"):     # the fast path takes the single path only
        simulate(m, ios=1000, replications=2, tables=copies(m, 2), fast_path=True)
    # one open workload over its own tables may keep a renewal stream
    one = dataclasses.replace(legacy_tables(op), legacy=False)
    simulate(op.replace("workload.arrival_scv", 2.0, check=False), ios=1000, replications=2, tables=one)


def test_a_link_holds_as_many_transfers_as_the_workloads_slots_can_put_on_it():
    """A configuration's closed workloads hold more slots (6 + 10) than the model's own population
    (8): each link's list of transfers is sized by the slots the kernel runs (pack's count from
    the model's population let a shared link write past its row; found under NUMBA_BOUNDSCHECK=1)."""
    from mcio.engine.pack import pack
    from mcio.engine.pack_links import link_ip
    from mcio.kernels import layout as L
    m, T = two_closed_workloads(0.3, 0.4)
    pk = pack(m, 1_000, 100, T)
    assert pk.ip[L.IP_SLOTS] == 16
    assert pk.ip[L.IP_LN_SLOTS] == link_ip(T, 16)[0]
    # every I/O of both workloads can be transferring on the shared link at once
    assert pk.ip[L.IP_LN_SLOTS] >= min(16, int(np.asarray(T.ch_oe_cap).sum()))
