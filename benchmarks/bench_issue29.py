"""asv benchmarks of issue 29's targets, so a regression shows in asv's history: the measurements
are ``benchmarks/issue29.py``'s (its docstring says how each is taken); the targets are in each
benchmark's docstring. CPU figures least of 3, one Numba thread unless said."""
from __future__ import annotations

from .common import set_threads


class _PerPopulation:
    """A figure per population of the README main job's model, measured once (``setup_cache``)."""

    params = ([5, 26, 80, 578],)
    param_names = ["population"]
    timeout = 900
    number = 1
    repeat = 1


class MainJobCpu(_PerPopulation):
    """mcio's CPU ns per I/O of ``simulate`` on the README main job's model (ficon-channel
    scenario, closed) at each population: the numerator of the issue's same-work ratio (target:
    <= 1.25x the hand-specialised anchor's, which is kept outside the project)."""

    def setup_cache(self):
        from .issue29 import mainjob_cpu_ns
        return mainjob_cpu_ns(repeat=3)

    def teardown(self, *args):
        set_threads(2)

    def track_main_job_cpu_ns_per_io(self, got, population):
        return got[population]

    track_main_job_cpu_ns_per_io.unit = "ns"


class SameWorkRatio(_PerPopulation):
    """The issue's same-work figure itself: mcio's CPU per I/O over the hand-specialised anchor's
    (``../shared/bench/same_work.py``'s table; target <= 1.25 at every population), the anchor's
    harness run on a copy made outside the project by ``anchor_copy.py``. Skipped where
    ../shared/bench is not beside the project."""

    def setup_cache(self):
        from .issue29 import same_work
        return same_work()

    def setup(self, got, population):
        if not got:
            raise NotImplementedError("the same-work anchor (../shared/bench) is not beside the project")

    def track_same_work_ratio(self, got, population):
        return got["ratio"][population]

    track_same_work_ratio.unit = "mcio / anchor"


class ChannelCost:
    """The event kernel's CPU per I/O at 256 channels over 1 channel, the same load per channel
    (``channel_scaling.py``'s model, CU scaled; target <= 1.3)."""

    timeout = 900

    def setup_cache(self):
        from .issue29 import channel_cost
        return channel_cost(repeat=3)

    def teardown(self, *args):
        set_threads(2)

    def track_256_over_1_channel_cost(self, got):
        return got[256] / got[1]

    track_256_over_1_channel_cost.unit = "x"

    def track_1_channel_cpu_ns_per_io(self, got):
        return got[1]

    track_1_channel_cpu_ns_per_io.unit = "ns"


class ColdCompile:
    """``mcio run`` with an empty Numba cache (``benchmarks/compile_cost.py``, a new process each;
    targets: <= ~40 specialisations for the main job, <= 10 s of CPU); skipped where that script
    is absent."""

    timeout = 1200

    def setup_cache(self):
        from .issue29 import cold_compile
        return cold_compile()

    def _get(self, got, kind, key):
        if not got:
            raise NotImplementedError("benchmarks/compile_cost.py is not in this tree")
        return got[kind][key]

    def track_cold_specialisations(self, got):
        return self._get(got, "cold", "compiled")

    track_cold_specialisations.unit = "specialisations"

    def track_cold_machine_code_specialisations(self, got):
        """Those with machine code of their own: the rest are compiled into their callers only
        (kernels/dispatch.py); 0 of them counted before that (every one had machine code)."""
        c = self._get(got, "cold", "compiled")
        return c - got["cold"].get("into_callers", 0)

    track_cold_machine_code_specialisations.unit = "specialisations"

    def track_cold_cpu_s(self, got):
        return self._get(got, "cold", "cpu_s")

    track_cold_cpu_s.unit = "s"


class WarmRun:
    """``python -m mcio.cli run`` (the built-in main job) as a new process, kernels cached: wall
    (target <= 1 s on an idle machine) and CPU seconds, median of 5."""

    timeout = 600

    def setup_cache(self):
        from .issue29 import warm_run
        return warm_run(repeat=5)

    def track_warm_run_wall_s(self, got):
        return got["wall"]

    track_warm_run_wall_s.unit = "s"

    def track_warm_run_cpu_s(self, got):
        return got["cpu"]

    track_warm_run_cpu_s.unit = "s"


class MemoryPerPoint:
    """Bytes a sweep adds per point, peak RSS over 10^4- and 10^5-point fast-path grids, in
    memory and to a file (``memory_per_point.py``; target <= 2 KB a point)."""

    params = ([10_000, 100_000], [False, True])
    param_names = ["points", "to_file"]
    timeout = 1800
    number = 1
    repeat = 1

    def track_sweep_bytes_per_point(self, points, to_file):
        from .memory_per_point import measure
        return measure(points, to_file)["per_point"]

    track_sweep_bytes_per_point.unit = "bytes"


class SweepPointCost:
    """CPU a small sweep point costs (us): a 10^4-point M/M/1 grid of 4 x (200 + 100) I/Os a
    point in memory (``memory_per_point.py``'s grid), so that the host-side work per point (the
    model, packing, streams, MSER, assembling), not the kernels, is what is timed; one and two
    kernel threads. Not a target of issue 29: what a sweep of a million such points costs."""

    params = ([1, 2],)
    param_names = ["threads"]
    timeout = 900
    number = 1
    repeat = 1

    def track_sweep_cpu_us_per_point(self, threads):
        from .memory_per_point import measure
        return measure(10_000, False, threads=threads)["cpu_us_per_point"]

    track_sweep_cpu_us_per_point.unit = "us"


class DaskPointCost:
    """A 10^4-point grid of small points (``memory_per_point.py``'s) on a local Dask cluster of
    two workers (``dask_points.py``): wall and client CPU per point (us), the cluster's start-up
    included in the wall. Points go several to a task; before, one each: ~4,100 us wall and
    ~2,900 us of client CPU a point (benchmarks/README.md, session 30)."""

    timeout = 900
    number = 1
    repeat = 1

    def setup_cache(self):
        from .dask_points import measure
        return measure(10_000, "local:2")

    def track_dask_wall_us_per_point(self, m):
        return m["wall"] / m["points"] * 1e6

    track_dask_wall_us_per_point.unit = "us"

    def track_dask_client_cpu_us_per_point(self, m):
        return m["client_cpu"] / m["points"] * 1e6

    track_dask_client_cpu_us_per_point.unit = "us"


class FastPathCeilingCpu:
    """The fast path's rate over the hand-written Lindley loop's, same M/M/1 and generator, CPU
    time (``fastpath_ceiling.py``, best of 3 of 2e7 I/Os; target >= 0.9 for ``simulate``)."""

    timeout = 600

    def setup_cache(self):
        from .issue29 import ceiling
        return ceiling(ios=20_000_000, repeat=3)

    def teardown(self, *args):
        set_threads(2)

    def track_fastpath_ceiling_cpu_ratio(self, b):
        return b["simulate_cpu"] / b["hand_cpu"]

    track_fastpath_ceiling_cpu_ratio.unit = "mcio / hand-written"

    def track_fastpath_ceiling_kernels_cpu_ratio(self, b):
        return b["kernels_cpu"] / b["hand_cpu"]

    track_fastpath_ceiling_kernels_cpu_ratio.unit = "mcio / hand-written"


class HostProbe:
    """The host's state while the suite runs (``host_probe.py``): CPU ns a step of a dependent
    add chain and of a max-then-add chain (the fast path's free time). No target: on a shared
    host these moved 2.2x within an hour (benchmarks/README.md, session 31), and the other
    tracks' times and even their ratios with them, so read those beside these."""

    timeout = 300

    def setup_cache(self):
        from .host_probe import probe
        return probe()

    def track_dependent_add_ns(self, p):
        return p["add"]

    track_dependent_add_ns.unit = "ns"

    def track_dependent_max_add_ns(self, p):
        return p["max_add"]

    track_dependent_max_add_ns.unit = "ns"


class ThreadsCpuBound:
    """1 -> 2 Numba threads on 4 replications, the speed-up the CPU times allow (the one-thread
    run's CPU over the two-thread run's serial CPU plus its busier kernel thread's; target >= 1.9):
    unlike ``bench_threads``' wall-time ratio, it holds on a shared machine."""

    timeout = 1200

    def setup_cache(self):
        from .issue29 import threads_speedup
        return {w: threads_speedup(w, repeat=2) for w in ("ficon", "fast")}

    def track_ficon_cpu_bound_speedup(self, got):
        return got["ficon"]["cpu_bound"]

    track_ficon_cpu_bound_speedup.unit = "x"

    def track_fast_path_cpu_bound_speedup(self, got):
        return got["fast"]["cpu_bound"]

    track_fast_path_cpu_bound_speedup.unit = "x"


class InstructionCounts:
    """Compiled code's instructions per I/O, counted by Valgrind (``instructions.py --jit-only``):
    the same figure in every run, so a change of a few instructions shows where the CPU-time
    tracks above move by +-25 % with the host's load (benchmarks/README.md, sessions 18-20). A
    count is a regression alarm, not the time: the main job's ratio to the anchor reads the same
    in both (session 19: 1.62-1.69), but work moved out of a latency-bound chain saves
    instructions and no time (session 22: the fast path's sums, 0.848 -> 0.934 of the hand
    loop in instructions, slower in CPU time; the winner trees at 256 channels, -11 % and
    unchanged). Skipped where Valgrind is not installed."""

    timeout = 1800

    def setup_cache(self):
        from .issue29 import instruction_counts
        return instruction_counts()

    def _got(self, got):
        if not got:
            raise NotImplementedError("valgrind is not installed")
        return got

    def track_main_job_instructions_per_io(self, got):
        """The event path at N = 26 (session 20: 1,904; the anchor's 1,141)."""
        return self._got(got)["mcio"][26]

    track_main_job_instructions_per_io.unit = "instructions"

    def track_fastpath_instructions_per_io(self, got):
        return self._got(got)["fast"]

    track_fastpath_instructions_per_io.unit = "instructions"

    def track_fastpath_ceiling_instruction_ratio(self, got):
        """The hand-written loop's instructions over the fast path's: the ceiling ratio where
        time follows instructions (target >= 0.9 in CPU time)."""
        g = self._got(got)
        return g["lindley"] / g["fast"]

    track_fastpath_ceiling_instruction_ratio.unit = "hand-written / mcio"

    def track_channels_256_over_1_instruction_ratio(self, got):
        """channel_scaling.py's model (the control unit a delay) at 256 channels over 1, in
        instructions per I/O (session 22: 2,551.3 / 1,966.7 = 1.297; target <= 1.3 in CPU time,
        which read 2.10: the working set leaving L1/L2 adds to it)."""
        c = self._got(got)["channels"]
        return c[256] / c[1]

    track_channels_256_over_1_instruction_ratio.unit = "256 / 1 channels"
