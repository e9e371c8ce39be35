"""A winner tree: the earliest of n (time, key) pairs, kept up to date in O(log n) per change.

The event engine keeps one per kind of per-channel event: each channel link's next transfer end
(key: the channel) and each channel MP's piece of work in progress (key: the event's code, as in
the heap); the root is the earliest of all, so choosing the next event never looks at every
channel. ``tw_t`` float64[2 M] (ms) and ``tw_c`` int64[2 M], M the least power of two >= n: leaf
M + i holds item i's time and key (INF past n); node k < M holds the earlier of its children 2 k
and 2 k + 1 by (time, key), so the root (node 1) is the least pair. With keys = indices that is
the earliest item with the lowest index among equals (what a scan in index order with a strict
``<`` finds); with the heap's codes, the order the heap would give. With n = 1 the leaf is the
root.
"""
import numpy as np

from . import alloc
from .bits import bits_float, float_bits, pair_before
from .options import JIT, JIT_STAGE, njit


@njit(**JIT)
def winner_new(n):
    """The tree of ``n`` >= 1 items, every time INF: (tw_t float64[2 M], tw_c int64[2 M])."""
    m = 1
    while m < n:
        m <<= 1
    tw_t = alloc.full(2 * m, np.inf, np.float64)
    tw_c = alloc.full(2 * m, -1, np.int64)
    for i in range(m):
        tw_c[m + i] = i          # past n: INF, never earlier than a real item
    return tw_t, tw_c


@njit(**JIT_STAGE)
def _leaf(i, v, key, tw_t, tw_c):
    """Item i's leaf set to (``v`` ms, ``key``): (its node, v's bits, key as int64)."""
    k = (tw_t.shape[0] >> 1) + i
    tw_t[k] = v
    tw_c[k] = key
    return k, float_bits(v), np.int64(key)


@njit(**JIT_STAGE)
def winner_set(i, v, key, tw_t, tw_c):
    """Item i is now (``v`` ms, ``key``): its leaf, then each node up to the root (log2 M steps).

    The winner coming up is carried in registers and met with each sibling, whose address depends
    only on the level (no load waits on the store below it); it is chosen by one 128-bit compare
    of (time's bits, key) (``bits.pair_before``: times are >= 0, keys >= 0 wherever a time is
    finite) and two selects, not a branch (which child wins is a coin flip to a predictor): 19 ->
    15 instructions a level (x86-64). Between INF pairs the keys may order otherwise than a signed
    compare (``winner_new``'s -1); no one reads the key of an INF root."""
    k, ct, cc = _leaf(i, v, key, tw_t, tw_c)
    while k > 1:
        st = float_bits(tw_t[k ^ 1])
        sc = tw_c[k ^ 1]
        take = pair_before(st, sc, ct, cc)
        ct = st if take else ct
        cc = sc if take else cc
        k >>= 1
        tw_t[k] = bits_float(ct)
        tw_c[k] = cc


@njit(**JIT_STAGE)
def winner_lower(i, v, key, tw_t, tw_c):
    """Item i, whose time is INF (idle), is now (``v`` ms, ``key``), v finite: as ``winner_set``,
    but a node it does not win is left as it is, and so is everything above it (a node is the
    earlier of its subtree's items; only i's moved, and earlier). So the climb stops where an
    earlier item holds the node: at 256 channels, when most hold work, after a few of the 8
    levels, where ``winner_set`` must compare with every sibling up to the root. A node is read
    and compared, and written only while i wins."""
    k, cv, cc = _leaf(i, v, key, tw_t, tw_c)
    while k > 1:
        k >>= 1
        if not pair_before(cv, cc, float_bits(tw_t[k]), tw_c[k]):
            break
        tw_t[k] = v
        tw_c[k] = cc
