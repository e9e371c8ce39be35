"""The single-station fast path: FIFO G/G/c by the Kiefer-Wolfowitz recursion (Lindley for c = 1).

Used when the I/O path reduces to one FIFO queue: an open workload on one device whose c
exposures (base + aliases) are the only place an I/O can wait. Each I/O's service is the sum of
the same component draws the event engine makes (MP start work, host adapter, back end on a miss,
protocol, transfer at full link rate, MP end work), so the component breakdown stays exact.
Server free times sit in a small binary min-heap; no per-I/O arrays.
"""
import numba as nb
import numpy as np

from .dists import sample_st
from .histogram import hist_add
from .ioclass import draw_io
from .layout import (A_DEV_BUSY_ZVM_MS, A_AREA_BE, A_AREA_HA, A_AREA_SYS, A_DEV_BUSY_MS, A_EVENTS, A_N, A_SQ_CMR,
                     A_SQ_CONN, A_SQ_DISC, A_SQ_IOSQ, A_SQ_PEND, A_SQ_RESP, A_SUM_CMR,
                     A_SUM_CONN, A_SUM_DISC, A_SUM_IOSQ, A_SUM_PEND, A_SUM_RESP, A_TIME_MS,
                     A_UNSTABLE, A_AREA_IOSQ, C_AREA_OE, C_KB, C_LINK_BUSY_MS, C_MP_BUSY_MS,
                     C_OE_MAX, C_SSCH, D_BACKEND, D_HA, D_INTERARRIVAL, D_MP_SHAPE,
                     FP_LINK_KB_PER_MS, FP_MP_START_FRACTION, FP_ZHPF_SHARE, IP_CLASSES,
                     IP_EXPOSURES, IP_MEASURE, IP_SLOTS, IP_TRACE, IP_WARMUP, V_BUSY_MS, V_SSCH)
from .options import JIT
from .rng import uniform


@nb.njit(**JIT)
def fast_one(fp, ip, dp, ev, ec, cls_cum, cls_kb, cls_miss, cls_mp, cls_proto, trace,
             s, acc, chs, devs, hist, bat):
    """One replication of the G/G/c recursion; same outputs as ``iopath.run_one``."""
    c = ip[IP_EXPOSURES]
    WARM = ip[IP_WARMUP]
    N = WARM + ip[IP_MEASURE]
    NCLS = ip[IP_CLASSES]
    TRACE = ip[IP_TRACE] == 1
    NB = bat.shape[0]
    start_frac = fp[FP_MP_START_FRACTION]
    bw = fp[FP_LINK_KB_PER_MS]
    zshare = fp[FP_ZHPF_SHARE]
    ha_zero = dp[D_HA, 0] == 0.0 and dp[D_HA, 1] == 0.0
    be_zero = dp[D_BACKEND, 0] == 0.0 and dp[D_BACKEND, 1] == 0.0
    mp_det = dp[D_MP_SHAPE, 0] == 0.0
    # A wait longer than this many mean inter-arrival times means more I/Os queued than the
    # event engine's slot pool holds: the same instability rule on both paths.
    mean_gap = dp[D_INTERARRIVAL, 1]
    if TRACE:
        mean_gap = trace.mean()
    wait_limit = ip[IP_SLOTS] * mean_gap
    free_t = np.zeros(c)          # server free times, a min-heap (all zero: a valid heap)
    trace_i = 0
    if TRACE:
        trace_i = int(uniform(s) * trace.shape[0]) % trace.shape[0]
    # The stream state lives in registers for the whole loop (written back at the end) and the
    # statistics in local sums (added to acc/chs/devs once): a store to an output array inside
    # the loop can't be kept in a register, and the replications' rows share cache lines, so
    # the threads would fight over them. Results are bit for bit those of the per-I/O stores.
    s0 = s[0]
    s1 = s[1]
    s2 = s[2]
    s3 = s[3]
    t = 0.0
    t0 = 0.0
    last_end = 0.0
    free1 = 0.0                   # c == 1: the one server's free time
    n_meas = 0.0
    sm_resp = sm_iosq = sm_pend = sm_cmr = sm_disc = sm_conn = 0.0
    sq_resp = sq_iosq = sq_pend = sq_cmr = sq_disc = sq_conn = 0.0
    sm_kb = sm_w = sm_xfer = sm_svc = sm_busy = 0.0
    unstable = False
    b = 0                         # MSER batch of I/O i: (i * NB) // N, kept without a division
    b_next = (N + NB - 1) // NB   # first i of batch b + 1
    b_sum = 0.0
    for i in range(N):
        if TRACE:
            t += trace[trace_i]
            trace_i = (trace_i + 1) % trace.shape[0]
        else:
            x, s0, s1, s2, s3 = sample_st(s0, s1, s2, s3, dp, D_INTERARRIVAL, ev, ec)
            t += x
        k, mode, miss, s0, s1, s2, s3 = draw_io(s0, s1, s2, s3, cls_cum, NCLS, zshare, cls_miss)
        w = cls_mp[k, mode]
        if not mp_det and w > 0.0:
            x, s0, s1, s2, s3 = sample_st(s0, s1, s2, s3, dp, D_MP_SHAPE, ev, ec)
            w *= x
        w_start = w * start_frac
        w_end = w - w_start
        ha = 0.0
        if not ha_zero:
            ha, s0, s1, s2, s3 = sample_st(s0, s1, s2, s3, dp, D_HA, ev, ec)
        be = 0.0
        if miss and not be_zero:
            be, s0, s1, s2, s3 = sample_st(s0, s1, s2, s3, dp, D_BACKEND, ev, ec)
        xfer = cls_kb[k] / bw
        conn = cls_proto[k, mode] + xfer + w_end
        svc = w_start + ha + be + conn
        if c == 1:
            start = free1 if free1 > t else t
            end = start + svc
            free1 = end
        else:
            start = free_t[0] if free_t[0] > t else t
            end = start + svc
            # replace the root with the new free time and sift down
            j = 0
            while True:
                l = 2 * j + 1
                if l >= c:
                    break
                m = l
                if l + 1 < c and free_t[l + 1] < free_t[l]:
                    m = l + 1
                if free_t[m] < end:
                    free_t[j] = free_t[m]
                    j = m
                else:
                    break
            free_t[j] = end
        iosq = start - t
        if iosq > wait_limit:
            unstable = True
            break
        while i >= b_next:
            bat[b] += b_sum
            b_sum = 0.0
            b += 1
            b_next = ((b + 1) * N + NB - 1) // NB
        b_sum += iosq + svc
        if i == WARM:
            t0 = t
        if i >= WARM:
            resp = iosq + svc
            pend = w_start + ha
            n_meas += 1.0
            sm_resp += resp
            sm_iosq += iosq
            sm_pend += pend
            sm_cmr += ha
            sm_disc += be
            sm_conn += conn
            sq_resp += resp * resp
            sq_iosq += iosq * iosq
            sq_pend += pend * pend
            sq_cmr += ha * ha
            sq_disc += be * be
            sq_conn += conn * conn
            sm_kb += cls_kb[k]
            sm_w += w
            sm_xfer += xfer
            sm_svc += svc
            sm_busy += be + conn
            hist_add(hist, resp)
            if end > last_end:
                last_end = end
    if b < NB:
        bat[b] += b_sum
    s[0] = s0
    s[1] = s1
    s[2] = s2
    s[3] = s3
    if unstable:
        acc[A_UNSTABLE] = 1.0
    acc[A_N] += n_meas
    acc[A_SUM_RESP] += sm_resp
    acc[A_SUM_IOSQ] += sm_iosq
    acc[A_SUM_PEND] += sm_pend
    acc[A_SUM_CMR] += sm_cmr
    acc[A_SUM_DISC] += sm_disc
    acc[A_SUM_CONN] += sm_conn
    acc[A_SQ_RESP] += sq_resp
    acc[A_SQ_IOSQ] += sq_iosq
    acc[A_SQ_PEND] += sq_pend
    acc[A_SQ_CMR] += sq_cmr
    acc[A_SQ_DISC] += sq_disc
    acc[A_SQ_CONN] += sq_conn
    # time-weighted figures by Little's law on each I/O's sojourn in each state
    acc[A_AREA_SYS] += sm_resp
    acc[A_AREA_IOSQ] += sm_iosq
    acc[A_AREA_HA] += sm_cmr
    acc[A_AREA_BE] += sm_disc
    acc[A_DEV_BUSY_MS] += sm_busy
    acc[A_DEV_BUSY_ZVM_MS] += sm_svc
    chs[0, C_SSCH] += n_meas
    chs[0, C_KB] += sm_kb
    chs[0, C_MP_BUSY_MS] += sm_w
    chs[0, C_LINK_BUSY_MS] += sm_xfer
    chs[0, C_AREA_OE] += sm_svc
    devs[0, V_SSCH] += n_meas
    devs[0, V_BUSY_MS] += sm_busy
    acc[A_EVENTS] = float(N)
    acc[A_TIME_MS] = t - t0
    chs[0, C_OE_MAX] = 1.0 if c == 1 else np.nan
