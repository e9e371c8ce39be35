"""Walk an application's reads through the host minidisk cache (MDC) and the control-unit cache,
tracking the arm: the per-request sampling behind the DASD service model.

:func:`walk` validates its arguments, runs the Numba kernel
:func:`mcio.kernels.dasd_walk.walk_kernel` (what it simulates, and its contract, are there) and
returns a :class:`WalkResult`: MDC hit ratio, SSCHs per request, CU read-miss ratio, the distance
distribution of the media accesses (CU read misses) and the distribution of application requests
per SSCH (what the closed SSCH stream's think time is made of).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import McioError
from ..kernels import dasd_walk as K


@dataclass(frozen=True)
class WalkResult:
    """What a guest's stream does at the MDC and the CU (ratios are per request or per SSCH)."""

    requests: int
    read_requests: int
    mdc_hit_ratio: float              # reads served by MDC with no SSCH / reads
    ssch_per_request: float
    read_ssch: int
    write_ssch: int
    cu_read_miss_ratio: float         # read SSCHs that miss the CU cache / read SSCHs
    blocks_per_ssch: float
    distance_pmf: np.ndarray          # CU read misses by seek distance (cylinders), sums to 1
    requests_per_ssch_pmf: np.ndarray  # SSCHs by application requests since the previous SSCH


def walk(*, blocks_per_track: int, tracks_per_cylinder: int, extent_cylinders: int, request_blocks: int,
         p_sequential: float, mdc_mode: str = "off", mdc_capacity_mb: float = 1e6, block_bytes: int = 4096,
         cu_capacity_tracks: int | None = None, cu_resident_fraction: float = 0.0,
         write_share: float = 0.0, ssch: int = 20_000, requests: int | None = None,
         seed: int = 1) -> WalkResult:
    """Run :func:`mcio.kernels.dasd_walk.walk_kernel` until ``ssch`` SSCHs have been issued (or
    200 x as many requests), or, with ``requests``, for exactly that many application requests.

    ``mdc_mode``: "off", "track" (a miss reads the full track and caches it) or "block" (a miss
    reads the requested blocks). ``mdc_capacity_mb`` (1 MB = 10**6 bytes) bounds the MDC: in
    track mode a track costs ``blocks_per_track * block_bytes``. ``cu_capacity_tracks`` None:
    the CU holds the whole extent. ``cu_resident_fraction``: each track of the extent is in the CU
    cache at the start with this probability (0: cold, first access).
    """
    modes = {"off": K.MDC_OFF, "track": K.MDC_TRACK, "block": K.MDC_BLOCK}
    if mdc_mode not in modes:
        raise McioError("mdc_mode", mdc_mode, "must be 'off', 'track' or 'block'")
    for name, v, lo in (("blocks_per_track", blocks_per_track, 1), ("tracks_per_cylinder", tracks_per_cylinder, 1),
                        ("extent_cylinders", extent_cylinders, 1), ("request_blocks", request_blocks, 1),
                        ("ssch", ssch, 1), ("requests", 1 if requests is None else requests, 1)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
            raise McioError(name, v, f"must be an integer >= {lo}")
    for name, v in (("p_sequential", p_sequential), ("cu_resident_fraction", cu_resident_fraction),
                    ("write_share", write_share)):
        if not 0.0 <= v <= 1.0:
            raise McioError(name, v, "must be in [0, 1]")
    ntr = extent_cylinders * tracks_per_cylinder
    if request_blocks > ntr * blocks_per_track:
        raise McioError("request_blocks", request_blocks, "must fit in the extent")
    item_bytes = blocks_per_track * block_bytes if mdc_mode == "track" else block_bytes
    mdc_cap = int(min(mdc_capacity_mb * 1e6 // item_bytes, 2**62))
    ip = np.zeros(K.N_WIP, np.int64)
    ip[[K.WI_BPT, K.WI_TPC, K.WI_EXTENT_TRACKS, K.WI_REQ_BLOCKS, K.WI_MDC_MODE, K.WI_MDC_CAP, K.WI_CU_CAP,
        K.WI_TARGET_SSCH, K.WI_MAX_REQ, K.WI_SEED]] = [
        blocks_per_track, tracks_per_cylinder, ntr, request_blocks, modes[mdc_mode], mdc_cap,
        ntr if cu_capacity_tracks is None else cu_capacity_tracks, ssch if requests is None else 2**62,
        200 * ssch if requests is None else requests, seed]
    fp = np.array([p_sequential, cu_resident_fraction, write_share], float)
    counts = np.zeros(K.N_WCOUNT)
    dist = np.zeros(extent_cylinders)
    per = np.zeros(K.PER_SSCH_BINS)
    K.walk_kernel(ip, fp, counts, dist, per)
    n_ssch = counts[K.W_SSCH_READ] + counts[K.W_SSCH_WRITE]
    if n_ssch == 0:
        raise McioError("walk", "no SSCH", "the stream issued no I/O (everything hit MDC): raise ssch or the extent")
    reads = max(counts[K.W_READ_REQ], 1.0)
    rs = max(counts[K.W_SSCH_READ], 1.0)
    return WalkResult(int(counts[K.W_REQ]), int(counts[K.W_READ_REQ]), counts[K.W_MDC_HIT] / reads,
                      n_ssch / counts[K.W_REQ], int(counts[K.W_SSCH_READ]), int(counts[K.W_SSCH_WRITE]),
                      counts[K.W_CU_READ_MISS] / rs, counts[K.W_SSCH_BLOCKS] / n_ssch,
                      dist / dist.sum() if dist.sum() > 0 else dist, per / per.sum())
