"""The generalised calibration (mcio.calibrate): any model (a configuration spec, a base model) in
place of a scenario, fitted by dotted model fields with known values recovered; fewer rows than
parameters handled by holding the least identified ones (stated); the covariance of the fitted
values saved beside them in the result file, which for a model is the runnable model spec."""
import numpy as np
import pytest

from mcio import McioError, Model
from mcio.calibrate import calibrate, evaluate, parse_rows
from mcio.scenarios.fitted import read_fitted

TRUE_MP, TRUE_HA = 60.0, 400.0
BUDGET = {"ios": 20_000, "replications": 2}
MP = "topology.channel.0.mp_us_per_io_ccw"
HA = "topology.control_unit.0.ha_service_us"


BE = "topology.control_unit.0.backend_service_ms"


def config(mp_us: float = TRUE_MP, ha_us: float = TRUE_HA, miss: float = 0.1) -> Model:
    """Two channels, one control unit with one LCU of 32 devices, one open workload."""
    return Model.from_dict({
        "channels": {"mp_start_fraction": 0.5},
        "devices": {"aliases": 3},
        "topology": {
            "channel": [{"name": "ch", "chpids": ["40", "41"], "generation": "8", "mp_us_per_io_ccw": mp_us}],
            "control_unit": [{"name": "CU", "ha_servers": 8, "ha_service_us": {"dist": "exponential", "mean": ha_us},
                              "backend_servers": 8, "backend_service_ms": {"dist": "exponential", "mean": 1.0},
                              "lcu": [{"name": "0010", "devices": 32, "channels": ["ch"]}]}],
            "workload": [{"name": "W", "rate_iops": 4000.0, "io": [{"kb": 4.0, "miss_ratio": miss}]}]},
    })


@pytest.fixture(scope="module")
def rows():
    """Two intervals 'measured' on the configuration at the true values (seed 77)."""
    loads = [{"iops": 3000.0}, {"iops": 6000.0}]
    r = parse_rows([{**ld, "channel_busy": 0.5, "response_ms": 1.0} for ld in loads])
    sims = evaluate(config(), r, {}, seed=77, **BUDGET)
    return [{**ld, "channel_busy": s["channel_busy"], "response_ms": s["response_ms"], "cmr_ms": s["cmr_ms"],
             "pend_ms": s["pend_ms"]} for ld, s in zip(loads, sims)]


def test_a_configuration_calibrated_by_dotted_fields(rows, tmp_path):
    res = calibrate(config(45.0, 600.0), rows, [MP, HA], bounds={MP: (20.0, 200.0), HA: (100.0, 2000.0)},
                    seed=1, max_nfev=24, **BUDGET)
    for k, truth in ((MP, TRUE_MP), (HA, TRUE_HA)):
        se = res.stderr_fit[k]
        assert 0 < se < 0.1 * truth
        assert abs(res.params[k] - truth) < 4 * se, (k, res.params[k], se)
    cov = np.array(res.covariance)
    assert cov.shape == (2, 2) and np.allclose(np.sqrt(np.diag(cov)), [res.stderr_fit[MP], res.stderr_fit[HA]], rtol=1e-6)
    # the result file: the model at its fitted values (runnable), the covariance beside the values
    p = tmp_path / "fitted.toml"
    p.write_text(res.to_toml("test", "rows"))
    m = Model.from_toml(p)
    assert m.get(MP) == pytest.approx(res.params[MP], rel=1e-4)
    assert m.get(HA)["mean"] == pytest.approx(res.params[HA], rel=1e-4)
    cal = read_fitted(p)["calibration"]
    assert cal["covariance"]["names"] == [MP, HA]
    assert np.allclose(cal["covariance"]["matrix"], cov, rtol=1e-4)


def test_fewer_rows_than_parameters(rows, tmp_path):
    with pytest.raises(McioError, match="needs at least 2 measured rows; the table has 1"):
        calibrate(config(45.0), rows[1:], [MP, HA], seed=1, max_nfev=8, **BUDGET)
    # one interval of a configuration whose reads all hit the cache: the back end's service has no
    # effect on what was measured, so it is the one held (named first, to show order is not the rule)
    r = parse_rows([{"iops": 6000.0, "channel_busy": 0.5, "response_ms": 1.0}])
    s = evaluate(config(miss=0.0), r, {}, seed=77, **BUDGET)[0]
    one = [{"iops": 6000.0, "channel_busy": s["channel_busy"], "response_ms": s["response_ms"]}]
    res = calibrate(config(45.0, miss=0.0), one, [BE, MP], bounds={MP: (20.0, 200.0)}, seed=1, max_nfev=12,
                    fix_excess=True, **BUDGET)
    assert list(res.params) == [MP] and res.unidentified == [BE]
    assert res.fixed[BE] == pytest.approx(1.0)                       # at its start value
    assert abs(res.params[MP] - TRUE_MP) < 4 * res.stderr_fit[MP]
    assert "held at their start values" in res.to_text() and BE in res.to_text()
    p = tmp_path / "f.toml"
    p.write_text(res.to_toml("test", "rows"))
    assert read_fitted(p)["calibration"]["covariance"]["unidentified"] == [BE]


def test_cli_fix_excess(rows, tmp_path):
    """``mcio calibrate --fix-excess`` on a spec file with one measured row for two fields: the
    back end held (named), the MP work fitted; the command written into the result names the flag;
    without the flag the same call is refused (exit 2) naming --fix-excess."""
    import json
    from click.testing import CliRunner
    from mcio.cli import main
    from mcio.cli.calibrate import command_line
    spec = tmp_path / "cfg.toml"
    d = config(45.0, miss=0.0).to_dict()
    spec.write_text("\n".join(_toml(d)))
    r = parse_rows([{"iops": 6000.0, "channel_busy": 0.5, "response_ms": 1.0}])
    s = evaluate(config(miss=0.0), r, {}, seed=77, **BUDGET)[0]
    meas = tmp_path / "one.csv"
    meas.write_text(f"iops,channel_busy,response_ms\n6000,{s['channel_busy']!r},{s['response_ms']!r}\n")
    args = ["calibrate", "--scenario", str(spec), "--measured", str(meas), "--params", f"{BE},{MP}",
            "--ios", "20000", "--replications", "2", "--max-evals", "12", "--noise-seeds", "0", "-q"]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 2 and "--fix-excess" in r.output, r.output
    out = tmp_path / "fit.toml"
    r = CliRunner().invoke(main, args + ["--fix-excess", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert BE in r.output and "held" in r.output
    cal = read_fitted(out)["calibration"]
    assert cal["covariance"]["unidentified"] == [BE] and cal["covariance"]["names"] == [MP]
    assert "--fix-excess" in out.read_text()
    assert "--fix-excess" in command_line("s", "m", None, [], None, True, seed=1, ios=1, replications=2,
                                          noise_seeds=0, max_evals=1)
    json.dumps(cal["covariance"])


def _toml(d, prefix=""):
    """A model dict as TOML lines (tables, arrays of tables, inline tables for dicts in lists)."""
    from mcio.basemodel.spec import _v
    out, subs = [], []
    for k, v in d.items():
        if isinstance(v, dict) and not ("dist" in v):
            subs.append((k, v))
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            subs.append((k, v))
        else:
            out.append(f"{k} = {_v(v)}")
    for k, v in subs:
        name = f"{prefix}{k}"
        if isinstance(v, dict):
            out += ["", f"[{name}]", *_toml(v, name + ".")]
        else:
            for x in v:
                out += ["", f"[[{name}]]", *_toml(x, name + ".")]
    return out
