"""The free times of a FIFO station's servers, for the Kiefer-Wolfowitz recursion.

A customer arriving at ``a`` with service ``s`` starts at max(a, earliest free time) and its
server is then free at start + s: only the multiset of free times matters, never which server
is which, so any layout gives the same starts to the bit. Up to SCAN_MAX servers the earliest is
found by a scan of an unordered array (measured on the fast path's M/M/c and the event engine's
12-server host adapter: faster than a binary heap, whose sift-down mispredicts about once a
level, and than a sorted ring, whose insertion walks about half of a busy station); above, the
array is a binary min-heap (``heap.min_replace_root``). ``kw_start``: the event engine's
control-unit stations; ``kw_start_side_by_side`` (four scans side by side): the fast path's
servers.

``free_t`` float64[>= c] (ms): all zero to start (every server free at time 0; a heap as well).
"""

from .heap import min_replace_root
from .options import JIT_STAGE, njit

SCAN_MAX = 16                     # up to this many servers, a scan finds the earliest free


@njit(**JIT_STAGE)
def kw_start(free_t, c, a, svc):
    """A customer arriving at ``a`` (ms) needing ``svc`` ms takes the earliest free of the ``c``
    servers free_t[:c] (c >= 1; updated): returns its start (ms)."""
    if c <= SCAN_MAX:
        jm = 0
        fm = free_t[0]
        for jj in range(1, c):
            if free_t[jj] < fm:
                fm = free_t[jj]
                jm = jj
        start = fm if fm > a else a
        free_t[jm] = start + svc
        return start
    start = free_t[0] if free_t[0] > a else a
    min_replace_root(free_t, c, start + svc)
    return start


@njit(**JIT_STAGE)
def kw_start_side_by_side(free_t, c, a, svc):
    """``kw_start`` with, for 4 <= c <= SCAN_MAX servers, four scans side by side, then the least
    of their four minima: each scan's chain of compare-and-select a quarter as long. For the fast
    path's recursion, where the scan is the chain from one customer to the next: its M/M/12
    0.85-0.92x the time (``ab_kernels.py --cases fast12``; a scratch M/M/12 loop 19.5 -> 13.3 ns a
    customer, Emerald Rapids, benchmarks/README.md, session 31). Not for the event engine's
    stations, whose scan is not on that chain (the I/O's other work runs beside it). The server
    found may differ from ``kw_start``'s on a tie; the free times' multiset, and so every start,
    is the same."""
    if c < 4 or c > SCAN_MAX:
        return kw_start(free_t, c, a, svc)
    f0, f1, f2, f3 = free_t[0], free_t[1], free_t[2], free_t[3]
    j0, j1, j2, j3 = 0, 1, 2, 3
    jj = 4
    while jj + 3 < c:
        if free_t[jj] < f0:
            f0 = free_t[jj]
            j0 = jj
        if free_t[jj + 1] < f1:
            f1 = free_t[jj + 1]
            j1 = jj + 1
        if free_t[jj + 2] < f2:
            f2 = free_t[jj + 2]
            j2 = jj + 2
        if free_t[jj + 3] < f3:
            f3 = free_t[jj + 3]
            j3 = jj + 3
        jj += 4
    for jt in range(jj, c):
        if free_t[jt] < f0:
            f0 = free_t[jt]
            j0 = jt
    if f1 < f0:
        f0 = f1
        j0 = j1
    if f3 < f2:
        f2 = f3
        j2 = j3
    if f2 < f0:
        f0 = f2
        j0 = j2
    start = f0 if f0 > a else a
    free_t[j0] = start + svc
    return start
