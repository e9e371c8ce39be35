"""``from_calibration`` in ``[uncertain]``: a calibration result's fitted values, standard errors and
correlation become jointly normal inputs on the scenario parameters. Parameter sets drawn from the
shipped file (ficon_channel_fitted.toml, which saves its correlation) have the saved means,
standard deviations and correlations (within sampling error), every draw within the fit's bounds;
a file without a correlation gives independent draws; the drawn values reach the scenario's model;
a spec of another scenario is refused."""
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


def _corr_saved(path=FITTED):
    return np.array(read_fitted(path)["calibration"]["correlation"])


def test_draws_have_the_saved_means_standard_deviations_and_correlation():
    values, se, bounds = _saved()
    saved = _corr_saved()
    inputs, opts = parse_uncertain({"from_calibration": str(FITTED)})
    assert [i.key for i in inputs] == [f"scenario_params.{k}" for k in se]
    assert np.allclose(opts["correlation"], saved) and opts["calibration_scenario"] == "ficon-channel"
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
    r = np.corrcoef(x[:, :4], rowvar=False)                   # (the unclipped parameters)
    assert np.abs(r - saved[:4, :4]).max() < 0.05, (r, saved)


def test_a_file_without_a_correlation_gives_independent_draws(tmp_path):
    values, se, _ = _saved()
    text = "\n".join(ln for ln in FITTED.read_text().splitlines()
                      if not ln.startswith(("#: correlation", "#: [calibration.covariance]", "#: names", "#: matrix")))
    p = tmp_path / "fitted_nocorr.toml"
    p.write_text(text + "\n")
    inputs, opts = parse_uncertain({"from_calibration": str(p)})
    assert opts["correlation"] is None
    x = draw(inputs, N, "lhs", 7, opts["correlation"])
    r = np.corrcoef(x, rowvar=False)
    assert np.abs(r - np.eye(len(se))).max() < 0.1
    for j, k in enumerate(list(se)[:4]):
        assert abs(x[:, j].mean() - values[k]) < 4 * se[k] / math.sqrt(N)
        assert x[:, j].std(ddof=1) == pytest.approx(se[k], rel=0.05)


def test_the_saved_covariance_gives_the_saved_correlation(tmp_path):
    """A file with only the covariance table (as mcio calibrate writes it beside the values) gives
    the correlation the file also states (to its printed rounding)."""
    with_corr = parse_uncertain({"from_calibration": str(FITTED)})[1]["correlation"]
    text = "\n".join(ln for ln in FITTED.read_text().splitlines() if not ln.startswith("#: correlation"))
    p = tmp_path / "fitted_cov.toml"
    p.write_text(text + "\n")
    from_cov = parse_uncertain({"from_calibration": str(p)})[1]["correlation"]
    assert from_cov is not None and np.abs(from_cov - with_corr).max() < 0.01


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
    assert "normal inputs jointly correlated as the calibration saved" in ds.attrs["from_calibration"]
    assert list(ds["input"].values) == [f"scenario_params.{k}" for k in se]
    assert np.isfinite(ds["response_ms_input_lo"]).all()


def test_a_calibration_of_another_scenario_is_refused(tmp_path):
    p = tmp_path / "mm1.toml"
    p.write_text(f'scenario = "mm1-demo"\n[uncertain]\nfrom_calibration = "{FITTED}"\n')
    r = CliRunner().invoke(main, ["uncertain", str(p)])
    assert r.exit_code == 2 and "ficon-channel" in r.output and r.output.count("\n") == 1, r.output
    with pytest.raises(McioError, match="no such file"):
        parse_uncertain({"from_calibration": "nowhere.toml"})
