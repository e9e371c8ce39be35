"""The device-number layout planner: on which CHPID each FCTC device of a link goes.

For one direction, a layout's throughput depends only on how many devices the sender uses on
each channel (and the channel's kind), because channels do not interact. So the planner
  1. simulates, once per channel kind, a channel with u = 1 .. U used devices (one engine run:
     U channels, channel u holding u devices) -> per-replication SSCH/s table X_kind(u);
  2. searches layouts: which channels hold the k lowest device numbers (the first member's own),
     which hold the k highest (the second member's own), and, greedily, where the n - 2k devices
     in between go (for one direction the score is a sum of a concave X, where greedy is exact);
  3. scores every layout as the sum over channels of the simulated X (per replication, so the
     confidence interval comes along), adds the straight and striped layouts for comparison,
     and ranks: best worse-direction throughput (or the given sender's), then fewer devno ranges.

:func:`plan` returns a :class:`Plan` (ranked :class:`PlanEntry` layouts and the simulated table);
:meth:`Plan.evaluate` scores any other layout of the same members on that table.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from ...errors import McioError
from .link import IsfcLink, _link_from_order, check_room, check_systems, straight_layout, striped_layout
from .params import DEFAULT_PARAMS, IsfcParams
from .rules import first_member, format_chpid, parse_chpid, parse_devno, reserved_per_side, write_order
from .sim import _channel_model, _engine, _per_channel, ci95, simulate_link


@dataclass
class PlanEntry:
    """One ranked layout: per sending member, simulated link SSCH/s (mean, CI) and used devices."""

    name: str
    link: IsfcLink
    ssch_iops: dict            # sender -> mean link SSCH/s
    ssch_ci95_iops: dict       # sender -> 95 % CI half-width
    used_per_channel: dict     # sender -> {CHPID: devices it writes on}
    score: tuple = ()

    def mb_s(self, kb_per_io: float) -> dict:
        return {s: x * kb_per_io / 1000.0 for s, x in self.ssch_iops.items()}


def _kind(link: IsfcLink, chpid: int) -> str:
    return "shared" if chpid in link.shared else "non-shared"


@dataclass
class Plan:
    """The planner's result: ranked entries (best first) and the simulated table they rest on."""

    entries: list
    directions: list           # the sending members considered
    systems: tuple
    params: IsfcParams
    table: dict                # channel kind ("shared"/"non-shared") -> (replication, u) SSCH/s
    verification: dict = field(default_factory=dict)   # sender -> Dataset of the best layout

    @property
    def best(self) -> PlanEntry:
        return self.entries[0]

    def entry(self, name: str) -> PlanEntry:
        for e in self.entries:
            if e.name == name:
                return e
        raise KeyError(name)

    def rank(self, name: str) -> int:
        return [e.name for e in self.entries].index(name) + 1

    def evaluate(self, link: IsfcLink, name: str = "layout") -> PlanEntry:
        """Score any layout of the same two members on this plan's simulated table."""
        if set(link.systems) != set(self.systems):
            raise McioError("systems", list(link.systems), f"the plan is for {' and '.join(self.systems)}")
        used, per_rep = {}, {}
        for s in self.directions:
            partner = next(x for x in self.systems if x != s)
            counts = {c: 0 for c in link.chpids}
            for d in write_order(link.devnos, s, partner):
                counts[link.chpid_of(d)] += 1
            tot = np.zeros(next(iter(self.table.values())).shape[0])
            for c, u in counts.items():
                t = self.table.get(_kind(link, c))
                if t is None or u >= t.shape[1]:
                    raise McioError("layout", link.describe(),
                                    f"{u} used devices on a {_kind(link, c)} channel are outside the planned table")
                tot = tot + t[:, u]
            used[s] = {format_chpid(c): u for c, u in counts.items()}
            per_rep[s] = tot
        means = {s: float(v.mean()) for s, v in per_rep.items()}
        score = (round(min(means.values()), 6), round(sum(means.values()), 6), -link.n_ranges())
        return PlanEntry(name, link, means, {s: float(ci95(v)) for s, v in per_rep.items()}, used, score)

    def report(self) -> str:
        kb = self.params.kb_per_io
        other = {a: b for a, b in (self.systems, self.systems[::-1])}
        heads = [f"{s}->{other[s]}" for s in self.directions]
        lines = [f"{'rank':>4}  {'layout':<13}" + "".join(f"  {h:>28}" for h in heads),
                 f"{'':>4}  {'':<13}" + "".join(f"  {'SSCH/s (95% CI)':>16} {'MB/s':>11}" for _ in heads)]
        for i, e in enumerate(self.entries, 1):
            row = f"{i:>4}  {e.name:<13}"
            for s in self.directions:
                cell = f"{e.ssch_iops[s]:.1f} ±{e.ssch_ci95_iops[s]:.1f}"   # one right-aligned cell under its header
                row += f"  {cell:>16} {e.mb_s(kb)[s]:>11.1f}"
            lines.append(row)
        b = self.best
        lines += ["", f"Best layout ({b.name}), device numbers per CHPID:"]
        for c, r in b.link.ranges().items():
            use = ", ".join(f"{s} writes on {b.used_per_channel[s].get(c, 0)}" for s in self.directions)
            lines.append(f"  CHPID {c}: {r or '(none)':<30} ({use})")
        for s, ds in self.verification.items():
            lines.append(f"Full-link simulation of the best layout, {s}->{other[s]}: "
                         f"{float(ds.link_ssch_iops.mean()):.1f} ±{float(ds.link_ssch_ci95_iops):.1f} SSCH/s, "
                         f"{float(ds.link_mb_s.mean()):.1f} MB/s")
        return "\n".join(lines)


def channel_table(u_max: int, shared: bool, params: IsfcParams = DEFAULT_PARAMS, *,
                  ios_per_device: int = 20_000, replications: int = 4, seed: int = 0, point: int = 0,
                  simulate_fn: Callable | None = None) -> np.ndarray:
    """Simulated SSCH/s of one channel with u = 0 .. u_max used devices: (replication, u_max + 1).

    Shared: one engine run, u_max independent channels, channel u holding u used devices;
    non-shared: one run per u (the partner MP is the engine's one control unit). Beyond ~3 used
    devices a channel's rate hardly grows, so each channel gets about ``3 * ios_per_device`` I/Os.
    """
    simulate = simulate_fn or _engine()
    if shared:
        model = _channel_model(_per_channel(range(1, u_max + 1)), [True] * (u_max * (u_max + 1) // 2), u_max,
                               shared, params)
        ds = simulate(model, ios=3 * ios_per_device * u_max, replications=replications, seed=seed, point=point)
        x = ds["channel_ssch_iops"].values
    else:   # a non-shared channel's partner MP is the engine's one control unit: one model per u
        cols = []
        for u in range(1, u_max + 1):
            model = _channel_model([0] * u, [True] * u, 1, False, params)
            ds = simulate(model, ios=3 * ios_per_device, replications=replications, seed=seed,
                          point=1000 * point + u)
            cols.append(ds["channel_ssch_iops"].values[:, 0])
        x = np.stack(cols, axis=1)
    return np.concatenate([np.zeros((x.shape[0], 1)), x], axis=1)


def _order_from(bot: Sequence[int], mid: Sequence[int], top: Sequence[int]) -> list[int]:
    """Channel index of each position (lowest device number first), runs kept contiguous."""
    bot, top = sorted(bot), sorted(top)
    blocks = [c for c in range(len(mid)) if mid[c] > 0]
    if bot and bot[-1] in blocks:                    # continue the last reserved channel's run
        blocks.remove(bot[-1]); blocks.insert(0, bot[-1])
    if top and top[0] in blocks and blocks[0] != top[0]:
        blocks.remove(top[0]); blocks.append(top[0])
    if blocks and top and blocks[-1] in top:         # the top run starts where the middle ends
        top.remove(blocks[-1]); top.insert(0, blocks[-1])
    if blocks and bot and blocks[0] in bot:
        bot.remove(blocks[0]); bot.append(blocks[0])
    return list(bot) + [c for c in blocks for _ in range(mid[c])] + list(top)


def plan(chpids: Sequence, n_devices: int, systems: Sequence[str], sender: str | None = None, *,
         base="D000", shared=True, params: IsfcParams = DEFAULT_PARAMS, ios_per_device: int = 20_000,
         replications: int = 4, seed: int = 0, top: int = 3, verify: bool = False,
         simulate_fn: Callable | None = None) -> Plan:
    """Search device-number layouts of ``n_devices`` FCTC devices over ``chpids`` and rank them by
    simulated link throughput (best first; the straight and striped layouts are always ranked too).

    ``sender``: the member that sends (relocates), or None for both directions, ranked by the worse
    direction. ``shared``: as in :meth:`IsfcLink.build`. ``top``: how many distinct searched
    layouts to keep. ``verify``: also simulate the best layout as a whole link.
    """
    pair = check_systems(systems)
    if isinstance(chpids, (str, bytes)) or not isinstance(chpids, Sequence) or not chpids:
        raise McioError("chpids", chpids, "must be a non-empty list of CHPIDs, e.g. ['3C', '3D']")
    b0 = parse_devno(base, "base")
    probe = IsfcLink.build(pair, chpids, {b0: chpids[0]}, shared)
    if isinstance(n_devices, bool) or not isinstance(n_devices, int):
        raise McioError("devices", n_devices, "the number of FCTC devices must be an integer")
    k = reserved_per_side(n_devices)                         # raises for < 1 or > 16
    check_room(b0, n_devices)
    chs = list(probe.chpids)
    C = len(chs)
    if sender is None:
        directions = list(pair)
    else:
        s = sender.strip().upper() if isinstance(sender, str) else sender
        if s not in pair:
            raise McioError("sender", sender, f"not a member of the link; allowed: {', '.join(pair)}")
        directions = [s]
    first = first_member(*pair)
    second = next(s for s in pair if s != first)
    kind_of = [_kind(probe, c) for c in chs]

    # 1. the simulated per-channel table: X_kind(u) for u = 0 .. u_cap. A channel's rate is concave
    #    in its used devices, so no layout that crowds more than ceil(n / C) + k of them onto one
    #    channel can beat a balanced one; those are left out of the search.
    u_cap = min(n_devices - k, -(-n_devices // C) + k)
    table = {kind: channel_table(u_cap, kind == "shared", params, ios_per_device=ios_per_device,
                                 replications=replications, seed=seed, point=100 + p, simulate_fn=simulate_fn)
             for p, kind in enumerate(sorted(set(kind_of)))}
    result = Plan([], directions, pair, params, table)
    mean = {kd: t.mean(axis=0) for kd, t in table.items()}

    def fast_score(used: dict) -> tuple:
        if any(used[s][c] > u_cap for s in directions for c in range(C)):
            return (-math.inf, -math.inf)
        tot = [sum(mean[kind_of[c]][used[s][c]] for c in range(C)) for s in directions]
        return (round(min(tot), 6), round(sum(tot), 6))

    # 2. the search. Channels of one kind are interchangeable, so the reserved ends can always sit
    #    on the first 2k channels of each kind; the middle devices are placed greedily.
    canon = [c for kd in sorted(set(kind_of)) for c in [i for i in range(C) if kind_of[i] == kd][: 2 * k]]
    found: dict = {}
    for bot in itertools.combinations_with_replacement(canon, k):
        for topr in itertools.combinations_with_replacement(canon, k):
            own = {first: np.bincount(np.array(bot, int), minlength=C),
                   second: np.bincount(np.array(topr, int), minlength=C)}
            mid = np.zeros(C, int)
            for _ in range(n_devices - 2 * k):
                best_c, best_sc = 0, None
                for c in range(C):
                    mid[c] += 1
                    sc = fast_score({s: own[s] + mid for s in directions})
                    mid[c] -= 1
                    if best_sc is None or sc > best_sc:
                        best_c, best_sc = c, sc
                mid[best_c] += 1
            if fast_score({s: own[s] + mid for s in directions})[0] == -math.inf:
                continue
            order = _order_from(list(bot), list(mid), list(topr))
            e = result.evaluate(_link_from_order(pair, chs, [chs[c] for c in order], b0, shared))
            key = tuple(tuple(sorted((kind_of[chs.index(parse_chpid(c))], u) for c, u in e.used_per_channel[s].items()))
                        for s in directions)
            if key not in found or e.score > found[key].score:
                found[key] = e

    # 3. rank: the best distinct searched layouts, plus straight and striped for comparison
    ranked = sorted(found.values(), key=lambda e: e.score, reverse=True)[:max(1, top)]
    for i, e in enumerate(ranked):
        e.name = "planned" if i == 0 else f"alternative{i}"
    entries = ranked + [result.evaluate(striped_layout(pair, chs, n_devices, base, shared), "striped"),
                        result.evaluate(straight_layout(pair, chs, n_devices, base, shared), "straight")]
    entries.sort(key=lambda e: e.score[:2], reverse=True)       # stable: searched layouts first on ties
    result.entries = entries
    if verify:
        for i, s in enumerate(directions):
            result.verification[s] = simulate_link(result.best.link, s, params, ios_per_device=ios_per_device,
                                                   replications=replications, seed=seed + 1 + i,
                                                   simulate_fn=simulate_fn)
    return result


class _Recorded:
    """What a dry run's simulate answers: every variable 1.0, of the model's channel or device
    shape (replication first), nothing flagged unstable."""

    def __init__(self, model, replications: int):
        self.shape = {"channel": (replications, model.channels["count"]),
                      "device": (replications, model.devices["count"])}

    def __contains__(self, name) -> bool:
        return False

    def __getitem__(self, name):
        return type("Var", (), {"values": np.ones(self.shape["device" if name.startswith("device") else "channel"])})


def plan_simulations(*args, **kwargs) -> list:
    """The engine runs :func:`plan` makes with these arguments, as
    :class:`mcio.batch.estimates.Simulation` (for the time and memory estimates): a dry run of the
    plan whose simulations are recorded, not run (their figures are placeholders, so the verified
    layout may be another of the same devices and channels)."""
    from ...batch.estimates import Simulation
    sims = []

    def record(model, ios, replications, **_):
        sims.append(Simulation.of(model, ios, replications))
        return _Recorded(model, replications)

    plan(*args, **{**kwargs, "simulate_fn": record})
    return sims


__all__ = ["plan", "Plan", "PlanEntry", "channel_table", "plan_simulations"]
