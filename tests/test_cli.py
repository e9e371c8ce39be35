"""The ``mcio`` command: each bad input ends as one line on stderr naming the problem, no
traceback, exit code 2; the good paths produce what they promise."""
import importlib
import subprocess

import pytest
from click.testing import CliRunner

from mcio.cli import main
from mcio.store import open_results
from sweep_specs import CLI, FICON_GRID, MM1_RATES, cli_env, write

points_mod = importlib.import_module("mcio.batch.points")  # where the engine call _simulate lives (tests substitute it)


def invoke(*args, cwd=None):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def assert_one_line_error(r, *words):
    assert r.exit_code == 2, (r.exit_code, r.output, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("mcio: error: ")
    assert "Traceback" not in r.output + r.stderr
    for w in words:
        assert w in lines[0], (w, lines[0])


# ---- error paths ------------------------------------------------------------------------------


@pytest.mark.parametrize("cmd", ["sweep", "run", "validate"])
def test_missing_spec_file(tmp_path, cmd):
    assert_one_line_error(invoke(cmd, tmp_path / "nope.toml"), "nope.toml", "does not exist")


def test_bad_toml(tmp_path):
    spec = write(tmp_path, "[run\nios = 3\n")
    assert_one_line_error(invoke("sweep", spec, "-o", tmp_path / "o.h5"), "spec.toml", "not valid TOML")


def test_unknown_key(tmp_path):
    spec = write(tmp_path, FICON_GRID.replace("aliases = 3", "alias = 3"))
    assert_one_line_error(invoke("validate", spec), "model.devices.alias", "unknown key", "aliases")


def test_unknown_sweep_key(tmp_path):
    spec = write(tmp_path, FICON_GRID.replace('"channels.count"', '"channels.cuont"'))
    assert_one_line_error(invoke("sweep", spec, "-o", tmp_path / "o.h5"), "channels.cuont", "unknown key")


def test_unknown_scenario(tmp_path):
    spec = write(tmp_path, 'scenario = "no-such-system"\n')
    assert_one_line_error(invoke("run", spec), "no-such-system", "unknown scenario", "mm1-demo")


def test_unwritable_output(tmp_path, monkeypatch):
    monkeypatch.setattr(points_mod, "_simulate", lambda *a, **k: pytest.fail("simulated before the check"))
    spec = write(tmp_path, FICON_GRID)
    assert_one_line_error(invoke("sweep", spec, "-o", tmp_path / "missing-dir" / "o.h5"), "missing-dir",
                          "cannot be written")


def test_unwritable_plot_output(tmp_path):
    junk = tmp_path / "r.h5"
    junk.write_text("")
    assert_one_line_error(invoke("plot", junk, "-o", tmp_path / "x" / "f.png"), "r.h5")


@pytest.mark.parametrize("cmd", ["info", "plot"])
def test_unreadable_hdf5(tmp_path, cmd):
    junk = tmp_path / "junk.h5"
    junk.write_text("not an HDF5 file\n")
    assert_one_line_error(invoke(cmd, junk), "junk.h5", "not a readable HDF5")


def test_missing_results_file(tmp_path):
    assert_one_line_error(invoke("info", tmp_path / "gone.h5"), "gone.h5", "does not exist")


def test_bad_threads(tmp_path):
    spec = write(tmp_path, FICON_GRID)
    assert_one_line_error(invoke("sweep", spec, "-o", tmp_path / "o.h5", "--threads", "0"), "--threads")


def test_error_in_a_real_process_exits_2_without_traceback(tmp_path):
    """The installed entry point path: one stderr line, exit code 2 (not click's usage block)."""
    spec = write(tmp_path, "[model.workload]\npopulation = -4\n")
    p = subprocess.run([*CLI, "validate", str(spec)], env=cli_env(), capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    lines = [ln for ln in p.stderr.splitlines() if "Warning" not in ln and "warnings.warn" not in ln]
    assert lines == ["mcio: error: model.workload.population = -4: must be an integer in [1, 1000000]"], p.stderr
    assert p.stdout == ""


# ---- good paths -------------------------------------------------------------------------------


def test_validate_and_scenarios(tmp_path):
    r = invoke("validate", write(tmp_path, FICON_GRID))
    assert r.exit_code == 0 and "ok: 6 point(s)" in r.output and "population" in r.output
    r = invoke("scenarios")
    assert r.exit_code == 0 and "mm1-demo" in r.output and "M/M/1" in r.output


def test_run_prints_an_rmf_like_report(tmp_path):
    r = invoke("run", write(tmp_path, MM1_RATES), "--point", 1, "--ios", 20000)
    assert r.exit_code == 0, r.stderr
    out = r.output
    for word in ("I/O rate", "resp", "IOSQ", "pend", "CMR", "disc", "conn", "CHPID", "busy %", "OE avg"):
        assert word in out, word
    assert "workload.rate_iops = 500.0" in out
    mean_line = next(ln for ln in out.splitlines() if ln.startswith("mean"))
    iops, resp = map(float, mean_line.split()[1:3])
    assert abs(iops - 500) < 25 and 1.5 < resp < 2.6   # M/M/1 at rho 0.5: 2 ms
    assert_one_line_error(invoke("run", write(tmp_path, MM1_RATES), "--point", 3), "point")


def test_sweep_info_plot(tmp_path):
    spec = write(tmp_path, FICON_GRID)
    out = tmp_path / "g.h5"
    r = invoke("sweep", spec, "-o", out, "--threads", 1)
    assert r.exit_code == 0, r.stderr
    assert open_results(out).sizes["population"] == 3
    r = invoke("info", out)
    assert r.exit_code == 0
    assert "response_ms" in r.output and "[ms]" in r.output and "(workload.population)" in r.output
    assert "Conventions" in r.output
    png = tmp_path / "g.png"
    r = invoke("plot", out, "-o", png)
    assert r.exit_code == 0 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_sweep_without_spec_runs_the_builtin_example(tmp_path, monkeypatch):
    """The README's main job: ``mcio sweep`` alone writes mcio-sweep.h5 from the shipped example
    (made cheap here: same spec, fewer I/Os)."""
    from pathlib import Path

    from mcio.cli import commands as cli
    from mcio.sweep import load_spec

    example = cli.builtin_example()
    repo_examples = sorted((Path(__file__).parent.parent / "examples").glob("*.toml"))
    assert example.name in [p.name for p in repo_examples]
    for p in repo_examples:  # the packaged copies are the repository's examples
        assert cli.builtin_example(p.name).read_text() == p.read_text(), p.name
    cheap = write(tmp_path, example.read_text().replace("ios = 40000", "ios = 2000"), "cheap.toml")
    monkeypatch.setattr(cli, "builtin_example", lambda name=None: cheap)
    monkeypatch.chdir(tmp_path)
    r = invoke("sweep", "-q")
    assert r.exit_code == 0, r.stderr
    ds = open_results(tmp_path / "mcio-sweep.h5")
    assert ds.sizes["population"] == load_spec(example).shape[0]
