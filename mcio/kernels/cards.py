"""Feature cards: a card's I/O-rate limit as a FIFO single server every start of its channels
crosses (its data-rate limit is a link in its channels' routes: kernels/transfer.py).

A start on channel c of card k = ch_card[c] >= 0 with card_start_ms[k] > 0 (``lk``'s card
member: engine/pack_links.py), once its MP start work is done, queues FIFO at the card and is served for
card_start_ms[k] (the card's work per start: 1000 / its I/O-rate limit, ms), then goes on to the
control unit's host adapter. Arrivals are taken in time order, so the card's free time alone is
the FIFO single server (Lindley's recursion); the I/O resumes by a timed event (EV_CARD), so that
the host adapter's own recursion still sees its arrivals in time order. The card's wait and
service are part of pend (not of the CMR, which starts at the host adapter).

Per-card accumulators ``cards`` float64[K, N_CARD] (mcio/engine/results_links.py): the starts
measured and the card's busy ms (the start work assigned in the measurement).
"""
import numpy as np

from . import alloc
from .heap import heap_put
from .options import JIT, JIT_STAGE, njit
from .stages import SI_CH

CD_STARTS, CD_BUSY_MS = range(2)
N_CARD = 2
# the heap's event code & 7 for a start leaving its card (stages.EV_* take 0-6)
EV_CARD = 7
# the stage a start resumes at past its card: the host adapter (iopath's loop runs stage_ha);
# a number no stage of stages.py takes
PAST_CARD = 20


@njit(**JIT)
def cards_state(card):
    """The cards' free times at time 0 (ms): float64[K] (``card`` None: no card limits)."""
    if card is None:
        return alloc.zeros(0, np.float64)
    return alloc.zeros(card[1].shape[0], np.float64)


@njit(**JIT_STAGE)
def stage_card(x, t, si, heap, card, card_free, cards):
    """I/O x's start reaches its channel's card at ``t`` (ms): FIFO behind the card's other
    starts, then its service; returns PAST_CARD if it goes on now (no card, or no limit), else -1
    (the EV_CARD event resumes it). ``card`` = (ch_card int64[C], card_start_ms float64[K]), or
    None when no card has a start limit: a type, so that case compiles to nothing."""
    if card is None:
        return PAST_CARD
    ch_card, card_start_ms = card
    k = ch_card[si[x, SI_CH]]
    if k < 0:
        return PAST_CARD
    s = card_start_ms[k]
    if s <= 0.0:
        return PAST_CARD
    start = card_free[k]
    if start < t:
        start = t
    card_free[k] = start + s
    cards[k, CD_STARTS] += 1.0
    cards[k, CD_BUSY_MS] += s
    h_t, h_c, h_n = heap
    heap_put(h_t, h_c, h_n, start + s, x * 8 + EV_CARD)
    return -1
