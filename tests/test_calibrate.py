"""mcio.calibrate: recovering known parameters from synthetic data, determinism, bad input.

The synthetic problem is cheap on purpose: one channel whose MP work per I/O is identified by
channel busy, and a back end whose service time is identified by the response; the "measured"
rows are simulated at known values with another seed, so the fit must come back to those values
within its own reported uncertainty.
"""
import numpy as np
import pytest
from click.testing import CliRunner

from mcio import McioError, Model
from mcio.calibrate import calibrate, evaluate, load_measured, parse_rows, residual_names
from mcio.cli import calibrate_cmd
from mcio.scenarios.base import Param, Scenario

TRUE = {"mp_us": 120.0, "be_ms": 0.8}


def toy(mp_us: float = 100.0, be_ms: float = 1.0, servers: int = 8) -> Model:
    """One channel (deterministic MP work), 16 volumes with aliases, an M/M/c back end."""
    return Model.from_dict({
        "workload": {"type": "closed", "population": 8},
        "io": [{"kb": 4.0, "miss_ratio": 1.0}],
        "devices": {"count": 16, "aliases": 7},
        "channels": {"mp_us_per_io_ccw": mp_us, "max_open_exchanges": 64, "link_mb_s": 400.0},
        "control_unit": {"backend_servers": servers,
                         "backend_service_ms": {"dist": "exponential", "mean": be_ms}},
    })


class Toy(Scenario):
    """The toy on the Scenario contract: calibrate reads its defaults and bounds from the Params."""
    name = "toy"
    params = (Param("mp_us", 100.0, "us", "assumed", "MP work per I/O", (1.0, 1000.0)),
              Param("be_ms", 1.0, "ms", "assumed", "back-end service", (0.01, 50.0)),
              Param("servers", 8, "1", "assumed", "back-end servers", (1, 64)))
    calibration_params = ("mp_us", "be_ms")

    def build(self, p):
        return toy(**p)


TOY = Toy()
LOADS = [{"iops": 2000.0}, {"iops": 4000.0}, {"iops": 3000.0, "population": 6}]
BUDGET = {"ios": 20_000, "replications": 2}


@pytest.fixture(scope="module")
def synthetic():
    """Rows 'measured' on the toy at TRUE values (seed 99): iops, busy, response, disconnect."""
    load_rows = parse_rows([{**ld, "channel_busy": 0.5, "response_ms": 1.0} for ld in LOADS])
    sims = evaluate(TOY, load_rows, TRUE, seed=99, **BUDGET)
    return [{**ld, "iops": s["iops"] if "population" in ld else ld["iops"],
             "channel_busy": s["channel_busy"], "response_ms": s["response_ms"],
             "disconnect_ms": s["disconnect_ms"]} for ld, s in zip(LOADS, sims)]


def test_recovers_known_parameters_from_synthetic_data(synthetic):
    res = calibrate(TOY, synthetic, ["mp_us", "be_ms"], start={"mp_us": 90.0, "be_ms": 1.2},
                    bounds={"mp_us": (30.0, 300.0), "be_ms": (0.2, 4.0)}, seed=1, noise_seeds=2,
                    **BUDGET)
    for k, truth in TRUE.items():
        se = np.hypot(res.stderr_fit[k], res.stderr_sim[k])
        assert 0 < se < 0.1 * truth                        # the data identify the parameter
        assert abs(res.params[k] - truth) < 4 * se, (k, res.params[k], se)
    assert res.loss < 0.5 * len(residual_names(res.rows)) * 4   # residuals of order 1, not more
    assert "mp_us" in res.to_text() and "per row" in res.to_text()


def test_same_seed_same_answer(synthetic):
    rows = parse_rows(synthetic)
    a = evaluate(TOY, rows, {"mp_us": 110.0}, seed=5, **BUDGET)
    b = evaluate(TOY, rows, {"mp_us": 110.0}, seed=5, **BUDGET)
    c = evaluate(TOY, rows, {"mp_us": 110.0}, seed=6, **BUDGET)
    assert a == b
    assert a != c


def test_defaults_bounds_and_fitted_names_come_from_the_contract(synthetic):
    from mcio.calibrate import search_bounds, start_values
    x0 = start_values(TOY, ["mp_us", "be_ms"], None, None)
    assert x0 == {"mp_us": 100.0, "be_ms": 1.0}
    assert search_bounds(TOY, ["mp_us", "be_ms"], x0) == {"mp_us": (1.0, 1000.0), "be_ms": (0.01, 50.0)}
    # a dotted model field has no Param: start / 10 .. start x 10
    x1 = start_values(TOY, ["channels.link_mb_s"], None, None)
    assert search_bounds(TOY, ["channels.link_mb_s"], x1)["channels.link_mb_s"] == (40.0, 4000.0)
    with pytest.raises(McioError, match="unknown parameter of scenario 'toy'"):
        start_values(TOY, ["nope"], None, None)
    with pytest.raises(McioError, match="must be in"):   # a base override outside its Param's bounds
        evaluate(TOY, parse_rows(synthetic), base={"be_ms": -1.0}, **BUDGET)
    # no parameter names: the scenario's calibration_params are fitted (here only evaluated: 1 step)
    res = calibrate(TOY, synthetic, None, seed=1, max_nfev=1, **BUDGET)
    assert list(res.params) == ["mp_us", "be_ms"]


def test_think_time_solved_to_deliver_the_row_iops():
    rows = parse_rows([{"iops": 3000.0, "channel_busy": 0.3, "response_ms": 1.0,
                        "population": 12, "think_ms": "solve"}])
    s = evaluate(TOY, rows, seed=3, **BUDGET)[0]
    assert s["think_ms"] > 0
    assert s["iops"] == pytest.approx(3000.0, rel=0.01)


# ---- bad input: one clear McioError each ---------------------------------------------------


def _write(tmp_path, text, name="m.csv"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_missing_columns(tmp_path):
    p = _write(tmp_path, "iops,response_ms\n1000,1.8\n")
    with pytest.raises(McioError, match="missing column.*channel_busy"):
        load_measured(p)
    p = _write(tmp_path, "iops,channel_busy\n1000,0.09\n")
    with pytest.raises(McioError, match="missing column.*response_ms"):
        load_measured(p)


def test_non_numeric_values(tmp_path):
    p = _write(tmp_path, "iops,channel_busy,response_ms\n1000,0.09,fast\n")
    with pytest.raises(McioError, match=r"row 1 response_ms = 'fast': must be a number"):
        load_measured(p)
    with pytest.raises(McioError, match="must be a number"):
        parse_rows([{"iops": "1k", "channel_busy": 0.1, "response_ms": 1.0}])


def test_busy_over_100_percent(tmp_path):
    with pytest.raises(McioError, match="cannot exceed 100 %"):
        load_measured(_write(tmp_path, "iops,channel_busy,response_ms\n1000,104%,1.8\n"))
    with pytest.raises(McioError, match="cannot exceed 100 %"):
        load_measured(_write(tmp_path, "iops,channel_busy_pct,response_ms\n1000,101,1.8\n"))
    # a bare number over 1 in the fraction column is refused, not read as a percentage
    with pytest.raises(McioError, match="fraction in \\[0, 1\\]"):
        load_measured(_write(tmp_path, "iops,channel_busy,response_ms\n1000,9,1.8\n"))


def test_too_few_rows_for_the_parameters(synthetic):
    with pytest.raises(McioError, match="needs at least 3 measured rows; the table has 2"):
        calibrate(TOY, synthetic[:2], ["mp_us", "be_ms", "servers"], start={"servers": 8.0})


def test_unknown_column_and_integer_parameter(tmp_path, synthetic):
    with pytest.raises(McioError, match="unknown"):
        load_measured(_write(tmp_path, "iops,channel_busy,response_ms,resp\n1000,0.09,1.8,2\n"))
    with pytest.raises(McioError, match="integer parameter"):
        calibrate(TOY, synthetic, ["servers"])


def test_percent_forms_and_toml_are_read_alike(tmp_path):
    a = load_measured(_write(tmp_path, "# comment\niops,channel_busy,response_ms\n1000,9%,1.8\n"))
    b = load_measured(_write(tmp_path, "iops,channel_busy_pct,response_ms\n1000,9,1.8\n", "b.csv"))
    c = load_measured(_write(tmp_path, "iops = [1000]\nchannel_busy = [0.09]\nresponse_ms = [1.8]\n",
                             "c.toml"))
    d = load_measured(_write(tmp_path, "[[row]]\niops = 1000\nchannel_busy = 0.09\nresponse_ms = 1.8\n",
                             "d.toml"))
    for x in (b, c, d):
        assert x[0].values == pytest.approx(a[0].values)
    assert a[0].values["channel_busy"] == pytest.approx(0.09)


def test_cli_reports_bad_input_in_one_line(tmp_path):
    from mcio.cli import main
    assert main.commands.get("calibrate") is calibrate_cmd
    p = _write(tmp_path, "iops,channel_busy,response_ms\n1000,120%,1.8\n")
    r = CliRunner().invoke(main, ["calibrate", "--scenario", "ficon-channel", "--measured", str(p)])
    assert r.exit_code == 2
    assert "mcio: error:" in r.output and "100 %" in r.output and "Traceback" not in r.output


def test_the_whole_fit_is_deterministic_for_a_seed(synthetic):
    kw = dict(start={"mp_us": 90.0, "be_ms": 1.2}, seed=4, ios=5_000, replications=2, max_nfev=6)
    a = calibrate(TOY, synthetic, ["mp_us", "be_ms"], **kw)
    b = calibrate(TOY, synthetic, ["mp_us", "be_ms"], **kw)
    assert a.params == b.params and a.loss == b.loss and a.stderr_fit == b.stderr_fit
