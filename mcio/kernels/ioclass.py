"""What a new I/O is: its class, its transport mode and whether it misses the cache.

Shared by the event engine and the fast path so both turn uniforms into attributes the same way.
A uniform is needed only where a draw can change the answer (``attr_draws``); where none is, pass
0.5, for which ``u < p`` is p's own truth when p is 0 or >= 1.
"""

from .options import JIT_LEAF, njit


@njit(**JIT_LEAF)
def attr_draws(ncls, zshare, cls_miss):
    """Which attributes need a uniform: (class, mode, miss)."""
    need_miss = False
    for k in range(ncls):
        if 0.0 < cls_miss[k] < 1.0:
            need_miss = True
    return ncls > 1, 0.0 < zshare < 1.0, need_miss


@njit(**JIT_LEAF)
def io_class(u_cls, cls_cum, ncls):
    """Class k of an I/O by the cumulative class shares, from a uniform."""
    k = 0
    while k < ncls - 1 and u_cls > cls_cum[k]:
        k += 1
    return k


@njit(**JIT_LEAF)
def io_attrs(u_cls, u_mode, u_miss, cls_cum, ncls, zshare, cls_miss):
    """Class k, mode (0 CCW, 1 z/HPF) and miss (disconnects) of an I/O from three uniforms:
    returns (k, mode, miss)."""
    k = io_class(u_cls, cls_cum, ncls)
    mode = 1 if u_mode < zshare else 0
    return k, mode, u_miss < cls_miss[k]
