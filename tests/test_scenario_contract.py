"""The Scenario contract (mcio/scenarios/base.py): parameters checked against their bounds,
variants, figures judged by their tolerances, and ``mcio reproduce`` (table, --json, exit codes)."""
import json

import pytest
from click.testing import CliRunner

from mcio import McioError
from mcio.cli import main
from mcio.scenarios import SCENARIOS, build_scenario, get_scenario
from mcio.scenarios.base import Figure, Param, RunSize, Scenario, Tolerance


def test_tolerance_rules():
    assert Tolerance(rel=0.1).within(10.0, 10.9) and not Tolerance(rel=0.1).within(10.0, 11.2)
    assert Tolerance(abs=0.03).within(0.91, 0.935) and not Tolerance(abs=0.03).within(0.91, 0.95)
    assert Tolerance().within((40.0, 45.0), 42.0) and not Tolerance().within((40.0, 45.0), 46.0)
    assert Tolerance(abs=1.0).within((40.0, 45.0), 45.9)
    assert Tolerance(rel=0.1).within(None, 3.0) is None
    assert Tolerance(rel=0.1).within(1.0, float("nan")) is False


def test_params_are_checked_against_their_bounds():
    scn = get_scenario("mm1-demo")
    with pytest.raises(McioError, match=r"scenario_params.rate_iops.*must be in"):
        scn.model(rate_iops=-1.0)
    with pytest.raises(McioError, match=r"scenario_params.nope.*unknown parameter of scenario .mm1-demo"):
        scn.model(nope=1)
    with pytest.raises(McioError, match="unknown variant"):
        scn.model("rho99")
    with pytest.raises(ValueError, match="provenance"):
        Param("x", 1, "1", "guessed", "no such provenance")


def test_variants_and_registry_build_the_same_model():
    scn = get_scenario("mm1-demo")
    assert scn.model("rho90").workload["rate_iops"] == 900.0
    assert build_scenario("mm1-demo", {"variant": "rho90"}).workload["rate_iops"] == 900.0
    assert build_scenario("mm1-demo", {"rate_iops": 100.0}).workload["rate_iops"] == 100.0
    assert "mm1-demo" in SCENARIOS


def test_a_number_on_a_distribution_field_sets_its_mean():
    m = get_scenario("mm1-demo").model(**{"control_unit.backend_service_ms": 2.0})
    assert m.control_unit["backend_service_ms"].kind == "exponential"
    assert m.control_unit["backend_service_ms"].mean == 2.0


class _Fixed(Scenario):
    """A scenario whose model values are fixed, to test the judging without simulating."""
    name = "fixed"
    figures = (Figure("a", "default", "x", 1.0, Tolerance(rel=0.05)),
               Figure("b", "default", "y", (2.0, 3.0)),
               Figure("c", "default", "z", None))

    def __init__(self, x):
        self.x = x

    def build(self, params):      # never called: evaluate() below is overridden
        raise AssertionError("build is not used by this fixture")

    def evaluate(self, variant, run):
        return {"x": (self.x, 0.01), "y": (2.5, 0.0), "z": (7.0, 0.0)}


def test_reproduce_judges_every_figure():
    rows = _Fixed(1.02).reproduce(RunSize())
    assert [r.within for r in rows] == [True, True, None]
    assert rows[0].error == pytest.approx(0.02)
    assert _Fixed(1.2).reproduce(RunSize())[0].within is False


def test_mcio_reproduce_prints_json_and_exits_by_the_tolerances():
    res = CliRunner().invoke(main, ["reproduce", "mm1-demo", "--json", "--ios", "40000"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    rows = out["figures"]
    assert {"figure", "measured", "model", "ci95", "tolerance", "within", "kind"} <= set(rows[0])
    assert all(r["within"] for r in rows)
    assert out["scenario"] == "mm1-demo" and out["run"]["ios"] == 40000
    assert out["summary"] == {"figures": 3, "kinds": {"fitted": 0, "imposed": 0, "identity": 1, "predicted": 2},
                              "judged": 3, "within": 3, "predicted": {"figures": 2, "judged": 2, "within": 2}}
    res = CliRunner().invoke(main, ["reproduce", "no-such"])
    assert res.exit_code == 2 and "no-such" in res.output
    res = CliRunner().invoke(main, ["reproduce", "mm1-demo", "--variant", "rho99"])
    assert res.exit_code == 2 and "unknown variant" in res.stderr and "rho50" in res.stderr


def test_a_parameter_takes_only_its_own_kind():
    # isfc-link's shared = "yes" was reported as a bad CHPID 'y'
    with pytest.raises(McioError, match=r"scenario_params.shared.*true or false"):
        build_scenario("isfc-link", {"shared": "yes"})
    with pytest.raises(McioError, match=r"scenario_params.rate_iops.*must be a number"):
        build_scenario("mm1-demo", {"rate_iops": "fast"})
