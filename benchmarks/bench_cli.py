"""Time to an answer at the command line: the README main job's commands, each a new process
(interpreter start, imports, Numba's start-up and kernel cache, the work, the exit), and what a
sweep and a plot import. ``benchmarks/compare_cli.py`` compares two versions of the same in one run."""
import os
import shutil
import subprocess
import sys
import tempfile

from .common import ROOT
from .compare_cli import installed_env

MAIN_JOB = os.path.join(ROOT, "examples", "ficon_knee.toml")


def _mcio(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "mcio.cli", *args], cwd=ROOT, env=installed_env(ROOT), check=True,
                   capture_output=True)


class Command:
    timeout = 900
    number = 1
    repeat = 3
    warmup_time = 0

    def setup(self):
        self.dir = tempfile.mkdtemp(prefix="mcio-bench-cli-")
        self.out = os.path.join(self.dir, "knee.h5")
        _mcio("sweep", MAIN_JOB, "-o", self.out, "-q")    # compile / load the kernels, write bytecode

    def teardown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def time_sweep_main_job(self):
        """``mcio sweep examples/ficon_knee.toml -o knee.h5``, the whole process."""
        if os.path.exists(self.out):
            os.remove(self.out)
        _mcio("sweep", MAIN_JOB, "-o", self.out, "-q")

    def time_plot_main_job(self):
        """``mcio plot knee.h5 -o knee.png``, the whole process."""
        _mcio("plot", self.out, "-o", os.path.join(self.dir, "knee.png"))

    def track_heavy_imports_of_a_sweep(self):
        """How many of scipy.stats and dask.array a sweep imports (0: neither; each costs ~0.6-2 s
        of a command's start)."""
        return _heavy_imports("from mcio.sweep import sweep; sweep(open(sys.argv[1]).read())", MAIN_JOB)

    track_heavy_imports_of_a_sweep.unit = "modules"

    def track_heavy_imports_of_a_plot(self):
        """The same for ``mcio plot knee.h5`` (0 since session 8: the plot's means are numpy's)."""
        return _heavy_imports("from mcio.cli import main\ntry:\n    main(['plot', sys.argv[1], '-o', sys.argv[2]])\n"
                              "except SystemExit as e:\n    assert not e.code", self.out,
                              os.path.join(self.dir, "imports.png"))

    track_heavy_imports_of_a_plot.unit = "modules"


def _heavy_imports(code: str, *args: str) -> int:
    """How many of scipy.stats and dask.array a new interpreter has imported after ``code``
    (``sys`` imported; ``args`` in sys.argv[1:])."""
    code = f"import sys\n{code}\nprint(sum(m in sys.modules for m in ('scipy.stats', 'dask.array')))"
    r = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, env=installed_env(ROOT), check=True,
                       capture_output=True, text=True)
    return int(r.stdout.split()[-1])
