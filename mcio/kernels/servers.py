"""The free times of a FIFO station's servers, for the Kiefer-Wolfowitz recursion.

A customer arriving at ``a`` with service ``s`` starts at max(a, earliest free time) and its
server is then free at start + s: only the multiset of free times matters, never which server
is which. Here they are kept sorted, as a ring: the earliest is at the head, taking it is one
step of the head, and the new free time goes in from the tail, shifting the later ones up one
place. A new free time is usually the latest (an unsaturated station: every other server is
free already, or frees sooner), so the insertion is one or two compares with one mispredicted
branch, where a binary heap's sift-down mispredicts about once per level.

Arrays: ``ring`` float64[n] (ms), sorted ascending from ``head[k]`` (int64 element) around the
ring; all zeros with head 0 to start (every server free at time 0).
"""
import numba as nb

from .options import JIT_STAGE


@nb.njit(**JIT_STAGE)
def earliest_replace(ring, n, head, k, v):
    """Take the earliest free time of ring[:n] (head at head[k]) and put ``v`` (ms, >= the one
    taken) in its place, keeping the ring sorted."""
    h = head[k] + 1
    if h == n:
        h = 0
    head[k] = h
    # logical place j of the ring is ring[h + j] (wrapped); place n - 1 is the one just freed
    j = n - 1
    p = h + j - n if h + j >= n else h + j
    while j > 0:
        q = p - 1 if p > 0 else n - 1
        if ring[q] <= v:
            break
        ring[p] = ring[q]
        p = q
        j -= 1
    ring[p] = v


@nb.njit(**JIT_STAGE)
def earliest(ring, head, k):
    """The earliest free time (ms) of the ring whose head is head[k]."""
    return ring[head[k]]
