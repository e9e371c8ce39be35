"""The shipped configuration (examples/topology/two_subsystems.toml) end to end: it runs, and its
per-level figures agree with what the configuration implies independently of the simulation
(each workload's declared rate; each control unit's host-adapter utilisation from the capacity
check's mean demands; identities between levels). Tolerances from the replications' spread."""
from __future__ import annotations

import os

import numpy as np
import pytest

from mcio import simulate
from mcio.engine.tables import tables_of
from mcio.model import Model

from oracle_models import se_multiplier

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "examples", "topology", "two_subsystems.toml")
R = 6


@pytest.fixture(scope="module")
def run():
    m = Model.from_toml(EXAMPLE)
    ds = simulate(m, ios=30_000, replications=R, seed=3)
    return m, tables_of(m), ds


def _within(rep_values, exact, checks):
    v = np.asarray(rep_values, float)
    se = v.std(ddof=1) / np.sqrt(len(v))
    k = se_multiplier(len(v), checks)
    assert abs(v.mean() - exact) <= k * se + 1e-9 * abs(exact), (v.mean(), exact, se, k)


def test_each_workload_runs_at_its_declared_rate(run):
    m, t, ds = run
    rates = t.wl_rate_iops
    assert list(ds["workload"].values) == t.wl_name
    for w in range(len(rates)):
        _within(ds.workload_ssch_iops.isel(workload=w).values, rates[w], len(rates))


def test_host_adapter_busy_is_the_capacity_checks_utilisation(run):
    """Per control unit: simulated host-adapter busy against rate x mean service / servers from the
    configuration's own mean demands (an open network: utilisation is load / capacity)."""
    m, t, ds = run
    rate_per_ms = np.zeros(t.n_cus)
    for w in range(len(t.wl_name)):
        a, b = t.wl_dev_ptr[w], t.wl_dev_ptr[w + 1]
        wt = t.wl_dev_weight[a:b] / t.wl_dev_weight[a:b].sum()
        rate_per_ms += t.wl_rate_iops[w] / 1000.0 * np.bincount(t.dev_cu[t.wl_dev[a:b]], weights=wt,
                                                               minlength=t.n_cus)
    for u in range(t.n_cus):
        exact = rate_per_ms[u] * t.cu_ha_service_ms[u].mean / t.cu_ha_servers[u]
        _within(ds.control_unit_ha_busy.isel(control_unit=u).values, exact, t.n_cus)


def test_levels_add_up(run):
    """Identities: the workloads', control units' and LCUs' rates each sum to the total."""
    m, t, ds = run
    total = ds.throughput_iops.values
    for var, dim in (("workload_ssch_iops", "workload"), ("control_unit_ssch_iops", "control_unit"),
                     ("lcu_ssch_iops", "lcu")):
        np.testing.assert_allclose(ds[var].sum(dim).values, total, rtol=1e-9)


def test_table_shows_a_level_by_its_names(run):
    """``mcio table --by workload``: one row per workload, named; a per-level figure without
    ``--by`` is refused with the option to use (not averaged over the level in silence)."""
    from mcio.errors import McioError
    from mcio.planner.table import sweep_table
    m, t, ds = run
    tab = sweep_table(ds, ["workload_response_ms", "workload_ssch_iops"], by="workload")
    assert [r[0] for r in tab.rows] == t.wl_name
    with pytest.raises(McioError, match="--by workload"):
        sweep_table(ds, ["workload_response_ms"])
    tab = sweep_table(ds, ["control_unit_ha_busy"], by="control_unit")
    assert [r[0] for r in tab.rows] == t.cu_name


def test_run_report_has_every_level(run):
    """``mcio run``'s report of a configuration: a line per workload, control unit, LCU, shared
    link (ISLs, ports, card data limits) and card, by name; the channels by CHPID."""
    from mcio.cli.level_report import level_lines
    m, t, ds = run
    text = "\n".join(level_lines(ds))
    for name in t.wl_name + t.cu_name + t.lcu_name + t.card_name:
        assert f"\n{name}" in text, name
    for i, kind in enumerate(t.ln_kind):
        if kind != "channel":
            assert t.ln_name[i][:21] in text
    assert list(ds["chpid"].values) == t.ch_name
    # every start crosses its channel's card: the cards' rates are their channels'
    np.testing.assert_allclose(ds.card_ssch_iops.sum("card").values, ds.throughput_iops.values, rtol=1e-9)
