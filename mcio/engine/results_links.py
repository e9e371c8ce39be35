"""Per-link and per-card results (issue 28): the ``extra`` Dataset variables of a configuration's
links (channel links by direction, ISLs, control-unit ports, cards' data limits) and feature cards,
in RMF's vocabulary, from the kernels' ``lns`` and ``cards`` accumulators (kernels/transfer.py,
kernels/cards.py), stacked by replication.

Per link (dims ("replication", "link")): busy fraction (time with at least one transfer), data
rate (MB/s, 1 MB = 1000 KB) and utilisation (data rate / the link's rate); the "link" coordinate
is the links' names, with their kind ("channel", "isl", "cu_port", "card") and direction ("read",
"write", "both") as label coordinates, so an ISL's figures are ``ds.sel(link=ds.link_kind ==
"isl")``'s. Per card (dims ("replication", "card")): its I/O rate (SSCH/s it started) and busy
fraction (its start work over the interval; the data limit is its link of kind "card").
Only for a configuration's tables (``Tables.legacy`` False): today's single-path outputs are
left as they are.
"""
from __future__ import annotations

import numpy as np

from .results import _attrs, _var


def _coord(values, dim: str, long_name: str):
    return ((dim,), np.asarray(values), _attrs("1", long_name), True)


def _card_starts(tables, counted: np.ndarray, ch_ssch) -> np.ndarray:
    """I/Os started through each card [R, K]: as its start station counted them where it has an
    I/O-rate limit, else its channels' starts (``ch_ssch``; none given: the counts as they are)."""
    if ch_ssch is None:
        return counted
    out = counted.copy()
    limited = np.asarray(tables.card_start_ms) > 0
    for c, k in enumerate(tables.ch_card):
        if k >= 0 and not limited[k]:
            out[:, k] += ch_ssch[:, c]
    return out


def extra_vars(tables, lns: np.ndarray, cards: np.ndarray, T_ms: np.ndarray,
               ch_ssch: np.ndarray | None = None) -> dict:
    """Part entries {name: (dims, array, attrs, is_coord)} of the per-link and per-card figures.
    ``lns`` float64[R, Lk, N_LN], ``cards`` float64[R, K, N_CARD], ``T_ms`` float64[R] the
    measured interval of each replication (ms); ``ch_ssch`` float64[R, C] the I/Os each channel
    started (a card's I/O rate is its channels': every start crosses its card, counted by the
    kernel only where the card has an I/O-rate limit)."""
    from ..kernels.cards import CD_BUSY_MS, CD_STARTS      # (late: the kernels' modules compile on import)
    from ..kernels.transfer import LN_BUSY_MS, LN_KB
    T = np.maximum(np.asarray(T_ms, float), 1e-300)[:, None]
    rate = np.asarray(tables.ln_kb_per_ms, float)
    mb_s = lns[:, :, LN_KB] / T                       # KB per ms = MB/s
    out = {
        "link_busy_by_link": _var(lns[:, :, LN_BUSY_MS] / T, ("replication", "link"), "1",
                                  "link busy fraction (time with at least one transfer), per link"),
        "link_mb_s": _var(mb_s, ("replication", "link"), "Mbyte s-1",
                          "data rate per link and direction (1 MB = 1000 KB)"),
        "link_utilization": _var(mb_s / rate[None, :], ("replication", "link"), "1",
                                 "link utilization: data rate / the link's rate"),
        "link_rate_mb_s": _var(rate, ("link",), "Mbyte s-1", "the link's data rate (capacity)"),
        "chpid": _coord(np.array(tables.ch_name, dtype=str), "channel", "CHPID: the channel's name"),
        "link": _coord(np.array(tables.ln_name, dtype=str), "link", "link name"),
        "link_kind": _coord(np.array(tables.ln_kind, dtype=str), "link",
                            "link kind: channel, isl (inter-switch link), cu_port, card (data limit)"),
        "link_direction": _coord(np.array(tables.ln_dir, dtype=str), "link",
                                 "direction: read (control unit to host), write, or both"),
    }
    if len(tables.card_name):
        out.update({
            "card_ssch_iops": _var(_card_starts(tables, cards[:, :, CD_STARTS], ch_ssch) / T * 1000.0,
                                   ("replication", "card"), "s-1",
                                   "I/O rate (SSCH/s) started through the feature card"),
            "card_busy": _var(cards[:, :, CD_BUSY_MS] / T, ("replication", "card"), "1",
                              "feature card busy fraction (its start work; I/O-rate limit)"),
            "card_max_iops": _var(np.where(tables.card_start_ms > 0, 1000.0 / np.maximum(tables.card_start_ms, 1e-300),
                                           np.inf), ("card",), "s-1", "the card's I/O-rate limit"),
            "card": _coord(np.array(tables.card_name, dtype=str), "card", "feature card name"),
        })
    return out
