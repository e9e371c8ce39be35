"""The free times of a FIFO station's servers, for the Kiefer-Wolfowitz recursion.

A customer arriving at ``a`` with service ``s`` starts at max(a, earliest free time) and its
server is then free at start + s: only the multiset of free times matters, never which server
is which, so any layout gives the same starts to the bit. Up to SCAN_MAX servers the earliest is
found by a scan of an unordered array (measured on the fast path's M/M/c and the event engine's
12-server host adapter: faster than a binary heap, whose sift-down mispredicts about once a
level, and than a sorted ring, whose insertion walks about half of a busy station); above, the
array is a binary min-heap (``heap.min_replace_root``). Used by the fast path's servers and the
event engine's control-unit stations.

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
