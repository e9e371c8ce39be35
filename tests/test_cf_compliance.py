"""The files mcio writes are CF: the reference checker (cfchecker, with UDUNITS-2) reports no
errors and no warnings on a sweep file (with and without named variants) and a compare file.
Offline: empty standard-name, area-type and region tables (tests/cf_tables; mcio uses none),
since cfchecks otherwise downloads them."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TABLES = Path(__file__).parent / "cf_tables"


def _cfchecks(path) -> str:
    import ctypes.util
    exe = shutil.which("cfchecks")
    if exe is None:
        pytest.skip("cfchecks (pip install cfchecker, in the test extra) not installed")
    if ctypes.util.find_library("udunits2") is None:
        pytest.skip("libudunits2 (Debian libudunits2-0; .ci/run installs it) not installed")
    r = subprocess.run([exe, "-s", str(TABLES / "standard-names.xml"), "-a", str(TABLES / "area-types.xml"),
                        "-r", str(TABLES / "region-names.xml"), str(path)], capture_output=True, text=True,
                       timeout=300)
    return r.stdout + r.stderr


def _clean(text: str):
    assert "ERRORS detected: 0" in text and "WARNINGS given: 0" in text, text[-3000:]


def test_a_sweep_file_is_cf(tmp_path):
    from mcio.sweep import sweep
    from sweep_specs import ROOT
    t = (ROOT / "examples" / "mm1_grid.toml").read_text().replace("ios = 50000", "ios = 2000") \
        .replace("warmup = 5000", "warmup = 200").replace("replications = 4", "replications = 2")
    out = tmp_path / "grid.nc"
    sweep(t, out=str(out))
    _clean(_cfchecks(out))


def test_a_variant_sweep_and_a_compare_file_are_cf(tmp_path):
    from mcio.cli import main
    from mcio.store import open_results
    from mcio.sweep import sweep
    from click.testing import CliRunner
    spec = """scenario = "mm1-demo"
[variants.slow]
service_ms = 1.5
[variants.fast]
service_ms = 0.5
[sweep]
"workload.rate_iops" = [100, 300]
[run]
replications = 2
ios = 2000
"""
    out = tmp_path / "v.nc"
    sweep(spec, out=str(out))
    _clean(_cfchecks(out))
    assert list(open_results(out).variant.values) == ["slow", "fast"]     # labels restored as the index
    cmp = tmp_path / "c.nc"
    r = CliRunner().invoke(main, ["compare", "mm1-demo:rho50", "mm1-demo:rho90", "--ios", "2000",
                                  "--replications", "3", "-o", str(cmp)])
    assert r.exit_code == 0, r.output
    _clean(_cfchecks(cmp))
