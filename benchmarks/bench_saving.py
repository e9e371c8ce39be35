"""Saving is free: a sweep with an output file (the checkpoint log per point, the final netCDF-4
file) against the same sweep in memory. Target: with the file at most 5 % slower. Small sizes
(asv repeats them): the README main job's model at a quarter of its I/Os, and a 100-point
fast-path grid; ``benchmarks/saving.py`` measures the full sizes in one run.
"""
import os
import shutil
import tempfile

from .common import ROOT


def _specs():
    from benchmarks.saving import MAIN_JOB, grid_spec
    with open(MAIN_JOB) as f:
        main = f.read().replace("ios = 40000", "ios = 10000").replace("warmup = 10000", "warmup = 2500")
    return {"main_job": main, "grid_100": grid_spec(100).replace("ios = 40000", "ios = 10000")}


class Saving:
    timeout = 900
    number = 1
    repeat = 3
    warmup_time = 0
    params = ["main_job", "grid_100"]
    param_names = ["case"]

    def setup(self, case):
        import sys
        if ROOT not in sys.path:
            sys.path.insert(0, ROOT)
        from mcio.sweep import load_spec, sweep
        self.spec = load_spec(_specs()[case])
        sweep(self.spec)                     # compile / load the kernels
        self.dir = tempfile.mkdtemp(prefix="mcio-bench-saving-")
        self.out = os.path.join(self.dir, "out.h5")

    def teardown(self, case):
        shutil.rmtree(self.dir, ignore_errors=True)

    def time_in_memory(self, case):
        from mcio.sweep import sweep
        sweep(self.spec)

    def time_with_file(self, case):
        from mcio.sweep import sweep
        if os.path.exists(self.out):
            os.remove(self.out)
        sweep(self.spec, out=self.out)

    def track_saving_share_percent(self, case):
        """Time spent saving (lock, checkpoint directory and records, the final file, any
        background saving's CPU time), % of the sweep's wall time (timed inside one with-file
        run: robust to a shared machine's noise, unlike a ratio)."""
        from benchmarks.saving import saving_share
        return saving_share(self.spec, self.out)

    track_saving_share_percent.unit = "%"
