"""The MDC / CU-cache walk (Numba): one guest's request stream from an access pattern through the
host minidisk cache (MDC) and the control-unit cache, with the arm tracked. The host wrapper,
validation and the result type are :func:`mcio.dasd.walk.walk`.

:func:`walk_kernel` generates the requests (the first, and with probability 1 - P(sequential)
each next one, at a uniform request slot of the extent; the others continue the previous one; a
request that would run past the extent's end starts at its beginning). A write (with probability
the write share) issues one SSCH and goes into the CU's fast-write cache: its tracks are touched
in the CU's LRU, no media access, MDC left as it is (write-through: its copy is updated in
place). A read passes through the MDC (off, ``track`` mode or ``block`` mode, LRU of a given
size): track mode issues one SSCH per track not in MDC, block mode one SSCH for the request when
any of its blocks is not in MDC, off one SSCH for the request. Each read SSCH touches its tracks
in the CU cache (LRU by track, each track resident at the start with a given probability); if
one is missing, it is a CU read miss: the seek distance from the arm (the cylinder of the
previous media access) to the first missing track's cylinder is recorded and the arm left at the
SSCH's last track's cylinder. The kernel stops after the target number of SSCHs or the request
cap.

Kernel contract (everything int64 or float64, C-contiguous; the kernel allocates its LRU state;
its draws are Numba's per-thread ``np.random``, seeded from ``ip[WI_SEED]``):

- ``ip`` int64[N_WIP]: blocks per track, tracks per cylinder, extent tracks, request blocks, MDC
  mode (MDC_OFF, MDC_TRACK, MDC_BLOCK), MDC capacity (items: tracks or blocks), CU capacity
  (tracks), SSCHs to issue before stopping, request cap, seed (indices WI_*);
- ``fp`` float64[N_WFP]: P(next request sequential), CU resident fraction at start, write share
  (indices WF_*);
- ``counts`` float64[N_WCOUNT] out (zero on entry): the tallies named by the ``W_*`` indices;
- ``dist_hist`` float64[extent cylinders] out (zero on entry): CU read misses by seek distance
  (cylinders);
- ``per_ssch_hist`` float64[K] out (zero on entry): SSCHs by the number of application requests
  since the previous SSCH of the stream (0 for a second SSCH of the same request; the last bin
  collects the rest).
"""
import numpy as np

from .options import JIT, njit

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


@njit(**JIT)
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


@njit(**JIT)
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
