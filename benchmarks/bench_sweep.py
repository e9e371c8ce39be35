"""A 20-point sweep: the FICON model over 20 populations (1..400), 4 replications of 24,000 I/Os
(4,000 warm-up) per point, 1.92 M I/Os in all; ``mcio.sweep.sweep`` in memory (no file).

Targets (issue 6): cold first sweep < 15 s (new process, empty Numba cache: import, compile,
run); warm sweep < 3 s (kernels compiled).
"""
import textwrap

from .common import ROOT, run_sweep, sweep_spec, warm, ficon_model


class Sweep:
    timeout = 900
    number = 1
    repeat = 3
    warmup_time = 0

    def setup(self):
        self.spec = sweep_spec()
        warm(ficon_model()[0])

    def time_sweep_20_points_warm(self):
        run_sweep(self.spec)


_COLD_PRELUDE = textwrap.dedent(f"""
    import os, sys, tempfile
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="mcio-cold-")   # nothing cached
    sys.path.insert(0, {ROOT!r})
""")


class Cold:
    """New interpreter, empty Numba cache (NUMBA_CACHE_DIR points at a new temporary directory)."""

    timeout = 900
    number = 1
    repeat = 2
    warmup_time = 0

    def timeraw_import_mcio(self):
        return _COLD_PRELUDE + "import mcio.engine, mcio.sweep\n"

    def timeraw_import_and_first_compile_fast_path(self):
        return _COLD_PRELUDE + textwrap.dedent("""
            from benchmarks.common import mmc_model, warm
            warm(mmc_model(1))
        """)

    def timeraw_import_and_first_compile_event_path(self):
        return _COLD_PRELUDE + textwrap.dedent("""
            from benchmarks.common import ficon_model, warm
            warm(ficon_model()[0])
        """)

    def timeraw_cold_first_sweep(self):
        return _COLD_PRELUDE + textwrap.dedent("""
            from benchmarks.common import run_sweep, sweep_spec
            run_sweep(sweep_spec())
        """)
