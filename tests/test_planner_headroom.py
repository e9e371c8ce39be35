"""``mcio headroom``: the largest load growth (or the fewest aliases) meeting service targets,
with a 95 % CI from stochastic root finding on common random numbers, checked against closed
forms (M/M/1 and M/M/c: mean and 90th percentile of the response), the CI's coverage of the
exact answer over 40 seeds, the inverse over an integer field, the binding resource and the first
target to break, and the CLI's one error policy."""
import math

import numpy as np
import pytest
from click.testing import CliRunner
from scipy.optimize import brentq

from mcio.analytic import mmc, mmc_response_quantile
from mcio.cli import main
from mcio.planner.headroom import headroom, parse_targets
from mcio.scenarios import SCENARIOS
from sweep_specs import FICON_GRID, write

MM1 = SCENARIOS["mm1-demo"]()                     # 500 SSCH/s, exponential 1 ms: rho 0.5
# M/M/2 on the fast path: one alias (two exposures), two back-end servers, 1000 SSCH/s: rho 0.5
MM2 = (MM1.replace("devices.aliases", 1).replace("control_unit.backend_servers", 2)
       .replace("workload.rate_iops", 1000.0))

# growth factors known exactly: the load at which the target is met, over the base load
CASES = {
    "mm1 mean": (MM1, "response_ms <= 5", 1.6),                                 # 1 / (1 - rho) = 5
    "mm1 p90": (MM1, "response_p90_ms <= 10", (1000 - 1000 * math.log(10) / 10) / 500),  # Exp(mu - lambda)
    "mm2 mean": (MM2, "response_ms <= 2", brentq(lambda lam: mmc(lam, 1.0, 2).mean_response - 2.0, 1.0, 1.999)),
    "mm2 p90": (MM2, "response_p90_ms <= 5",
                brentq(lambda lam: mmc_response_quantile(lam, 1.0, 2, 0.9) - 5.0, 1.0, 1.999)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_exact_answer_within_ci_and_near(case):
    model, target, exact = CASES[case]
    h = headroom(model, [target], ios=20_000, replications=8, seed=1)
    assert h.status == "found"
    assert h.ci95[0] <= exact <= h.ci95[1], (h.estimate, h.ci95, exact)
    assert abs(h.estimate - exact) < 0.03 * exact and h.ci95[1] - h.ci95[0] < 0.1 * exact
    assert h.binding_resource in ("back end", "device") and h.first_to_break == target


@pytest.mark.parametrize("case", list(CASES))
def test_ci_covers_the_exact_answer_in_repeated_runs(case):
    """40 seeds of short runs (fast path, 6 x 10,000 I/Os an evaluation): the 95 % CI covers the
    closed form's answer in at least 90 % of them (36, 37, 38 and 36 of 40 when written)."""
    model, target, exact = CASES[case]
    hits = sum(lo <= exact <= hi for lo, hi in
               (headroom(model, [target], ios=10_000, replications=6, seed=s).ci95 for s in range(40)))
    assert hits >= 36, f"{case}: coverage {hits}/40"


def test_several_targets_the_first_to_break_binds():
    h = headroom(MM1, parse_targets(["response_ms <= 5, response_p90_ms <= 10"]), ios=20_000, replications=8,
                 seed=2)
    exact = CASES["mm1 p90"][2]      # the percentile target is the stricter one
    assert h.first_to_break == "response_p90_ms <= 10" and h.ci95[0] <= exact <= h.ci95[1]
    assert h.at_answer["response_ms <= 5"][0] < 5


def test_fewest_aliases_meeting_a_target_mmc():
    """2,500 SSCH/s of 1 ms: M/M/c response 1.213 ms with 4 exposures, 1.052 with 5: the fewest
    aliases for response <= 1.1 ms is 4."""
    base = MM1.replace("control_unit.backend_servers", 16).replace("workload.rate_iops", 2500.0) \
        .replace("devices.aliases", 3)
    assert mmc(2.5, 1.0, 4).mean_response > 1.1 > mmc(2.5, 1.0, 5).mean_response
    h = headroom(base, ["response_ms <= 1.1"], grow="devices.aliases", ios=10_000, replications=6, seed=0)
    assert h.direction == "fewest" and h.estimate == 4 and set(h.per_replication) == {4.0}
    assert h.binding_resource == "device"


def test_range_ends():
    h = headroom(MM1, ["response_ms <= 100"], ios=5_000, replications=4, seed=0, limit=(0.5, 1.5))
    assert h.status == "holds over the range" and h.estimate == 1.5
    h = headroom(MM1, ["response_ms <= 1.01"], ios=5_000, replications=4, seed=0, limit=(0.5, 1.5))
    assert h.status == "fails over the range"


def test_cli_closed_load_with_at(tmp_path):
    spec = write(tmp_path, FICON_GRID)
    r = CliRunner().invoke(main, ["headroom", str(spec), "--point", "1", "--target", "response_ms <= 4",
                                  "--target", "channel_busy <= 0.6", "--at", "1.4", "--ios", "3000",
                                  "--replications", "4"])
    assert r.exit_code == 0, r.output
    out = r.output
    assert "the load can grow by a factor of" in out and "95 % CI" in out
    assert "binding resource: control-unit host adapters" in out  # 75 % busy there, the MP 60 %
    assert "first target to break: channel_busy <= 0.6" in out
    assert "at 1.4 (+40.0 %): the targets" in out and "runs as an open load at its measured rate" in out


@pytest.mark.parametrize("args, field", [
    (["--target", "response_ms = 3"], "--target"),
    (["--target", "nonsense_ms <= 3"], "--target"),
    (["--target", "response_ms <= 3", "--grow", "devices.nothing"], "devices.nothing"),
    (["--target", "response_ms <= 3", "--limit", "3,1"], "--limit"),
])
def test_cli_bad_input_one_line_exit_2(args, field):
    r = CliRunner().invoke(main, ["headroom", "mm1-demo", "--ios", "2000", "--replications", "3", *args])
    assert r.exit_code == 2, r.output
    assert r.output.count("\n") == 1 and r.output.startswith("mcio: error: ") and field in r.output


def test_growth_of_a_distribution_mean_field():
    """The largest mean service of the M/M/1 at 500 SSCH/s with response <= 5 ms: S / (1 - 0.5 S)
    = 5 at S = 10/7 ms (beyond S = 2 the open load is over capacity: searched, flagged, failed)."""
    h = headroom(MM1, ["response_ms <= 5"], grow="control_unit.backend_service_ms.mean", ios=20_000,
                 replications=8, seed=1)
    assert h.kind == "value" and h.direction == "largest"
    assert h.ci95[0] <= 10 / 7 <= h.ci95[1]
