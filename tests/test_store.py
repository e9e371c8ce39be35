"""HDF5 results: a sweep's file reopens to the identical Dataset, netCDF tools read it, an
interrupted sweep resumes without recomputing finished points, and no partial file ever sits under
the final name."""
import importlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import h5py
import numpy as np
import pytest
import xarray as xr
from click.testing import CliRunner

from mcio.cli import main
from mcio.errors import McioError
from mcio.store import open_results, parts_dir, stored_points
from mcio.store import tmp_path as final_tmp
from mcio.sweep import load_spec, sweep
from sweep_specs import FICON_GRID, MM1_RATES, cli_env, write

points_mod = importlib.import_module("mcio.batch.points")  # where the engine call _simulate lives (tests substitute it)

HERE = Path(__file__).parent
TIME_ATTRS = ("date_created", "history")


@pytest.fixture(scope="module")
def grid_file(tmp_path_factory):
    d = tmp_path_factory.mktemp("grid")
    spec = write(d, FICON_GRID)
    out = d / "grid.h5"
    ds = sweep(spec, out=out)
    return spec, out, ds


def test_roundtrip_identical_values_and_attributes(grid_file):
    spec, out, ds = grid_file
    back = open_results(out)
    xr.testing.assert_identical(ds, back)
    for name in list(ds.variables):
        assert ds[name].dtype == back[name].dtype, name
    a = back.attrs
    assert a["Conventions"] == "CF-1.8" and a["title"] == "test grid"
    for k in ("mcio_version", "numba_version", "numpy_version", "date_created", "model_toml", "warmup_ios"):
        assert a[k] != "", k
    assert a["seed"] == 11 and a["replications"] == 2 and a["ios"] == 3000
    assert a["spec_toml"] == spec.read_text()
    assert load_spec(spec).same_as(a["spec_toml"])
    for name, v in back.data_vars.items():
        assert v.attrs.get("units") and v.attrs.get("long_name"), name
    assert not parts_dir(out).exists() and not final_tmp(out).exists()


def test_hdf5_is_netcdf4_with_small_variables_contiguous(grid_file):
    """A small sweep's variables (< store.SMALL_BYTES) are contiguous and uncompressed (the large
    ones' gzip chunks: tests/test_reliability_validate.py)."""
    _, out, _ = grid_file
    with h5py.File(out, "r") as f:
        assert f["response_ms"].compression is None and f["response_ms"].chunks is None
        assert f["response_ms"].attrs["units"] in ("ms", b"ms")
    netCDF4 = pytest.importorskip("netCDF4")
    with netCDF4.Dataset(out) as nc:
        assert nc.data_model == "NETCDF4"
        assert nc["channel_busy"].dimensions == ("population", "count", "replication", "channel")
        assert nc["pend_ms"].units == "ms"


@pytest.mark.skipif(shutil.which("ncdump") is None, reason="ncdump (netcdf-bin) not installed")
def test_ncdump_lists_variables_with_units(grid_file):
    _, out, ds = grid_file
    text = subprocess.run(["ncdump", "-h", str(out)], capture_output=True, text=True, check=True).stdout
    for name in ("response_ms", "throughput_iops", "channel_busy", "response_quantile_ms", "unstable"):
        assert f"{name}(" in text
        assert f'{name}:units = "{ds[name].attrs["units"]}"' in text
    assert ':Conventions = "CF-1.8"' in text


@pytest.mark.skipif(shutil.which("h5dump") is None, reason="h5dump (hdf5-tools) not installed")
def test_h5dump_lists_variables_with_units(grid_file):
    _, out, _ = grid_file
    text = subprocess.run(["h5dump", "-H", str(out)], capture_output=True, text=True, check=True).stdout
    for name in ("response_ms", "pend_ms", "channel_busy"):
        block = text.split(f'DATASET "{name}"', 1)[1].split("DATASET", 1)[0]
        assert 'ATTRIBUTE "units"' in block and 'ATTRIBUTE "long_name"' in block


# ---- interruption and resume ----------------------------------------------------------------

KILL_SPEC = FICON_GRID.replace('"workload.population" = [2, 8, 32]\n"channels.count" = [1, 2]',
                               '"workload.population" = [4, 8, 12, 16, 20, 24, 28, 32]') \
                      .replace("ios = 3000", "ios = 20000")
BLOCK_AT = 3   # the child sweep stores points 0-2, then stops inside point 3 until killed


def _parts(out):
    """The points stored so far (the checkpoint is one append-only log, not a file per point)."""
    return sorted(stored_points(out))


def _log(out):
    log = parts_dir(out) / "points.log"
    return log.read_bytes() if log.exists() else b""


def test_sigkill_then_resume_recomputes_nothing_and_matches_uninterrupted(tmp_path, monkeypatch):
    spec = write(tmp_path, KILL_SPEC)
    total = load_spec(spec).n_points
    out = tmp_path / "killed.h5"
    err = tmp_path / "child.err"
    with open(err, "w") as errf:
        proc = subprocess.Popen([sys.executable, str(HERE / "sweep_kill_child.py"), str(BLOCK_AT),
                                 "sweep", str(spec), "-o", str(out), "--quiet"],
                                env=cli_env(), stdout=subprocess.DEVNULL, stderr=errf)
        deadline = time.monotonic() + 300
        try:
            while "blocked at point" not in err.read_text() and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.02)
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
    assert proc.returncode == -signal.SIGKILL, err.read_text()
    finished = set(_parts(out))
    assert finished == set(range(BLOCK_AT)), err.read_text()
    assert not out.exists() and not final_tmp(out).exists()   # never a partial file under the final name
    stamps = _log(out)  # the records of the finished points: never rewritten by the resume

    # without --resume the leftovers are not silently thrown away
    r = CliRunner().invoke(main, ["sweep", str(spec), "-o", str(out), "-q"])
    assert r.exit_code == 2 and "--resume" in r.stderr

    computed = []
    real = points_mod._simulate

    def spy(model, **kw):
        computed.append(kw["point"])
        # every part finished before the kill is still the same file
        assert _log(out)[:len(stamps)] == stamps
        assert not out.exists()
        return real(model, **kw)

    monkeypatch.setattr(points_mod, "_simulate", spy)
    r = CliRunner().invoke(main, ["sweep", str(spec), "-o", str(out), "--resume", "-q"])
    assert r.exit_code == 0, r.output + r.stderr
    assert sorted(computed) == sorted(set(range(total)) - finished)
    assert out.exists() and not parts_dir(out).exists() and not final_tmp(out).exists()
    monkeypatch.setattr(points_mod, "_simulate", real)

    ref = tmp_path / "uninterrupted.h5"
    sweep(spec, out=ref)
    a, b = open_results(out), open_results(ref)
    for k in TIME_ATTRS:
        a.attrs.pop(k), b.attrs.pop(k)
    xr.testing.assert_identical(a, b)
    assert np.isfinite(a["response_ms"]).all()


def test_resume_refuses_a_different_spec(tmp_path, monkeypatch):
    spec = write(tmp_path, FICON_GRID)
    out = tmp_path / "r.h5"
    calls = []
    real = points_mod._simulate

    def stop_after_two(model, **kw):
        if len(calls) == 2:
            raise KeyboardInterrupt
        calls.append(kw["point"])
        return real(model, **kw)

    monkeypatch.setattr(points_mod, "_simulate", stop_after_two)
    with pytest.raises(KeyboardInterrupt):
        sweep(spec, out=out)
    monkeypatch.setattr(points_mod, "_simulate", real)
    assert len(_parts(out)) == 2 and not out.exists()
    other = write(tmp_path, FICON_GRID.replace("seed = 11", "seed = 12"), "other.toml")
    with pytest.raises(McioError, match="different spec"):
        sweep(other, out=out, resume=True)
    # comments and layout do not make a spec different
    same = write(tmp_path, "# a comment\n" + FICON_GRID, "same.toml")
    ds = sweep(same, out=out, resume=True)
    assert ds.sizes["population"] == 3 and out.exists()


def test_a_parts_dir_without_finished_points_is_reused(tmp_path):
    """Killed before the first point finished: nothing to protect, so no --resume needed."""
    out = tmp_path / "early.h5"
    parts_dir(out).mkdir()
    (parts_dir(out) / "p000000.nc.123.tmp").write_bytes(b"half a file")
    ds = sweep(MM1_RATES.replace("ios = 40000", "ios = 2000"), out=out)
    assert out.exists() and not parts_dir(out).exists() and ds.sizes["rate_iops"] == 3


def test_resume_of_a_finished_file_returns_it(grid_file, monkeypatch):
    spec, out, ds = grid_file
    monkeypatch.setattr(points_mod, "_simulate", lambda *a, **k: pytest.fail("recomputed"))
    xr.testing.assert_identical(sweep(spec, out=out, resume=True), ds)
    with pytest.raises(McioError, match="different spec"):
        sweep(FICON_GRID.replace("seed = 11", "seed = 1"), out=out, resume=True)


def test_unwritable_output_fails_before_any_simulation(tmp_path, monkeypatch):
    monkeypatch.setattr(points_mod, "_simulate", lambda *a, **k: pytest.fail("simulated"))
    with pytest.raises(McioError, match="does not exist"):
        sweep(FICON_GRID, out=tmp_path / "no" / "such" / "dir.h5")
    (tmp_path / "afile").write_text("")
    with pytest.raises(McioError, match="not a directory"):
        sweep(FICON_GRID, out=tmp_path / "afile" / "x.h5")


def test_open_results_errors(tmp_path):
    with pytest.raises(McioError, match="does not exist"):
        open_results(tmp_path / "missing.h5")
    junk = tmp_path / "junk.h5"
    junk.write_bytes(os.urandom(256))
    with pytest.raises(McioError, match="not a readable HDF5"):
        open_results(junk)
    with pytest.raises(McioError, match="directory"):
        open_results(tmp_path)
