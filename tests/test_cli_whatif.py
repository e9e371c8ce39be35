"""The analyst-facing CLI: compare on common random numbers, the spec schema, validate that
refuses a static overload and shows the resolved model, diagnostics on screen, plot options,
and one-line usage errors."""
import json

import numpy as np
import pytest
from click.testing import CliRunner

from mcio.cli import main
from mcio.cli.whatif import diagnostics
from sweep_specs import ROOT


def _run(*args):
    return CliRunner().invoke(main, list(args))


def test_compare_two_scenario_variants_prints_paired_ci(tmp_path):
    out = tmp_path / "cmp.h5"
    r = _run("compare", "mm1-demo:rho50", "mm1-demo:rho90", "--ios", "5000", "--replications", "4", "-o", str(out))
    assert r.exit_code == 0, r.output
    assert "paired 95% CI" in r.output and "response_ms" in r.output
    from mcio.store import open_results
    ds = open_results(out)
    assert float(ds["diff"].sel(figure="response_ms")) > 0
    assert float(ds.diff_ci95.sel(figure="response_ms")) < float(ds.diff_ci95_unpaired.sel(figure="response_ms"))


def test_schema_is_json_and_markdown_lists_defaults():
    r = _run("schema")
    assert r.exit_code == 0
    assert json.loads(r.output)["title"] == "mcio sweep spec"
    r = _run("schema", "--markdown")
    assert "| `backend_servers` | `1` |" in r.output


def test_validate_refuses_a_static_overload_naming_station_and_allowed_rate(tmp_path):
    spec = tmp_path / "over.toml"
    spec.write_text('scenario = "mm1-demo"\n[sweep]\n"workload.rate_iops" = [500, 1500]\n')
    r = _run("validate", str(spec))
    assert r.exit_code == 2
    line = r.output.strip().splitlines()[-1]
    assert line.startswith("mcio: error: point 1") and "utilisation >= 1" in line and "rate_iops < 1000" in line


def test_validate_show_prints_every_default_and_notes(tmp_path):
    spec = tmp_path / "m.toml"
    spec.write_text('[[io]]\nshare = 0.5\n[[io]]\nshare = 0.3\n')
    r = _run("validate", str(spec), "--show")
    assert r.exit_code == 0, r.output
    assert "note: io shares sum to 0.8" in r.output
    assert "backend_servers = 1" in r.output and "max_open_exchanges = 64" in r.output


def test_plot_band_options(tmp_path):
    from mcio.sweep import sweep
    from sweep_specs import FICON_GRID
    out = tmp_path / "g.h5"
    sweep(FICON_GRID, out=str(out))
    for bad in ("2", "-1", "nan", "x"):
        r = _run("plot", str(out), "--band", bad)
        assert r.exit_code == 2 and "band" in r.output, (bad, r.output)
    assert _run("plot", str(out), "--band", "none", "-o", str(tmp_path / "a.png")).exit_code == 0
    assert _run("plot", str(out), "--no-bands", "-o", str(tmp_path / "b.png")).exit_code == 0
    r = _run("plot", str(out), "--components-by", "population", "-o", str(tmp_path / "c.png"))
    assert r.exit_code == 0, r.output and (tmp_path / "c.png").stat().st_size > 10_000


def test_usage_errors_are_one_line():
    r = _run("plot", "--bogus")
    assert r.exit_code == 2
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("mcio: error:") and "--help" in lines[0]


def test_diagnostics_name_unstable_and_short_warmup_points():
    import xarray as xr
    ds = xr.Dataset({"unstable": (("rate",), np.array([0, 1], np.int8)),
                     "unstable_reason": (("rate",), np.array(["", "back end utilisation 1.2 >= 1"])),
                     "warmup_adequate": (("rate",), np.array([0, 1], np.int8))},
                    coords={"rate": [500, 1500]})
    lines = diagnostics(ds)
    assert any("rate=1500 is unstable" in ln and "back end" in ln for ln in lines)
    assert any("warm-up shorter" in ln and "rate=500" in ln for ln in lines)


def test_cli_start_up_imports_no_engine():
    # `mcio --help`, `--version` and completion must not pay for NumPy/Numba/xarray/SciPy
    import subprocess
    import sys
    code = ("import sys, mcio.cli; heavy = [m for m in ('numpy', 'numba', 'xarray', 'scipy', 'matplotlib') "
            "if m in sys.modules]; print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "", f"imported at start-up: {out}"


def test_info_lists_every_group_of_a_grouped_file(tmp_path):
    import xarray as xr
    from mcio.store import write_groups
    out = tmp_path / "g.h5"
    a = xr.Dataset({"x_ms": (("i",), np.arange(3.0), {"units": "ms", "long_name": "x"})}, attrs={"title": "A"})
    b = xr.Dataset({"y_iops": (("j",), np.arange(2.0), {"units": "s-1", "long_name": "y"})}, attrs={"title": "B"})
    write_groups({"straight": a, "striped": b}, out)
    r = _run("info", str(out))
    assert r.exit_code == 0, r.output
    assert "2 group(s): straight, striped" in r.output and "x_ms" in r.output and "y_iops" in r.output


def test_scenarios_name_shows_parameters_with_provenance():
    r = _run("scenarios", "mm1-demo")
    assert r.exit_code == 0
    assert "rate_iops" in r.output and "provenance" in r.output and "variants: rho50, rho90" in r.output
    assert _run("scenarios", "nope").exit_code == 2


def test_a_misspelt_local_dask_address_fails_at_once():
    from mcio import McioError
    from mcio.batch.cluster import parse_address
    with pytest.raises(McioError, match="did you mean 'local'"):
        parse_address("lokal:2")
    with pytest.raises(McioError, match="does not resolve"):
        parse_address("no-such-host.invalid:8786")
