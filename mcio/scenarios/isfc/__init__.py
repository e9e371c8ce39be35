"""Seed 000: an ISFC logical link made of FICON CTC (FCTC) devices, live guest relocation traffic.

A link is a set of FCTC devices (device numbers), each on one FICON channel (CHPID), between two
z/VM members. z/VM's write-collision convention (:mod:`.rules`) decides on which devices each
member writes. The sending member keeps one write outstanding on every device it may use (a
relocation is a bulk stream and an FCTC device carries one I/O at a time), so each channel is a
small closed queueing network: per used device one I/O cycling through

    channel MP (start work, FIFO)  ->  partner-side latency (disconnect)  ->  data transfer
    (the channel's data rate shared by its concurrent transfers)

built on the generic engine (:func:`mcio.engine.simulate`) as a closed workload with one customer
pinned to each used device. Devices the sender may not use get weight 0 and carry nothing.

Shared versus non-shared channels come out of one model: every FCTC *end* on a channel puts its
MP work (``mp_us_per_end``) and its pass of the data (``kb_per_io`` through the channel's data
mover at ``channel_mb_s``) on that channel. A "straight" FCTC connection has both ends on the same
CHPID, shared by the two LPARs of one CEC (the seed's case): the sender's write and the
receiver's read both run there, two ends per relocated SSCH. On a non-shared channel only the
sender's end does; the receiver's read runs on the partner's channel, whose MP (the same work per
end) is then a queue of its own in each write's path: the receiver must have re-posted its read
before the next write on that device is matched. Nothing is fitted to non-shared channels (the
seed measured none): their throughput is a prediction of the same parameters. The receiver's own
writes (acknowledgements on the devices z/VM reserves for it) are left out: the seed shows those
devices at ~0 SSCH/s and 0 % busy.

Nothing in this model couples different channels (the engine's back end is given a server per
device; the partner MP of a non-shared channel is simulated per channel), so a link's throughput
is the sum of its channels' throughputs; the planner
uses that to score thousands of layouts from one simulation per channel kind.

The scenario's modules, one concept each (every public name is importable from here):

- :mod:`.rules`: z/VM's write-collision convention; device-number and CHPID syntax;
- :mod:`.params`: the physics (:class:`IsfcParams`) with each figure's provenance, the
  seed's figures (:data:`SEED_000`), the fit to them and the exact-MVA oracle;
- :mod:`.link`: the link (:class:`IsfcLink`), who writes on which device, standard layouts;
- :mod:`.sim`: engine models of a link's channels, :func:`simulate_link`, the results Dataset;
- :mod:`.plan`: the device-number layout planner (:func:`plan`);
- :mod:`.scenario`: the scenario on the contract (:data:`SCENARIO`: Params, variants, seed 000's
  figures; ``mcio reproduce isfc-link``);
- this module: every public name, and :func:`build_isfc`, the one-model view of a link.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from ...model import Model
from .link import IsfcLink, direction_shares, parse_senders, straight_layout, striped_layout
from .params import (CHANNEL_GENERATIONS, DEFAULT_PARAMS, REFERENCE_GENERATION, SEED_000, IsfcParams,
                     channel_throughput_mva, fit_to_seed, generation_params)
from .plan import Plan, PlanEntry, channel_table, plan
from .sim import BUSY_DEFINITIONS, assemble, ci95, link_simulations, simulate_link, summary
from .scenario import (FIGURES, SCENARIO, STRAIGHT_3X3, STRIPED_3X3, IsfcLinkScenario, build_link_model,
                       link_of, physics)


def build_isfc(layout: Mapping | None = None, systems: Sequence[str] = ("LPAR1", "LPAR2"),
               sender: str = "auto", shared: bool = True, kb_per_io: float = DEFAULT_PARAMS.kb_per_io,
               channel_mb_s: float = DEFAULT_PARAMS.channel_mb_s,
               mp_us_per_end: float = DEFAULT_PARAMS.mp_us_per_end, mp_scv: float = DEFAULT_PARAMS.mp_scv,
               partner_latency_ms: float = DEFAULT_PARAMS.partner_latency_ms) -> Model:
    """ISFC logical link over FICON CTC (seed 000) as one engine model, for sweeps.

    ``layout``: CHPID -> device-number ranges (default: the seed's striped 3 x 3 link); channel i
    of the model is the i-th CHPID, device j the j-th lowest device number. Devices the sender may
    not write on get weight 0. (:func:`simulate_link` gives the labelled per-connection view;
    the registered scenario is :data:`SCENARIO`.)
    """
    link = IsfcLink.from_ranges(list(systems), layout or STRIPED_3X3, shared=shared)
    prm = IsfcParams(kb_per_io=kb_per_io, channel_mb_s=channel_mb_s, mp_us_per_end=mp_us_per_end,
                     mp_scv=mp_scv, partner_latency_ms=partner_latency_ms)
    return build_link_model(link, sender, prm, shared)


__all__ = ["CHANNEL_GENERATIONS", "REFERENCE_GENERATION", "generation_params", "IsfcParams", "DEFAULT_PARAMS", "SEED_000", "fit_to_seed", "IsfcLink", "simulate_link", "link_simulations", "build_isfc",
           "assemble", "summary", "straight_layout", "striped_layout", "channel_throughput_mva",
           "parse_senders", "direction_shares", "ci95", "plan", "Plan", "PlanEntry", "channel_table",
           "BUSY_DEFINITIONS", "SCENARIO", "IsfcLinkScenario", "FIGURES", "STRIPED_3X3", "STRAIGHT_3X3",
           "build_link_model", "link_of", "physics"]
