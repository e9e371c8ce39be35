"""Test helpers for the configuration's channels, links, routes and cards (issue 28, h-links):
a small model and ``Tables`` built from its legacy tables with ``dataclasses.replace``: full
duplex, a link shared by some channels' routes (an ISL), a feature card."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from mcio import Model
from mcio.engine.tables import legacy_tables


def model(channels: int = 1, population: int = 32, kb: float = 256.0, link_mb_s: float = 100.0,
          classes: int = 1, mp_us: float = 0.0, devices: int = 64, think_ms: float = 0.0,
          open_rate: float | None = None, ha_us: float = 0.0, oe: int = 64) -> Model:
    """A closed (or open at ``open_rate``) load of ``classes`` equal classes of ``kb`` KB over
    ``devices`` volumes and ``channels`` channels of ``link_mb_s``; no back end (all hits)."""
    wl = ({"type": "open", "rate_iops": open_rate} if open_rate is not None else
          {"type": "closed", "population": population, "think_ms": think_ms})
    return Model.from_dict({
        "workload": wl,
        "io": [{"name": f"c{k}", "share": 1.0 / classes, "kb": kb} for k in range(classes)],
        "devices": {"count": devices},
        "channels": {"count": channels, "link_mb_s": link_mb_s, "mp_us_per_io_ccw": mp_us,
                     "max_open_exchanges": oe},
        "control_unit": {"ha_servers": 1, "ha_service_us": ha_us}})


def tables(m: Model, **kw):
    """``m``'s legacy tables as a non-legacy configuration, fields replaced by ``kw``."""
    return replace(legacy_tables(m), legacy=False, **kw)


def routes(T, extra=lambda c, u, d: ()):
    """T with routes rebuilt: the channel's own link by direction, then ``extra(c, u, d)``."""
    C, U = T.n_channels, T.n_cus
    ptr, ln = [0], []
    for c in range(C):
        for u in range(U):
            for d in range(2):
                ln += [int(T.ch_link[c, d])] + [int(x) for x in extra(c, u, d)]
                ptr.append(len(ln))
    return replace(T, rt_ptr=np.array(ptr, np.int64), rt_ln=np.array(ln, np.int64))


def add_link(T, name: str, kind: str, direction: str, mb_s: float):
    """(T with one more link, its index)."""
    i = len(T.ln_name)
    return replace(T, ln_name=T.ln_name + [name], ln_kind=T.ln_kind + [kind],
                   ln_dir=T.ln_dir + [direction],
                   ln_kb_per_ms=np.append(T.ln_kb_per_ms, float(mb_s))), i


def full_duplex(T, write_mb_s: float | None = None):
    """Every channel full duplex: its link becomes its read link, a new one its write link."""
    ch_link = T.ch_link.copy()
    for c in range(T.n_channels):
        l0 = int(T.ch_link[c, 0])
        T, l1 = add_link(T, f"{T.ch_name[c]}.write", "channel", "write",
                         T.ln_kb_per_ms[l0] if write_mb_s is None else write_mb_s)
        ch_link[c, 1] = l1
    dirs = list(T.ln_dir)
    for c in range(T.n_channels):
        dirs[int(ch_link[c, 0])] = "read"
    return routes(replace(T, ch_link=ch_link, ln_dir=dirs))


def shared_isl(T, chans, mb_s: float, name: str = "isl0"):
    """A link of ``mb_s`` (kind "isl", both directions) in the routes of channels ``chans``."""
    T, l = add_link(T, name, "isl", "both", mb_s)
    prev = {(c, u, d): list(T.route(c, u, d)[1:]) for c in range(T.n_channels)
            for u in range(T.n_cus) for d in range(2)}
    return routes(T, lambda c, u, d: prev[c, u, d] + ([l] if c in chans else [])), l


def card(T, chans, start_ms: float = 0.0, data_mb_s: float | None = None, name: str = "card0"):
    """A feature card holding channels ``chans``: its I/O-rate limit (start work ``start_ms``)
    and, with ``data_mb_s``, its data limit (a link of kind "card" in their routes)."""
    k = len(T.card_name)
    ch_card = T.ch_card.copy()
    ch_card[list(chans)] = k
    T = replace(T, card_name=T.card_name + [name], card_start_ms=np.append(T.card_start_ms, start_ms),
                ch_card=ch_card)
    if data_mb_s is not None:
        T, l = add_link(T, name, "card", "both", data_mb_s)
        prev = {(c, u, d): list(T.route(c, u, d)[1:]) for c in range(T.n_channels)
                for u in range(T.n_cus) for d in range(2)}
        T = routes(T, lambda c, u, d: prev[c, u, d] + ([l] if c in chans else []))
    return T
