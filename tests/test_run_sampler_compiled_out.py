"""engine/run.py: the event kernel gets the empirical tables as None when no distribution row is
lognormal or empirical, so that blockrng.fill_row's sampler of those kinds is compiled out; the
results are the same as with the tables passed."""
import numpy as np
import pytest

from mcio import simulate
from mcio.engine import run as engine_run
from mcio.kernels.dists import DETERMINISTIC, EMPIRICAL, EXPONENTIAL, GAMMA, LOGNORMAL, UNIFORM
from oracle_models import single_server_open


@pytest.mark.parametrize("kinds, simple", [
    ((DETERMINISTIC, EXPONENTIAL, GAMMA, UNIFORM), True),
    ((EXPONENTIAL,), True),
    ((EXPONENTIAL, LOGNORMAL), False),
    ((DETERMINISTIC, EMPIRICAL), False),
])
def test_simple_kinds_only_by_the_rows_kinds(kinds, simple):
    dp = np.zeros((len(kinds), 5))
    dp[:, 0] = kinds
    assert engine_run._simple_kinds_only(dp) is simple


@pytest.mark.parametrize("service", [{"dist": "gamma", "mean": 1.0, "scv": 0.5},
                                     {"dist": "uniform", "low": 0.5, "high": 1.5}])
def test_results_same_with_the_tables_as_none(monkeypatch, service):
    model = single_server_open(500.0, service)
    run = dict(ios=3000, replications=2, seed=3, warmup=300, fast_path=False)
    calls = []
    simple = engine_run._simple_kinds_only
    monkeypatch.setattr(engine_run, "_simple_kinds_only", lambda dp: calls.append(simple(dp)) or calls[-1])
    pruned = simulate(model, **run)
    assert calls == [True]
    monkeypatch.setattr(engine_run, "_simple_kinds_only", lambda dp: False)
    full = simulate(model, **run)
    assert set(pruned.data_vars) == set(full.data_vars)
    for name in full.data_vars:
        np.testing.assert_array_equal(pruned[name].values, full[name].values, err_msg=name)
