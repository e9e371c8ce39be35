"""The engine against closed forms, one row of tests/oracle_models.ORACLES per model: exact MVA for
a closed product-form network; M/M/1, M/M/c (Erlang C), M/G/1 (Pollaczek-Khinchine) on both
engines; the control unit's stations (exact utilisation identities, Erlang C); positional DASD
(the kernel's arm walk against mcio.dasd's stationary seek means); and the 95 % CIs' coverage.
The tolerance rule is stated once, in oracle_models (above ``Tol``)."""
import pytest
from scipy import stats

from mcio import simulate
from oracle_models import ORACLES, misses, run_row

CHECKED = [o for o in ORACLES if not o.seeds]
COVERAGE = [o for o in ORACLES if o.seeds]


@pytest.mark.parametrize("oracle", CHECKED, ids=lambda o: o.id)
def test_simulation_meets_its_oracle(oracle):
    ds = run_row(oracle.id)
    if oracle.engine is not None:
        assert ds.attrs["engine"].startswith("fast") == (oracle.engine == "fast"), ds.attrs["engine"]
    expect = oracle.expect()
    failed = [m for m in (misses(ds, name, exact, oracle.tol_of(name)) for name, exact in expect.items()) if m]
    assert not failed, f"{oracle.id}:\n  " + "\n  ".join(failed)


@pytest.mark.parametrize("oracle", CHECKED, ids=lambda o: o.id)
def test_the_rule_rejects_a_wrong_oracle(oracle):
    """A check that cannot fail is no check: every measure's oracle scaled by 1 + or - the row's
    ``resolves`` (5 % for most rows) must miss on the same run. Exempt: a fixed allowance (busy
    within 0.01-0.02, no CI) wider than that error, and exact values of 0."""
    ds = run_row(oracle.id)
    kept = []
    for name, exact in oracle.expect().items():
        tol = oracle.tol_of(name)
        if exact == 0 or (tol.k == 0 and not tol.each and tol.abs >= oracle.resolves * abs(exact)):
            continue
        for wrong in (exact * (1 + oracle.resolves), exact * (1 - oracle.resolves)):
            if misses(ds, name, wrong, tol) is None:
                kept.append(f"{name} at {wrong:.6g} (exact {exact:.6g})")
    assert not kept, f"{oracle.id}: a wrong oracle still passes: {kept}"


@pytest.mark.parametrize("oracle", COVERAGE, ids=lambda o: o.id)
def test_ci95_covers_the_exact_mean_95_percent_of_the_time(oracle):
    """Over the row's seeds the covering intervals are Binomial(seeds, 0.95) if the intervals are
    right: fail below that distribution's 0.1 % quantile."""
    m = oracle.model()
    expect = oracle.expect()
    hits = dict.fromkeys(expect, 0)
    for seed in range(oracle.seeds):
        ds = simulate(m, seed=seed, **oracle.run)
        for name, exact in expect.items():
            stem, _, unit = name.rpartition("_")
            hits[name] += abs(float(ds[name].mean()) - exact) <= float(ds[f"{stem}_ci95_{unit}"])
    least = int(stats.binom.ppf(0.001, oracle.seeds, 0.95))
    for name, n in hits.items():
        assert n >= least, (name, n, least)
        if oracle.all_cover_fails:
            assert n < oracle.seeds, (name, n)     # intervals that always cover are too wide
