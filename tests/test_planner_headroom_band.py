"""``mcio headroom`` on a spec with an ``[uncertain]`` table: the answer at the nominal inputs with
its simulation CI, and the input band of the answer (the headroom found again per drawn parameter
set, on common random numbers), checked on M/M/1 at 500 SSCH/s with the service mean S uniform
on [1.0, 1.6] ms, where each set's answer is known in closed form: ``response_ms <= 5`` holds up
to the rate 1/S - 1/5 per ms, a growth g*(S) = 2/S - 0.4; ``backend_busy <= 0.7`` up to
g*(S) = 0.7 / (0.5 S)."""
import numpy as np
import pytest
from click.testing import CliRunner

from mcio.cli import main
from mcio.planner.headroom_band import headroom_band
from mcio.planner.uncertain import parse_uncertain
from mcio.scenarios import SCENARIOS

MM1 = SCENARIOS["mm1-demo"]()                     # 500 SSCH/s, exponential 1 ms
KEY = "control_unit.backend_service_ms.mean"
LOW, HIGH = 1.0, 1.6
EXACT = {"response_ms <= 5": lambda s: 2.0 / s - 0.4, "backend_busy <= 0.7": lambda s: 1.4 / s}


@pytest.mark.parametrize("target", list(EXACT))
def test_input_band_of_the_answer_matches_the_closed_form(target):
    g = EXACT[target]
    inputs, _ = parse_uncertain({KEY: {"low": LOW, "high": HIGH}})
    b = headroom_band(MM1, inputs, [target], samples=16, ios=10_000, replications=4, seed=1)
    s = b.values[:, 0]
    assert np.allclose(b.estimates, g(s), rtol=0.02), np.c_[s, b.estimates, g(s)]    # each set's answer
    lo, med, hi = b.band
    # g* falls as S grows: its 2.5 % point is g* at S's 97.5 % point (the closed-form band)
    exact_band = (g(LOW + 0.975 * (HIGH - LOW)), g(LOW + 0.5 * (HIGH - LOW)), g(LOW + 0.025 * (HIGH - LOW)))
    assert np.allclose(b.band, np.quantile(g(s), [0.025, 0.5, 0.975]), rtol=0.02)     # the same sets, exact
    assert np.allclose(b.band, exact_band, rtol=0.06), (b.band, exact_band)          # 16 sets' quantiles
    assert b.nominal.ci95[0] <= g(1.0) <= b.nominal.ci95[1]                          # the simulation CI
    assert b.most_moving == KEY and b.rank_corr[0] < -0.95
    assert all(st == "found" for st in b.statuses)


SPEC = f"""\
title = "M/M/1 with an uncertain service mean and rate"
scenario = "mm1-demo"

[run]
replications = 4
ios = 5000
seed = 3

[uncertain]
"{KEY}" = {{low = {LOW}, high = {HIGH}}}
"workload.rate_iops" = {{dist = "normal", mean = 500.0, sd = 2.0}}
"""


def test_cli_answers_with_both_bands_and_the_input_that_moves_it(tmp_path):
    p = tmp_path / "u.toml"
    p.write_text(SPEC)
    r = CliRunner().invoke(main, ["headroom", str(p), "--target", "response_ms <= 5", "--at", "1.2",
                                  "--samples", "8"])
    assert r.exit_code == 0, r.output
    out = r.output
    assert "the load can grow by a factor of" in out and "95 % CI" in out        # nominal, simulation CI
    assert "input band of the answer:" in out and "over 8 parameter sets (lhs)" in out
    assert f"moved most by: {KEY};" in out
    assert "at 1.2 (+20.0 %): within the headroom of" in out
    nominal_only = CliRunner().invoke(main, ["headroom", str(p), "--target", "response_ms <= 5", "--samples", "0"])
    assert nominal_only.exit_code == 0 and "input band" not in nominal_only.output
    bad = CliRunner().invoke(main, ["headroom", str(p), "--target", "response_ms <= 5", "--samples", "2"])
    assert bad.exit_code == 2 and "--samples" in bad.output and bad.output.count("\n") == 1
