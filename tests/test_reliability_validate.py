"""Everything run would refuse, load refuses first, as one McioError naming the field: run sizes
that do not fit the kernels' int64, one replication, seeds past 2**63-1, nesting, a repeated axis,
huge ranges; Python specs with numpy values, arrays, ranges and None. Big runs are estimated
before they start: refused beyond the machine's memory, announced beyond a few minutes. The final
file is chunked so a large sweep reads lazily in slices."""
import importlib
import warnings

import numpy as np
import pytest
import xarray as xr

from mcio import Model
from mcio.errors import McioError
from mcio.store import write_results
from mcio.sweep import McioWarning, estimate, load_spec, sweep

points_mod = importlib.import_module("mcio.batch.points")  # where the engine call _simulate lives (tests substitute it)
estimates_mod = importlib.import_module("mcio.batch.estimates")

BASE = 'scenario = "mm1-demo"\n[sweep]\n"workload.rate_iops" = [100.0, 200.0]\n'


@pytest.fixture
def models_built(monkeypatch):
    """Counts the point models built (Model.replace calls: a grid point is the base model with
    its axis fields replaced): [count]."""
    count = [0]
    real = Model.replace

    def counting(self, *args, **kwargs):
        count[0] += 1
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Model, "replace", counting)
    return count


@pytest.mark.parametrize("text, field", [
    ("[run]\nios = 9223372036854775807", "run.ios"),               # 2**63-1: overflowed at run time
    ("[run]\nios = 4611686018427387904", "run.ios"),               # 2**62 + auto warm-up
    ("[run]\nios = 1000\nwarmup = 9223372036854775807", "run.warmup"),
    ("[run]\nreplications = 1", "run.replications"),               # failed at run time
    ("[run]\nreplications = 100000", "run.replications"),          # 8 GB
    ("[run]\nseed = 9223372036854775808", "run.seed"),             # failed writing the HDF5 file
    ("[run]\nseed = -1", "run.seed"),
    ("[run]\nios = 1.5", "run.ios"),
    ("[run]\nios = true", "run.ios"),
    ('[sweep]\n"workload.rate_iops" = {start = 1, stop = 2, num = 1000000000}', "sweep.workload.rate_iops.num"),
    ('[sweep]\n"workload.rate_iops" = {start = 1, stop = 0, num = 3, log = true}', "sweep.workload.rate_iops.stop"),
    ('[sweep]\n"workload.rate_iops" = {start = 0, stop = 9, num = 3, log = true}', "sweep.workload.rate_iops.start"),
    ('[sweep]\n"workload.rate_iops" = [100.0]\nworkload.rate_iops = [200.0]', "sweep.workload.rate_iops"),
    ('[sweep]\n"workload.rate_iops" = [100.0, nan]', "sweep.workload.rate_iops[1]"),
    ('[sweep]\n"workload.rate_iops" = ' + "[" * 500 + "]" * 500, "spec"),
    ('[sweep]\n"workload.rate_iops" = {start = 1, stop = 9, num = 3000}\n'
     '"io.0.kb" = {start = 1, stop = 9, num = 3000}\n"io.0.records" = {start = 1, stop = 9000, num = 3000}', "sweep"),
])
def test_load_refuses_what_run_would(text, field, models_built):
    with pytest.raises(McioError) as e:
        load_spec('scenario = "mm1-demo"\n' + text + "\n")
    assert e.value.field == field, str(e.value)
    assert len(str(e.value).splitlines()) == 1
    assert models_built[0] < 100, models_built      # no grid (up to 10**9 points here) is built to find out


def test_bounds_at_the_edges_are_accepted():
    s = load_spec(BASE + "[run]\nreplications = 10000\nios = 1000\nwarmup = 0\nseed = 9223372036854775807\n")
    assert s.run["seed"] == 2**63 - 1 and s.run["replications"] == 10_000
    s = load_spec(BASE + "[run]\nios = 4611686018427387903\nwarmup = 1\n")
    assert s.run["ios"] + s.run["warmup"] == 2**62


def test_python_specs_take_numpy_values_arrays_ranges_and_none():
    d = {"scenario": "mm1-demo", "description": None,
         "sweep": {"workload.rate_iops": np.array([100.0, 200.0]), "io.0.records": range(1, 3)},
         "run": {"replications": np.int64(2), "ios": np.int32(500), "warmup": None, "seed": np.uint8(4)}}
    s = load_spec(d)
    assert s.shape == (2, 2) and s.run["ios"] == 500 and s.run["warmup"] is None and s.run["seed"] == 4
    assert s.axes[0].values == (100.0, 200.0) and s.axes[1].values == (1, 2)
    ds = sweep(d)
    assert ds.sizes["rate_iops"] == 2 and np.isfinite(ds["response_ms"]).all()


@pytest.mark.parametrize("bad, field", [
    ({"run": {"ios": object()}}, "run.ios"),
    ({"sweep": {"workload.rate_iops": [1.0, None]}}, "sweep.workload.rate_iops[1]"),
    ({"sweep": {"workload.rate_iops": np.array([1.0 + 2j])}}, "sweep.workload.rate_iops[0]"),
    ({"run": {1: 2}}, "run.1"),
    ({"sweep": {"workload.rate_iops": range(10**7)}}, "sweep.workload.rate_iops"),
])
def test_python_specs_refuse_what_toml_cannot_hold(bad, field):
    nested = {"scenario": "mm1-demo", **bad}
    with pytest.raises(McioError) as e:
        load_spec(nested)
    assert e.value.field.startswith(field), str(e.value)


def test_deep_python_nesting_is_a_mcio_error():
    v = 1.0
    for _ in range(500):
        v = [v]
    with pytest.raises(McioError, match="too deeply"):
        load_spec({"scenario": "mm1-demo", "sweep": {"workload.rate_iops": v}})


def test_a_big_grid_is_not_built_eagerly(models_built):
    s = load_spec('scenario = "mm1-demo"\n[sweep]\n"workload.rate_iops" = {start = 1, stop = 900, num = 1000}\n'
                  '"io.0.kb" = {start = 1, stop = 64, num = 1000}\n[run]\nios = 100\n')
    assert s.n_points == 10**6 and not s._models
    assert models_built[0] < 10**4, models_built    # each axis value checked once, not each point
    assert s.point_model(10**6 - 1).io[0]["kb"] == 64.0
    est = estimate(s)
    assert est.points == 10**6 and est.seconds > 300      # so sweep() warns first


def test_a_long_run_is_announced_and_one_beyond_memory_refused(monkeypatch):
    class Simulated(Exception):
        pass

    def refuse(*a, **k):
        raise Simulated

    monkeypatch.setattr(points_mod, "_simulate", refuse)
    with pytest.warns(McioWarning, match=r"this sweep is large: .* about \d+(\.\d)? (min|h)"):
        with pytest.raises(Simulated):   # the warning comes before any point
            sweep(BASE + "[run]\nios = 100000000000\n")
    with warnings.catch_warnings():      # a small run: no warning
        warnings.simplefilter("error")
        est = estimate(load_spec(BASE + "[run]\nios = 1000\n"))
        with pytest.raises(Simulated):
            sweep(BASE + "[run]\nios = 1000\n")
    assert est.memory_bytes < 2**30 and est.seconds < 60
    monkeypatch.setattr(estimates_mod, "machine_memory", lambda: 2**30)
    with pytest.raises(McioError, match=r"run.replications = 10000: needs about .* GiB, more than this machine's 1.0 GiB"):
        load_spec(BASE + "[run]\nreplications = 10000\n")


def test_final_file_is_chunked_and_reads_lazily(tmp_path):
    """A 1e5-point sweep's layout (synthetic values: simulating it is the benchmark's business)."""
    P, R = 100_000, 4
    rng = np.random.default_rng(1)
    ds = xr.Dataset({"response_ms": (("rate_iops", "replication"), rng.random((P, R)), {"units": "ms", "long_name": "r"}),
                     "unstable": (("rate_iops",), np.zeros(P, np.int8), {"units": "1", "long_name": "u"}),
                     "unstable_reason": (("rate_iops",), np.array([""] * P), {"units": "1", "long_name": "w"})},
                    coords={"rate_iops": np.linspace(1, 900, P), "replication": np.arange(R)},
                    attrs={"sweep_dims": "rate_iops", "title": "lazy"})
    out = tmp_path / "big.h5"
    write_results(ds, out)
    import h5py
    with h5py.File(out, "r") as f:
        chunks = f["response_ms"].chunks
        assert chunks is not None and chunks[0] < P and chunks[1] == R
        assert f["response_ms"].compression == "gzip"
    with xr.open_dataset(out, engine="h5netcdf", chunks={}) as lazy:
        r = lazy["response_ms"]
        assert r.chunks is not None and len(r.chunks[0]) > 1          # a dask array, by the file's chunks
        part = r.isel(rate_iops=slice(50_000, 50_010)).values
        np.testing.assert_array_equal(part, ds["response_ms"].values[50_000:50_010])
