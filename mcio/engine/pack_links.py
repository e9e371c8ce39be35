"""Tables -> the kernels' channel, link, route and card arrays (``lk``, ``iopath.run_one``).

The tuple's order is what the kernels unpack (kernels/transfer.py, kernels/cards.py):

0 mp_ms float64[C, NC, 2]   MP work per I/O by channel, class and mode (ms)
1 ch_oe_cap int64[C]        open exchanges per channel
2 ch_link int64[C, 2]       the channel's link by direction (0 read, 1 write)
3 cls_dir int64[NC]         each class's direction
4 ln_bw float64[Lk]         each link's rate (KB/ms = MB/s)
5 ln_ch int64[Lk]           the channel whose read (or only) link it is, else -1
6 routes, when some route crosses several links, else None:
  (rt_ptr int64[C U 2 + 1], rt_ln int64[:]: rt_ln[rt_ptr[i]:rt_ptr[i + 1]], i = (c U + u) 2 + d;
   dev_cu int64[D] each device's control unit)
7 card start limits, when some card has one, else None:
  (ch_card int64[C] each channel's feature card, -1 none; card_start_ms float64[K] card work per
   I/O start (ms), 0 no limit)

8 not None (a float64[1] marker) when every channel is alike: its own half-duplex link
  (link c = channel c), one link rate, the same MP work; then the kernel reads the MP work from
  cls_mp and the rate from fp[FP_LINK_KB_PER_MS] (``pack`` sets them from the tables), as it
  did before per-channel tables existed
9 ch_proto_ms float64[C, NC, 2] connect-time work (ms) by channel, class and mode, when some
  channel's protocol time is its own (``Tables.ch_proto_ms``), else None: the class's cls_proto

A None member is a type to Numba: the kernel compiled for it has no code for that mechanism
(today's configurations run the event loop they ran before routes and cards existed).

and ``link_ip(tables, slots)``: the values of ip[IP_LN_SLOTS] and ip[IP_ROUTES_GENERAL].
"""
from __future__ import annotations

import numpy as np

from .tables import Tables


def link_arrays(t: Tables) -> tuple:
    """The ``lk`` tuple of ``t`` (contiguous arrays of the kernels' dtypes)."""
    C = t.n_channels
    Lk = len(t.ln_kb_per_ms)
    ln_ch = np.full(Lk, -1, np.int64)
    for c in range(C - 1, -1, -1):
        ln_ch[t.ch_link[c, 0]] = c
    f = lambda a: np.ascontiguousarray(a, np.float64)   # noqa: E731
    i = lambda a: np.ascontiguousarray(a, np.int64)     # noqa: E731
    gen = None
    if (np.diff(t.rt_ptr) > 1).any():
        gen = (i(t.rt_ptr), i(t.rt_ln), i(t.dev_cu))
    card = None
    if len(t.card_start_ms) and (np.asarray(t.card_start_ms) > 0).any():
        card = (i(t.ch_card), f(t.card_start_ms))
    uni = np.ones(1) if gen is None and uniform(t) else None
    proto = None if t.ch_proto_ms is None else f(t.ch_proto_ms)
    return (f(t.mp_ms), i(t.ch_oe_cap), i(t.ch_link), i(t.cls_dir), f(t.ln_kb_per_ms), ln_ch, gen, card, uni,
            proto)


def uniform(t: Tables) -> bool:
    """Every channel alike: half duplex on its own link (link c = channel c, no other link), one
    link rate, the same MP work per class and mode."""
    C = t.n_channels
    return (len(t.ln_kb_per_ms) == C and bool((t.ch_link == np.arange(C)[:, None]).all())
            and bool((t.ln_kb_per_ms == t.ln_kb_per_ms[0]).all()) and bool((t.mp_ms == t.mp_ms[:1]).all()))


def link_ip(t: Tables, slots: int) -> tuple[int, int]:
    """(the most transfers one link may hold: the open exchanges of the channels whose routes
    cross it, at most ``slots``; 1 if some route crosses several links, else 0)."""
    C, U = t.n_channels, t.n_cus
    cap = np.zeros(len(t.ln_kb_per_ms), np.int64)
    for c in range(C):
        links = set(int(x) for x in t.ch_link[c])
        for i in range(c * U * 2, (c + 1) * U * 2):
            links.update(int(x) for x in t.rt_ln[t.rt_ptr[i]:t.rt_ptr[i + 1]])
        for l in links:
            cap[l] += t.ch_oe_cap[c]
    general = int(bool((np.diff(t.rt_ptr) > 1).any()))
    return int(min(slots, max(1, cap.max(initial=1)))), general
