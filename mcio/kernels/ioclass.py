"""What a new I/O is: its class, its transport mode and whether it misses the cache.

Shared by the event engine and the fast path so both draw the same attributes in the same order.
"""
import numba as nb

from .options import JIT_LEAF
from .rng import uniform_st


# inlined by Numba itself: LLVM leaves a 7-value return out of line, which cost the fast path 25 %
@nb.njit(**JIT_LEAF, inline="always")
def draw_io(a, b, c, d, cls_cum, ncls, zshare, cls_miss):
    """Class k (by cumulative shares), mode (0 CCW, 1 z/HPF) and miss (disconnects) of an I/O,
    on the stream state (a, b, c, d): returns (k, mode, miss, a, b, c, d)."""
    k = 0
    if ncls > 1:
        u, a, b, c, d = uniform_st(a, b, c, d)
        while k < ncls - 1 and u > cls_cum[k]:
            k += 1
    mode = 0
    if zshare > 0.0:
        if zshare >= 1.0:
            mode = 1
        else:
            u, a, b, c, d = uniform_st(a, b, c, d)
            if u < zshare:
                mode = 1
    miss = False
    if cls_miss[k] > 0.0:
        if cls_miss[k] >= 1.0:
            miss = True
        else:
            u, a, b, c, d = uniform_st(a, b, c, d)
            miss = u < cls_miss[k]
    return k, mode, miss, a, b, c, d
