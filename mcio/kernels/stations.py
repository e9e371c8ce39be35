"""The control unit's stations in the event engine: its host adapter (the CMR) and back end,
multi-server FIFO stations served by the Kiefer-Wolfowitz recursion, and the stages that cross
them (``stage_ha``, ``stage_be``). State ``cu`` as kernels/stages.py names it; compiled and
inlined like every stage (``options.JIT_STAGE``)."""
import numba as nb

from .heap import heap_put
from .options import JIT_LEAF, JIT_STAGE
from .servers import kw_start
from .stages import (AFTER_HA, BE, DEVICE, EV_BE, EV_HA, SF_CU_END, SF_CU_START, SF_DEV_DISC_MS,
                     SF_DISC, SF_T_DISC, SF_T_MARK, _connect_at, device_disconnect_ends, draw,
                     stage_after_ha)


@nb.njit(**JIT_STAGE)
def cu_serve(st, a, x, sf, rng, cu):
    """I/O ``x`` arrives at control-unit station ``st`` at ``a`` (ms): returns when its service
    ends. FIFO over the station's servers by the Kiefer-Wolfowitz recursion: it starts when it
    arrives or when the first server frees, whichever is later (arrivals are taken in time
    order, so this is the FIFO queue's own sample path; a station with as many servers as
    slots never queues). The service is the station's row's next draw."""
    row, zero, kw_n, kw_free, work = cu
    if zero[st]:
        return a
    svc = draw(rng, row[st])
    start = a
    if kw_n[st] > 0:
        start = kw_start(kw_free[st], kw_n[st], a, svc)
    sf[x, SF_CU_START + 2 * st] = start
    sf[x, SF_CU_END + 2 * st] = start + svc
    work[st] += svc
    return start + svc


@nb.njit(**JIT_LEAF)
def cu_committed(sf, st, now):
    """Service at control-unit station ``st`` assigned but not yet given at ``now`` (ms): the
    part after ``now`` of every slot's last interval there (the utilisation's area is the work
    assigned in the window, less this at its end, plus this at its start)."""
    tot = 0.0
    for y in range(sf.shape[0]):
        e = sf[y, SF_CU_END + 2 * st]
        if e > now:
            tot += e - max(now, sf[y, SF_CU_START + 2 * st])
    return tot


@nb.njit(**JIT_STAGE)
def stage_be(x, t, sf, si, rng, cu, heap):
    """A miss reaches the back end at ``t``: its service (FIFO), the disconnect it makes, and
    the connect after it, planned now (one event)."""
    return _back_end_at(x, t, t, sf, rng, cu, heap)


@nb.njit(**JIT_STAGE)
def _back_end_at(x, t, a, sf, rng, cu, heap):
    """I/O x reaches the back end at ``a`` >= t (ms; a > t only where it cannot queue): its
    service ends its disconnect, then connect (``_connect_at``)."""
    tau = cu_serve(1, a, x, sf, rng, cu)
    sf[x, SF_DISC] = tau - sf[x, SF_T_DISC]
    return _connect_at(x, t, tau, sf, heap)


@nb.njit(**JIT_STAGE)
def stage_ha(x, t, sf, si, rng, cu, heap, dev_state, cls_kb, cls_proto, pos):
    """The command reaches the control unit's host adapter at ``t`` (the CMR: FIFO over its
    servers). A pass-through device then plans the rest at once, as far as nothing can queue:
    the device-service seam at the command's acceptance, its device-side disconnect, a back end
    that never queues, the protocol; one event (EV_PROTO) resumes the I/O at its transfer, or
    EV_BE at a back end that can queue. A positional device's seam keeps per-device state, so
    it runs at the acceptance itself (the EV_HA event, then AFTER_HA)."""
    h_t, h_c, h_n = heap
    sf[x, SF_T_MARK] = t
    tau = cu_serve(0, t, x, sf, rng, cu)
    if pos[0]:
        if tau > t:
            heap_put(h_t, h_c, h_n, tau, x * 8 + EV_HA)
            return -1
        return AFTER_HA
    nxt = stage_after_ha(x, tau, sf, si, dev_state, cls_kb, cls_proto, rng, pos)
    if nxt == DEVICE:
        tau += sf[x, SF_DEV_DISC_MS]
        nxt = device_disconnect_ends(x, tau, sf, si)
    if nxt == BE:
        kw_n = cu[2]
        if kw_n[1] > 0:                          # a back end that can queue: at its arrival
            if tau > t:
                heap_put(h_t, h_c, h_n, tau, x * 8 + EV_BE)
                return -1
            return BE
        return _back_end_at(x, t, tau, sf, rng, cu, heap)
    return _connect_at(x, t, tau, sf, heap)
