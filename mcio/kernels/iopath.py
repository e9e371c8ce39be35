"""The event-driven I/O-path engine: one replication of the life of an I/O (docs/design.md §2.2).

Time is in ms. An I/O is a slot (closed: one per customer; open: drawn from a free pool). Each
slot moves through stages; a stage either finishes at once (the slot goes on the ready stack) or
makes the slot wait: in a FIFO (device, path group, channel MP, host adapter, back end), on a
timed event in the heap, or in the processor-shared transfer of its channel's link. Statistics stream into fixed-size accumulators:
memory does not grow with the number of I/Os.

Stages: ARRIVE (SSCH issued; IOSQ if every exposure of the device is busy) -> GETCH (a channel of
the device's path group with a free open exchange, else deferred) -> MPSTART (channel MP start
work, FIFO) -> [the channel's feature card, if it has an I/O-rate limit: kernels/cards.py] -> HA
(the CMR: control-unit host adapter) -> AFTER_HA (pend ends; the device-service
seam, ``stages.device_service``, plans the rest) -> DEVICE (a device-side disconnect, if planned)
-> BE (disconnect at the back end, if planned: misses) -> CONN (protocol time, then the data
transfer over the links of its route, each processor-shared: kernels/transfer.py; at least the
planned least connect time) -> MPEND (end-of-I/O MP work, served before new starts) -> DONE (exchange closed,
device freed, statistics taken). The control unit's stations are FIFO multi-server queues served
by the Kiefer-Wolfowitz recursion (an I/O's start and end there are known when it arrives), so
from HA to the transfer nothing waits on another I/O unless a back end can queue: a pass-through
device's I/O crosses HA, AFTER_HA, DEVICE, a back end that never queues and the protocol with
one event. Timed events in the heap: think, HA-to-transfer (EV_PROTO), the host adapter's end
(positional devices, whose seam keeps state), a miss reaching a back end that can queue,
device-side disconnect, connect pacing. Per channel, in a slot each (winner trees,
``kernels/winner.py``): the MP's piece of work in progress and the link's next transfer end. No
event looks at every channel: the channels' time-weighted figures are added when their levels
change (``kernels/areas.py``).

``run_one`` is the single-path model's kernel; ``run_one_units``, compiled from the same source
with ``UNITS`` True, a configuration's (several control units and workloads: kernels/stations.py,
kernels/workloads.py).

This module holds the state and the event loop only; each stage is a small inlined function in
``stages``, over the state arrays allocated here (named and grouped there).
"""
import types

import numpy as np

from . import alloc
from .areas import areas_close, areas_restart
from .blockrng import next_from
from .heap import heap_new, heap_put
from .ioclass import attr_draws
from .layout import (D_INTERARRIVAL, D_MP_SHAPE, D_THINK, FP_LINK_KB_PER_MS, IP_LN_SLOTS,
                     FP_MP_START_FRACTION, FP_ZHPF_SHARE, IP_BIND, IP_CHANNELS,
                     IP_CLASSES, IP_DEVICES, IP_EXPOSURES, IP_GROUPS, IP_HYPERPAV, IP_HA_SERVERS, IP_BE_SERVERS,
                     IP_MEASURE, IP_OPEN, IP_SELECTION, IP_SLOTS, IP_TRACE, IP_WARMUP,
                     N_ROWS, IP_POSITIONAL, IP_MISS_POLICY, IP_SPAN_CYL, FP_P_SEQUENTIAL, FP_CYLINDER_KB,
                     FP_SEEK_SETTLE_MS, FP_SEEK_MS_PER_SQRT_CYL, FP_MEDIA_KB_PER_MS, IP_WORKLOADS)
from .options import JIT, JIT_LEAF, njit
from .rng import uniform
from .stages import (AFTER_HA, ARRIVE, BE, CONN, DEVICE, DQ_WAITING, EV_ARRIVE, GETCH, HA, INF,
                     MPEND, MPSTART, N_DEV_STATE, N_SF, N_SI, SF_T_ARR, SI_G_NEXT, SI_G_PREV,
                     SI_NXT, XFER, after_transfer, batch_add, count_completion,
                     heap_event, mp_work_ends, next_event, release, stage_after_ha, stage_arrive, stage_conn,
                     stage_device, stage_getch, stage_mpend, stage_mpstart,
                     flush_block, BLOCK_IOS, N_BK)
from .stations import N_ST, cu_state, cu_state_single, stage_be, stage_ha, stations_close, stations_restart
from .workloads import count_units, stage_arrive_wl, units_restart
from .cards import PAST_CARD, cards_state, stage_card
from .transfer import links_close, links_restart, links_state, stage_xfer, transfer_ends
from .stats import A_AREA_BE, A_AREA_HA, A_AREA_IOSQ, A_AREA_MPQ, A_AREA_SYS, A_EVENTS, A_STALLED, \
    A_TIME_MS, A_UNSTABLE, C_OE_MAX
from .winner import winner_new

#: compiled as a constant: False in ``run_one`` (the single-path model: LLVM drops the control
#: units' look-ups and the workloads' code), True in ``run_one_units`` (the same source, below)
UNITS = False
VBLOCK = 128                     # variates per refill of a distribution's block
POLL_IOS = 2048                  # completions between two looks at the stop flag (~1-3 ms of run)


@njit(**JIT_LEAF)
def _is_zero(dp, row):
    return dp[row, 0] == 0.0 and dp[row, 1] == 0.0


@njit(**JIT)
def _new_state(ip, dp, dev_grp, grp_ptr, grp_ch, chg_ptr, chg):
    """The replication's state at time 0, grouped as kernels/stages.py names it: (sf, si, dev,
    dev_state, paths, oe, oe_tl, mp, heap); the control units' (cu) is stations.cu_state's, the
    transfers' ``ps`` transfer.links_state's."""
    P = ip[IP_SLOTS]
    D = ip[IP_DEVICES]
    C = ip[IP_CHANNELS]
    G = ip[IP_GROUPS]
    f8, i8 = np.float64, np.int64
    # ---- slot state: one row per slot (few base pointers: less register pressure) ----
    sf = alloc.zeros((P, N_SF), f8)
    si = alloc.zeros((P, N_SI), i8)
    si[:, SI_NXT] = -1
    si[:, SI_G_PREV] = -1
    si[:, SI_G_NEXT] = -1
    # ---- queues and resources (stages.py names each group) ----
    dq_s = alloc.full(4, -1, i8)       # HyperPAV pool, arrival list, queued
    dq_s[0] = ip[IP_EXPOSURES] - 1
    dq_s[3] = 0
    dev = (alloc.zeros(D, i8), alloc.full(D, -1, i8), alloc.full(D, -1, i8),
           alloc.zeros(D, np.bool_), dq_s)
    dev_state = alloc.zeros((D, N_DEV_STATE), f8)
    only = grp_ch[grp_ptr[0]] if G == 1 and grp_ptr[1] - grp_ptr[0] == 1 else -1
    paths = (dev_grp, grp_ptr, grp_ch, chg_ptr, chg, alloc.zeros(G, i8), alloc.full(G, -1, i8),
             alloc.full(G, -1, i8), only)
    oe = alloc.zeros(C, i8)
    oe_tl = alloc.zeros(C, f8)
    mp_busy = alloc.zeros(C, i8)
    mp = (mp_busy, alloc.full(C, -1, i8), alloc.full(C, -1, i8), alloc.zeros(C, i8),
          alloc.full(C, -1, i8), alloc.full(C, -1, i8), alloc.zeros(C, f8), alloc.zeros(C, f8),
          alloc.zeros(C, f8))
    mp = mp + winner_new(C)
    # ---- events ----
    heap = heap_new(P + 1)            # (h_t, h_c, h_n): kernels/heap.py's queue (P <= 15: a binary heap)
    return sf, si, dev, dev_state, paths, oe, oe_tl, mp, heap


@njit(**JIT_LEAF)
def _first_arrivals(s, trace, traced, is_open, think_zero, n_slots, rng, heap, rs_slot, rs_stage):
    """Time 0: an open model's first arrival (a trace starts at a random gap, drawn on ``s``);
    a closed model's customers all arrive now (on the ready stack) or after a think time.
    Returns (next open arrival or INF, the trace's next gap, the ready stack's size)."""
    vb, vpos, lanes, scal, dp, ev, ec = rng
    h_t, h_c, h_n = heap
    trace_i = 0
    if traced:
        trace_i = np.int64(uniform(s) * trace.shape[0]) % trace.shape[0]
    next_arr = INF
    rs_n = 0
    if is_open:
        if traced:
            next_arr = trace[trace_i]
            trace_i = (trace_i + 1) % trace.shape[0]
        else:
            next_arr = next_from(vb, vpos, np.int64(D_INTERARRIVAL), lanes, scal, dp, ev, ec)
    else:
        for i in range(n_slots):
            if think_zero:
                rs_slot[rs_n] = i
                rs_stage[rs_n] = ARRIVE
                rs_n += 1
            else:
                dx = next_from(vb, vpos, np.int64(D_THINK), lanes, scal, dp, ev, ec)
                heap_put(h_t, h_c, h_n, dx, i * 8 + EV_ARRIVE)
    return next_arr, trace_i, rs_n


@njit(**JIT_LEAF)
def _measurement_starts(t, acc, chs, devs, hist, oe, oe_tl, mp):
    """Warm-up over at ``t``: the accumulators restart from the current state (peak exchanges and
    the channels' areas from now)."""
    acc[:] = 0.0
    chs[:, :] = 0.0
    devs[:, :] = 0.0
    hist[:] = 0
    for cc in range(chs.shape[0]):
        chs[cc, C_OE_MAX] = oe[cc]
    areas_restart(t, oe_tl, mp[6], mp[7], mp[8])


@njit(**JIT)
def run_one(fp, ip, dp, ev, ec, cls_cum, cls_kb, cls_miss, cls_mp, cls_proto,
            al_prob, al_idx, dev_grp, bound_dev, grp_ptr, grp_ch, chg_ptr, chg, trace, lk, un,
            s, lanes, scal, acc, chs, devs, lns, cards, sts, wls, whist, dvs, hist, bat, ctl_stop,
            ctl_done):
    """Simulate one replication; fill acc[N_ACC], chs[C, N_CH], devs[D, N_DEV], lns[Lk, N_LN],
    cards[Kc, N_CARD], sts[2U, N_ST], wls[W, N_WL], whist[W, B], dvs[D, N_DS], hist[B], bat[NB].

    Inputs (``mcio.engine.pack``; ms, KB): fp float64[N_FP], ip int64[N_IP] (layout FP_*, IP_*);
    dp float64[N_DIST, 5] distribution rows with their empirical tables ev, ec float64[:];
    per class k < K: cls_cum float64[K] cumulative shares, cls_kb float64[K], cls_miss float64[K],
    cls_mp float64[K, N_MPW] (MP work per I/O by mode: columns 0 CCW, 1 z/HPF; then MPW_WAKE, MPW_FIFO) MP work (ms) and cls_proto float64[K, 2] protocol time (ms) by mode
    (0 CCW, 1 z/HPF); al_prob float64[D], al_idx int64[D] Walker's alias table of device access;
    dev_grp int64[D] path group of each device, grp_ptr int64[G + 1] / grp_ch int64[:] each group's
    channels, chg_ptr int64[C + 1] / chg int64[:] each channel's groups; bound_dev int64[P] (or [1])
    the device of each closed slot when bound; trace float64[:] arrival gaps (ms) when traced.
    ``lk`` (``mcio.engine.pack_links``): the channels', links', routes' and cards' tables
    (mp_ms float64[C, K, 2] MP work per channel, class and mode, replacing cls_mp's first two
    columns; ch_oe_cap int64[C]; ch_link int64[C, 2]; cls_dir int64[K]; ln_bw float64[Lk] KB/ms;
    ln_ch int64[Lk]; (rt_ptr, rt_ln, dev_cu int64[D]) or None; (ch_card int64[C],
    card_start_ms float64[Kc]) or None: a None compiles that mechanism out; not None when every
    channel is alike, half duplex, on its own link: then cls_mp and fp's link rate serve;
    ch_proto_ms float64[C, K, 2] connect-time work by channel, class and mode, or None: cls_proto).
    ``un`` = (cu_row int64[2U], cu_servers int64[2U], dev_cu int64[D], wl): the control units'
    stations (2u host adapter, 2u + 1 back end of control unit u: their rows of service draws and
    servers; kernels/stations.py), each device's control unit, and the workloads' tables ``wl``
    (kernels/workloads.py; used when ip[IP_WORKLOADS]).
    ``s`` (uint64[4]) is this replication's stream state, ``lanes`` uint64[N_ROWS, 4, LANES] and
    ``scal`` uint64[N_ROWS, 4] its rows' substreams (``blockrng.make_streams``).

    Outputs (zeroed by the caller; slots in kernels/stats.py): acc float64[N_ACC],
    chs float64[C, N_CH], devs float64[D, N_DEV], lns float64[Lk, N_LN] (kernels/transfer.py),
    cards float64[Kc, N_CARD] (kernels/cards.py), hist int64[HIST_BUCKETS]; sts float64[2U, N_ST]
    per station (kernels/stations.py); with ip[IP_WORKLOADS], wls float64[W, N_WL], whist
    int64[W, HIST_BUCKETS] per workload and dvs float64[D, N_DS] per device (kernels/workloads.py;
    else they may have no rows). ``bat[k]`` sums the
    response times of completions i (counted from the start, warm-up included) with
    i * len(bat) // total = k: the batch-mean series the warm-up diagnostic (MSER) reads.

    Control (``mcio.interrupt``; read and written while the kernel runs, so Ctrl-C can stop a run
    of any length): ``ctl_stop`` int64[1], read every POLL_IOS completions: non-zero stops the run
    at once, with what it has (fewer I/Os measured than asked: not a result); ``ctl_done``
    int64[1], this replication's progress slot: POLL_IOS is added to ctl_done[0] at each poll,
    the rest at the end (completions, warm-up included). On completions, not events: they are
    several times rarer, and a run that completes nothing for long has no progress to stop.
    """
    is_open = ip[IP_OPEN] == 1
    P = ip[IP_SLOTS]
    D = ip[IP_DEVICES]
    EXPO = ip[IP_EXPOSURES]
    HPAV = ip[IP_HYPERPAV] == 1
    OECAP = lk[1]
    MP_MS = lk[0]         # (taken out of the tuple once: a getitem in the loop would add a reference each time)
    SEL = ip[IP_SELECTION]
    WARM = ip[IP_WARMUP]
    STOP = ip[IP_WARMUP] + ip[IP_MEASURE]
    NCLS = ip[IP_CLASSES]
    TRACE = ip[IP_TRACE] == 1
    start_frac = fp[FP_MP_START_FRACTION]
    zshare = fp[FP_ZHPF_SHARE]
    bw = fp[FP_LINK_KB_PER_MS]     # the link rate when channels are alike (lk[8] not None)
    NB = bat.shape[0]
    think_zero = _is_zero(dp, D_THINK)
    mp_det = dp[D_MP_SHAPE, 0] == 0.0
    cls_draw, mode_draw, miss_draw = attr_draws(NCLS, zshare, cls_miss)
    attrs = (cls_cum, NCLS, zshare, cls_miss, cls_draw, mode_draw, miss_draw)
    # the alias table's two columns side by side: a device's cell is one cache line, not two
    # (the device pick lands on a random cell of a table larger than L1 with the devices' state)
    # (filled by a loop: a slice assignment would compile dozens of Numba's own helpers)
    al_tab = alloc.empty((al_prob.shape[0], 2), np.float64)
    al_int = alloc.int64_view(al_tab)
    for i in range(al_prob.shape[0]):
        al_tab[i, 0] = al_prob[i]
        al_int[i, 1] = al_idx[i]
    pick = (ip[IP_BIND] == 1, bound_dev, D, al_tab[:, 0], al_int[:, 1])
    pos = (ip[IP_POSITIONAL] == 1, ip[IP_MISS_POLICY], float(ip[IP_SPAN_CYL]), fp[FP_P_SEQUENTIAL],
           fp[FP_CYLINDER_KB], fp[FP_SEEK_SETTLE_MS], fp[FP_SEEK_MS_PER_SQRT_CYL], fp[FP_MEDIA_KB_PER_MS])
    # Every draw comes from its row's block (``blockrng.next_from``; each row has its own
    # substreams). Rows are passed as np.int64(...): a module constant would reach the callee
    # as a literal type, and Numba would compile it once per value.
    if UNITS:
        n_rows = lanes.shape[0]         # N_ROWS, and a configuration's own rows (engine/units.py)
    else:
        n_rows = N_ROWS
    vb = alloc.empty((n_rows, VBLOCK), np.float64)
    vpos = alloc.full(n_rows, VBLOCK, np.int64)
    rng = (vb, vpos, lanes, scal, dp, ev, ec)

    sf, si, dev, dev_state, paths, oe, oe_tl, mp, heap = _new_state(ip, dp, dev_grp, grp_ptr,
                                                                    grp_ch, chg_ptr, chg)
    # (``if UNITS``: a constant Numba prunes before typing; run_one keeps the one-control-unit,
    # one-workload code, its state as before)
    # A control unit's station is reached only by I/Os holding an open exchange (from GETCH to
    # DONE), so no more than the channels' exchanges are ever at it at once: with at least as
    # many servers it never queues, and needs no event of its own (kernels/stations.py).
    reach = P
    oe_total = 0
    for ch_i in range(OECAP.shape[0]):    # (not .sum() and min(): 4 more Numba specialisations)
        oe_total += OECAP[ch_i]
    if oe_total < reach:
        reach = oe_total
    if UNITS:
        cu = cu_state(dp, un[0], un[1], un[2], reach)
    else:
        cu = cu_state_single(ip[IP_HA_SERVERS], ip[IP_BE_SERVERS], dp, reach)
    WL = UNITS and ip[IP_WORKLOADS] == 1
    wl = un[3]
    cls_wl = wl[4]
    GEN = lk[6]           # routes of several links, or None (kernels/transfer.py)
    CARD = lk[7]          # cards' start limits, or None (kernels/cards.py)
    UNI = lk[8]           # not None: channels alike (cls_mp, one link rate bw): engine/pack_links.py
    # the connect-time work: the class's, and per channel where a channel's is its own (or None)
    proto = (cls_proto, lk[9])
    ps = links_state(P, ip[IP_LN_SLOTS], GEN, lk[4].shape[0])
    card_free = cards_state(CARD)
    dq_s = dev[4]
    tw_t, tw_c = ps[7], ps[8]
    tm_t, tm_c = mp[9], mp[10]
    h_t, h_c, h_n = heap
    rs_slot = alloc.zeros(2 * P + 8, np.int64)      # the ready stack: I/Os whose stage can run now
    rs_stage = alloc.zeros(2 * P + 8, np.int64)
    free = alloc.empty(P, np.int64)       # open: pool of free slots (a stack): P - 1 down to 0
    for i in range(P):                 # (not np.arange: 3 more Numba specialisations)
        free[i] = P - 1 - i
    n_free = P

    t = 0.0
    t_last = 0.0
    a_sys = a_iosq = n_events = 0.0
    b_cur = np.int64(0)           # (int64 from the start, not literals: see _column_sums)
    b_next = (STOP + NB - 1) // NB
    t0 = 0.0
    n_sys = 0
    done = np.int64(0)
    stop = False
    next_arr, trace_i, rs_n = _first_arrivals(s, trace, TRACE, is_open, think_zero, P, rng, heap,
                                              rs_slot, rs_stage)
    bk = alloc.empty((BLOCK_IOS, N_BK), np.float64)  # measured completions' figures, a block at a time
    nbk = np.int64(0)
    poll_at = POLL_IOS              # the completion count of the next look at ctl_stop
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
                    if WL:
                        stage = stage_arrive_wl(x, t, sf, si, rng, attrs, is_open, wl, dev, HPAV, EXPO)
                    else:
                        stage = stage_arrive(x, t, sf, si, rng, attrs, pick, dev, HPAV, EXPO)
                    # (an arrival's common next steps in line, not through the dispatch)
                    if stage == GETCH:
                        stage = stage_getch(x, t, sf, si, paths, oe, oe_tl, chs, SEL, OECAP)
                        if stage == MPSTART:
                            stage = stage_mpstart(x, t, sf, si, rng, mp, MP_MS, cls_mp, start_frac, mp_det, UNI)
                elif stage == GETCH:
                    stage = stage_getch(x, t, sf, si, paths, oe, oe_tl, chs, SEL, OECAP)
                elif stage == MPSTART:
                    stage = stage_mpstart(x, t, sf, si, rng, mp, MP_MS, cls_mp, start_frac, mp_det, UNI)
                elif stage == HA or stage == PAST_CARD:
                    if stage == HA:      # (no card limits: CARD is None, this is PAST_CARD)
                        stage = stage_card(x, t, si, heap, CARD, card_free, cards)
                    if stage >= 0:
                        stage = stage_ha(x, t, sf, si, rng, cu, heap, dev_state, cls_kb, proto, pos)
                elif stage == BE:
                    stage = stage_be(x, t, sf, si, rng, cu, heap)
                elif stage == AFTER_HA:
                    stage = stage_after_ha(x, t, sf, si, dev_state, cls_kb, proto, rng, pos)
                elif stage == CONN:
                    stage = stage_conn(x, t, sf, heap)
                elif stage == XFER:
                    stage = stage_xfer(x, t, sf, si, ps, heap, lk, GEN, UNI, bw)
                elif stage == MPEND:
                    stage = stage_mpend(x, t, sf, si, mp)
                elif stage == DEVICE:
                    stage = stage_device(x, t, sf, heap)
                else:  # DONE
                    b_cur, b_next = batch_add(bat, done, b_cur, b_next, STOP, t - sf[x, SF_T_ARR])
                    done += 1
                    if done > WARM:
                        nbk = count_completion(x, t, sf, si, bk, nbk, chs, devs)
                        if WL:
                            count_units(x, t, sf, si, cls_wl, wls, whist, dvs)
                        if nbk == BLOCK_IOS:
                            nbk = flush_block(bk, nbk, acc, hist)
                    if done == WARM:
                        # warm-up over: measurement starts now, from the current state
                        a_sys = a_iosq = n_events = 0.0
                        _measurement_starts(t, acc, chs, devs, hist, oe, oe_tl, mp)
                        links_restart(t, ps, lns, cards)
                        stations_restart(t, sf, si, cu)
                        if UNITS:     # (not in run_one: its outputs stay out of the loop's registers)
                            units_restart(wls, whist, dvs)
                        t0 = t
                    if done >= STOP:
                        stop = True
                    if done == poll_at:
                        poll_at += POLL_IOS
                        ctl_done[0] += POLL_IOS
                        if ctl_stop[0] != 0:
                            stop = True     # a stop request: end now, with what is counted
                    rs_n = release(x, t, sf, si, paths, oe, oe_tl, chs, dev, HPAV, rs_slot, rs_stage, rs_n)
                    n_sys -= 1
                    if is_open:
                        free[n_free] = x
                        n_free += 1
                        stage = -1
                    elif think_zero:
                        stage = ARRIVE
                    else:
                        dx = next_from(vb, vpos, np.int64(D_THINK), lanes, scal, dp, ev, ec)
                        heap_put(h_t, h_c, h_n, t + dx, x * 8 + EV_ARRIVE)
                        stage = -1
                    if stop:
                        stage = -1
        if stop:
            break

        # ---- the next event: heap, a link transfer ending, or an open arrival ----
        tn, src, cmin = next_event(heap, tm_t, tm_c, tw_t, tw_c, next_arr)
        if not tn < INF:
            # no event before the run's end, or the next one never comes (an infinite service
            # time: past the largest double): the run ends with what it has, flagged stalled
            # (going on at t = inf would take idle MPs' INF for events: a crash)
            acc[A_UNSTABLE] = A_STALLED
            break
        dt = tn - t_last
        if dt > 0.0:
            # time-weighted sums in locals: a store to ``acc`` could not stay in a register (the
            # channels' areas are added when their levels change: kernels/areas.py)
            a_sys += n_sys * dt
            a_iosq += dq_s[DQ_WAITING] * dt
        t = tn
        t_last = tn
        n_events += 1.0
        # the event's own I/O goes first, without the stack
        if src == 2:
            if n_free == 0:
                acc[A_UNSTABLE] = 1.0     # the pool is exhausted: the queue is growing without bound
                break
            n_free -= 1
            x_next = free[n_free]
            stage_next = ARRIVE
            if TRACE:
                next_arr = t + trace[trace_i]
                trace_i = trace_i + 1 if trace_i + 1 < trace.shape[0] else 0
            else:
                next_arr = t + next_from(vb, vpos, np.int64(D_INTERARRIVAL), lanes, scal, dp, ev, ec)
        elif src == 3:
            x_next = tm_c[1] >> 3
            stage_next = mp_work_ends(x_next, t, sf, si, mp, chs)
            if stage_next == HA:
                stage_next = stage_card(x_next, t, si, heap, CARD, card_free, cards)
                if stage_next >= 0:
                    stage_next = stage_ha(x_next, t, sf, si, rng, cu, heap, dev_state, cls_kb, proto, pos)
        elif src == 1:
            x_next = transfer_ends(cmin, t, sf, si, ps, lk, chs, lns, GEN, UNI, bw)
            stage_next = after_transfer(x_next, t, sf, heap)
            if stage_next == MPEND:
                # the common next step, taken here rather than through the stages' dispatch
                stage_next = stage_mpend(x_next, t, sf, si, mp)
        else:
            x_next, stage_next = heap_event(t, sf, si, heap)
            if stage_next == XFER:
                stage_next = stage_xfer(x_next, t, sf, si, ps, heap, lk, GEN, UNI, bw)
        if stage_next < 0:
            x_next = -1

    flush_block(bk, nbk, acc, hist)
    ctl_done[0] += done - (poll_at - POLL_IOS)
    acc[A_TIME_MS] = t - t0
    acc[A_AREA_SYS] += a_sys
    acc[A_AREA_IOSQ] += a_iosq
    if UNITS:
        area_ha, area_be = stations_close(t, sf, si, cu, sts)
    else:
        area_ha, area_be = stations_close(t, sf, si, cu, alloc.zeros((2, N_ST), np.float64))
    acc[A_AREA_HA] += area_ha
    acc[A_AREA_BE] += area_be
    acc[A_AREA_MPQ] += areas_close(t, chs, oe, oe_tl, mp[0], mp[6], mp[3], mp[7], mp[8])
    links_close(t, ps, lk, chs, lns)
    acc[A_EVENTS] += n_events


def _variant(fn, name: str, **consts):
    """``fn``'s source compiled with other module constants (``consts``) as function ``name``
    (its own cache entry: Numba's cache is keyed by the qualified name)."""
    g = dict(fn.__globals__)
    g.update(consts)
    f = types.FunctionType(fn.__code__, g, name, fn.__defaults__, fn.__closure__)
    f.__qualname__ = name
    f.__doc__ = fn.__doc__
    return f


#: run_one for a configuration given as tables (ip[IP_WORKLOADS] 1: several control units and
#: workloads, per-station, per-workload and per-device statistics)
run_one_units = njit(**JIT)(_variant(run_one.py_func, "run_one_units", UNITS=True))
