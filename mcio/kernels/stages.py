"""The stages of an I/O's life in the event engine (docs/design.md §2.2), one small function each.

Every stage is compiled with ``options.JIT_STAGE``: no reference counting, and LLVM always inlines
it into ``iopath.run_one``, so the split costs no call (a call LLVM does not inline passes each
array as 7 fields, ~10 ns; Numba's own ``inline="always"`` would add reference-count calls for
every array at every use: see options.py). They work on named state, the arrays ``run_one`` allocates, grouped in tuples (unpacked where used; the tuples
are built once per replication):

- ``sf`` float64[P, N_SF], ``si`` int64[P, N_SI]: one row per I/O slot (columns SF_*, SI_*).
- ``rng`` = (vb float64[N_ROWS, VBLOCK], vpos int64[N_ROWS], lanes uint64[N_ROWS, 4, LANES],
  scal uint64[N_ROWS, 4], dp float64[N_DIST, 5], ev float64[:], ec float64[:]): the rows of draws
  (``blockrng.next_from``).
- ``heap`` = (h_t float64[:], h_c int64[:], h_n int64[:]): the timed events' queue (a binary
  heap up to 16 events, else a calendar queue: ``heap.heap_new``; code = 8 slot + EV_*): after
  ``heap_settle`` (in ``next_event``) the earliest is (h_t[0], h_c[0]) if h_n[0] > 0, and
  ``heap_take`` removes it.
- ``dev`` = (dev_busy int64[D], dq_h int64[D], dq_t int64[D], base_busy bool[D], dq_s int64[4]):
  exposures in use and the IOSQ FIFO per device; dq_s[DQ_*]: the HyperPAV alias pool, the
  arrival-order list of every queued I/O (head, tail) and the number queued.
- ``paths`` = (dev_grp int64[D], grp_ptr int64[G + 1], grp_ch int64[:], chg_ptr int64[C + 1],
  chg int64[:], rotor int64[G], gq_h int64[G], gq_t int64[G], only int64): path groups and their
  FIFO of I/Os deferred for lack of an open exchange; ``only`` the channel when there is one group
  of one channel (else -1: the tables are read).
- ``mp`` = (mp_busy int64[C], mq_h, mq_t, mq_n, me_h, me_t int64[C], mp_t0, mq_tl, mq_area
  float64[C], tm_t float64[2 M], tm_c int64[2 M]): the channel MP and its start- and end-work
  FIFOs (mq_n: the start work waiting). With ``channels.mp_order = "fifo"`` end work joins the
  start FIFO (me_* stay empty); each queued I/O's SI_MPSTAGE says which piece it waits for.
  mp_t0, mq_tl, mq_area: when the busy period began, the queue's last change and its area
  (``areas``). tm_t, tm_c: the winner tree of the MPs' pieces in progress (an MP serves one at a
  time: one slot per channel, not the heap), keyed by the event code x * 8 + EV_MP, so that with
  the heap they make the order one heap of both would give (``next_event``).
- ``cu``: the control units' stations (host adapter, back end: multi-server FIFO stations served
  by the Kiefer-Wolfowitz recursion, so neither needs an event of its own), named and served in
  kernels/stations.py with the stages that cross them (``stage_ha``, ``stage_be``).
- ``ps`` (kernels/transfer.py) = (ps_list int64[C, L], ps_n int64[C], ps_v float64[C], ps_tl float64[C],
  ps_next_t float64[C], ps_next_slot int64[C], ln_t0 float64[C], tw_t float64[2 M],
  tw_c int64[2 M]): each channel link's processor-shared transfers, when its busy period began
  (``areas``), and the winner tree of the links' next transfer ends (``winner``: the earliest at
  its root, so the next event is found without a look at every channel).
- ``oe`` int64[C]: open exchanges per channel, ``oe_tl`` float64[C] their last change (``areas``);
  ``dev_state`` float64[D, N_DEV_STATE]: per-device state the device-service seam may keep.

A stage that changes a channel's level (open exchanges, MP busy or queue, link busy) adds that
level's area then (``areas``): no work over all channels at each event.

A stage returns the I/O's next stage, or -1 if the I/O now waits (in a FIFO, on a timed event or
in a transfer); whoever ends the wait names the stage it resumes at.

The device-service seam is ``device_service``: the one place that decides what the device side
makes of an I/O (its device-side disconnect, whether it goes to the back end, its connect).
"""
import numpy as np

from .areas import mq_add, oe_add
from .blockrng import next_from
from .heap import heap_put, heap_settle, heap_take
from .histogram import hist_add
from .ioclass import io_attrs
from .layout import (D_MP_SHAPE, D_ROTATION, MISS_STAGING, MPW_FIFO, MPW_WAKE, R_CLASS, R_CYLINDER,
                     R_DEVICE, R_MISS, R_MODE, R_SEQUENTIAL)
from .options import JIT_LEAF, JIT_STAGE, njit
from .seek import seek_ms
from .stats import (A_DEFERRED, A_DEV_BUSY_MS, A_DEV_BUSY_ZVM_MS, A_N, A_SQ_CMR, A_SQ_CONN,
                    A_SQ_DISC, A_SQ_IOSQ, A_SQ_PEND, A_SQ_RESP, A_SUM_CMR, A_SUM_CONN, A_SUM_DISC,
                    A_SUM_IOSQ, A_SUM_PEND, A_SUM_RESP, C_DEFERRED, C_KB,
                    C_MP_BUSY_MS, C_OE_MAX, C_SSCH, V_BUSY_MS, V_SSCH)
from .winner import winner_lower, winner_set

# stages
ARRIVE, GETCH, MPSTART, HA, AFTER_HA, DEVICE, BE, CONN, XFER, MPEND, DONE = range(11)
# timed events (code & 7): EV_HA the host adapter's service ends (positional devices: the seam
# runs then), EV_BE a miss reaches a back end that can queue, EV_PROTO connect's transfer starts
EV_ARRIVE, EV_MP, EV_HA, EV_BE, EV_PROTO, EV_DEVICE, EV_PACE = range(7)
INF = np.inf

# slot state columns, sf[slot, SF_*] (ms, KB)
(SF_T_ARR, SF_T_START, SF_T_MARK, SF_PEND, SF_CMR, SF_DISC, SF_W_START, SF_W_END, SF_TAG,
 SF_T_DISC, SF_DEV_DISC_MS, SF_PROTO_MS, SF_XFER_KB, SF_CONN_MIN_MS, SF_W_WAKE, SF_CU_START,
 SF_CU_END) = range(17)
# SF_CU_START + 2 st, SF_CU_END + 2 st: the I/O's last service interval at control-unit station st
N_SF = 19
# si[slot, SI_*]
(SI_DEV, SI_CLS, SI_MODE, SI_CH, SI_DEF, SI_MPSTAGE, SI_POS, SI_NXT, SI_G_PREV, SI_G_NEXT, SI_MISS,
 SI_ALIAS, SI_BACKEND, SI_MP_FIFO) = range(14)
N_SI = 14
# bk[i, BK_*]: the figures of a block's i-th measured completion (ms; BK_DEF 1 if deferred)
BK_RESP, BK_IOSQ, BK_PEND, BK_CMR, BK_DISC, BK_CONN, BK_ZVM, BK_DEF = range(8)
N_BK = 8
BLOCK_IOS = 256
# dq_s[DQ_*]: the device queues' scalars
DQ_POOL, DQ_HEAD, DQ_TAIL, DQ_WAITING = range(4)
# dev_state[device, DV_*]: per-device state of the device side (see device_service): a positional
# device's arm cylinder (where its last media read was) and where a read that continues the last
# one starts (cylinders, fractional: how far into the cylinder the last read ended)
DV_ARM_CYL, DV_NEXT_POS = range(2)
N_DEV_STATE = 2


# ---------------------------------------------------------------------------- FIFOs


@njit(**JIT_LEAF)
def enqueue(head, tail, si, q, slot):
    """Append ``slot`` to FIFO ``q`` (linked through si[:, SI_NXT])."""
    si[slot, SI_NXT] = -1
    if head[q] < 0:
        head[q] = slot
    else:
        si[tail[q], SI_NXT] = slot
    tail[q] = slot


@njit(**JIT_LEAF)
def dequeue(head, tail, si, q):
    """Remove and return the head of FIFO ``q`` (not empty)."""
    slot = head[q]
    head[q] = si[slot, SI_NXT]
    if head[q] < 0:
        tail[q] = -1
    return slot


@njit(**JIT_STAGE)
def draw(rng, row):
    """The next draw of row ``row`` (an np.int64: a literal would compile once per value)."""
    vb, vpos, lanes, scal, dp, ev, ec = rng
    return next_from(vb, vpos, row, lanes, scal, dp, ev, ec)


# ---------------------------------------------------------------------------- device exposures


@njit(**JIT_STAGE)
def exposure_take(x, d, si, dev, hpav, expo):
    """I/O ``x`` asks device ``d`` for an exposure: True if it got one, else it waits (IOSQ).

    Static PAV: ``expo`` exposures per device. HyperPAV: each device has its base; the aliases
    are one pool shared by all devices (dq_s[DQ_POOL]); a queued I/O also joins the arrival-order
    list of all queued I/Os, so that a freed alias goes to the oldest (``exposure_release``).
    """
    dev_busy, dq_h, dq_t, base_busy, dq_s = dev
    if hpav:
        if not base_busy[d] or dq_s[DQ_POOL] > 0:
            si[x, SI_ALIAS] = base_busy[d]
            if si[x, SI_ALIAS]:
                dq_s[DQ_POOL] -= 1
            else:
                base_busy[d] = True
            dev_busy[d] += 1
            return True
        enqueue(dq_h, dq_t, si, d, x)
        tail = dq_s[DQ_TAIL]
        si[x, SI_G_PREV] = tail
        si[x, SI_G_NEXT] = -1
        if tail >= 0:
            si[tail, SI_G_NEXT] = x
        else:
            dq_s[DQ_HEAD] = x
        dq_s[DQ_TAIL] = x
        dq_s[DQ_WAITING] += 1
        return False
    if dev_busy[d] < expo:
        dev_busy[d] += 1
        return True
    enqueue(dq_h, dq_t, si, d, x)
    dq_s[DQ_WAITING] += 1
    return False


@njit(**JIT_STAGE)
def exposure_release(x, d, si, dev, hpav):
    """I/O ``x`` gives back its exposure of device ``d``: returns the queued I/O that takes it
    (now holding an exposure, to resume at GETCH), or -1.

    Static PAV: the device's next queued I/O. HyperPAV: a freed alias goes to the oldest I/O
    queued on any device (the head of the arrival-order list, which heads its device's queue);
    a freed base passes to the device's next queued I/O, else the base is free.
    """
    dev_busy, dq_h, dq_t, base_busy, dq_s = dev
    dev_busy[d] -= 1
    y = -1
    if hpav:
        if si[x, SI_ALIAS]:
            dq_s[DQ_POOL] += 1
            y = dq_s[DQ_HEAD]
            if y >= 0:
                dequeue(dq_h, dq_t, si, si[y, SI_DEV])
                dq_s[DQ_POOL] -= 1
                si[y, SI_ALIAS] = True
        elif dq_h[d] >= 0:
            y = dequeue(dq_h, dq_t, si, d)
            si[y, SI_ALIAS] = False
        else:
            base_busy[d] = False
        if y >= 0:
            # unlink y from the arrival-order list
            prev = si[y, SI_G_PREV]
            nxt = si[y, SI_G_NEXT]
            if prev >= 0:
                si[prev, SI_G_NEXT] = nxt
            else:
                dq_s[DQ_HEAD] = nxt
            if nxt >= 0:
                si[nxt, SI_G_PREV] = prev
            else:
                dq_s[DQ_TAIL] = prev
            dq_s[DQ_WAITING] -= 1
            dev_busy[si[y, SI_DEV]] += 1
    elif dq_h[d] >= 0:
        y = dequeue(dq_h, dq_t, si, d)
        dq_s[DQ_WAITING] -= 1
        dev_busy[d] += 1
    return y


# ---------------------------------------------------------------------------- the stages


@njit(**JIT_STAGE)
def attr_uniforms(rng, cls_draw, mode_draw, miss_draw):
    """The uniforms that decide an arriving I/O's class, mode and miss (0.5 where a draw would
    decide nothing), drawn in that order from their own rows."""
    u_cls = u_mode = u_miss = 0.5
    if cls_draw:
        u_cls = draw(rng, np.int64(R_CLASS))
    if mode_draw:
        u_mode = draw(rng, np.int64(R_MODE))
    if miss_draw:
        u_miss = draw(rng, np.int64(R_MISS))
    return u_cls, u_mode, u_miss


@njit(**JIT_STAGE)
def alias_pick(rng, al_prob, al_idx, base, m):
    """A device index in [0, m) from Walker's alias table at al_prob/al_idx[base:base + m] (the
    alias indices relative to base), on the device row's next uniform."""
    ud = draw(rng, np.int64(R_DEVICE)) * m
    i = np.int64(ud)
    if i >= m:
        i = m - 1
    # the alias is loaded whether taken or not, so the choice is a select, not a branch (taken
    # at random: a branch mispredicts about as often as the table's cells alias)
    j = al_idx[base + i]
    return j if ud - i >= al_prob[base + i] else i


@njit(**JIT_STAGE)
def stage_arrive(x, t, sf, si, rng, attrs, pick, dev, hpav, expo):
    """SSCH issued: the I/O's class, mode and miss, its device, and an exposure of it (else IOSQ).

    ``attrs`` = (cls_cum float64[K], n_cls, zshare, cls_miss float64[K], cls_draw, mode_draw,
    miss_draw): what decides the attributes (``ioclass``); ``pick`` = (bind, bound_dev int64[P],
    n_dev, al_prob float64[D], al_idx int64[D]): how the device is chosen (bound per slot, or
    Walker's alias table over the access skew).
    """
    cls_cum, ncls, zshare, cls_miss, cls_draw, mode_draw, miss_draw = attrs
    bind, bound_dev, n_dev, al_prob, al_idx = pick
    sf[x, SF_T_ARR] = t
    u_cls, u_mode, u_miss = attr_uniforms(rng, cls_draw, mode_draw, miss_draw)
    k, mode, miss = io_attrs(u_cls, u_mode, u_miss, cls_cum, ncls, zshare, cls_miss)
    si[x, SI_CLS] = k
    si[x, SI_MODE] = mode
    si[x, SI_MISS] = miss
    if bind:
        d = bound_dev[x]
    elif n_dev == 1:
        d = 0
    else:
        d = alias_pick(rng, al_prob, al_idx, 0, n_dev)
    si[x, SI_DEV] = d
    si[x, SI_DEF] = 0
    return GETCH if exposure_take(x, d, si, dev, hpav, expo) else -1


@njit(**JIT_STAGE)
def stage_getch(x, t, sf, si, paths, oe, oe_tl, chs, sel, oecap):
    """A channel of the device's path group with a free open exchange (else deferred, FIFO per
    group). ``sel`` 0: rotate from the group's rotor; 1: fewest open exchanges, ties round the
    group (not to the lowest CHPID). ``oecap`` int64[C]: each channel's open exchanges."""
    dev_grp, grp_ptr, grp_ch, chg_ptr, chg, rotor, gq_h, gq_t, only = paths
    sf[x, SF_T_START] = t
    c = -1
    if only >= 0:
        # one path group of one channel: no look-up chain (device -> group -> its channels), no
        # rotor to move (it stays 0 with one channel either way)
        g = 0
        if oe[only] < oecap[only]:
            c = only
    else:
        g = dev_grp[si[x, SI_DEV]]
        a = grp_ptr[g]
        m = grp_ptr[g + 1] - a
        # indices wrap by a compare, not %: an integer division costs ~30 cycles (rotor < m, j < m)
        r0 = rotor[g]
        if sel == 0:
            for j in range(m):
                jj = r0 + j
                if jj >= m:
                    jj -= m
                cc = grp_ch[a + jj]
                if oe[cc] < oecap[cc]:
                    c = cc
                    rotor[g] = jj + 1 if jj + 1 < m else 0
                    break
        else:
            for j in range(m):
                jj = r0 + j
                if jj >= m:
                    jj -= m
                cc = grp_ch[a + jj]
                if oe[cc] < oecap[cc] and (c < 0 or oe[cc] < oe[c]):
                    c = cc
            rotor[g] = r0 + 1 if r0 + 1 < m else 0
    if c < 0:
        si[x, SI_DEF] = 1
        enqueue(gq_h, gq_t, si, g, x)
        return -1
    oe_add(c, t, np.int64(1), oe, oe_tl, chs)
    if oe[c] > chs[c, C_OE_MAX]:
        chs[c, C_OE_MAX] = oe[c]
    si[x, SI_CH] = c
    return MPSTART


@njit(**JIT_STAGE)
def stage_mpstart(x, t, sf, si, rng, mp, mp_ms, cls_mp, start_frac, mp_det, uni):
    """The channel MP's work for this I/O (fixed + per command + per KB, times a shape draw),
    split into start and end work; the start work now, FIFO behind the MP's other work.

    ``mp_ms[c, k, mode]`` is the work (ms) on channel c (``uni`` not None: channels alike,
    ``cls_mp[k, mode]``); ``cls_mp[k, MPW_WAKE]`` the wake-up work (ms) a piece
    that finds the MP idle adds, ``cls_mp[k, MPW_FIFO]`` 1 when end work queues with the starts
    (both kept in the I/O's slot for its end work)."""
    mp_busy, mq_h, mq_t, mq_n, me_h, me_t, mp_t0, mq_tl, mq_area, tm_t, tm_c = mp
    k = si[x, SI_CLS]
    c = 0 if mp_busy.shape[0] == 1 else si[x, SI_CH]      # (one channel: no load to wait for)
    if uni is None:
        w = mp_ms[c, k, si[x, SI_MODE]]
    else:
        w = cls_mp[k, si[x, SI_MODE]]
    if not mp_det and w > 0.0:
        w *= draw(rng, np.int64(D_MP_SHAPE))
    sf[x, SF_W_START] = w * start_frac
    sf[x, SF_W_END] = w - sf[x, SF_W_START]
    sf[x, SF_W_WAKE] = cls_mp[k, MPW_WAKE]
    si[x, SI_MP_FIFO] = cls_mp[k, MPW_FIFO] != 0.0
    if sf[x, SF_W_START] <= 0.0:
        return HA
    si[x, SI_MPSTAGE] = 0
    if mp_busy[c] == 0:
        mp_busy[c] = 1
        mp_t0[c] = t
        # an idle MP first wakes up (w + 0.0 == w: no wake-up work, the same time to the bit)
        winner_lower(c, t + (sf[x, SF_W_START] + sf[x, SF_W_WAKE]), x * 8 + EV_MP, tm_t, tm_c)
    else:
        enqueue(mq_h, mq_t, si, c, x)
        mq_add(c, t, np.int64(1), mq_n, mq_tl, mq_area)
    return -1


@njit(**JIT_STAGE)
def _connect_at(x, t, tau, sf, heap):
    """Connect starts at ``tau`` >= t (ms): its protocol time, then the transfer (XFER) now or
    at the EV_PROTO event."""
    h_t, h_c, h_n = heap
    sf[x, SF_T_MARK] = tau
    tau += sf[x, SF_PROTO_MS]
    if tau > t:
        heap_put(h_t, h_c, h_n, tau, x * 8 + EV_PROTO)
        return -1
    return XFER


@njit(**JIT_STAGE)
def positional_miss(x, sf, si, dev_state, rng, pos):
    """A positional device reads a cache miss from its media: overwrites the pass-through plan's
    device-side disconnect, back end and least connect time (``pos`` as in device_service).

    Where: with probability p_sequential the read continues the device's last one (it starts
    where that ended: the same cylinder, or the next if the last read crossed into it), else it
    starts at a uniform position in the span [0, span_cylinders). The arm moves from its cylinder
    to the read's (seek by the curve), then waits a uniform rotational latency. Read-through:
    disconnect = seek + latency, connect at least protocol + KB / media rate. Staging: disconnect
    = seek + latency + KB / media rate (into cache), connect at link speed.
    """
    policy, span, p_seq, cyl_kb, settle, coeff, media = pos[1:]
    d = si[x, SI_DEV]
    kb = sf[x, SF_XFER_KB]
    if p_seq >= 1.0 or (p_seq > 0.0 and draw(rng, np.int64(R_SEQUENTIAL)) <= p_seq):
        start = dev_state[d, DV_NEXT_POS]
    else:
        start = span * (1.0 - draw(rng, np.int64(R_CYLINDER)))     # uniforms are in (0, 1]
    cyl = np.floor(start)
    disc = seek_ms(abs(cyl - dev_state[d, DV_ARM_CYL]), settle, coeff) + draw(rng, np.int64(D_ROTATION))
    media_ms = kb / media
    dev_state[d, DV_ARM_CYL] = cyl
    end = start + kb / cyl_kb
    if end >= span:
        end -= span * np.floor(end / span)        # the data's extent wraps to its start
    dev_state[d, DV_NEXT_POS] = end
    si[x, SI_BACKEND] = 0
    if policy == MISS_STAGING:
        sf[x, SF_DEV_DISC_MS] = disc + media_ms
    else:
        sf[x, SF_DEV_DISC_MS] = disc
        sf[x, SF_CONN_MIN_MS] = sf[x, SF_PROTO_MS] + media_ms


@njit(**JIT_STAGE)
def device_service(x, t, sf, si, dev_state, cls_kb, cls_proto, ch_proto, rng, pos):
    """THE DEVICE-SERVICE SEAM: what the device side makes of I/O ``x`` once the control unit
    has accepted its command (after the CMR), at time ``t`` (ms).

    Reads the I/O's attributes si[x, SI_DEV | SI_CLS | SI_MODE | SI_MISS] and may read and write
    ``dev_state`` (float64[D, N_DEV_STATE], zero at the start of a replication: e.g. an arm's
    cylinder). Writes the I/O's plan, which the stages after it carry out:

    - sf[x, SF_DEV_DISC_MS]: device-side disconnect (ms, no queue: the I/O holds its device
      exposure), e.g. seek + rotational latency; 0 skips it.
    - si[x, SI_BACKEND]: 1 if it then queues at the back end (a miss), else 0.
    - sf[x, SF_PROTO_MS]: protocol time of its connect (ms); sf[x, SF_XFER_KB]: KB over the link
      (processor-shared with the channel's other transfers).
    - sf[x, SF_CONN_MIN_MS]: the least its protocol + transfer may take (ms), e.g. a transfer
      paced by the media on a read-through controller; 0: the link alone paces it.

    Pass-through (an emulated device, ``pos[0]`` False): no device-side disconnect, a miss goes
    to the back end, connect = the class's protocol time (per command or per I/O by mode) + its
    KB at link speed. A positional device (``pos[0]`` True) keeps that plan for a cache hit (no
    arm motion, link speed) and reads a miss from its media (``positional_miss``).

    ``pos`` = (positional, miss policy MISS_*, span_cylinders, p_sequential, cylinder_kb,
    seek settle ms, seek ms per sqrt(cylinder), media KB/ms), from ``mcio.engine.pack``.
    ``cls_proto`` float64[K, 2] and ``ch_proto`` float64[C, K, 2] (or None: the class's serves):
    the connect-time work (ms) by class and mode, and by the I/O's channel where a channel's is its
    own (issue 30).
    """
    k = si[x, SI_CLS]
    sf[x, SF_DEV_DISC_MS] = 0.0
    si[x, SI_BACKEND] = si[x, SI_MISS]
    if ch_proto is None:
        sf[x, SF_PROTO_MS] = cls_proto[k, si[x, SI_MODE]]
    else:
        sf[x, SF_PROTO_MS] = ch_proto[si[x, SI_CH], k, si[x, SI_MODE]]
    sf[x, SF_XFER_KB] = cls_kb[k]
    sf[x, SF_CONN_MIN_MS] = 0.0
    if pos[0] and si[x, SI_MISS] != 0:
        positional_miss(x, sf, si, dev_state, rng, pos)


@njit(**JIT_STAGE)
def stage_after_ha(x, t, sf, si, dev_state, cls_kb, proto, rng, pos):
    """The command is accepted: pend and CMR end, the device side plans the rest (the seam,
    ``pos`` and ``rng`` passed to it; ``proto`` = (cls_proto, ch_proto) its connect-time work),
    and the disconnect, if any, starts."""
    sf[x, SF_CMR] = t - sf[x, SF_T_MARK]
    sf[x, SF_PEND] = t - sf[x, SF_T_START]
    sf[x, SF_DISC] = 0.0
    sf[x, SF_T_DISC] = t
    device_service(x, t, sf, si, dev_state, cls_kb, proto[0], proto[1], rng, pos)
    if sf[x, SF_DEV_DISC_MS] > 0.0:
        return DEVICE
    return BE if si[x, SI_BACKEND] else CONN


@njit(**JIT_STAGE)
def stage_device(x, t, sf, heap):
    """The device-side disconnect (no queue): ends by the EV_DEVICE event."""
    h_t, h_c, h_n = heap
    heap_put(h_t, h_c, h_n, t + sf[x, SF_DEV_DISC_MS], x * 8 + EV_DEVICE)
    return -1


@njit(**JIT_STAGE)
def stage_conn(x, t, sf, heap):
    """Connect starts now: its protocol time first (a timed event), then the transfer."""
    return _connect_at(x, t, t, sf, heap)


@njit(**JIT_STAGE)
def after_transfer(x, t, sf, heap):
    """Protocol and transfer done: MP end work next, unless the plan's least connect time is
    not reached yet (then an EV_PACE event at that time resumes the I/O at MPEND)."""
    h_t, h_c, h_n = heap
    floor = sf[x, SF_CONN_MIN_MS]
    if floor > 0.0 and t - sf[x, SF_T_MARK] < floor:
        heap_put(h_t, h_c, h_n, sf[x, SF_T_MARK] + floor, x * 8 + EV_PACE)
        return -1
    return MPEND


@njit(**JIT_STAGE)
def stage_mpend(x, t, sf, si, mp):
    """End-of-I/O MP work: served before waiting start work (exchanges close promptly), or, with
    ``mp_order = "fifo"``, behind it in one FIFO; an idle MP adds its wake-up work."""
    mp_busy, mq_h, mq_t, mq_n, me_h, me_t, mp_t0, mq_tl, mq_area, tm_t, tm_c = mp
    if sf[x, SF_W_END] <= 0.0:
        return DONE
    c = 0 if mp_busy.shape[0] == 1 else si[x, SI_CH]      # (one channel: no load to wait for)
    si[x, SI_MPSTAGE] = 1
    if mp_busy[c] == 0:
        mp_busy[c] = 1
        mp_t0[c] = t
        winner_lower(c, t + (sf[x, SF_W_END] + sf[x, SF_W_WAKE]), x * 8 + EV_MP, tm_t, tm_c)
    elif si[x, SI_MP_FIFO]:
        enqueue(mq_h, mq_t, si, c, x)       # not counted in mq_n: that is the start work waiting
    else:
        enqueue(me_h, me_t, si, c, x)
    return -1


@njit(**JIT_STAGE)
def count_completion(x, t, sf, si, bk, nbk, chs, devs):
    """A measured I/O ends at ``t``: its figures into row ``nbk`` of the block ``bk``
    (float64[BLOCK_IOS, N_BK], columns BK_*), its channel's and device's counts into chs and
    devs at once (kernels/stats.py). Returns the block's new fill; ``flush_block`` empties it."""
    c = 0 if chs.shape[0] == 1 else si[x, SI_CH]      # (one channel: no load to wait for)
    d = si[x, SI_DEV]
    conn = t - sf[x, SF_T_MARK]
    bk[nbk, BK_RESP] = t - sf[x, SF_T_ARR]
    bk[nbk, BK_IOSQ] = sf[x, SF_T_START] - sf[x, SF_T_ARR]
    bk[nbk, BK_PEND] = sf[x, SF_PEND]
    bk[nbk, BK_CMR] = sf[x, SF_CMR]
    bk[nbk, BK_DISC] = sf[x, SF_DISC]
    bk[nbk, BK_CONN] = conn
    bk[nbk, BK_ZVM] = t - sf[x, SF_T_START]
    bk[nbk, BK_DEF] = si[x, SI_DEF]
    chs[c, C_SSCH] += 1.0
    chs[c, C_KB] += sf[x, SF_XFER_KB]
    chs[c, C_DEFERRED] += si[x, SI_DEF]
    devs[d, V_SSCH] += 1.0
    devs[d, V_BUSY_MS] += sf[x, SF_DISC] + conn
    return nbk + 1


@njit(**JIT_LEAF)
def _column_sums(bk, n, col, acc, a_sum, a_sq):
    """acc[a_sum] += bk[:n, col] and acc[a_sq] += its squares, one I/O after another (the same
    order as one I/O at a time: the same sums to the bit), in registers."""
    s = acc[a_sum]
    q = acc[a_sq]
    for i in range(n):
        v = bk[i, col]
        s += v
        q += v * v
    acc[a_sum] = s
    acc[a_sq] = q


@njit(**JIT_LEAF)
def flush_block(bk, n, acc, hist):
    """The block's n completions (``count_completion``) into the accumulators and the
    response-time histogram; returns 0, the block's new fill. Summing a block column by column
    keeps each running sum in a register instead of a load and a store per I/O per figure."""
    if n == 0:
        return 0
    acc[A_N] += float(n)
    _column_sums(bk, n, np.int64(BK_RESP), acc, np.int64(A_SUM_RESP), np.int64(A_SQ_RESP))
    _column_sums(bk, n, np.int64(BK_IOSQ), acc, np.int64(A_SUM_IOSQ), np.int64(A_SQ_IOSQ))
    _column_sums(bk, n, np.int64(BK_PEND), acc, np.int64(A_SUM_PEND), np.int64(A_SQ_PEND))
    _column_sums(bk, n, np.int64(BK_CMR), acc, np.int64(A_SUM_CMR), np.int64(A_SQ_CMR))
    _column_sums(bk, n, np.int64(BK_DISC), acc, np.int64(A_SUM_DISC), np.int64(A_SQ_DISC))
    _column_sums(bk, n, np.int64(BK_CONN), acc, np.int64(A_SUM_CONN), np.int64(A_SQ_CONN))
    busy = acc[A_DEV_BUSY_MS]
    zvm = acc[A_DEV_BUSY_ZVM_MS]
    dfr = acc[A_DEFERRED]
    for i in range(n):
        busy += bk[i, BK_DISC] + bk[i, BK_CONN]
        zvm += bk[i, BK_ZVM]
        dfr += bk[i, BK_DEF]
        hist_add(hist, bk[i, BK_RESP])
    acc[A_DEV_BUSY_MS] = busy
    acc[A_DEV_BUSY_ZVM_MS] = zvm
    acc[A_DEFERRED] = dfr
    return 0


@njit(**JIT_STAGE)
def close_exchange(c, t, sf, si, paths, oe, oe_tl, chs):
    """An I/O's exchange on channel c closes at ``t``: the longest-deferred I/O of a path group
    through c takes it; returns that I/O (to resume at MPSTART) or -1."""
    dev_grp, grp_ptr, grp_ch, chg_ptr, chg, rotor, gq_h, gq_t, only = paths
    best_g = np.int64(-1)
    if only >= 0:
        if gq_h[0] >= 0:         # one group, through the one channel
            best_g = 0
    else:
        for j in range(chg_ptr[c], chg_ptr[c + 1]):
            gg = chg[j]
            if gq_h[gg] >= 0 and (best_g < 0 or sf[gq_h[gg], SF_T_START] < sf[gq_h[best_g], SF_T_START]):
                best_g = gg
    if best_g < 0:
        oe_add(c, t, np.int64(-1), oe, oe_tl, chs)
        return -1
    y = dequeue(gq_h, gq_t, si, best_g)      # takes the exchange: the level does not change
    si[y, SI_CH] = c
    return y


@njit(**JIT_STAGE)
def release(x, t, sf, si, paths, oe, oe_tl, chs, dev, hpav, rs_slot, rs_stage, rs_n):
    """I/O x ends at ``t``: its exchange closes and its device exposure is freed; the I/Os that
    take them go on the ready stack (rs_slot, rs_stage int64[2 P + 8], rs_n used), the deferred
    one to MPSTART, the queued one to GETCH. Returns the new rs_n."""
    y = close_exchange(0 if oe.shape[0] == 1 else si[x, SI_CH], t, sf, si, paths, oe, oe_tl, chs)
    if y >= 0:
        rs_slot[rs_n] = y
        rs_stage[rs_n] = MPSTART
        rs_n += 1
    y = exposure_release(x, si[x, SI_DEV], si, dev, hpav)
    if y >= 0:
        rs_slot[rs_n] = y
        rs_stage[rs_n] = GETCH
        rs_n += 1
    return rs_n


@njit(**JIT_STAGE)
def batch_add(bat, done, b_cur, b_next, total, resp):
    """Completion ``done`` (from 0, warm-up included) adds its response time ``resp`` to MSER
    batch done * len(bat) // total (kept without a division); returns (b_cur, b_next)."""
    nb_ = bat.shape[0]
    while done >= b_next:
        b_cur += 1
        b_next = ((b_cur + 1) * total + nb_ - 1) // nb_
    bat[b_cur] += resp
    return b_cur, b_next


# ---------------------------------------------------------------------------- events


@njit(**JIT_STAGE)
def next_event(heap, tm_t, tm_c, tw_t, tw_c, next_arr):
    """When the next event is and where: (time, source, channel); source 0 the heap, 3 a channel
    MP's piece of work (the MP tree's root), 1 the end of channel ``channel``'s next transfer (the
    link tree's root: the earliest, the lowest channel among equals), 2 an open arrival, -1 none.
    The heap and the MPs' pieces are one order by (time, code), as one heap of both; ties between
    them and the rest go in the order heap or MP, link, arrival."""
    h_t, h_c, h_n = heap
    heap_settle(h_t, h_c, h_n)
    tn = INF
    src = -1
    if h_n[0] > 0:
        tn = h_t[0]
        src = 0
    if tm_t[1] < tn or (tm_t[1] == tn and src == 0 and tm_c[1] < h_c[0]):
        tn = tm_t[1]
        src = 3
    cmin = -1
    if tw_t[1] < tn:
        tn = tw_t[1]
        cmin = tw_c[1]
        src = 1
    if next_arr < tn:
        tn = next_arr
        src = 2
    return tn, src, cmin




@njit(**JIT_STAGE)
def mp_work_ends(y, t, sf, si, mp, chs):
    """I/O y's MP work ends: the MP takes its next work (end work first; with mp_order = "fifo"
    the end work is in the start FIFO, in arrival order) at once, no wake-up, else its busy
    period ends (into chs[c, C_MP_BUSY_MS]); returns y's stage."""
    mp_busy, mq_h, mq_t, mq_n, me_h, me_t, mp_t0, mq_tl, mq_area, tm_t, tm_c = mp
    c = 0 if mp_busy.shape[0] == 1 else si[y, SI_CH]      # (one channel: no load to wait for)
    if me_h[c] >= 0:
        z = dequeue(me_h, me_t, si, c)
        winner_set(c, t + sf[z, SF_W_END], z * 8 + EV_MP, tm_t, tm_c)
    elif mq_h[c] >= 0:
        z = dequeue(mq_h, mq_t, si, c)
        if si[z, SI_MPSTAGE] == 0:
            mq_add(c, t, np.int64(-1), mq_n, mq_tl, mq_area)
            winner_set(c, t + sf[z, SF_W_START], z * 8 + EV_MP, tm_t, tm_c)
        else:
            winner_set(c, t + sf[z, SF_W_END], z * 8 + EV_MP, tm_t, tm_c)
    else:
        mp_busy[c] = 0
        chs[c, C_MP_BUSY_MS] += t - mp_t0[c]
        winner_set(c, INF, c, tm_t, tm_c)
    return HA if si[y, SI_MPSTAGE] == 0 else DONE


@njit(**JIT_STAGE)
def device_disconnect_ends(y, t, sf, si):
    """I/O y's device-side disconnect ends: to the back end if its plan says so, else connect."""
    sf[y, SF_DISC] = t - sf[y, SF_T_DISC]
    return BE if si[y, SI_BACKEND] else CONN


@njit(**JIT_STAGE)
def heap_event(t, sf, si, heap):
    """Take the heap's first event (due at ``t``): returns (its I/O, the stage it resumes at)."""
    h_t, h_c, h_n = heap
    code = h_c[0]
    heap_take(h_t, h_c, h_n)
    y = code >> 3
    et = code & 7
    if et == EV_PROTO:      # the commonest (every I/O's connect), tested first
        return y, XFER
    if et == EV_ARRIVE:
        return y, ARRIVE
    if et == EV_HA:
        return y, AFTER_HA
    if et == EV_BE:
        return y, BE
    if et == EV_DEVICE:
        return y, device_disconnect_ends(y, t, sf, si)
    if et == EV_PACE:
        return y, MPEND
    if et == 7:             # kernels/cards.py's EV_CARD: past the card, to the host adapter
        return y, 20        # cards.PAST_CARD
    return y, XFER          # (not reached: every code is tested above)
