"""Walk an application's reads through the host minidisk cache (MDC) and the control-unit cache,
tracking the arm: the per-request sampling behind the DASD service model.

:func:`walk_kernel` (Numba) generates a guest's request stream from an access pattern, passes
each request through the MDC (off, ``track`` mode or ``block`` mode, LRU of a given size), turns
its misses into SSCHs, passes each SSCH through the control-unit cache (LRU by track, warm with a
given resident fraction), and for each read miss at the CU records the seek distance from where
the arm was (the cylinder of the previous media access) before moving the arm there.
:func:`walk` wraps it and returns a :class:`WalkResult`: MDC hit ratio, SSCHs per request, CU
read-miss ratio, the distance distribution of media accesses and the distribution of
application requests per SSCH (what the closed SSCH stream's think time is made of).

Kernel contract (everything int64 or float64, C-contiguous; the kernel allocates its LRU state):

- ``ip`` int64[N_WIP]: blocks per track, tracks per cylinder, extent tracks, request blocks, MDC
  mode (0 off, 1 track, 2 block), MDC capacity (items: tracks or blocks), CU capacity (tracks),
  SSCHs to issue before stopping, request cap, seed;
- ``fp`` float64[N_WFP]: P(next request sequential), CU resident fraction at start, write share;
- ``counts`` float64[N_WCOUNT] out: the tallies named by the ``W_*`` indices;
- ``dist_hist`` float64[extent cylinders] out: CU read misses by seek distance (cylinders);
- ``per_ssch_hist`` float64[K] out: SSCHs by the number of application requests since the
  previous SSCH of the stream (0 for a second SSCH of the same request; the last bin collects
  the rest).
"""
from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from ..errors import McioError
from ..kernels.options import JIT

(WI_BPT, WI_TPC, WI_EXTENT_TRACKS, WI_REQ_BLOCKS, WI_MDC_MODE, WI_MDC_CAP, WI_CU_CAP, WI_TARGET_SSCH,
 WI_MAX_REQ, WI_SEED) = range(10)
N_WIP = 10
WF_P_SEQ, WF_CU_RESIDENT, WF_WRITE_SHARE = range(3)
N_WFP = 3
(W_REQ, W_READ_REQ, W_MDC_HIT, W_SSCH_READ, W_SSCH_WRITE, W_CU_READ_MISS, W_CU_READ_HIT,
 W_SSCH_BLOCKS) = range(8)
N_WCOUNT = 8
MDC_OFF, MDC_TRACK, MDC_BLOCK = 0, 1, 2
PER_SSCH_BINS = 64


@nb.njit(**JIT)
def _lru_touch(item, cap, inq, prv, nxt, hn):
    """Use ``item``: True if it was cached. Inserts it (evicting the least recent) if not.
    ``hn`` = [head (most recent), tail (least recent), count]."""
    if inq[item]:
        if hn[0] != item:           # unlink and put at the head
            p = prv[item]
            n = nxt[item]
            nxt[p] = n
            if n >= 0:
                prv[n] = p
            else:
                hn[1] = p
            prv[item] = -1
            nxt[item] = hn[0]
            prv[hn[0]] = item
            hn[0] = item
        return True
    if cap <= 0:
        return False
    if hn[2] >= cap:                # evict the tail
        t = hn[1]
        inq[t] = False
        hn[1] = prv[t]
        if hn[1] >= 0:
            nxt[hn[1]] = -1
        else:
            hn[0] = -1
        hn[2] -= 1
    inq[item] = True
    prv[item] = -1
    nxt[item] = hn[0]
    if hn[0] >= 0:
        prv[hn[0]] = item
    else:
        hn[1] = item
    hn[0] = item
    hn[2] += 1
    return False


@nb.njit(**JIT)
def walk_kernel(ip, fp, counts, dist_hist, per_ssch_hist):
    """One guest's stream through MDC and the CU cache (see the module docstring)."""
    bpt = ip[WI_BPT]
    tpc = ip[WI_TPC]
    ntr = ip[WI_EXTENT_TRACKS]
    b = ip[WI_REQ_BLOCKS]
    mode = ip[WI_MDC_MODE]
    target = ip[WI_TARGET_SSCH]
    max_req = ip[WI_MAX_REQ]
    p_seq = fp[WF_P_SEQ]
    wshare = fp[WF_WRITE_SHARE]
    nblk = ntr * bpt
    K = per_ssch_hist.shape[0]
    np.random.seed(ip[WI_SEED])
    # MDC state: items are tracks (track mode) or blocks (block mode)
    n_items = nblk if mode == MDC_BLOCK else ntr
    m_in = np.zeros(n_items, np.bool_)
    m_prv = np.full(n_items, -1, np.int64)
    m_nxt = np.full(n_items, -1, np.int64)
    m_hn = np.array([-1, -1, 0], np.int64)
    m_cap = ip[WI_MDC_CAP] if mode != MDC_OFF else 0
    # CU state: tracks, warm with each track resident with the given probability
    c_in = np.zeros(ntr, np.bool_)
    c_prv = np.full(ntr, -1, np.int64)
    c_nxt = np.full(ntr, -1, np.int64)
    c_hn = np.array([-1, -1, 0], np.int64)
    c_cap = ip[WI_CU_CAP]
    for tr in range(ntr):
        if np.random.random() < fp[WF_CU_RESIDENT]:
            _lru_touch(tr, c_cap, c_in, c_prv, c_nxt, c_hn)
    arm = 0
    pos = 0
    since = 0                        # application requests since the stream's previous SSCH
    n_ssch = 0
    nreq_slots = nblk // b
    while n_ssch < target and counts[W_REQ] < max_req:
        if counts[W_REQ] == 0 or np.random.random() >= p_seq:
            pos = np.random.randint(0, nreq_slots) * b
        if pos + b > nblk:
            pos = 0
        first = pos
        last = pos + b - 1
        pos = last + 1
        if pos >= nblk:
            pos = 0
        counts[W_REQ] += 1
        since += 1
        t0 = first // bpt
        t1 = last // bpt
        if np.random.random() < wshare:
            # a write: MDC is write-through (its copy is updated, no read), the CU takes it in
            # its fast-write cache: one SSCH, no media access now
            counts[W_SSCH_WRITE] += 1
            counts[W_SSCH_BLOCKS] += b
            per_ssch_hist[min(since, K - 1)] += 1
            since = 0
            n_ssch += 1
            for tr in range(t0, t1 + 1):
                _lru_touch(tr, c_cap, c_in, c_prv, c_nxt, c_hn)
            continue
        counts[W_READ_REQ] += 1
        # ---- MDC: which SSCHs does this read need? ----
        # each SSCH is a track range [s0, s1]; track mode: one per missing track
        n_here = 0
        for step in range(t1 - t0 + 1 if mode == MDC_TRACK else 1):
            if mode == MDC_TRACK:
                tr = t0 + step
                if _lru_touch(tr, m_cap, m_in, m_prv, m_nxt, m_hn):
                    continue
                s0 = tr
                s1 = tr
                blocks = bpt
            elif mode == MDC_BLOCK:
                allin = True
                for blk in range(first, last + 1):
                    if not _lru_touch(blk, m_cap, m_in, m_prv, m_nxt, m_hn):
                        allin = False
                if allin:
                    continue
                s0 = t0
                s1 = t1
                blocks = b
            else:
                s0 = t0
                s1 = t1
                blocks = b
            # ---- one read SSCH on tracks s0..s1 ----
            n_here += 1
            n_ssch += 1
            counts[W_SSCH_READ] += 1
            counts[W_SSCH_BLOCKS] += blocks
            per_ssch_hist[min(since, K - 1)] += 1
            since = 0
            miss_tr = -1
            for tr in range(s0, s1 + 1):
                if not _lru_touch(tr, c_cap, c_in, c_prv, c_nxt, c_hn) and miss_tr < 0:
                    miss_tr = tr
            if miss_tr >= 0:
                counts[W_CU_READ_MISS] += 1
                cyl = miss_tr // tpc
                dist_hist[abs(cyl - arm)] += 1
                arm = s1 // tpc
            else:
                counts[W_CU_READ_HIT] += 1
        if n_here == 0:
            counts[W_MDC_HIT] += 1


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
    """Run :func:`walk_kernel` until ``ssch`` SSCHs have been issued (or 200 x as many requests),
    or, with ``requests``, for exactly that many application requests.

    ``mdc_mode``: "off", "track" (a miss reads the full track and caches it) or "block" (a miss
    reads the requested blocks). ``mdc_capacity_mb`` (1 MB = 10**6 bytes) bounds the MDC: in
    track mode a track costs ``blocks_per_track * block_bytes``. ``cu_capacity_tracks`` None:
    the CU holds the whole extent. ``cu_resident_fraction``: each track of the extent is in the CU
    cache at the start with this probability (0: cold, first access).
    """
    modes = {"off": MDC_OFF, "track": MDC_TRACK, "block": MDC_BLOCK}
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
    ip = np.zeros(N_WIP, np.int64)
    ip[[WI_BPT, WI_TPC, WI_EXTENT_TRACKS, WI_REQ_BLOCKS, WI_MDC_MODE, WI_MDC_CAP, WI_CU_CAP, WI_TARGET_SSCH,
        WI_MAX_REQ, WI_SEED]] = [blocks_per_track, tracks_per_cylinder, ntr, request_blocks, modes[mdc_mode],
                                 mdc_cap, ntr if cu_capacity_tracks is None else cu_capacity_tracks,
                                 ssch if requests is None else 2**62, 200 * ssch if requests is None else requests,
                                 seed]
    fp = np.array([p_sequential, cu_resident_fraction, write_share], float)
    counts = np.zeros(N_WCOUNT)
    dist = np.zeros(extent_cylinders)
    per = np.zeros(PER_SSCH_BINS)
    walk_kernel(ip, fp, counts, dist, per)
    n_ssch = counts[W_SSCH_READ] + counts[W_SSCH_WRITE]
    if n_ssch == 0:
        raise McioError("walk", "no SSCH", "the stream issued no I/O (everything hit MDC): raise ssch or the extent")
    reads = max(counts[W_READ_REQ], 1.0)
    rs = max(counts[W_SSCH_READ], 1.0)
    return WalkResult(int(counts[W_REQ]), int(counts[W_READ_REQ]), counts[W_MDC_HIT] / reads,
                      n_ssch / counts[W_REQ], int(counts[W_SSCH_READ]), int(counts[W_SSCH_WRITE]),
                      counts[W_CU_READ_MISS] / rs, counts[W_SSCH_BLOCKS] / n_ssch,
                      dist / dist.sum() if dist.sum() > 0 else dist, per / per.sum())
