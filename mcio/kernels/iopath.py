"""The event-driven I/O-path engine: one replication of the life of an I/O (DESIGN.md §2.2).

Time is in ms. An I/O is a slot (closed: one per customer; open: drawn from a free pool). Each
slot moves through stages; a stage either finishes at once (the slot goes on the ready stack) or
makes the slot wait: in a FIFO (device, path group, channel MP, host adapter, back end), on a
timed event in the heap (MP work, host-adapter and back-end service, protocol, think), or in the
processor-shared transfer of its channel's link. Statistics stream into fixed-size accumulators:
memory does not grow with the number of I/Os.

Stages: ARRIVE (SSCH issued; IOSQ if every exposure of the device is busy) -> GETCH (a channel of
the device's path group with a free open exchange, else deferred) -> MPSTART (channel MP start
work, FIFO) -> HA (the CMR: control-unit host adapter) -> BE (disconnect at the back end, misses
only) -> CONN (per-command or per-I/O protocol time, then the data transfer at link bandwidth
shared among the channel's transfers) -> MPEND (end-of-I/O MP work, served before new starts)
-> DONE (exchange closed, device freed, statistics taken).
"""
import math

import numba as nb
import numpy as np

from .blockrng import next_from
from .heap import heap_pop, heap_push
from .ioclass import attr_draws, io_attrs
from .histogram import hist_add
from .layout import (D_BACKEND, D_HA, D_INTERARRIVAL, D_MP_SHAPE, D_THINK, FP_LINK_KB_PER_MS,
                     FP_MP_START_FRACTION, FP_ZHPF_SHARE, IP_BE_SERVERS, IP_BIND, IP_CHANNELS,
                     IP_CLASSES, IP_DEVICES, IP_EXPOSURES, IP_GROUPS, IP_HA_SERVERS, IP_HYPERPAV,
                     IP_MEASURE, IP_OE_CAP, IP_OPEN, IP_SELECTION, IP_SLOTS, IP_TRACE, IP_WARMUP,
                     N_ROWS, R_CLASS, R_DEVICE, R_MISS, R_MODE)
from .stats import (A_AREA_BE, A_AREA_HA, A_AREA_IOSQ, A_AREA_MPQ, A_AREA_SYS, A_DEFERRED,
                    A_DEV_BUSY_MS, A_DEV_BUSY_ZVM_MS, A_EVENTS, A_N, A_SQ_CMR, A_SQ_CONN,
                    A_SQ_DISC, A_SQ_IOSQ, A_SQ_PEND, A_SQ_RESP, A_SUM_CMR, A_SUM_CONN, A_SUM_DISC,
                    A_SUM_IOSQ, A_SUM_PEND, A_SUM_RESP, A_TIME_MS, A_UNSTABLE, C_AREA_OE,
                    C_DEFERRED, C_KB, C_LINK_BUSY_MS, C_MP_BUSY_MS, C_OE_MAX, C_SSCH, V_BUSY_MS,
                    V_SSCH)
from .options import JIT, JIT_LEAF
from .rng import uniform

ARRIVE, GETCH, MPSTART, HA, AFTER_HA, BE, CONN, XFER, MPEND, DONE = range(10)
EV_ARRIVE, EV_MP, EV_HA, EV_BE, EV_PROTO = range(5)   # EV_BE = EV_HA + 1: control-unit station index
INF = np.inf

# slot state columns: sf[slot, SF_*] (ms), si[slot, SI_*]
(SF_T_ARR, SF_T_START, SF_T_MARK, SF_PEND, SF_CMR, SF_DISC, SF_W_START, SF_W_END, SF_TAG) = range(9)
N_SF = 9
(SI_DEV, SI_CLS, SI_MODE, SI_CH, SI_DEF, SI_MPSTAGE, SI_POS, SI_NXT, SI_G_PREV, SI_G_NEXT, SI_MISS, SI_ALIAS) = range(12)
N_SI = 12
VBLOCK = 128                     # variates per refill of a distribution's block


@nb.njit(**JIT_LEAF)
def _is_zero(dp, row):
    return dp[row, 0] == 0.0 and dp[row, 1] == 0.0


@nb.njit(**JIT_LEAF)
def _enqueue(head, tail, si, q, slot):
    si[slot, SI_NXT] = -1
    if head[q] < 0:
        head[q] = slot
    else:
        si[tail[q], SI_NXT] = slot
    tail[q] = slot


@nb.njit(**JIT_LEAF)
def _dequeue(head, tail, si, q):
    slot = head[q]
    head[q] = si[slot, SI_NXT]
    if head[q] < 0:
        tail[q] = -1
    return slot


@nb.njit(**JIT_LEAF)
def _ps_advance(c, now, bw, ps_n, ps_v, ps_tl):
    """Move channel c's virtual time (KB served per active transfer) forward to ``now``."""
    if ps_n[c] > 0:
        ps_v[c] += (now - ps_tl[c]) * bw / ps_n[c]
    ps_tl[c] = now


@nb.njit(**JIT_LEAF, inline="always")
def _ps_next(c, now, bw, ps_n, ps_v, ps_list, sf, ps_next_t, ps_next_slot):
    """Recompute when channel c's next transfer ends (processor sharing)."""
    n = ps_n[c]
    if n == 0:
        ps_next_t[c] = INF
        ps_next_slot[c] = -1
        return
    best = ps_list[c, 0]
    for j in range(1, n):
        x = ps_list[c, j]
        if sf[x, SF_TAG] < sf[best, SF_TAG] or (sf[x, SF_TAG] == sf[best, SF_TAG] and x < best):
            best = x
    rem = sf[best, SF_TAG] - ps_v[c]
    if rem < 0.0:
        rem = 0.0
    ps_next_t[c] = now + rem * n / bw
    ps_next_slot[c] = best


@nb.njit(**JIT)
def run_one(fp, ip, dp, ev, ec, cls_cum, cls_kb, cls_miss, cls_mp, cls_proto,
            al_prob, al_idx, dev_grp, bound_dev, grp_ptr, grp_ch, chg_ptr, chg, trace,
            s, lanes, scal, acc, chs, devs, hist, bat):
    """Simulate one replication; fill acc[N_ACC], chs[C, N_CH], devs[D, N_DEV], hist[B].

    ``s`` is this replication's stream state (uint64[4]). ``bat[k]`` sums the response times of
    completions i (counted from the start, warm-up included) with i * len(bat) // total = k:
    the batch-mean series the warm-up diagnostic (MSER, mcio/warmup.py) reads.
    """
    is_open = ip[IP_OPEN] == 1
    P = ip[IP_SLOTS]
    D = ip[IP_DEVICES]
    EXPO = ip[IP_EXPOSURES]
    # HyperPAV: each device has its base; the aliases (EXPO - 1) are one pool shared by all
    # devices, and a freed alias goes to the oldest I/O queued on any device.
    HPAV = ip[IP_HYPERPAV] == 1
    pool = EXPO - 1
    C = ip[IP_CHANNELS]
    OECAP = ip[IP_OE_CAP]
    SEL = ip[IP_SELECTION]
    WARM = ip[IP_WARMUP]
    STOP = ip[IP_WARMUP] + ip[IP_MEASURE]
    BIND = ip[IP_BIND] == 1
    NCLS = ip[IP_CLASSES]
    TRACE = ip[IP_TRACE] == 1
    G = ip[IP_GROUPS]
    start_frac = fp[FP_MP_START_FRACTION]
    bw = fp[FP_LINK_KB_PER_MS]
    zshare = fp[FP_ZHPF_SHARE]
    NB = bat.shape[0]
    think_zero = _is_zero(dp, D_THINK)
    # Every draw comes from its row's block (``blockrng.next_from``; each row has its own
    # substreams). Rows are passed as np.int64(...): a module constant would reach the callee
    # as a literal type, and Numba would compile it once per value.
    vb = np.empty((N_ROWS, VBLOCK))
    vpos = np.full(N_ROWS, VBLOCK, np.int64)
    cls_draw, mode_draw, miss_draw = attr_draws(NCLS, zshare, cls_miss)
    mp_det = dp[D_MP_SHAPE, 0] == 0.0

    # ---- slot state: one row per slot (few base pointers: less register pressure) ----
    sf = np.zeros((P, N_SF))
    si = np.zeros((P, N_SI), np.int64)
    si[:, SI_NXT] = -1
    si[:, SI_G_PREV] = -1
    si[:, SI_G_NEXT] = -1

    # ---- queues and resources ----
    dev_busy = np.zeros(D, np.int64)
    dq_h = np.full(D, -1, np.int64)
    dq_t = np.full(D, -1, np.int64)
    base_busy = np.zeros(D, np.bool_)       # HyperPAV: the device's base exposure is in use
    g_head = -1
    g_tail = -1
    gq_h = np.full(G, -1, np.int64)
    gq_t = np.full(G, -1, np.int64)
    rotor = np.zeros(G, np.int64)
    oe = np.zeros(C, np.int64)
    mp_busy = np.zeros(C, np.int64)
    mq_h = np.full(C, -1, np.int64)        # MP start-work FIFO
    mq_t = np.full(C, -1, np.int64)
    mq_n = np.zeros(C, np.int64)
    me_h = np.full(C, -1, np.int64)        # MP end-work FIFO (served first)
    me_t = np.full(C, -1, np.int64)
    # the control unit's two multi-server FIFO stations: 0 = host adapter (CMR), 1 = back end
    cu_servers = np.array([ip[IP_HA_SERVERS], ip[IP_BE_SERVERS]], np.int64)
    cu_row = np.array([D_HA, D_BACKEND], np.int64)
    cu_zero = np.array([_is_zero(dp, D_HA), _is_zero(dp, D_BACKEND)])
    cu_busy = np.zeros(2, np.int64)
    cu_h = np.full(2, -1, np.int64)
    cu_t = np.full(2, -1, np.int64)
    L = min(OECAP, P)
    ps_list = np.zeros((C, L), np.int64)
    ps_n = np.zeros(C, np.int64)
    ps_v = np.zeros(C)
    ps_tl = np.zeros(C)
    ps_next_t = np.full(C, INF)
    ps_next_slot = np.full(C, -1, np.int64)

    # ---- events ----
    h_t = np.zeros(P + 1)
    h_c = np.zeros(P + 1, np.int64)
    h_n = np.zeros(1, np.int64)
    rs_slot = np.zeros(2 * P + 8, np.int64)
    rs_stage = np.zeros(2 * P + 8, np.int64)
    rs_n = 0
    free = np.arange(P - 1, -1, -1).astype(np.int64)   # open: pool of free slots (a stack)
    n_free = P

    t = 0.0
    t_last = 0.0
    a_sys = a_iosq = a_ha = a_be = a_mpq = n_events = 0.0
    b_cur = 0
    b_next = (STOP + NB - 1) // NB
    t0 = 0.0
    n_sys = 0
    n_iosq = 0
    done = 0
    stop = False
    trace_i = 0
    if TRACE:
        u = uniform(s)
        trace_i = int(u * trace.shape[0]) % trace.shape[0]
    next_arr = INF
    if is_open:
        if TRACE:
            next_arr = trace[trace_i]
            trace_i = (trace_i + 1) % trace.shape[0]
        else:
            next_arr = next_from(vb, vpos, np.int64(D_INTERARRIVAL), lanes, scal, dp, ev, ec)
    else:
        for i in range(P):
            if think_zero:
                rs_slot[rs_n] = i
                rs_stage[rs_n] = ARRIVE
                rs_n += 1
            else:
                dx = next_from(vb, vpos, np.int64(D_THINK), lanes, scal, dp, ev, ec)
                heap_push(h_t, h_c, h_n, dx, i * 8 + EV_ARRIVE)

    x_next = -1                     # the I/O whose event was just taken, and its stage
    stage_next = -1
    while True:
        # ---- run every stage that can finish at time t ----
        while (x_next >= 0 or rs_n > 0) and not stop:
            if x_next >= 0:
                x = x_next
                stage = stage_next
                x_next = -1
            else:
                rs_n -= 1
                x = rs_slot[rs_n]
                stage = rs_stage[rs_n]
            while stage >= 0:
                if stage == ARRIVE:
                    n_sys += 1
                    sf[x, SF_T_ARR] = t
                    u_cls = u_mode = u_miss = 0.5
                    if cls_draw:
                        u_cls = next_from(vb, vpos, np.int64(R_CLASS), lanes, scal, dp, ev, ec)
                    if mode_draw:
                        u_mode = next_from(vb, vpos, np.int64(R_MODE), lanes, scal, dp, ev, ec)
                    if miss_draw:
                        u_miss = next_from(vb, vpos, np.int64(R_MISS), lanes, scal, dp, ev, ec)
                    k, mode, miss = io_attrs(u_cls, u_mode, u_miss, cls_cum, NCLS, zshare, cls_miss)
                    si[x, SI_CLS] = k
                    si[x, SI_MODE] = mode
                    si[x, SI_MISS] = miss
                    if BIND:
                        d = bound_dev[x]
                    elif D == 1:
                        d = 0
                    else:
                        u = next_from(vb, vpos, np.int64(R_DEVICE), lanes, scal, dp, ev, ec)
                        ud = u * D
                        d = int(ud)
                        if d >= D:
                            d = D - 1
                        if ud - d >= al_prob[d]:
                            d = al_idx[d]
                    si[x, SI_DEV] = d
                    si[x, SI_DEF] = 0
                    if HPAV:
                        if not base_busy[d] or pool > 0:
                            si[x, SI_ALIAS] = base_busy[d]
                            if si[x, SI_ALIAS]:
                                pool -= 1
                            else:
                                base_busy[d] = True
                            dev_busy[d] += 1
                            stage = GETCH
                        else:
                            _enqueue(dq_h, dq_t, si, d, x)
                            si[x, SI_G_PREV] = g_tail
                            si[x, SI_G_NEXT] = -1
                            if g_tail >= 0:
                                si[g_tail, SI_G_NEXT] = x
                            else:
                                g_head = x
                            g_tail = x
                            n_iosq += 1
                            stage = -1
                    elif dev_busy[d] < EXPO:
                        dev_busy[d] += 1
                        stage = GETCH
                    else:
                        _enqueue(dq_h, dq_t, si, d, x)
                        n_iosq += 1
                        stage = -1
                elif stage == GETCH:
                    sf[x, SF_T_START] = t
                    g = dev_grp[si[x, SI_DEV]]
                    a = grp_ptr[g]
                    m = grp_ptr[g + 1] - a
                    c = -1
                    if SEL == 0:
                        for j in range(m):
                            jj = (rotor[g] + j) % m
                            cc = grp_ch[a + jj]
                            if oe[cc] < OECAP:
                                c = cc
                                rotor[g] = (jj + 1) % m
                                break
                    else:
                        # fewest open exchanges; ties go round the group, not to the lowest CHPID
                        for j in range(m):
                            cc = grp_ch[a + (rotor[g] + j) % m]
                            if oe[cc] < OECAP and (c < 0 or oe[cc] < oe[c]):
                                c = cc
                        rotor[g] = (rotor[g] + 1) % m
                    if c >= 0:
                        oe[c] += 1
                        if oe[c] > chs[c, C_OE_MAX]:
                            chs[c, C_OE_MAX] = oe[c]
                        si[x, SI_CH] = c
                        stage = MPSTART
                    else:
                        si[x, SI_DEF] = 1
                        _enqueue(gq_h, gq_t, si, g, x)
                        stage = -1
                elif stage == MPSTART:
                    w = cls_mp[si[x, SI_CLS], si[x, SI_MODE]]
                    if not mp_det and w > 0.0:
                        dx = next_from(vb, vpos, np.int64(D_MP_SHAPE), lanes, scal, dp, ev, ec)
                        w *= dx
                    sf[x, SF_W_START] = w * start_frac
                    sf[x, SF_W_END] = w - sf[x, SF_W_START]
                    if sf[x, SF_W_START] > 0.0:
                        c = si[x, SI_CH]
                        si[x, SI_MPSTAGE] = 0
                        if mp_busy[c] == 0:
                            mp_busy[c] = 1
                            heap_push(h_t, h_c, h_n, t + sf[x, SF_W_START], x * 8 + EV_MP)
                        else:
                            _enqueue(mq_h, mq_t, si, c, x)
                            mq_n[c] += 1
                        stage = -1
                    else:
                        stage = HA
                elif stage == HA or stage == BE:
                    st = 0 if stage == HA else 1
                    sf[x, SF_T_MARK] = t
                    if cu_zero[st]:
                        stage = AFTER_HA if st == 0 else CONN
                    elif cu_busy[st] < cu_servers[st]:
                        cu_busy[st] += 1
                        dx = next_from(vb, vpos, cu_row[st], lanes, scal, dp, ev, ec)
                        heap_push(h_t, h_c, h_n, t + dx, x * 8 + EV_HA + st)
                        stage = -1
                    else:
                        _enqueue(cu_h, cu_t, si, st, x)
                        stage = -1
                elif stage == AFTER_HA:
                    sf[x, SF_CMR] = t - sf[x, SF_T_MARK]
                    sf[x, SF_PEND] = t - sf[x, SF_T_START]
                    sf[x, SF_DISC] = 0.0
                    stage = BE if si[x, SI_MISS] else CONN
                elif stage == CONN:
                    sf[x, SF_T_MARK] = t
                    pr = cls_proto[si[x, SI_CLS], si[x, SI_MODE]]
                    if pr > 0.0:
                        heap_push(h_t, h_c, h_n, t + pr, x * 8 + EV_PROTO)
                        stage = -1
                    else:
                        stage = XFER
                elif stage == XFER:
                    kb = cls_kb[si[x, SI_CLS]]
                    if kb > 0.0:
                        c = si[x, SI_CH]
                        _ps_advance(c, t, bw, ps_n, ps_v, ps_tl)
                        sf[x, SF_TAG] = ps_v[c] + kb
                        si[x, SI_POS] = ps_n[c]
                        ps_list[c, ps_n[c]] = x
                        ps_n[c] += 1
                        _ps_next(c, t, bw, ps_n, ps_v, ps_list, sf, ps_next_t, ps_next_slot)
                        stage = -1
                    else:
                        stage = MPEND
                elif stage == MPEND:
                    if sf[x, SF_W_END] > 0.0:
                        c = si[x, SI_CH]
                        si[x, SI_MPSTAGE] = 1
                        if mp_busy[c] == 0:
                            mp_busy[c] = 1
                            heap_push(h_t, h_c, h_n, t + sf[x, SF_W_END], x * 8 + EV_MP)
                        else:
                            _enqueue(me_h, me_t, si, c, x)
                        stage = -1
                    else:
                        stage = DONE
                else:  # DONE
                    c = si[x, SI_CH]
                    d = si[x, SI_DEV]
                    # completion ``done`` belongs to MSER batch done * NB // STOP (no division)
                    while done >= b_next:
                        b_cur += 1
                        b_next = ((b_cur + 1) * STOP + NB - 1) // NB
                    bat[b_cur] += t - sf[x, SF_T_ARR]
                    done += 1
                    if done > WARM:
                        resp = t - sf[x, SF_T_ARR]
                        iosq = sf[x, SF_T_START] - sf[x, SF_T_ARR]
                        conn = t - sf[x, SF_T_MARK]
                        acc[A_N] += 1.0
                        acc[A_SUM_RESP] += resp
                        acc[A_SUM_IOSQ] += iosq
                        acc[A_SUM_PEND] += sf[x, SF_PEND]
                        acc[A_SUM_CMR] += sf[x, SF_CMR]
                        acc[A_SUM_DISC] += sf[x, SF_DISC]
                        acc[A_SUM_CONN] += conn
                        acc[A_SQ_RESP] += resp * resp
                        acc[A_SQ_IOSQ] += iosq * iosq
                        acc[A_SQ_PEND] += sf[x, SF_PEND] * sf[x, SF_PEND]
                        acc[A_SQ_CMR] += sf[x, SF_CMR] * sf[x, SF_CMR]
                        acc[A_SQ_DISC] += sf[x, SF_DISC] * sf[x, SF_DISC]
                        acc[A_SQ_CONN] += conn * conn
                        acc[A_DEV_BUSY_MS] += sf[x, SF_DISC] + conn
                        acc[A_DEV_BUSY_ZVM_MS] += t - sf[x, SF_T_START]
                        acc[A_DEFERRED] += si[x, SI_DEF]
                        hist_add(hist, resp)
                        chs[c, C_SSCH] += 1.0
                        chs[c, C_KB] += cls_kb[si[x, SI_CLS]]
                        chs[c, C_DEFERRED] += si[x, SI_DEF]
                        devs[d, V_SSCH] += 1.0
                        devs[d, V_BUSY_MS] += sf[x, SF_DISC] + conn
                    if done == WARM:
                        # warm-up over: measurement starts now, from the current state
                        acc[:] = 0.0
                        a_sys = a_iosq = a_ha = a_be = a_mpq = n_events = 0.0
                        chs[:, :] = 0.0
                        devs[:, :] = 0.0
                        hist[:] = 0
                        for cc in range(C):
                            chs[cc, C_OE_MAX] = oe[cc]
                        t0 = t
                    if done >= STOP:
                        stop = True
                    # close the exchange; a deferred I/O of a group on this channel takes it
                    oe[c] -= 1
                    best_g = -1
                    for j in range(chg_ptr[c], chg_ptr[c + 1]):
                        gg = chg[j]
                        if gq_h[gg] >= 0 and (best_g < 0 or sf[gq_h[gg], SF_T_START] < sf[gq_h[best_g], SF_T_START]):
                            best_g = gg
                    if best_g >= 0:
                        y = _dequeue(gq_h, gq_t, si, best_g)
                        oe[c] += 1
                        si[y, SI_CH] = c
                        rs_slot[rs_n] = y
                        rs_stage[rs_n] = MPSTART
                        rs_n += 1
                    # free the device; its next queued I/O starts
                    dev_busy[d] -= 1
                    y = -1
                    if HPAV:
                        if si[x, SI_ALIAS]:
                            pool += 1
                            y = g_head          # the oldest queued I/O heads its device's queue
                            if y >= 0:
                                _dequeue(dq_h, dq_t, si, si[y, SI_DEV])
                                pool -= 1
                                si[y, SI_ALIAS] = True
                        elif dq_h[d] >= 0:
                            y = _dequeue(dq_h, dq_t, si, d)      # the base passes to the next
                            si[y, SI_ALIAS] = False
                        else:
                            base_busy[d] = False
                        if y >= 0:
                            # unlink y from the arrival-order list
                            if si[y, SI_G_PREV] >= 0:
                                si[si[y, SI_G_PREV], SI_G_NEXT] = si[y, SI_G_NEXT]
                            else:
                                g_head = si[y, SI_G_NEXT]
                            if si[y, SI_G_NEXT] >= 0:
                                si[si[y, SI_G_NEXT], SI_G_PREV] = si[y, SI_G_PREV]
                            else:
                                g_tail = si[y, SI_G_PREV]
                            n_iosq -= 1
                            dev_busy[si[y, SI_DEV]] += 1
                            rs_slot[rs_n] = y
                            rs_stage[rs_n] = GETCH
                            rs_n += 1
                    elif dq_h[d] >= 0:
                        y = _dequeue(dq_h, dq_t, si, d)
                        n_iosq -= 1
                        dev_busy[d] += 1
                        rs_slot[rs_n] = y
                        rs_stage[rs_n] = GETCH
                        rs_n += 1
                    n_sys -= 1
                    if is_open:
                        free[n_free] = x
                        n_free += 1
                        stage = -1
                    elif think_zero:
                        stage = ARRIVE
                    else:
                        dx = next_from(vb, vpos, np.int64(D_THINK), lanes, scal, dp, ev, ec)
                        heap_push(h_t, h_c, h_n, t + dx, x * 8 + EV_ARRIVE)
                        stage = -1
                    if stop:
                        stage = -1
        if stop:
            break

        # ---- the next event: heap, a link transfer ending, or an open arrival ----
        tn = INF
        src = -1
        if h_n[0] > 0:
            tn = h_t[0]
            src = 0
        cmin = -1
        for cc in range(C):
            if ps_next_t[cc] < tn:
                tn = ps_next_t[cc]
                cmin = cc
                src = 1
        if next_arr < tn:
            tn = next_arr
            src = 2
        if src < 0:
            break
        dt = tn - t_last
        if dt > 0.0:
            # time-weighted sums in locals: a store to ``acc`` could not stay in a register
            a_sys += n_sys * dt
            a_iosq += n_iosq * dt
            a_ha += cu_busy[0] * dt
            a_be += cu_busy[1] * dt
            for cc in range(C):
                chs[cc, C_AREA_OE] += oe[cc] * dt
                if mp_busy[cc]:
                    chs[cc, C_MP_BUSY_MS] += dt
                    a_mpq += mq_n[cc] * dt
                if ps_n[cc] > 0:
                    chs[cc, C_LINK_BUSY_MS] += dt
        t = tn
        t_last = tn
        n_events += 1.0
        if src == 2:
            if n_free == 0:
                acc[A_UNSTABLE] = 1.0     # the pool is exhausted: the queue is growing without bound
                break
            n_free -= 1
            y = free[n_free]
            x_next = y          # the event's own I/O goes first, without the stack
            stage_next = ARRIVE
            if TRACE:
                next_arr = t + trace[trace_i]
                trace_i = (trace_i + 1) % trace.shape[0]
            else:
                dx = next_from(vb, vpos, np.int64(D_INTERARRIVAL), lanes, scal, dp, ev, ec)
                next_arr = t + dx
        elif src == 1:
            c = cmin
            y = ps_next_slot[c]
            _ps_advance(c, t, bw, ps_n, ps_v, ps_tl)
            last = ps_list[c, ps_n[c] - 1]
            ps_list[c, si[y, SI_POS]] = last
            si[last, SI_POS] = si[y, SI_POS]
            ps_n[c] -= 1
            _ps_next(c, t, bw, ps_n, ps_v, ps_list, sf, ps_next_t, ps_next_slot)
            x_next = y          # the event's own I/O goes first, without the stack
            stage_next = MPEND
        else:
            code = h_c[0]
            heap_pop(h_t, h_c, h_n)
            y = code >> 3
            et = code & 7
            nstage = -1
            if et == EV_ARRIVE:
                nstage = ARRIVE
            elif et == EV_MP:
                c = si[y, SI_CH]
                mp_busy[c] = 0
                nstage = HA if si[y, SI_MPSTAGE] == 0 else DONE
                # the MP takes end work before new starts: exchanges close promptly
                if me_h[c] >= 0:
                    z = _dequeue(me_h, me_t, si, c)
                    mp_busy[c] = 1
                    heap_push(h_t, h_c, h_n, t + sf[z, SF_W_END], z * 8 + EV_MP)
                elif mq_h[c] >= 0:
                    z = _dequeue(mq_h, mq_t, si, c)
                    mq_n[c] -= 1
                    mp_busy[c] = 1
                    heap_push(h_t, h_c, h_n, t + sf[z, SF_W_START], z * 8 + EV_MP)
            elif et == EV_HA or et == EV_BE:
                st = et - EV_HA
                cu_busy[st] -= 1
                if st == 0:
                    nstage = AFTER_HA
                else:
                    sf[y, SF_DISC] = t - sf[y, SF_T_MARK]
                    nstage = CONN
                # the station's next queued I/O starts service
                if cu_h[st] >= 0:
                    z = _dequeue(cu_h, cu_t, si, st)
                    cu_busy[st] += 1
                    dx = next_from(vb, vpos, cu_row[st], lanes, scal, dp, ev, ec)
                    heap_push(h_t, h_c, h_n, t + dx, z * 8 + EV_HA + st)
            else:
                nstage = XFER
            x_next = y          # the event's own I/O goes first, without the stack
            stage_next = nstage

    acc[A_TIME_MS] = t - t0
    acc[A_AREA_SYS] += a_sys
    acc[A_AREA_IOSQ] += a_iosq
    acc[A_AREA_HA] += a_ha
    acc[A_AREA_BE] += a_be
    acc[A_AREA_MPQ] += a_mpq
    acc[A_EVENTS] += n_events

