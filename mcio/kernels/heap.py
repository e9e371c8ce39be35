"""A binary min-heap of (time, code) pairs in two parallel arrays; ``n`` lives in ``size[0]``.

Ties are broken by the code so the event order never depends on anything but the inputs.
Sifting moves a hole instead of swapping pairs: one write per level instead of four.
"""
import numba as nb

from .options import JIT_LEAF


@nb.njit(**JIT_LEAF)
def heap_push(t, c, size, time, code):
    i = size[0]
    size[0] = i + 1
    while i > 0:
        p = (i - 1) >> 1
        tp = t[p]
        if time < tp or (time == tp and code < c[p]):
            t[i] = tp
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
        if r < n and (t[r] < t[m] or (t[r] == t[m] and c[r] < c[m])):
            m = r
        tm = t[m]
        if tm < time or (tm == time and c[m] < code):
            t[i] = tm
            c[i] = c[m]
            i = m
        else:
            break
    t[i] = time
    c[i] = code
