"""``from_calibration`` in ``[uncertain]``: a calibration result's fitted values and standard errors
become normal inputs on the scenario parameters. The shipped file (ficon_channel_fitted.toml)
saves standard errors only, so the inputs are independent: parameter sets drawn from it have the
saved means and standard deviations (within sampling error), no correlation, and every draw
within the fit's bounds; a file that saves a correlation gives draws with that correlation; the
drawn values reach the scenario's model; a spec of another scenario is refused."""
import math

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats

from mcio.cli import main
from mcio.errors import McioError
from mcio.planner.uncertain import SetModels, draw, parse_uncertain, run_uncertain
from mcio.scenarios import build_scenario
from mcio.scenarios.fitted import read_fitted
from sweep_specs import ROOT

FITTED = ROOT / "mcio" / "scenarios" / "ficon_channel_fitted.toml"
N = 4000


def _saved(path=FITTED):
    f = read_fitted(path)
    return f["scenario_params"], f["calibration"]["stderr_fit"], f["calibration"]["bounds"]


def test_draws_have_the_saved_means_and_standard_deviations():
    values, se, bounds = _saved()
    inputs, opts = parse_uncertain({"from_calibration": str(FITTED)})
    assert [i.key for i in inputs] == [f"scenario_params.{k}" for k in se]
    assert opts["correlation"] is None and opts["calibration_scenario"] == "ficon-channel"
    x = draw(inputs, N, "lhs", 7, opts["correlation"])
    for j, k in enumerate(se):
        lo, hi = bounds[k]
        assert (x[:, j] >= lo).all() and (x[:, j] <= hi).all()
        if stats.norm.cdf((lo - values[k]) / se[k]) > 1e-3:    # mp_wake_us: 5.6 % of draws clipped at 0.88
            clipped = np.mean(x[:, j] == lo)
            assert clipped == pytest.approx(stats.norm.cdf((lo - values[k]) / se[k]), abs=0.01)
            continue
        assert abs(x[:, j].mean() - values[k]) < 3 * se[k] / math.sqrt(N)
        assert x[:, j].std(ddof=1) == pytest.approx(se[k], rel=0.05)
    r = np.corrcoef(x, rowvar=False)
    assert np.abs(r - np.eye(len(se))).max() < 0.1            # independent: the file saves no correlation


def test_a_saved_correlation_is_drawn(tmp_path):
    values, se, _ = _saved()
    corr = np.eye(len(se))
    corr[0, 1] = corr[1, 0] = -0.74                 # mp_us_per_io, mp_scv (the fit's comment table)
    corr[0, 4] = corr[4, 0] = -0.5
    text = FITTED.read_text().replace("#: [calibration.start]",
                                      "#: correlation = " + str(corr.tolist()) + "\n#: [calibration.start]")
    p = tmp_path / "fitted_corr.toml"
    p.write_text(text)
    inputs, opts = parse_uncertain({"from_calibration": str(p)})
    assert np.allclose(opts["correlation"], corr)
    x = draw(inputs, N, "lhs", 7, opts["correlation"])
    r = np.corrcoef(x[:, :4], rowvar=False)
    assert r[0, 1] == pytest.approx(-0.74, abs=0.04)
    assert abs(r[0, 2]) < 0.06
    for j, k in enumerate(list(se)[:4]):
        assert abs(x[:, j].mean() - values[k]) < 4 * se[k] / math.sqrt(N)
        assert x[:, j].std(ddof=1) == pytest.approx(se[k], rel=0.05)


SPEC = {"title": "ficon-channel with its calibration's uncertainty", "scenario": "ficon-channel",
        "run": {"replications": 2, "ios": 2000, "seed": 1},
        "uncertain": {"samples": 4, "from_calibration": str(FITTED)}}


def test_drawn_values_reach_the_scenario_and_run():
    values, se, _ = _saved()
    inputs, _ = parse_uncertain(SPEC["uncertain"])
    raw = {k: v for k, v in SPEC.items() if k != "uncertain"}
    sm = SetModels(raw, inputs)
    row = np.array([values[k] + se[k] for k in se])
    assert sm.model(0, row).to_dict() == build_scenario("ficon-channel", dict(zip(se, row.tolist()))).to_dict()
    assert sm.model(0, row).to_dict() != sm.model(0).to_dict()
    ds = run_uncertain(SPEC)
    assert "independent normal inputs" in ds.attrs["from_calibration"]
    assert list(ds["input"].values) == [f"scenario_params.{k}" for k in se]
    assert np.isfinite(ds["response_ms_input_lo"]).all()


def test_a_calibration_of_another_scenario_is_refused(tmp_path):
    p = tmp_path / "mm1.toml"
    p.write_text(f'scenario = "mm1-demo"\n[uncertain]\nfrom_calibration = "{FITTED}"\n')
    r = CliRunner().invoke(main, ["uncertain", str(p)])
    assert r.exit_code == 2 and "ficon-channel" in r.output and r.output.count("\n") == 1, r.output
    with pytest.raises(McioError, match="no such file"):
        parse_uncertain({"from_calibration": "nowhere.toml"})
