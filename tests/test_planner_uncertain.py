"""Input uncertainty (``[uncertain]`` in a spec, ``mcio uncertain``): parameter sets drawn by Latin
hypercube on common random numbers; on M/M/1 with a uniform service mean the input band, mean
and spread of the response match the closed form's (R(S) = S / (1 - lambda S), monotone in S);
the sensitivity ranking names the input that matters; the table and the report show both bands."""
import math

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import integrate

from mcio.cli import main
from mcio.planner.table import sweep_table
from mcio.planner.uncertain import draw, parse_uncertain, run_uncertain

SPEC = """\
title = "M/M/1 with an uncertain service mean"
scenario = "mm1-demo"

[run]
replications = 4
ios = 30000
warmup = 3000
seed = 3

[uncertain]
samples = 48
"control_unit.backend_service_ms.mean" = {low = 1.0, high = 1.6}
"""


def resp(s_ms):            # M/M/1 at 500 SSCH/s
    return s_ms / (1 - 0.5 * s_ms)


@pytest.fixture(scope="module")
def mm1(tmp_path_factory):
    p = tmp_path_factory.mktemp("unc") / "u.toml"
    p.write_text(SPEC)
    return p, run_uncertain(p)


def test_input_band_matches_the_analytic_spread(mm1):
    _, ds = mm1
    means = ds["response_ms_samples"].mean("replication").values.ravel()
    mean = integrate.quad(lambda s: resp(s) / 0.6, 1.0, 1.6)[0]
    sd = math.sqrt(integrate.quad(lambda s: (resp(s) - mean) ** 2 / 0.6, 1.0, 1.6)[0])
    assert means.mean() == pytest.approx(mean, rel=0.04)           # 4.109 ms
    assert means.std(ddof=1) == pytest.approx(sd, rel=0.10)        # 1.639 ms
    lo, hi = float(ds["response_ms_input_lo"]), float(ds["response_ms_input_hi"])
    assert lo == pytest.approx(resp(1.0 + 0.025 * 0.6), rel=0.05)    # 2.061 ms
    assert hi == pytest.approx(resp(1.0 + 0.975 * 0.6), rel=0.06)    # 7.639 ms
    assert float(ds["response_ms_input_median"]) == pytest.approx(resp(1.3), rel=0.05)
    # the nominal run's simulation CI is far narrower than the input band
    assert float(ds["response_ms_ci95"]) < 0.05 * (hi - lo)
    assert float(ds["response_ms"].mean()) == pytest.approx(2.0, rel=0.04)


def test_table_shows_both_bands(mm1):
    _, ds = mm1
    heads = [c.header for c in sweep_table(ds, ["response_ms"]).columns]
    assert heads == ["resp ms", "±95%", "input 2.5%", "input 97.5%"]


def test_sensitivity_ranks_the_input_that_matters(tmp_path):
    p = tmp_path / "two.toml"
    p.write_text(SPEC.replace("samples = 48", "samples = 16").replace("ios = 30000", "ios = 5000")
                 + '"workload.rate_iops" = {dist = "normal", mean = 300.0, sd = 3.0}\n')
    r = CliRunner().invoke(main, ["uncertain", str(p), "-o", str(tmp_path / "u.h5")])
    assert r.exit_code == 0, r.output
    line = next(ln for ln in r.output.splitlines() if "sensitivity" in ln)
    assert line.index("backend_service_ms") < line.index("rate_iops")
    assert "input band" in r.output
    rep = CliRunner().invoke(main, ["report", str(tmp_path / "u.h5"), "-o", str(tmp_path / "u.html")])
    assert rep.exit_code == 0, rep.output
    text = (tmp_path / "u.html").read_text()
    assert 'id="sensitivity"' in text and "data:image/png;base64," in text and "https://" not in text


def test_draws_are_latin_hypercube_strata():
    inputs, opts = parse_uncertain({"samples": 10, "x.y.z": {"low": 0.0, "high": 10.0},
                                    "a.b": {"dist": "triangular", "low": 0, "mode": 1, "high": 4}})
    v = draw(inputs, 10, "lhs", 0)
    assert sorted(np.floor(v[:, 0]).astype(int)) == list(range(10))     # one per tenth
    assert ((v[:, 1] >= 0) & (v[:, 1] <= 4)).all()


@pytest.mark.parametrize("entry, field", [
    ('"x.y" = {low = 2.0, high = 1.0}', "uncertain.x.y"),
    ('"x.y" = {dist = "cauchy", low = 1.0, high = 2.0}', "uncertain.x.y.dist"),
    ('"x.y" = 3', "uncertain.x.y"),
    ('method = "grid"', "uncertain.method"),
])
def test_bad_uncertain_entries_one_line_exit_2(tmp_path, entry, field):
    p = tmp_path / "bad.toml"
    p.write_text(SPEC.split("[uncertain]")[0] + "[uncertain]\n" + entry + "\n")
    r = CliRunner().invoke(main, ["uncertain", str(p)])
    assert r.exit_code == 2 and r.output.count("\n") == 1 and field in r.output, r.output
