"""The event queues of ``channel_floor.py``'s minimal simulation: a binary heap and a timing wheel
behind one interface (``_push``, ``_peek``, ``_take``; ``hn[H_WHEEL]`` chooses), so the floor
runs the same code with either. Both order events by (time, code): the same events in the same
order, only the cost differs.

``q`` = (hp float64[N, 2] the heap's (time, code) pairs; the wheel's nodes wt float64[N] (time),
wc int64[N] (code), wnx int32[N] (next node, -1: none); whead int32[NB] its buckets' first
nodes; wpar float64[2] = (W ms, 1 / W)); ``hn`` int64[8] their counters (H_*).
"""
import numba as nb
import numpy as np

from mcio.kernels.options import JIT_STAGE

# compiled as mcio's stages (LLVM inlines them, no reference counting), not cached: Numba's cache
# would not see a change in mcio's kernels, which the floor inlines
STAGE = dict(JIT_STAGE, cache=False)
KERNEL = dict(nogil=True)


# ---------------------------------------------------------------- the heap: hp[i] = (time, code)


@nb.njit(**STAGE)
def _sift_down(hp, n, t, c):
    i = 0
    while True:
        m = 2 * i + 1
        if m >= n:
            break
        if m + 1 < n and (hp[m + 1, 0] < hp[m, 0] or (hp[m + 1, 0] == hp[m, 0] and hp[m + 1, 1] < hp[m, 1])):
            m += 1
        if hp[m, 0] < t or (hp[m, 0] == t and hp[m, 1] < c):
            hp[i, 0] = hp[m, 0]
            hp[i, 1] = hp[m, 1]
            i = m
        else:
            break
    hp[i, 0] = t
    hp[i, 1] = c


@nb.njit(**STAGE)
def _heap_push(hp, hn, t, c):
    """Add (t, c); hn[0] the size, hn[1] 1 while the root is taken: its place goes to the pair."""
    if hn[1]:
        hn[1] = 0
        _sift_down(hp, hn[0], t, c)
        return
    i = hn[0]
    hn[0] = i + 1
    while i > 0:
        p = (i - 1) >> 1
        if t < hp[p, 0] or (t == hp[p, 0] and c < hp[p, 1]):
            hp[i, 0] = hp[p, 0]
            hp[i, 1] = hp[p, 1]
            i = p
        else:
            break
    hp[i, 0] = t
    hp[i, 1] = c


# ------------------------------------------- the timing wheel (a calendar queue): O(1) an event
# NB buckets of width W ms, bucket number k = int(t / W), kept in bucket k mod NB as an unsorted
# list of nodes (time wt, code wc, next wnx); the scan starts at the current bucket number
# hn[H_CUR] and skips nodes of later rounds. hn: H_CUR, H_FREE (the free nodes' list), H_FOUND /
# H_PREV (the node the last peek found, its predecessor), H_COUNT.
H_SIZE, H_TAKEN, H_WHEEL, H_CUR, H_FREE, H_FOUND, H_PREV, H_COUNT = range(8)


@nb.njit(**STAGE)
def _wheel_push(q, hn, t, code):
    hp, wt, wc, wnx, whead, wpar = q
    k = np.int64(t * wpar[1])
    if k < hn[H_CUR]:
        hn[H_CUR] = k
    n = hn[H_FREE]
    hn[H_FREE] = wnx[n]
    b = k & (whead.shape[0] - 1)
    wt[n] = t
    wc[n] = code
    wnx[n] = whead[b]
    whead[b] = n
    hn[H_COUNT] += 1


@nb.njit(**STAGE)
def _push(q, hn, t, code):
    """Schedule event ``code`` at ``t`` (ms) in the heap or the wheel (hn[H_WHEEL])."""
    if hn[H_WHEEL]:
        _wheel_push(q, hn, t, code)
    else:
        _heap_push(q[0], hn, t, float(code))


@nb.njit(**STAGE)
def _peek(q, hn):
    """The earliest event (time, code), or (inf, -1): not removed (``_take``)."""
    hp, wt, wc, wnx, whead, wpar = q
    if not hn[H_WHEEL]:
        if hn[H_TAKEN]:
            hn[H_TAKEN] = 0
            n = hn[H_SIZE] - 1
            hn[H_SIZE] = n
            if n > 0:
                _sift_down(hp, n, hp[n, 0], hp[n, 1])
        if hn[H_SIZE] == 0:
            return np.inf, -1
        return hp[0, 0], np.int64(hp[0, 1])
    if hn[H_COUNT] == 0:
        return np.inf, -1
    mask = whead.shape[0] - 1
    cur = hn[H_CUR]
    inv = wpar[1]
    while True:
        best = -1
        bprev = -1
        prev = -1
        n = whead[cur & mask]
        while n >= 0:
            if np.int64(wt[n] * inv) <= cur and (best < 0 or wt[n] < wt[best]
                                                  or (wt[n] == wt[best] and wc[n] < wc[best])):
                best = n
                bprev = prev
            prev = n
            n = wnx[n]
        if best >= 0:
            hn[H_CUR] = cur
            hn[H_FOUND] = best
            hn[H_PREV] = bprev
            return wt[best], wc[best]
        cur += 1


@nb.njit(**STAGE)
def _take(q, hn):
    """Remove the event the last ``_peek`` returned (the heap's root lazily: the next push
    takes its place)."""
    hp, wt, wc, wnx, whead, wpar = q
    if not hn[H_WHEEL]:
        hn[H_TAKEN] = 1
        return
    n = hn[H_FOUND]
    p = hn[H_PREV]
    if p < 0:
        whead[hn[H_CUR] & (whead.shape[0] - 1)] = wnx[n]
    else:
        wnx[p] = wnx[n]
    wnx[n] = hn[H_FREE]
    hn[H_FREE] = n
    hn[H_COUNT] -= 1
