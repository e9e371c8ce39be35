"""The single-station fast path: FIFO G/G/c by the Kiefer-Wolfowitz recursion (Lindley for c = 1).

Used when the I/O path reduces to one FIFO queue: an open workload on one device whose c
exposures (base + aliases) are the only place an I/O can wait. Each I/O's service is the sum of
the same component draws the event engine makes (MP start work, host adapter, back end on a miss,
protocol, transfer at full link rate, MP end work), so the component breakdown stays exact.
Server free times sit in a small binary min-heap; no per-I/O arrays.
"""
import numba as nb
import numpy as np

from .dists import sample
from .histogram import hist_add
from .layout import (A_DEV_BUSY_ZVM_MS, A_AREA_BE, A_AREA_HA, A_AREA_SYS, A_DEV_BUSY_MS, A_EVENTS, A_N, A_SQ_CMR,
                     A_SQ_CONN, A_SQ_DISC, A_SQ_IOSQ, A_SQ_PEND, A_SQ_RESP, A_SUM_CMR,
                     A_SUM_CONN, A_SUM_DISC, A_SUM_IOSQ, A_SUM_PEND, A_SUM_RESP, A_TIME_MS,
                     A_UNSTABLE, A_AREA_IOSQ, C_AREA_OE, C_KB, C_LINK_BUSY_MS, C_MP_BUSY_MS,
                     C_OE_MAX, C_SSCH, D_BACKEND, D_HA, D_INTERARRIVAL, D_MP_SHAPE,
                     FP_LINK_KB_PER_MS, FP_MP_START_FRACTION, FP_ZHPF_SHARE, IP_CLASSES,
                     IP_EXPOSURES, IP_MEASURE, IP_SLOTS, IP_TRACE, IP_WARMUP, V_BUSY_MS, V_SSCH)
from .options import JIT, JIT_PARALLEL
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
    t = 0.0
    t0 = 0.0
    last_end = 0.0
    for i in range(N):
        if TRACE:
            t += trace[trace_i]
            trace_i = (trace_i + 1) % trace.shape[0]
        else:
            t += sample(s, dp, D_INTERARRIVAL, ev, ec)
        k = 0
        if NCLS > 1:
            u = uniform(s)
            while k < NCLS - 1 and u > cls_cum[k]:
                k += 1
        mode = 0
        if zshare > 0.0:
            if zshare >= 1.0 or uniform(s) < zshare:
                mode = 1
        miss = False
        if cls_miss[k] > 0.0:
            miss = cls_miss[k] >= 1.0 or uniform(s) < cls_miss[k]
        w = cls_mp[k, mode]
        if not mp_det and w > 0.0:
            w *= sample(s, dp, D_MP_SHAPE, ev, ec)
        w_start = w * start_frac
        w_end = w - w_start
        ha = 0.0 if ha_zero else sample(s, dp, D_HA, ev, ec)
        be = 0.0
        if miss and not be_zero:
            be = sample(s, dp, D_BACKEND, ev, ec)
        xfer = cls_kb[k] / bw
        conn = cls_proto[k, mode] + xfer + w_end
        svc = w_start + ha + be + conn
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
            acc[A_UNSTABLE] = 1.0
            break
        bat[(i * NB) // N] += iosq + svc
        if i == WARM:
            t0 = t
        if i >= WARM:
            resp = iosq + svc
            pend = w_start + ha
            acc[A_N] += 1.0
            acc[A_SUM_RESP] += resp
            acc[A_SUM_IOSQ] += iosq
            acc[A_SUM_PEND] += pend
            acc[A_SUM_CMR] += ha
            acc[A_SUM_DISC] += be
            acc[A_SUM_CONN] += conn
            acc[A_SQ_RESP] += resp * resp
            acc[A_SQ_IOSQ] += iosq * iosq
            acc[A_SQ_PEND] += pend * pend
            acc[A_SQ_CMR] += ha * ha
            acc[A_SQ_DISC] += be * be
            acc[A_SQ_CONN] += conn * conn
            # time-weighted figures by Little's law on each I/O's sojourn in each state
            acc[A_AREA_SYS] += resp
            acc[A_AREA_IOSQ] += iosq
            acc[A_AREA_HA] += ha
            acc[A_AREA_BE] += be
            acc[A_DEV_BUSY_MS] += be + conn
            acc[A_DEV_BUSY_ZVM_MS] += svc
            hist_add(hist, resp)
            chs[0, C_SSCH] += 1.0
            chs[0, C_KB] += cls_kb[k]
            chs[0, C_MP_BUSY_MS] += w
            chs[0, C_LINK_BUSY_MS] += xfer
            chs[0, C_AREA_OE] += svc
            devs[0, V_SSCH] += 1.0
            devs[0, V_BUSY_MS] += be + conn
            if end > last_end:
                last_end = end
    acc[A_EVENTS] = float(N)
    acc[A_TIME_MS] = t - t0
    chs[0, C_OE_MAX] = 1.0 if c == 1 else np.nan


@nb.njit(**JIT_PARALLEL)
def fast_replications(fp, ip, dp, ev, ec, cls_cum, cls_kb, cls_miss, cls_mp, cls_proto, trace,
                      states, acc, chs, devs, hist, bat):
    """Run fast-path replications in parallel, each with its own stream states[r]."""
    for r in nb.prange(states.shape[0]):
        fast_one(fp, ip, dp, ev, ec, cls_cum, cls_kb, cls_miss, cls_mp, cls_proto, trace,
                 states[r], acc[r], chs[r], devs[r], hist[r], bat[r])
