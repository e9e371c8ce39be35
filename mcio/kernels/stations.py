"""The control units' stations in the event engine: each control unit u has a host adapter (the
CMR), station 2u, and a back end, station 2u + 1: multi-server FIFO stations served by the
Kiefer-Wolfowitz recursion, each with its own servers and its own row of service draws; and the
stages that cross them (``stage_ha``, ``stage_be``). Compiled and inlined like every stage
(``options.JIT_STAGE``).

State ``cu`` = (row int64[S], zero bool[S], kw_n int64[S], kw_free float64[S, M],
work float64[S], served float64[S], dev_cu int64[D], multi bool) over the S = 2U stations
(``cu_state``): each station's row of service draws, whether its service is zero, its number of
servers if it can queue (fewer servers than I/Os can reach it: the slots, at most the channels'
open exchanges; else 0: it never queues), its servers' free times (ms; ``servers.kw_start``), the
service assigned since the measurement started (ms, the utilisation's area) and the visits since
then; each device's control unit; ``multi``: more than
one control unit (else every I/O uses control unit 0 without a look-up). The single-path model's
kernel (``iopath.run_one``) has only the first five, for its one control unit's two stations
(``cu_state_single``): every ``len(cu) > 5`` below is a constant Numba prunes before typing, so
that kernel's code is the one-control-unit code. A slot's last interval
at its control unit's host adapter (kind 0) and back end (kind 1) is sf[x, SF_CU_START + 2 kind],
sf[x, SF_CU_END + 2 kind]; which control unit it was follows from the slot's device (a slot's
earlier I/Os' intervals have all ended by the time it starts another: ``cu_committed``).

Per-station accumulators ``sts[station, ST_*]`` (outputs of ``iopath.run_one``; ms, counts):
ST_WORK_MS the busy area (service given in the measurement, server-ms), ST_VISITS the services
assigned in it.
"""
import numpy as np

from . import alloc
from .heap import heap_put
from .layout import D_BACKEND, D_HA
from .options import JIT, JIT_LEAF, JIT_STAGE, njit
from .servers import kw_start
from .stages import (AFTER_HA, BE, DEVICE, EV_BE, EV_HA, SF_CU_END, SF_CU_START, SF_DEV_DISC_MS,
                     SF_DISC, SF_T_DISC, SF_T_MARK, SI_DEV, _connect_at, device_disconnect_ends,
                     draw, stage_after_ha)

ST_WORK_MS, ST_VISITS = range(2)
N_ST = 2


@njit(**JIT)
def cu_state_single(ha_servers, be_servers, dp, n_slots):
    """The single-path model's two stations at time 0: (row, zero, kw_n, kw_free, work);
    ``n_slots``: the most I/Os that can be at a station at once."""
    # a station with at least as many servers as can reach it never queues: no heap of free times
    # (arrays filled element by element: np.array of a list and .max() would each compile Numba
    # helpers of their own, ~5 specialisations, for two elements)
    kw_n = alloc.zeros(2, np.int64)
    kw_n[0] = ha_servers if ha_servers < n_slots else 0
    kw_n[1] = be_servers if be_servers < n_slots else 0
    row = alloc.zeros(2, np.int64)
    row[0] = D_HA
    row[1] = D_BACKEND
    zero = alloc.zeros(2, np.bool_)
    zero[0] = dp[D_HA, 0] == 0.0 and dp[D_HA, 1] == 0.0
    zero[1] = dp[D_BACKEND, 0] == 0.0 and dp[D_BACKEND, 1] == 0.0
    most = kw_n[1] if kw_n[1] > kw_n[0] else kw_n[0]
    most = most if most > 1 else 1
    return row, zero, kw_n, alloc.zeros((2, most), np.float64), alloc.zeros(2, np.float64)


@njit(**JIT)
def cu_state(dp, cu_row, cu_servers, dev_cu, n_slots):
    """The stations' state at time 0 (``cu`` above) from each station's row of draws
    (int64[S]) and servers (int64[S]), and each device's control unit (int64[D]); ``n_slots``:
    the most I/Os that can be at a station at once."""
    n = cu_row.shape[0]
    zero = alloc.zeros(n, np.bool_)
    kw_n = alloc.zeros(n, np.int64)
    for st in range(n):
        zero[st] = dp[cu_row[st], 0] == 0.0 and dp[cu_row[st], 1] == 0.0
        kw_n[st] = cu_servers[st] if cu_servers[st] < n_slots else 0
    return (cu_row, zero, kw_n, alloc.zeros((n, max(1, kw_n.max())), np.float64),
            alloc.zeros(n, np.float64), alloc.zeros(n, np.float64),
            dev_cu, n > 2)


@njit(**JIT_STAGE)
def cu_of(x, si, cu):
    """The control unit of I/O ``x`` (0 unless there are several)."""
    if len(cu) > 5:
        if cu[7]:
            return cu[6][si[x, SI_DEV]]
    return 0


@njit(**JIT_STAGE)
def cu_serve(st, a, x, sf, rng, cu):
    """I/O ``x`` arrives at control-unit station ``st`` at ``a`` (ms): returns when its service
    ends. FIFO over the station's servers by the Kiefer-Wolfowitz recursion: it starts when it
    arrives or when the first server frees, whichever is later (arrivals are taken in time
    order, so this is the FIFO queue's own sample path; a station with as many servers as I/Os
    can reach it never queues). The service is the station's row's next draw."""
    row, zero, kw_n, kw_free, work = cu[0], cu[1], cu[2], cu[3], cu[4]
    if zero[st]:
        return a
    svc = draw(rng, row[st])
    start = a
    if kw_n[st] > 0:
        start = kw_start(kw_free[st], kw_n[st], a, svc)
    kind = st & 1
    sf[x, SF_CU_START + 2 * kind] = start
    sf[x, SF_CU_END + 2 * kind] = start + svc
    work[st] += svc
    if len(cu) > 5:
        cu[5][st] += 1.0
    return start + svc


@njit(**JIT_LEAF)
def cu_committed(sf, si, cu, st, now):
    """Service at control-unit station ``st`` assigned but not yet given at ``now`` (ms): the
    part after ``now`` of every slot's last interval there (the utilisation's area is the work
    assigned in the window, less this at its end, plus this at its start). An interval that
    ends after ``now`` is the slot's current I/O's, so its device names its control unit."""
    kind = st & 1
    u = st >> 1
    tot = 0.0
    for y in range(sf.shape[0]):
        e = sf[y, SF_CU_END + 2 * kind]
        if e > now and cu_of(y, si, cu) == u:
            s = sf[y, SF_CU_START + 2 * kind]
            tot += e - (s if s > now else now)
    return tot


@njit(**JIT_LEAF)
def stations_restart(t, sf, si, cu):
    """Warm-up over at ``t``: each station's area restarts from the service committed now."""
    work = cu[4]
    for st in range(work.shape[0]):
        work[st] = cu_committed(sf, si, cu, st, t)
        if len(cu) > 5:
            cu[5][st] = 0.0


@njit(**JIT_LEAF)
def stations_close(t, sf, si, cu, sts):
    """The run ends at ``t``: each station's busy area and visits into sts[station, ST_*];
    returns the host adapters' and the back ends' summed areas (ms)."""
    work = cu[4]
    ha = 0.0
    be = 0.0
    for st in range(work.shape[0]):
        area = work[st] - cu_committed(sf, si, cu, st, t)
        sts[st, ST_WORK_MS] = area
        if len(cu) > 5:
            sts[st, ST_VISITS] = cu[5][st]
        if st & 1:
            be += area
        else:
            ha += area
    return ha, be


@njit(**JIT_STAGE)
def stage_be(x, t, sf, si, rng, cu, heap):
    """A miss reaches the back end at ``t``: its service (FIFO), the disconnect it makes, and
    the connect after it, planned now (one event)."""
    return _back_end_at(x, t, t, sf, si, rng, cu, heap)


@njit(**JIT_STAGE)
def _back_end_at(x, t, a, sf, si, rng, cu, heap):
    """I/O x reaches its control unit's back end at ``a`` >= t (ms; a > t only where it cannot
    queue): its service ends its disconnect, then connect (``_connect_at``)."""
    tau = cu_serve(2 * cu_of(x, si, cu) + 1, a, x, sf, rng, cu)
    sf[x, SF_DISC] = tau - sf[x, SF_T_DISC]
    return _connect_at(x, t, tau, sf, heap)


@njit(**JIT_STAGE)
def stage_ha(x, t, sf, si, rng, cu, heap, dev_state, cls_kb, proto, pos):
    """The command reaches its control unit's host adapter at ``t`` (the CMR: FIFO over its
    servers). A pass-through device then plans the rest at once, as far as nothing can queue:
    the device-service seam at the command's acceptance, its device-side disconnect, a back end
    that never queues, the protocol; one event (EV_PROTO) resumes the I/O at its transfer, or
    EV_BE at a back end that can queue. A positional device's seam keeps per-device state, so
    it runs at the acceptance itself (the EV_HA event, then AFTER_HA). ``proto`` is the pair
    (cls_proto float64[K, 2], ch_proto float64[C, K, 2] or None): protocol time (ms) by class and
    mode, and per channel where a configuration sets it (passed on to the device service)."""
    h_t, h_c, h_n = heap
    sf[x, SF_T_MARK] = t
    u2 = 2 * cu_of(x, si, cu)
    tau = cu_serve(u2, t, x, sf, rng, cu)
    if pos[0]:
        if tau > t:
            heap_put(h_t, h_c, h_n, tau, x * 8 + EV_HA)
            return -1
        return AFTER_HA
    nxt = stage_after_ha(x, tau, sf, si, dev_state, cls_kb, proto, rng, pos)
    if nxt == DEVICE:
        tau += sf[x, SF_DEV_DISC_MS]
        nxt = device_disconnect_ends(x, tau, sf, si)
    if nxt == BE:
        kw_n = cu[2]
        if kw_n[u2 + 1] > 0:                     # a back end that can queue: at its arrival
            if tau > t:
                heap_put(h_t, h_c, h_n, tau, x * 8 + EV_BE)
                return -1
            return BE
        return _back_end_at(x, t, tau, sf, si, rng, cu, heap)
    return _connect_at(x, t, tau, sf, heap)
