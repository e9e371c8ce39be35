"""What a sweep will cost before it starts, from its sizes alone (nothing is simulated): points,
I/Os, peak memory and run time; a sweep beyond this machine's memory is refused, one beyond a few
minutes announced. Where the per-I/O and per-point figures come from: benchmarks/README.md
("batch: figures behind the estimates").
"""
from __future__ import annotations

import math
import os
import sys
import warnings
from dataclasses import dataclass

from ..errors import McioError, McioWarning

#: Per-I/O cost on one thread, for the time estimate: the event engine and the fast path
#: (measured: benchmarks/README.md, "batch: figures behind the estimates"; the event engine's
#: cost varies with the model, the figure is its middle).
EVENT_S_PER_IO = 330e-9
FASTPATH_S_PER_IO = 20e-9
#: The event engine's cost grows with an open load (arrivals of their own, queues that build up)
#: and with the devices (their rows leave the cache): x (1 + OPEN_EXTRA), x (1 + DEVICE_EXTRA * log2 D).
OPEN_EXTRA = 0.6
DEVICE_EXTRA = 0.1
POINT_OVERHEAD_S = 0.6e-3   # per point, whatever its size: packing, its record, the ticker
#: Per simulate() call (``run``, ``compare``, ``reproduce``, ``isfc``, ``calibrate``), whatever its
#: size: its Dataset of ~40 labelled variables and the model's TOML (a pilot measures it instead).
SIMULATE_OVERHEAD_S = 15e-3
REPLICATION_OVERHEAD_S = 0.075e-3   # per replication of a point: its streams, outputs, MSER
WARN_AFTER_S = 300.0        # "a few minutes": a run estimated longer than this is announced
#: A process's one-time costs before its first result, paid by the first command that simulates in
#: it (a CLI command: every time), on an idle machine: Numba's first load of compiled code (its
#: compiler's start), the engine's kernels from Numba's cache, and the first result (a Dataset: the
#: libraries it imports, the command's own first use). Most of a short command's time: left out,
#: the estimate of a command of a second was 0.2-0.4x of what happens (pending_startup_s).
NUMBA_START_S = 0.25
KERNELS_LOAD_S = 0.05
FIRST_RESULT_S = 0.15
BASE_MEMORY_BYTES = 225 << 20   # the interpreter with numba (kernels loaded), xarray, scipy imported
SWEEP_BYTES = 15 << 20          # writing a results file: h5py, netCDF, the background saver
#: Bytes of kernel state per replication that runs at once, per I/O slot (the closed population,
#: or the event engine's 2**16-slot pool of an open model; the fast path has none) and device row.
KERNEL_BYTES_PER_SLOT = 290
#: Bytes a finished point holds until the final file is written: its row of every variable
#: (:mod:`mcio.batch.collect`; per replication, per replication and channel: the engine buffer's
#: growth) and the rest (its scalars, the axis value, the file's text columns and the allocator's
#: share, from the peak RSS of 10,000-point grids: benchmarks/memory_per_point.py).
RESULT_BYTES_PER_POINT = 870
RESULT_BYTES_PER_REPLICATION = 184
RESULT_BYTES_PER_REPLICATION_CHANNEL = 56


@dataclass(frozen=True)
class Estimate:
    """What a sweep will cost before it starts: points, I/Os, peak memory (bytes), time (s)."""

    points: int
    ios: int
    memory_bytes: int
    seconds: float
    machine_bytes: int | None
    threads: int
    point_bytes: int = 0      # of memory_bytes: one point's replications and kernel state
    results_bytes: int = 0    # of memory_bytes: every point's results, held for the final file
    startup_s: float = 0.0    # of seconds: the process's one-time start-up still ahead (pending_startup_s)

    def __str__(self):
        return (f"{self.points} point(s), {self.ios:.3g} I/Os: about {_human_s(self.seconds)} on {self.threads} "
                f"thread(s), peak memory about {self.memory_bytes / 2**30:.2f} GiB"
                + (f" of {self.machine_bytes / 2**30:.1f} GiB" if self.machine_bytes else ""))


def _human_s(s: float) -> str:
    if s < 120:
        return f"{s:.0f} s"
    if s < 7200:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.1f} h"


def machine_memory() -> int | None:
    """Physical memory of this machine in bytes (psutil if present, else sysconf), or None."""
    try:
        import psutil
        return int(psutil.virtual_memory().total)
    except Exception:  # noqa: BLE001 - psutil is optional
        pass
    try:
        return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def _axis_max(spec, key: str, base):
    vals = [max(a.values) for a in spec.axes if a.key == key and not isinstance(a.values[0], str)]
    return max([base] + vals) if vals else base


def estimate(spec, threads: int | None = None, fast_path: bool | None = None, points: int | None = None,
             s_per_io: float | None = None, startup_s: float | None = None) -> Estimate:
    """Peak memory and run time of a sweep, from its sizes alone (nothing is simulated).

    Memory: the process with its libraries, the file-writing machinery, every replication's
    result arrays of one point (the engine allocates them all at once, then stacks them: the
    response-time histogram alone is 42 kB per replication), the kernel state of the
    replications running at once, and every finished point's results, held for the final file.
    Time: I/Os (warm-up included; a precision target's rounds up to ``max_ios``) x a per-I/O cost
    on ``threads`` threads (default: the cores), plus per-point and per-replication overheads.
    ``spec``: a parsed :class:`mcio.batch.spec.SweepSpec` (:func:`mcio.batch.estimate` also
    takes a path or TOML); ``points``: only that many of its points (``mcio run``: 1);
    ``s_per_io``: the per-I/O cost on one thread, measured (:func:`measured_s_per_io`), instead
    of the fixed figures; ``startup_s``: the process's start-up still ahead (default:
    :func:`pending_startup_s`, now)."""
    startup = pending_startup_s() if startup_s is None else float(startup_s)
    m = spec.model
    C = _axis_max(spec, "channels.count", m.channels["count"])
    D = _axis_max(spec, "devices.count", m.devices["count"])
    slots = _axis_max(spec, "workload.population", m.workload["population"]) if m.workload["type"] == "closed" \
        else 1 << 16
    if fast_path is None:
        from ..engine import fast_path_applies
        fast_path = fast_path_applies(m)
    return with_startup(estimate_runs(spec.n_points if points is None else points, spec.run, C, D, slots, fast_path,
                                      threads, open_load=m.workload["type"] != "closed", s_per_io=s_per_io), startup)


#: The engines' kernels (module, function): the compiled code a simulation loads from Numba's cache.
ENGINE_KERNELS = (("mcio.kernels.iopath", "run_one"), ("mcio.kernels.iopath", "run_one_units"),
                  ("mcio.kernels.fastpath", "fast_one"))


def kernels_loaded() -> bool:
    """Whether this process has run an engine's kernels (their Numba dispatcher holds a compiled
    or cache-loaded version; a small helper some model code calls does not count)."""
    for mod, name in ENGINE_KERNELS:
        if getattr(getattr(sys.modules.get(mod), name, None), "overloads", None):
            return True
    return False


def _numba_started() -> bool:
    """Whether this process has loaded any of mcio's compiled code (a helper some model code
    calls, e.g. the DASD seek tables): Numba's compiler has started."""
    for name, mod in list(sys.modules.items()):
        if name.startswith("mcio.") and mod is not None:
            for v in list(vars(mod).values()):
                if getattr(v, "overloads", None):
                    return True
    return False


def _first_dataset_ahead() -> bool:
    """Whether this process's first result (an xarray Dataset) is still ahead: xarray imports
    Dask, where installed, the first time it makes one."""
    if "dask" in sys.modules:
        return False
    import importlib.util
    try:
        return importlib.util.find_spec("dask") is not None
    except (ImportError, ValueError):
        return False


#: The most :func:`load_factor` says: the figures are those of an idle machine, and beyond this the
#: process's own history is no measure of what comes.
MAX_LOAD_FACTOR = 8.0
#: A process older than this (a Python session) or with less CPU time than MIN_CPU_S behind it
#: tells nothing of the machine's load now: factor 1.
LOAD_WINDOW_S = 60.0
MIN_CPU_S = 0.2


def pending_startup_s() -> float:
    """The process's one-time start-up still ahead of its first result: until an engine's kernels
    have run here (a pilot, an earlier command of a Python session) :data:`KERNELS_LOAD_S`, and
    :data:`NUMBA_START_S` before any compiled code was loaded; :data:`FIRST_RESULT_S` until a
    first result was made. Figures of an idle machine, x :func:`load_factor` (a pilot measures the
    work as the machine runs it now, but cannot measure a start-up it has not paid yet)."""
    kernels = 0.0 if kernels_loaded() else KERNELS_LOAD_S + (0.0 if _numba_started() else NUMBA_START_S)
    idle = kernels + (FIRST_RESULT_S if _first_dataset_ahead() else 0.0)
    return idle * load_factor() if idle else 0.0


def load_factor() -> float:
    """How many times longer than its CPU time this young process has taken since it started (its
    imports: the machine's other load), in [1, :data:`MAX_LOAD_FACTOR`]; 1 where unknown, where
    the process is older than :data:`LOAD_WINDOW_S` or has used less than :data:`MIN_CPU_S`."""
    try:
        import resource
        with open("/proc/self/stat") as f:
            started = int(f.read().rsplit(")", 1)[1].split()[19]) / os.sysconf("SC_CLK_TCK")   # (field 22)
        with open("/proc/uptime") as f:
            wall = float(f.read().split()[0]) - started
        ru = resource.getrusage(resource.RUSAGE_SELF)
        cpu = ru.ru_utime + ru.ru_stime
    except (OSError, ValueError, IndexError, ImportError, AttributeError):
        return 1.0
    if not 0.0 < wall <= LOAD_WINDOW_S or cpu < MIN_CPU_S:
        return 1.0
    return min(max(wall / cpu, 1.0), MAX_LOAD_FACTOR)


def with_startup(est: Estimate, startup_s: float) -> Estimate:
    """``est`` with ``startup_s`` seconds of start-up ahead of its work."""
    import dataclasses
    return dataclasses.replace(est, seconds=est.seconds + startup_s, startup_s=est.startup_s + startup_s)


def precision_lengths(run: dict) -> list[int]:
    """Measured I/Os per replication of each simulation a point takes: ``[ios]``, or with a
    precision target the rounds of :func:`mcio.batch.precision.simulate_to_precision` when the
    target is never met (the most it may run): from ``ios``, each round up to
    :data:`~mcio.batch.precision.MAX_GROWTH` x the last, up to ``max_ios``, at most
    :data:`~mcio.batch.precision.MAX_ROUNDS` rounds."""
    n = int(run["ios"])
    if run.get("precision") is None:
        return [n]
    from .precision import MAX_GROWTH, MAX_ROUNDS
    mx = int(run.get("max_ios") or n)
    out = [n]
    while n < mx and len(out) < MAX_ROUNDS:
        n = int(min(mx, max(n + 1, n * MAX_GROWTH)))
        out.append(n)
    return out


def run_ios(run: dict) -> int:
    """I/Os per replication a point may simulate, each simulation's warm-up included (``warmup``,
    or the engine's default: a tenth of its length, at least 1,000): ``ios + warmup``, or with a
    precision target every round up to ``max_ios`` (:func:`precision_lengths`)."""
    w = run.get("warmup")
    return int(sum(n + (w if w is not None else max(1000, n // 10)) for n in precision_lengths(run)))


def run_rounds(run: dict) -> int:
    """Simulations a point takes: 1, or with a precision target its rounds up to ``max_ios``
    (:func:`precision_lengths`)."""
    return len(precision_lengths(run))


def estimate_runs(points: int, run: dict, channels: int, devices: int, slots: int, fast_path: bool,
                  threads: int | None = None, open_load: bool = False, s_per_io: float | None = None,
                  point_overhead_s: float = POINT_OVERHEAD_S) -> Estimate:
    """:func:`estimate` from the sizes themselves: ``points`` runs of ``run`` (a spec's [run]:
    replications, ios, warmup, precision, max_ios) of a model with at most ``channels`` channels,
    ``devices`` devices and ``slots`` I/O slots (closed population; any open model: 2**16), on the
    fast path or the event engine (``open_load``: an open workload); ``s_per_io``: a measured
    per-I/O cost on one thread (else the fixed figures of this module); ``point_overhead_s``:
    the fixed cost of each point's simulation, s (a sweep's packed point, or a Dataset's)."""
    R = run["replications"]
    C, D = channels, devices
    if threads is None:
        threads = _usable_threads()
    running = max(1, min(R, threads))
    hist, n_acc, n_ch, n_dev, n_rows = _kernel_sizes()
    per_rep_out = 8 * (n_acc + C * n_ch + D * n_dev + hist + 64)
    pool = 0 if fast_path else KERNEL_BYTES_PER_SLOT * (slots + D)
    kernel = running * (pool + 8 * 4 * 8 * n_rows)
    P = points
    point_bytes = 2 * R * per_rep_out + kernel
    results_bytes = P * (RESULT_BYTES_PER_POINT + R * (RESULT_BYTES_PER_REPLICATION
                                                       + C * RESULT_BYTES_PER_REPLICATION_CHANNEL))
    memory = BASE_MEMORY_BYTES + SWEEP_BYTES + point_bytes + results_bytes
    ios = P * R * run_ios(run)
    cost = s_per_io if s_per_io is not None else FASTPATH_S_PER_IO if fast_path else \
        EVENT_S_PER_IO * (1 + OPEN_EXTRA * open_load) * (1 + DEVICE_EXTRA * math.log2(max(1, D)))
    seconds = ios * cost / running + P * run_rounds(run) * (point_overhead_s + R * REPLICATION_OVERHEAD_S)
    return Estimate(P, ios, int(memory), float(seconds), machine_memory(), running, int(point_bytes),
                    int(results_bytes))


#: A pilot (:func:`measured_s_per_io`) runs about this long: long enough that the kernels' set-up
#: is a small part of it, short enough to go unnoticed before a run of minutes.
PILOT_S = 0.03
PILOT_IOS = (2_000, 2_000_000)
#: kernel runs a pilot times (their median: one preempted run on a busy machine does not set the
#: estimate)
PILOT_REPEATS = 3


def measured_s_per_io(models) -> float | None:
    """The per-I/O cost on one thread, as this machine runs it now: a pilot of each model (two
    replications of a few thousand I/Os on the kernels, no warm-up; about :data:`PILOT_S` each,
    the median of :data:`PILOT_REPEATS`), the largest. The engines' cost varies more than
    tenfold between models (devices, positional physics, open or closed load) and with the
    machine's load: a fixed figure cannot be within 1.5x of every run. None if no model could
    be piloted (over capacity, kernels unavailable)."""
    import time
    import numba
    from ..engine import fast_path_applies, run_kernels
    best = None
    for m in models:
        try:
            if m.open_bottleneck()[1] >= 1.0:
                continue
            fast = fast_path_applies(m)
            guess = FASTPATH_S_PER_IO if fast else EVENT_S_PER_IO
            n = int(min(max(PILOT_S / guess, PILOT_IOS[0]), PILOT_IOS[1]))
            R = 2
            running = max(1, min(R, numba.get_num_threads()))
            run_kernels(m, 100, R, 0, 0, 0, fast)   # (untimed: the first call loads the kernels)
            took = []
            for _ in range(PILOT_REPEATS):           # (the median: a preempted run does not set it)
                t = time.perf_counter()
                run_kernels(m, n, R, 0, 0, 0, fast)
                took.append(time.perf_counter() - t)
            cost = sorted(took)[len(took) // 2] * running / (R * n)
        except KeyboardInterrupt:
            raise
        except Exception:  # noqa: BLE001 - an estimate, not a result: fall back to the fixed figures
            continue
        best = cost if best is None else max(best, cost)
    return best


def pilot_models(spec) -> list:
    """The models a sweep's pilot times: its first and last points (a grid's axes usually grow
    the load or the model from one end to the other)."""
    idx = sorted({0, spec.n_points - 1})
    return [spec.point_model(p) for p in idx]


@dataclass(frozen=True)
class Simulation:
    """One engine run a command will make: ``model`` at ``run`` (a spec's [run] keys:
    replications, ios, warmup, precision, max_ios; a missing warm-up is the engine's default)."""

    model: object
    run: dict

    @classmethod
    def of(cls, model, ios: int, replications: int, warmup: int | None = None) -> "Simulation":
        return cls(model, {"ios": int(ios), "replications": int(replications), "warmup": warmup})


@dataclass(frozen=True)
class Cost:
    """What one model costs on this machine now: s per I/O on one thread, s per simulate() call."""

    s_per_io: float
    overhead_s: float


def estimate_simulations(sims, threads: int | None = None, costs=None, startup_s: float | None = None) -> Estimate:
    """The estimate of ``sims`` (:class:`Simulation`, run one after another): their times add
    up (each: its I/Os x a per-I/O cost on the threads its replications use, plus a per-call
    overhead), after the process's start-up still ahead (``startup_s``; default
    :func:`pending_startup_s`, now); the memory is that of the largest. ``costs``: None (the fixed
    figures of this module) or one :class:`Cost` (or None: fixed figures) per simulation,
    measured by :func:`measured_costs`."""
    startup = pending_startup_s() if startup_s is None else float(startup_s)
    from ..engine import fast_path_applies
    sims = list(sims)
    costs = list(costs) if costs is not None else [None] * len(sims)
    ests = []
    for sim, c in zip(sims, costs):
        m = sim.model
        slots = m.workload["population"] if m.workload["type"] == "closed" else 1 << 16
        ests.append(estimate_runs(1, sim.run, m.channels["count"], m.devices["count"], slots, fast_path_applies(m),
                                  threads, open_load=m.workload["type"] != "closed",
                                  s_per_io=None if c is None else c.s_per_io,
                                  point_overhead_s=SIMULATE_OVERHEAD_S if c is None else c.overhead_s))
    if not ests:
        return Estimate(0, 0, BASE_MEMORY_BYTES, 0.0, machine_memory(), _usable_threads())
    top = max(ests, key=lambda e: e.memory_bytes)
    return with_startup(Estimate(len(ests), sum(e.ios for e in ests), top.memory_bytes, sum(e.seconds for e in ests),
                                 top.machine_bytes, top.threads, top.point_bytes, top.results_bytes), startup)


def repeated(est: Estimate, n: int) -> Estimate:
    """``est`` run ``n`` times one after another (a search's evaluations, an uncertainty run's
    parameter sets): n x the points, I/Os and work, the same peak memory and start-up."""
    import dataclasses
    n = int(n)
    return dataclasses.replace(est, points=est.points * n, ios=est.ios * n,
                               seconds=(est.seconds - est.startup_s) * n + est.startup_s)


def estimate_models(models, ios: int, replications: int, warmup: int | None = None,
                    threads: int | None = None, s_per_io: float | None = None,
                    startup_s: float | None = None) -> Estimate:
    """The estimate of one simulation of each of ``models`` at the same size
    (:func:`estimate_simulations`); ``s_per_io``: one measured per-I/O cost for every model."""
    costs = None if s_per_io is None else [Cost(s_per_io, SIMULATE_OVERHEAD_S)] * len(models)
    return estimate_simulations([Simulation.of(m, ios, replications, warmup) for m in models], threads, costs,
                                startup_s)


def measured_cost(model) -> Cost | None:
    """One model's :class:`Cost` on this machine now. Per I/O: the kernels on a few thousand
    I/Os (about :data:`PILOT_S`; the median of :data:`PILOT_REPEATS`) less the kernels on 100
    (their fixed cost: pools, streams), after an untimed run (the first loads the kernels). Per
    call: a simulate() of 100 I/Os (the kernels' fixed cost, the Dataset, the model's TOML), the
    second (the first imports what a Dataset needs, once a process).
    None if the model cannot be piloted (over capacity, kernels unavailable)."""
    import statistics
    import time
    try:
        import numba
        from ..engine import fast_path_applies, run_kernels, simulate
        if model.open_bottleneck()[1] >= 1.0:
            return None
        fast = fast_path_applies(model)
        n = int(min(max(PILOT_S / (FASTPATH_S_PER_IO if fast else EVENT_S_PER_IO), PILOT_IOS[0]), PILOT_IOS[1]))
        R, small = 2, 100
        running = max(1, min(R, numba.get_num_threads()))

        def kernels(ios):
            t = time.perf_counter()
            run_kernels(model, ios, R, 0, 0, 0, fast)
            return time.perf_counter() - t
        kernels(small)                              # (untimed: loads the kernels)
        base = kernels(small)
        big = statistics.median(kernels(n) for _ in range(PILOT_REPEATS))
        s_per_io = max(big - base, 1e-9) * running / (R * (n - small))
        simulate(model, ios=small, replications=R, warmup=0)   # (untimed: the first imports xarray's parts)
        t = time.perf_counter()
        simulate(model, ios=small, replications=R, warmup=0)
        overhead = time.perf_counter() - t
    except KeyboardInterrupt:
        raise
    except Exception:  # noqa: BLE001 - an estimate, not a result: fall back to the fixed figures
        return None
    return Cost(s_per_io, max(0.0, overhead - R * small * s_per_io / running))


def measured_costs(models) -> list:
    """:func:`measured_cost` of each model, each distinct model (by its TOML) piloted once."""
    seen: dict = {}
    out = []
    for m in models:
        key = m.to_toml()
        if key not in seen:
            seen[key] = measured_cost(m)
        out.append(seen[key])
    return out


def timed_simulations(sims, threads: int | None = None, force: bool = False) -> Estimate:
    """:func:`estimate_simulations` from the fixed figures, then, where that says the work may
    take long enough to matter (over a tenth of the warning's threshold; or ``force``), again
    from a pilot of each distinct model (:func:`measured_costs`)."""
    sims = list(sims)
    est = estimate_simulations(sims, threads)   # (the start-up still ahead: before a pilot pays it)
    if force or est.seconds > WARN_AFTER_S / 10:
        est = estimate_simulations(sims, threads, measured_costs([s.model for s in sims]), est.startup_s)
    return est


def timed(make, models) -> Estimate:
    """``make(s_per_io)``: the estimate from the fixed figures (``s_per_io`` None), then, where it
    says the run may take long enough to matter (over a tenth of the warning's threshold: the
    fixed figures can be several times off), again from a pilot of ``models``
    (:func:`measured_s_per_io`)."""
    est = make(None)
    if est.seconds > WARN_AFTER_S / 10:
        cost = measured_s_per_io(models)
        if cost is not None:   # (the start-up still ahead as it was before the pilot paid it)
            new = make(cost)
            est = with_startup(new, est.startup_s - new.startup_s)
    return est


def _usable_threads() -> int:
    try:
        import numba
        return int(numba.get_num_threads())   # what the kernels will use (--threads)
    except Exception:  # noqa: BLE001 - numba not importable here: the cores
        pass
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _kernel_sizes() -> tuple[int, int, int, int, int]:
    """(histogram buckets, accumulators, per-channel and per-device counters, random-stream rows)
    from the kernels if loaded (importing them costs Numba's start-up), else their current values."""
    hist = getattr(sys.modules.get("mcio.kernels.histogram"), "HIST_BUCKETS", 5250)
    L = sys.modules.get("mcio.kernels.layout")
    return (int(hist), int(getattr(L, "N_ACC", 24)), int(getattr(L, "N_CH", 7)), int(getattr(L, "N_DEV", 2)),
            int(getattr(L, "N_ROWS", 16)))


def check_size(spec, est: Estimate | None = None) -> Estimate:
    """Refuse (McioError) a sweep whose estimated peak memory exceeds this machine's memory."""
    est = est or estimate(spec, fast_path=False)
    if est.machine_bytes and est.memory_bytes > est.machine_bytes:
        field = "run.replications" if est.point_bytes >= est.results_bytes else "sweep"
        refuse(est, field, spec.run["replications"] if field == "run.replications" else f"{spec.n_points} points",
               "run fewer replications or points (or split the sweep)")
    return est


def refuse(est: Estimate, field: str, value, advice: str) -> None:
    raise McioError(field, value, f"needs about {est.memory_bytes / 2**30:.1f} GiB, more than this machine's "
                                  f"{est.machine_bytes / 2**30:.1f} GiB; {advice}")


def check_run(est: Estimate, field: str, value, what: str = "this run") -> Estimate:
    """The sweep's rules for any command that simulates (``mcio run``, ``compare``,
    ``reproduce``): refused (McioError on ``field``) beyond this machine's memory, announced (a
    McioWarning) beyond a few minutes."""
    if est.machine_bytes and est.memory_bytes > est.machine_bytes:
        refuse(est, field, value, "run fewer replications")
    if est.seconds > WARN_AFTER_S:
        warnings.warn(McioWarning(f"{what} is large: {est}"), stacklevel=3)
    return est


def warn_if_long(spec, threads=None) -> Estimate:
    """The estimate of ``spec`` (timed by a pilot of its first and last points where it may be
    long: :func:`timed`), after refusing it if too large for this machine's memory (McioError),
    and announcing it (a McioWarning, to the caller's caller) if estimated beyond a few minutes."""
    est = estimate(spec, threads=threads)
    check_size(spec, est)
    est = timed(lambda c: estimate(spec, threads=threads, s_per_io=c), pilot_models(spec))
    if est.seconds > WARN_AFTER_S:
        warnings.warn(McioWarning(f"this sweep is large: {est}"), stacklevel=3)
    return est
