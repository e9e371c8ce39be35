"""The data transfer of an I/O's connect: each link processor-shared among the transfers crossing
it (docs/design.md §2.2; the configuration's links: mcio/engine/tables.py).

A transfer of class k on channel c to control unit u crosses the links of its route (``lk``'s
rt_ptr / rt_ln, route index (c * U + u) * 2 + cls_dir[k]), the first being the channel's own link
``ch_link[c, cls_dir[k]]`` (a half-duplex channel has one link for both directions, a full-duplex
one a link per direction). Each link l is processor-shared: its rate ``ln_bw[l]`` (KB/ms) is
split evenly among the n_l transfers on it.

Two engines, chosen once per run by ``lk``'s routes member (None: every route is one link; also
``ip[IP_ROUTES_GENERAL]``); None is a type to Numba, so the single-link case is compiled without
the general engine (a kernel of its own, as fast as before routes existed):

- every route one link (the channel's own; today's configurations): the link's virtual time
  (KB served per transfer), so a transfer's end is fixed when it starts, the next end of each link
  kept in a winner tree over links (``tw_t``, ``tw_c``, key = the link);
- some route of several links (an ISL, a control-unit port, a card's data limit): a transfer
  moves at the least of its links' shares, min_l ln_bw[l] / n_l (each link's share is its rate
  split evenly; a transfer slowed elsewhere leaves its unused share idle: not max-min fair). Each
  transfer keeps its KB remaining, rate and last update (``g_rem``, ``g_rate``, ``g_tl``); when a
  link's count changes, every transfer on it is brought up to date and gets its new rate and end.
  The ends are one winner tree over I/O slots (key = the slot): the links' lists say which
  transfers to re-rate, the tree which ends next.

State ``ps`` (``links_state``): ps_list int64[Lk, LS] each link's transfers, ps_n int64[Lk] their
number, ps_v float64[Lk] / ps_tl float64[Lk] the link's virtual time and its last update,
ps_next_t float64[Lk] / ps_next_slot int64[Lk] its next transfer end, ln_t0 float64[Lk] when its
busy period began, tw_t / tw_c the winner tree, then (general engine) g_rem, g_rate, g_tl
float64[P], g_rt int64[P] the transfer's route index and g_pos int64[P, RMAX] its place in each
of its links' lists.

Per-link accumulators ``lns`` float64[Lk, N_LN] (slots below; mcio/engine/results_links.py):
busy ms (time with at least one transfer on the link) and KB carried (at each transfer's end).
A link ``ln_ch[l] = c`` >= 0 (channel c's read or only link) also adds its busy time to
chs[c, C_LINK_BUSY_MS]. ``lns`` with no rows (the single-path case, whose results have no
per-link figures): not kept.
"""
import numpy as np

from . import alloc
from .options import JIT, JIT_LEAF, JIT_STAGE, njit
from .stages import INF, SF_TAG, SF_XFER_KB, SI_CH, SI_CLS, SI_DEV, SI_POS, after_transfer
from .stats import C_LINK_BUSY_MS
from .winner import winner_lower, winner_new, winner_set

# per-link accumulators lns[link, LN_*]
LN_BUSY_MS, LN_KB = range(2)
N_LN = 2


@njit(**JIT)
def links_state(P, LS, gen, n_links):
    """The transfer engine's state at time 0 (``ps``, see the module docstring) for P I/O slots,
    Lk = n_links links of at most LS transfers each; the general engine's per-slot arrays only
    with its routes ``gen`` (else None: of length 1)."""
    rmax = 1
    general = False
    if gen is not None:
        general = True
        rt_ptr = gen[0]
        for i in range(rt_ptr.shape[0] - 1):
            r = rt_ptr[i + 1] - rt_ptr[i]
            rmax = r if r > rmax else rmax
    n_tree = (P if P > n_links else n_links) if general else n_links
    tw_t, tw_c = winner_new(n_tree)
    G = P if general else 1
    f8, i8 = np.float64, np.int64
    return (alloc.zeros((n_links, LS), i8), alloc.zeros(n_links, i8), alloc.zeros(n_links, f8),
            alloc.zeros(n_links, f8), alloc.full(n_links, INF, f8), alloc.full(n_links, -1, i8),
            alloc.zeros(n_links, f8), tw_t, tw_c, alloc.zeros(G, f8), alloc.zeros(G, f8),
            alloc.zeros(G, f8), alloc.zeros(G, i8), alloc.zeros((G, rmax), i8))


@njit(**JIT_STAGE)
def xfer_link(x, si, lk):
    """The channel link I/O x's transfer takes: its channel's link in its class's direction."""
    ch_link = lk[2]
    cls_dir = lk[3]
    return ch_link[si[x, SI_CH], cls_dir[si[x, SI_CLS]]]


@njit(**JIT_STAGE)
def _ps_advance(c, now, bw, ps_n, ps_v, ps_tl):
    """Move link c's virtual time (KB served per active transfer) forward to ``now``."""
    n = ps_n[c]
    if n == 1:
        # alone on the link (the common case below saturation): x / 1 is x to the bit, so the
        # division is left out
        ps_v[c] += (now - ps_tl[c]) * bw
    elif n > 0:
        ps_v[c] += (now - ps_tl[c]) * bw / n
    ps_tl[c] = now


@njit(**JIT_STAGE)
def _ps_next(c, now, bw, ps_n, ps_v, ps_list, sf, ps_next_t, ps_next_slot, tw_t, tw_c):
    """Recompute when link c's next transfer ends (processor sharing; ties to the lower slot),
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


@njit(**JIT_STAGE)
def _link_idle(l, t, ln_t0, lk, chs, lns, uni):
    """Link l's busy period ends at ``t``: into lns (and its channel's link busy; ``uni`` not
    None: channels alike, link l is channel l's)."""
    busy = t - ln_t0[l]
    if lns.shape[0] > 0:
        lns[l, LN_BUSY_MS] += busy
    if uni is None:
        ln_ch = lk[5]
        if ln_ch[l] >= 0:
            chs[ln_ch[l], C_LINK_BUSY_MS] += busy
    else:
        chs[l, C_LINK_BUSY_MS] += busy


@njit(**JIT_STAGE)
def stage_xfer(x, t, sf, si, ps, heap, lk, gen, uni, bw0):
    """The data transfer joins its link(s), processor-shared (rates ``lk``'s ln_bw, KB/ms).
    ``gen``: the routes (rt_ptr, rt_ln, dev_cu) when some has several links, else None (a
    type, so the single-link case compiles without the general engine). ``uni`` not None:
    every channel alike, half duplex, its link its own (link = channel) at ``bw0`` KB/ms."""
    ps_list, ps_n, ps_v, ps_tl, ps_next_t, ps_next_slot, ln_t0, tw_t, tw_c = ps[:9]
    kb = sf[x, SF_XFER_KB]
    if kb <= 0.0:
        return after_transfer(x, t, sf, heap)
    if gen is not None:
        _general_start(x, t, kb, si, ps, lk, gen)
        return -1
    if uni is None:
        c = xfer_link(x, si, lk)
        bw = lk[4][c]
    else:
        c = 0 if ps_n.shape[0] == 1 else si[x, SI_CH]      # (one channel: no load to wait for)
        bw = bw0
    n = ps_n[c]
    if n == 0:
        ln_t0[c] = t             # the link's busy period begins
    _ps_advance(c, t, bw, ps_n, ps_v, ps_tl)
    v = ps_v[c]
    tag = v + kb
    sf[x, SF_TAG] = tag
    si[x, SI_POS] = n
    ps_list[c, n] = x
    ps_n[c] = n + 1
    if n == 0:
        # alone on the link: it is the next to end, as _ps_next would find without reading back
        # the list and the tag just stored (rem * 1 is rem to the bit)
        rem = tag - v
        if rem < 0.0:
            rem = 0.0
        ps_next_t[c] = t + rem / bw
        ps_next_slot[c] = x
        winner_lower(c, ps_next_t[c], c, tw_t, tw_c)
    else:
        _ps_next(c, t, bw, ps_n, ps_v, ps_list, sf, ps_next_t, ps_next_slot, tw_t, tw_c)
    return -1


@njit(**JIT_STAGE)
def transfer_ends(c, t, sf, si, ps, lk, chs, lns, gen, uni, bw0):
    """The transfer at the winner tree's root ends at ``t`` (``c``: its key, the link, or with
    routes ``gen`` the I/O slot): remove it from its link(s), their busy periods into lns / chs
    if it was the last; returns its I/O."""
    if gen is not None:
        return _general_end(c, t, sf, si, ps, lk, gen, chs, lns)
    ps_list, ps_n, ps_v, ps_tl, ps_next_t, ps_next_slot, ln_t0, tw_t, tw_c = ps[:9]
    if uni is None:
        bw = lk[4][c]
    else:
        bw = bw0
    y = ps_next_slot[c]
    _ps_advance(c, t, bw, ps_n, ps_v, ps_tl)
    n = ps_n[c] - 1
    if n > 0:                # (alone: y is the list's only entry, nothing moves)
        last = ps_list[c, n]
        ps_list[c, si[y, SI_POS]] = last
        si[last, SI_POS] = si[y, SI_POS]
    ps_n[c] = n
    if ps_n[c] == 0:
        _link_idle(c, t, ln_t0, lk, chs, lns, uni)
    if lns.shape[0] > 0:
        lns[c, LN_KB] += sf[y, SF_XFER_KB]
    _ps_next(c, t, bw, ps_n, ps_v, ps_list, sf, ps_next_t, ps_next_slot, tw_t, tw_c)
    return y


# ---------------------------------------------------------------------------- general engine
# (JIT_LEAF, not inlined: a call in the general case only keeps the single-link event loop as
# small as it was)


@njit(**JIT_LEAF)
def _route_of(x, si, lk, gen):
    """I/O x's route index (c * U + u) * 2 + direction."""
    ch_link, cls_dir, rt_ptr, dev_cu = lk[2], lk[3], gen[0], gen[2]
    C = ch_link.shape[0]
    U = (rt_ptr.shape[0] - 1) // (2 * C)
    return (si[x, SI_CH] * U + dev_cu[si[x, SI_DEV]]) * 2 + cls_dir[si[x, SI_CLS]]


@njit(**JIT_LEAF)
def _rerate(y, t, ps, lk, gen):
    """Transfer y's KB remaining up to ``t``, then its rate (the least of its links' shares)
    and end (its leaf of the winner tree)."""
    ps_n, tw_t, tw_c, g_rem, g_rate, g_tl, g_rt = ps[1], ps[7], ps[8], ps[9], ps[10], ps[11], ps[12]
    ln_bw, rt_ptr, rt_ln = lk[4], gen[0], gen[1]
    rem = g_rem[y] - g_rate[y] * (t - g_tl[y])
    if rem < 0.0:
        rem = 0.0
    g_rem[y] = rem
    g_tl[y] = t
    i = g_rt[y]
    r = INF
    for j in range(rt_ptr[i], rt_ptr[i + 1]):
        l = rt_ln[j]
        s = ln_bw[l] / ps_n[l]
        if s < r:
            r = s
    g_rate[y] = r
    winner_set(y, t + rem / r, y, tw_t, tw_c)


@njit(**JIT_LEAF)
def _rerate_links(i, t, ps, lk, gen):
    """Every transfer on a link of route i: a new rate (their links' counts changed)."""
    ps_list, ps_n = ps[0], ps[1]
    rt_ptr, rt_ln = gen[0], gen[1]
    for j in range(rt_ptr[i], rt_ptr[i + 1]):
        l = rt_ln[j]
        for q in range(ps_n[l]):
            _rerate(ps_list[l, q], t, ps, lk, gen)


@njit(**JIT_LEAF)
def _general_start(x, t, kb, si, ps, lk, gen):
    """Transfer x (kb KB) joins every link of its route."""
    ps_list, ps_n, ln_t0 = ps[0], ps[1], ps[6]
    g_rem, g_rate, g_tl, g_rt, g_pos = ps[9], ps[10], ps[11], ps[12], ps[13]
    rt_ptr, rt_ln = gen[0], gen[1]
    i = _route_of(x, si, lk, gen)
    g_rt[x] = i
    g_rem[x] = kb
    g_rate[x] = 0.0
    g_tl[x] = t
    a = rt_ptr[i]
    for j in range(a, rt_ptr[i + 1]):
        l = rt_ln[j]
        if ps_n[l] == 0:
            ln_t0[l] = t
        g_pos[x, j - a] = ps_n[l]
        ps_list[l, ps_n[l]] = x
        ps_n[l] += 1
    _rerate_links(i, t, ps, lk, gen)


@njit(**JIT_LEAF)
def _general_end(y, t, sf, si, ps, lk, gen, chs, lns):
    """Transfer y's end: it leaves its links (each's busy period and KB into lns), the others
    on them get their new rates; returns y."""
    ps_list, ps_n, ln_t0, tw_t, tw_c = ps[0], ps[1], ps[6], ps[7], ps[8]
    g_rt, g_pos = ps[12], ps[13]
    rt_ptr, rt_ln = gen[0], gen[1]
    i = g_rt[y]
    a = rt_ptr[i]
    kb = sf[y, SF_XFER_KB]
    for j in range(a, rt_ptr[i + 1]):
        l = rt_ln[j]
        p = g_pos[y, j - a]
        n = ps_n[l] - 1
        z = ps_list[l, n]
        ps_list[l, p] = z
        if z != y:       # z's place on link l moves to p: find l in z's route
            iz = g_rt[z]
            for jj in range(rt_ptr[iz], rt_ptr[iz + 1]):
                if rt_ln[jj] == l:
                    g_pos[z, jj - rt_ptr[iz]] = p
                    break
        ps_n[l] = n
        if n == 0:
            _link_idle(l, t, ln_t0, lk, chs, lns, None)
        if lns.shape[0] > 0:
            lns[l, LN_KB] += kb
    winner_set(y, INF, y, tw_t, tw_c)
    _rerate_links(i, t, ps, lk, gen)
    return y


@njit(**JIT)
def links_restart(t, ps, lns, cards):
    """The measurement starts at ``t``: the per-link and per-card accumulators from now."""
    lns[:, :] = 0.0
    cards[:, :] = 0.0
    ln_t0 = ps[6]
    for l in range(ln_t0.shape[0]):
        ln_t0[l] = t


@njit(**JIT)
def links_close(t, ps, lk, chs, lns):
    """The measurement ends at ``t``: busy links' busy periods up to ``t``."""
    ps_n, ln_t0 = ps[1], ps[6]
    for l in range(ps_n.shape[0]):
        if ps_n[l] > 0:
            _link_idle(l, t, ln_t0, lk, chs, lns, None)
