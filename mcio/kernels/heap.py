"""A binary min-heap of (time, code) pairs in two parallel arrays; ``n`` lives in ``size[0]``.

Ties are broken by the code so the event order never depends on anything but the inputs.
Sifting moves a hole instead of swapping pairs: one write per level instead of four.

The event engine takes its root lazily (``heap_take``, ``heap_put``, ``heap_settle``; ``size``
int64[2], size[1] = 1 while the root is taken but still stored): most events schedule their own
I/O's next event at once, and putting that one in the taken root's place is one sift-down from
the root, which stops early when the new event is soon, instead of a pop (the last pair sifted
down from the root, nearly to the bottom) and a push. An entry is nothing but its key (time,
code), and keys are ordered totally (time, then code), so every correct priority queue hands out
the same sequence: the events, and every result, are bit-for-bit those of pop-then-push
(measured: all golden outputs identical; the minimal engine of benchmarks/event_floor.py gives
the same result both ways).
"""
import numpy as np

from .options import JIT_LEAF, njit


@njit(**JIT_LEAF)
def _before(t1, c1, t2, c2):
    """Event (t1, c1) comes before (t2, c2): earlier, or as early with the smaller code."""
    return t1 < t2 or (t1 == t2 and c1 < c2)


@njit(**JIT_LEAF)
def heap_push(t, c, size, time, code):
    i = size[0]
    size[0] = i + 1
    while i > 0:
        p = (i - 1) >> 1
        if _before(time, code, t[p], c[p]):
            t[i] = t[p]
            c[i] = c[p]
            i = p
        else:
            break
    t[i] = time
    c[i] = code


@njit(**JIT_LEAF)
def _sift_down(t, c, n, time, code):
    """Put (time, code) in the hole at the root of the heap t[:n], c[:n] and restore the heap."""
    i = 0
    while True:
        m = 2 * i + 1
        if m >= n:
            break
        r = m + 1
        if r < n and _before(t[r], c[r], t[m], c[m]):
            m = r
        if _before(t[m], c[m], time, code):
            t[i] = t[m]
            c[i] = c[m]
            i = m
        else:
            break
    t[i] = time
    c[i] = code


@njit(**JIT_LEAF)
def heap_pop(t, c, size):
    """Remove the root; the caller reads t[0], c[0] first."""
    n = size[0] - 1
    size[0] = n
    if n == 0:
        return
    _sift_down(t, c, n, t[n], c[n])


@njit(**JIT_LEAF)
def heap_take(t, c, size):
    """Take the root (the caller reads t[0], c[0] first): marked taken, removed by the next
    ``heap_put`` (which puts its pair in its place) or ``heap_settle``. size int64[2]."""
    size[1] = 1


@njit(**JIT_LEAF)
def heap_put(t, c, size, time, code):
    """Add (time, code): in a taken root's place if there is one, else pushed. size int64[2]."""
    if size[1] != 0:
        size[1] = 0
        _sift_down(t, c, size[0], time, code)
    else:
        heap_push(t, c, size, time, code)


@njit(**JIT_LEAF)
def heap_settle(t, c, size):
    """Remove a taken root that nothing replaced: t[0], c[0] is then the earliest pending event
    (if size[0] > 0). size int64[2]."""
    if size[1] != 0:
        size[1] = 0
        heap_pop(t, c, size)


@njit(**JIT_LEAF)
def min_replace_root(h, n, v):
    """Replace the least of the plain min-heap h[:n] (float64, e.g. servers' free times, ms) by
    ``v`` and restore the heap: the Kiefer-Wolfowitz step of a FIFO multi-server queue."""
    i = 0
    while True:
        m = 2 * i + 1
        if m >= n:
            break
        if m + 1 < n:
            m += np.int64(h[m + 1] < h[m])     # by arithmetic: a branch here mispredicts
        if h[m] < v:
            h[i] = h[m]
            i = m
        else:
            break
    h[i] = v
