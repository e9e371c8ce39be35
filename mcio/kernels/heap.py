"""A binary min-heap of (time, code) pairs in two parallel arrays; ``n`` lives in ``size[0]``.

Ties are broken by the code so the event order never depends on anything but the inputs.
"""
import numba as nb

from .options import JIT


@nb.njit(**JIT, inline="always")
def _less(t, c, i, j):
    return t[i] < t[j] or (t[i] == t[j] and c[i] < c[j])


@nb.njit(**JIT)
def heap_push(t, c, size, time, code):
    i = size[0]
    size[0] = i + 1
    t[i] = time
    c[i] = code
    while i > 0:
        p = (i - 1) >> 1
        if _less(t, c, i, p):
            t[i], t[p] = t[p], t[i]
            c[i], c[p] = c[p], c[i]
            i = p
        else:
            break


@nb.njit(**JIT)
def heap_pop(t, c, size):
    """Remove the root; the caller reads t[0], c[0] first."""
    n = size[0] - 1
    size[0] = n
    t[0] = t[n]
    c[0] = c[n]
    i = 0
    while True:
        l = 2 * i + 1
        if l >= n:
            break
        m = l
        r = l + 1
        if r < n and _less(t, c, r, l):
            m = r
        if _less(t, c, m, i):
            t[i], t[m] = t[m], t[i]
            c[i], c[m] = c[m], c[i]
            i = m
        else:
            break
