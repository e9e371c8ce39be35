"""The calibration's result file: the shipped ficon-channel values are the shipped command's output,
a cheap calibration writes the same file twice, the file round-trips and is a runnable spec, and
RMF's column names read as mcio's.

The full command (100,000 I/Os x 4 replications per row, about a minute on one core) is not run
here; what makes it reproduce the shipped file is checked cheaply: the fit starts from the
scenario's declared CALIBRATION_START, never from its current (fitted) values, and is a
deterministic function of its budget and seed.
"""
import pytest
from click.testing import CliRunner

from mcio import McioError
from mcio.calibrate import calibrate, load_measured, parse_rows
from mcio.cli import main
from mcio.scenarios import ficon_channel as fc
from mcio.scenarios.fitted import read_fitted, rounded
from mcio.sweep import load_spec

CSV = str(fc.FITTED_FILE.with_name("ficon_channel_measured.csv"))
CHEAP = ["--ios", "3000", "--replications", "2", "--noise-seeds", "1", "--max-evals", "6", "--seed", "3", "-q"]


def test_shipped_values_are_the_shipped_command_s_output():
    f = read_fitted(fc.FITTED_FILE)
    cal = f["calibration"]
    assert f["scenario"] == "ficon-channel"
    assert cal["command"].startswith("mcio calibrate --scenario ficon-channel --measured "
                                     "mcio/scenarios/ficon_channel_measured.csv")
    assert cal["command"].endswith("-o mcio/scenarios/ficon_channel_fitted.toml")
    for name in fc.CALIBRATION_PARAMS:
        assert fc.CALIBRATION["values"][name] == f["scenario_params"][name]
        assert fc.defaults()[name] == f["scenario_params"][name]          # the scenario runs them
        assert cal["start"][name] == fc.CALIBRATION_START[name]           # from the declared start
        assert 0 < cal["stderr_sim"][name] < cal["stderr_fit"][name]
    assert fc.CALIBRATION["budget"] == {k: cal["budget"][k] for k in ("ios", "replications", "seed")}


def test_the_fit_does_not_start_from_the_shipped_values(monkeypatch):
    rows = load_measured(CSV)
    kw = dict(ios=2000, replications=2, seed=5, max_nfev=1)
    a = calibrate("ficon-channel", rows, **kw)
    assert a.start == fc.CALIBRATION_START
    # other shipped values (as if the last fit had ended elsewhere) do not move the next fit
    moved = tuple(p if p.name != "mp_us_per_io" else type(p)(**{**p.__dict__, "value": 99.0}) for p in fc.PARAMS)
    monkeypatch.setattr(fc.SCENARIO, "params", moved)
    b = calibrate("ficon-channel", rows, **kw)
    assert b.start == a.start and b.params == a.params and b.loss == a.loss


@pytest.fixture(scope="module")
def cheap_file(tmp_path_factory):
    d = tmp_path_factory.mktemp("cal")
    outs = []
    for i in range(2):
        out = d / f"fitted{i}.toml"
        r = CliRunner().invoke(main, ["calibrate", "--scenario", "ficon-channel", "--measured", CSV, *CHEAP,
                                      "-o", str(out)])
        assert r.exit_code == 0, r.output
        outs.append(out)
    return outs


def test_a_cheap_calibration_writes_the_same_file_twice(cheap_file):
    a, b = (p.read_text() for p in cheap_file)
    body = lambda t: "\n".join(ln for ln in t.splitlines() if not ln.startswith(("# written by", "#: command")))
    assert body(a) == body(b)                      # only the -o path in the command line differs


def test_the_result_file_round_trips_and_is_a_runnable_spec(cheap_file):
    f = read_fitted(cheap_file[0])
    vals = f["scenario_params"]
    assert set(vals) == set(fc.CALIBRATION_PARAMS)
    assert all(v == rounded(v) for v in vals.values())
    assert "--ios 3000 --replications 2" in f["calibration"]["command"]
    for name, se in f["calibration"]["stderr_fit"].items():
        lo, hi = f["calibration"]["bounds"][name]
        assert se > 0 and lo <= vals[name] <= hi
    spec = load_spec(str(cheap_file[0]))             # the file itself is a one-point sweep spec ...
    assert spec.model.to_toml() == fc.SCENARIO.model("flat_out", **vals).to_toml()
    # ... and its [scenario_params] table drops into another spec of the scenario
    text = "scenario = \"ficon-channel\"\n[scenario_params]\n" + "".join(f"{k} = {v!r}\n" for k, v in vals.items()) \
        + "population = 26\n[run]\nios = 2000\nreplications = 2\n"
    other = load_spec(text)
    assert other.model.channels["mp_us_per_io_ccw"] == vals["mp_us_per_io"]
    assert other.model.workload["population"] == 26


def test_rmf_column_names_read_as_mcio_s(tmp_path):
    rmf = tmp_path / "rmf.csv"
    rmf.write_text("DEVICE ACTIVITY RATE,UTILIZATION(%) TOTAL,AVG RESP TIME,AVG IOSQ TIME,AVG PEND TIME,"
                   "AVG CMR DLY,AVG DISC TIME,AVG CONN TIME,FICON OPERATIONS ACTIVE\n"
                   "9000,72,2.88,0.0,1.9,1.0,0.7,0.3,24.1\n")
    ours = tmp_path / "ours.csv"
    ours.write_text("iops,channel_busy_pct,response_ms,iosq_ms,pend_ms,cmr_ms,disconnect_ms,connect_ms,"
                    "open_exchanges\n9000,72,2.88,0.0,1.9,1.0,0.7,0.3,24.1\n")
    a, b = load_measured(rmf), load_measured(ours)
    assert a[0].values == b[0].values and a[0].values["channel_busy"] == pytest.approx(0.72)
    assert a[0].values["iosq_ms"] == 0.0                              # IOSQ may be 0 (pend may not)
    # the seed's own headings (IOPS CHAN% AVGRSPMS) too, in any case and spacing
    c = parse_rows([{"IOPS": 1000, "chan%": "9", "AVGRSPMS": 1.796}])
    assert c[0].values == {"iops": 1000.0, "response_ms": 1.796, "channel_busy": pytest.approx(0.09)}
    with pytest.raises(McioError, match="second time"):
        parse_rows([{"iops": 1000, "DEVICE ACTIVITY RATE": 1000, "channel_busy": 0.1, "response_ms": 1.0}])
    with pytest.raises(McioError, match="RMF's"):
        parse_rows([{"iops": 1000, "AVG RESP TIM": 1.0, "channel_busy": 0.1, "response_ms": 1.0}])


def test_output_errors_are_one_line(tmp_path):
    r = CliRunner().invoke(main, ["calibrate", "--scenario", "ficon-channel", "--measured", CSV, *CHEAP,
                                  "-o", str(tmp_path / "no" / "such" / "dir.toml")])
    assert r.exit_code == 2 and "mcio: error:" in r.output and "does not exist" in r.output
    with pytest.raises(McioError, match="not an mcio calibration result"):
        p = tmp_path / "plain.toml"
        p.write_text("scenario = \"ficon-channel\"\n")
        read_fitted(p)
