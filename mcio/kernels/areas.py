"""Time-weighted channel figures integrated when a level changes, not at every event.

A channel's open exchanges, its MP's start queue, and whether its MP and its link are busy are
levels that only the stages touching that channel change. Each level remembers when it last
changed (or when its busy period began); its area (level x ms) is added when it changes, at the
measurement's start (``areas_restart``: from now) and at its end (``areas_close``). So an event
costs the same whatever the number of channels; the sums are those of the per-event form, grouped
by the intervals between changes (the same to rounding).

State (``iopath._new_state``): ``oe`` int64[C] open exchanges and ``oe_tl`` float64[C] their last
change (ms); in ``mp``: ``mp_t0`` float64[C] when the MP's busy period began, ``mq_tl``
float64[C] the start queue's last change, ``mq_area`` float64[C] its area since the measurement
started (I/O ms). The areas go to ``chs[c, C_AREA_OE | C_MP_BUSY_MS]`` (kernels/stats.py) and,
summed over channels at the end, to ``acc[A_AREA_MPQ]``. The links' busy periods are kept the
same way, by link, in kernels/transfer.py.
"""

from .options import JIT_LEAF, JIT_STAGE, njit
from .stats import C_AREA_OE, C_MP_BUSY_MS


@njit(**JIT_STAGE)
def oe_add(c, t, d, oe, oe_tl, chs):
    """Channel c's open exchanges change by ``d`` at ``t`` (ms): the area at the old level first."""
    chs[c, C_AREA_OE] += oe[c] * (t - oe_tl[c])
    oe_tl[c] = t
    oe[c] += d


@njit(**JIT_STAGE)
def mq_add(c, t, d, mq_n, mq_tl, mq_area):
    """Channel c's MP start queue changes by ``d`` at ``t`` (ms)."""
    mq_area[c] += mq_n[c] * (t - mq_tl[c])
    mq_tl[c] = t
    mq_n[c] += d


@njit(**JIT_LEAF)
def areas_restart(t, oe_tl, mp_t0, mq_tl, mq_area):
    """The measurement starts at ``t`` (the caller zeroes ``chs``): every level's area from now."""
    for c in range(oe_tl.shape[0]):
        oe_tl[c] = t
        mp_t0[c] = t
        mq_tl[c] = t
        mq_area[c] = 0.0


@njit(**JIT_LEAF)
def areas_close(t, chs, oe, oe_tl, mp_busy, mp_t0, mq_n, mq_tl, mq_area):
    """The measurement ends at ``t``: every level's area up to ``t`` into ``chs``; returns the MP
    start queues' area summed over channels (I/O ms, in channel order)."""
    a_mpq = 0.0
    for c in range(oe.shape[0]):
        chs[c, C_AREA_OE] += oe[c] * (t - oe_tl[c])
        if mp_busy[c]:
            chs[c, C_MP_BUSY_MS] += t - mp_t0[c]
        a_mpq += mq_area[c] + mq_n[c] * (t - mq_tl[c])
    return a_mpq
