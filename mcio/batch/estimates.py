"""What a sweep will cost before it starts, from its sizes alone (nothing is simulated): points,
I/Os, peak memory and run time; a sweep beyond this machine's memory is refused, one beyond a few
minutes announced. Where the per-I/O and per-point figures come from: benchmarks/README.md
("batch: figures behind the estimates").
"""
from __future__ import annotations

import os
import sys
import warnings
from dataclasses import dataclass

from ..errors import McioError, McioWarning

#: Per-I/O cost on one thread, for the time estimate: the event engine and the fast path (see the
#: module docstring for their source); an estimate to within a factor of a few, which is what a
#: warning needs.
EVENT_S_PER_IO = 400e-9
FASTPATH_S_PER_IO = 60e-9
POINT_OVERHEAD_S = 0.01     # packing, the Dataset, the part file: per point, whatever its size
WARN_AFTER_S = 300.0        # "a few minutes": a run estimated longer than this is announced
BASE_MEMORY_BYTES = 400 << 20   # the interpreter with numba, xarray, scipy imported
#: Bytes of kernel state per replication that runs at once: ~170 per I/O slot (population, or the
#: open models' 2**16-slot pool), plus per channel and device rows.
KERNEL_BYTES_PER_SLOT = 170


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


def estimate(spec, threads: int | None = None, fast_path: bool | None = None) -> Estimate:
    """Peak memory and run time of a sweep, from its sizes alone (nothing is simulated).

    Memory: every replication's result arrays (the engine allocates them all at once, then stacks
    them: the response-time histogram alone is 42 kB per replication), the kernel state of the
    replications running at once, and every point's results held for the final file (twice: the
    parts and the assembled Dataset). Time: I/Os (warm-up included) x a per-I/O cost on
    ``threads`` threads (default: the cores) plus a per-point overhead. ``spec``: a parsed
    :class:`mcio.batch.spec.SweepSpec` (:func:`mcio.batch.estimate` also takes a path or TOML)."""
    r = spec.run
    R = r["replications"]
    warm = r["warmup"] if r["warmup"] is not None else max(1000, r["ios"] // 10)
    m = spec.model
    C = _axis_max(spec, "channels.count", m.channels["count"])
    D = _axis_max(spec, "devices.count", m.devices["count"])
    slots = _axis_max(spec, "workload.population", m.workload["population"]) if m.workload["type"] == "closed" \
        else 1 << 16
    if threads is None:
        try:
            threads = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            threads = os.cpu_count() or 1
    running = max(1, min(R, threads))
    hist, n_acc, n_ch, n_dev, n_rows = _kernel_sizes()
    per_rep_out = 8 * (n_acc + C * n_ch + D * n_dev + hist + 64)
    kernel = running * (KERNEL_BYTES_PER_SLOT * (slots + D) + 8 * 4 * 8 * n_rows)
    per_point_result = 8 * (R * (24 + 8 * C + 4) + 64)
    P = spec.n_points
    point_bytes = 2 * R * per_rep_out + kernel
    results_bytes = 2 * P * per_point_result
    memory = BASE_MEMORY_BYTES + point_bytes + results_bytes
    ios = P * R * (r["ios"] + warm)
    if fast_path is None:
        from ..engine import fast_path_applies
        fast_path = fast_path_applies(m)
    cost = FASTPATH_S_PER_IO if fast_path else EVENT_S_PER_IO
    seconds = ios * cost / running + P * POINT_OVERHEAD_S
    return Estimate(P, ios, int(memory), float(seconds), machine_memory(), running, int(point_bytes),
                    int(results_bytes))


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
        raise McioError(field, spec.run["replications"] if field == "run.replications" else f"{spec.n_points} points",
                        f"needs about {est.memory_bytes / 2**30:.1f} GiB, more than this machine's "
                        f"{est.machine_bytes / 2**30:.1f} GiB; run fewer replications or points (or split the sweep)")
    return est


def warn_if_long(spec, threads=None) -> Estimate:
    """The estimate of ``spec``, after refusing it if too large for this machine's memory (McioError)
    and announcing it (a McioWarning, to the caller's caller) if estimated beyond a few minutes."""
    est = estimate(spec, threads=threads)
    check_size(spec, est)
    if est.seconds > WARN_AFTER_S:
        warnings.warn(McioWarning(f"this sweep is large: {est}"), stacklevel=3)
    return est
