"""The data transfer of an I/O's connect: each link processor-shared among the transfers crossing
it (docs/design.md §2.2).

State ``ps`` (built in ``iopath._new_state``; see stages.py's module docstring): ps_list
int64[C, L], ps_n int64[C], ps_v float64[C], ps_tl float64[C], ps_next_t float64[C],
ps_next_slot int64[C], ln_t0 float64[C], tw_t float64[2 M], tw_c int64[2 M]: each channel link's
transfers, its virtual time (KB served per transfer), its next transfer end and the winner tree
of those ends (``winner``).
"""
import numba as nb

from .options import JIT_STAGE
from .stages import INF, SF_TAG, SF_XFER_KB, SI_CH, SI_POS, after_transfer
from .stats import C_LINK_BUSY_MS
from .winner import winner_set


@nb.njit(**JIT_STAGE)
def _ps_advance(c, now, bw, ps_n, ps_v, ps_tl):
    """Move channel c's virtual time (KB served per active transfer) forward to ``now``."""
    if ps_n[c] > 0:
        ps_v[c] += (now - ps_tl[c]) * bw / ps_n[c]
    ps_tl[c] = now


@nb.njit(**JIT_STAGE)
def _ps_next(c, now, bw, ps_n, ps_v, ps_list, sf, ps_next_t, ps_next_slot, tw_t, tw_c):
    """Recompute when channel c's next transfer ends (processor sharing; ties to the lower slot),
    and its leaf of the winner tree."""
    n = ps_n[c]
    if n == 0:
        ps_next_t[c] = INF
        ps_next_slot[c] = -1
        winner_set(c, INF, c, tw_t, tw_c)
        return
    best = ps_list[c, 0]
    for j in range(1, n):
        y = ps_list[c, j]
        if sf[y, SF_TAG] < sf[best, SF_TAG] or (sf[y, SF_TAG] == sf[best, SF_TAG] and y < best):
            best = y
    rem = sf[best, SF_TAG] - ps_v[c]
    if rem < 0.0:
        rem = 0.0
    ps_next_t[c] = now + rem * n / bw
    ps_next_slot[c] = best
    winner_set(c, ps_next_t[c], c, tw_t, tw_c)


@nb.njit(**JIT_STAGE)
def stage_xfer(x, t, sf, si, ps, heap, bw):
    """The data transfer joins its channel's processor-shared link (bandwidth ``bw`` KB/ms)."""
    ps_list, ps_n, ps_v, ps_tl, ps_next_t, ps_next_slot, ln_t0, tw_t, tw_c = ps
    kb = sf[x, SF_XFER_KB]
    if kb <= 0.0:
        return after_transfer(x, t, sf, heap)
    c = si[x, SI_CH]
    if ps_n[c] == 0:
        ln_t0[c] = t             # the link's busy period begins
    _ps_advance(c, t, bw, ps_n, ps_v, ps_tl)
    sf[x, SF_TAG] = ps_v[c] + kb
    si[x, SI_POS] = ps_n[c]
    ps_list[c, ps_n[c]] = x
    ps_n[c] += 1
    _ps_next(c, t, bw, ps_n, ps_v, ps_list, sf, ps_next_t, ps_next_slot, tw_t, tw_c)
    return -1


@nb.njit(**JIT_STAGE)
def transfer_ends(c, t, sf, si, ps, bw, chs):
    """Channel c's next transfer ends at ``t``: remove it from the link (its busy period into
    chs[c, C_LINK_BUSY_MS] if it was the last); returns its I/O."""
    ps_list, ps_n, ps_v, ps_tl, ps_next_t, ps_next_slot, ln_t0, tw_t, tw_c = ps
    y = ps_next_slot[c]
    _ps_advance(c, t, bw, ps_n, ps_v, ps_tl)
    last = ps_list[c, ps_n[c] - 1]
    ps_list[c, si[y, SI_POS]] = last
    si[last, SI_POS] = si[y, SI_POS]
    ps_n[c] -= 1
    if ps_n[c] == 0:
        chs[c, C_LINK_BUSY_MS] += t - ln_t0[c]
    _ps_next(c, t, bw, ps_n, ps_v, ps_list, sf, ps_next_t, ps_next_slot, tw_t, tw_c)
    return y
