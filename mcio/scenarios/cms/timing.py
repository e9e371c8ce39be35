"""What a command's I/Os cost in time: its channel programs run through the engine on one 3390.

The service-time model (every figure a parameter, see :data:`TIMING_PARAMS`): one CMS user
issues its channel programs one after another (a closed workload of population 1, no think
time: CMS waits for each I/O), so nothing queues and each I/O's response is its service:

- pend: the control unit's command response, ``pend_ms`` (seed 002: pend ~0.2 ms throughout
  on a 3390-3 behind an ESCON-era controller);
- disconnect: seek plus rotational latency, ``seek_ms`` + U(0, ``rotation_ms``): the arm and the
  platter of a real 3390 (domain.md section 2: 7.1 ms average latency, 14.2 ms per revolution);
  the latency is drawn from 32 equally likely points over one revolution (an empirical
  distribution, so the engine samples it);
- connect: the blocks at the 3390 media rate, ``media_mb_s`` (4.2 MB/s): on a read-through
  controller the channel is connected while the data comes off the disk (seed 002), so the
  ESCON link (17 MB/s) is never the limit.

The elapsed time of a batch is its number of I/Os times their mean response (CMS's processor
time between I/Os is left out: assumed small beside ~12 ms per I/O). A user committing at a
rate of r commands per second keeps the volume busy r x elapsed per command (the utilisation
law; z/VM's device busy, which counts pend); the volume saturates at 1 / elapsed per command.
"""
from __future__ import annotations

from collections import Counter

from ...model import Model

#: name -> (value, unit, provenance, reason)
TIMING_PARAMS = {
    "media_mb_s": (4.2, "Mbyte s-1", "IBM", "3390 data rate 4.2 MB/s (domain.md section 2: 56,664 B per "
                   "14.2 ms revolution, ~4.0-4.2 MB/s; seed 002: 4-5 MB/s)"),
    "rotation_ms": (14.2, "ms", "derived", "one 3390 revolution: twice the 7.1 ms average rotational "
                    "delay of the 3390 product literature"),
    "seek_ms": (2.0, "ms", "assumed", "no public 3390 seek figure (domain.md); a commit's blocks "
                "lie in the first cylinders of the minidisk (control files first, new files right "
                "after), so the arm moves little: a short seek. 10 ms would be a random seek"),
    "pend_ms": (0.2, "ms", "seed", "seed 002: pend ~0.2 ms throughout, 3390-3 behind an ESCON-era "
                "read-through controller"),
}

LATENCY_POINTS = 32


def io_classes(programs, block_bytes: int) -> list:
    """The engine's I/O classes for a list of channel programs: one per distinct size, its share
    the number of programs of that size, ``kb`` the blocks' bytes / 1000, one CCW per block."""
    sizes = Counter(p.n_blocks for p in programs)
    return [{"name": f"{n}blk", "share": float(c), "kb": n * block_bytes / 1000.0, "records": n,
             "miss_ratio": 1.0} for n, c in sorted(sizes.items())]


def device_model(programs, block_bytes: int, media_mb_s: float = 4.2, rotation_ms: float = 14.2,
                 seek_ms: float = 2.0, pend_ms: float = 0.2) -> Model:
    """The :class:`~mcio.Model` of one CMS user running ``programs`` on one 3390."""
    lat = [seek_ms + rotation_ms * (i + 0.5) / LATENCY_POINTS for i in range(LATENCY_POINTS)]
    return Model.from_dict({
        "workload": {"type": "closed", "population": 1, "think_ms": 0.0},
        "io": io_classes(programs, block_bytes),
        "devices": {"count": 1},
        "channels": {"count": 1, "link_mb_s": media_mb_s, "mp_us_per_io_ccw": 0.0,
                     "mp_us_per_io_zhpf": 0.0, "max_open_exchanges": 1},
        "control_unit": {"ha_service_us": pend_ms * 1000.0,
                         "backend_service_ms": {"dist": "empirical", "values": lat}},
    }, where="scenario cms-commit", user_set={})


def mean_service_ms(programs, block_bytes: int, media_mb_s: float = 4.2, rotation_ms: float = 14.2,
                    seek_ms: float = 2.0, pend_ms: float = 0.2) -> float:
    """The closed form of the engine's mean response for ``programs`` (an oracle for tests):
    pend + seek + half a revolution + the mean blocks' bytes at the media rate."""
    n = len(programs)
    kb = sum(p.n_blocks for p in programs) * block_bytes / 1000.0 / n
    return pend_ms + seek_ms + rotation_ms / 2.0 + kb / media_mb_s


def elapsed_ms(programs, block_bytes: int, ios: int = 20_000, replications: int = 4, seed: int = 1,
               **timing) -> tuple[float, float, float]:
    """(elapsed ms of ``programs``, its 95 % CI half-width, mean response ms per I/O) from the
    engine: number of I/Os x mean response over replications."""
    from ...engine import ci95_halfwidth, simulate
    if not programs:
        return 0.0, 0.0, 0.0
    ds = simulate(device_model(programs, block_bytes, **timing), ios=ios, replications=replications, seed=seed)
    r = ds.response_ms.values
    n = len(programs)
    return float(n * r.mean()), float(n * ci95_halfwidth(r)), float(r.mean())
