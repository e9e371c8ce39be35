"""A binary min-heap of (time, code) pairs in two parallel arrays; ``n`` lives in ``size[0]``.

Ties are broken by the code so the event order never depends on anything but the inputs.
Sifting moves a hole instead of swapping pairs: one write per level instead of four.
"""
import numba as nb

from .options import JIT_LEAF


@nb.njit(**JIT_LEAF)
def _before(t1, c1, t2, c2):
    """Event (t1, c1) comes before (t2, c2): earlier, or as early with the smaller code."""
    return t1 < t2 or (t1 == t2 and c1 < c2)


@nb.njit(**JIT_LEAF)
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


@nb.njit(**JIT_LEAF)
def heap_pop(t, c, size):
    """Remove the root; the caller reads t[0], c[0] first."""
    n = size[0] - 1
    size[0] = n
    if n == 0:
        return
    time = t[n]
    code = c[n]
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


@nb.njit(**JIT_LEAF)
def min_replace_root(h, n, v):
    """Replace the least of the plain min-heap h[:n] (float64, e.g. servers' free times, ms) by
    ``v`` and restore the heap: the Kiefer-Wolfowitz step of a FIFO multi-server queue."""
    i = 0
    while True:
        m = 2 * i + 1
        if m >= n:
            break
        if m + 1 < n and h[m + 1] < h[m]:
            m += 1
        if h[m] < v:
            h[i] = h[m]
            i = m
        else:
            break
    h[i] = v
