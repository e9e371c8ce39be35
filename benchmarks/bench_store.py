"""HDF5 (netCDF-4 via h5netcdf) write and read of a sweep dataset: the 20-point FICON sweep
(small runs, the kernels are not what is timed here)."""
import os
import shutil
import tempfile

from .common import run_sweep, sweep_spec


class Hdf5:
    timeout = 600
    number = 1
    repeat = 5
    warmup_time = 0

    def setup_cache(self):
        ds = run_sweep(sweep_spec(replications=4, ios=2_000, warmup=500))
        return ds

    def setup(self, ds):
        from mcio import store
        self.dir = tempfile.mkdtemp(prefix="mcio-bench-")
        self.ds = ds
        self.written = os.path.join(self.dir, "read.h5")
        store.write_results(ds, self.written)
        self.target = os.path.join(self.dir, "write.h5")

    def teardown(self, ds):
        shutil.rmtree(self.dir, ignore_errors=True)

    def time_write_sweep_hdf5(self, ds):
        from mcio import store
        store.write_results(self.ds, self.target)

    def time_read_sweep_hdf5(self, ds):
        from mcio import store
        store.open_results(self.written)

    def track_sweep_file_kb(self, ds):
        return os.path.getsize(self.written) / 1024.0

    track_sweep_file_kb.unit = "KB"
