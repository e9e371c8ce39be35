"""An ISFC logical link as data: its two members, channels and FCTC devices, validated.

:class:`IsfcLink` checks a layout (device numbers per CHPID) once, on input; :func:`parse_senders`
and :func:`direction_shares` turn "who sends" into each device's share of each member's writes by
z/VM's write-collision convention (:mod:`.rules`); :func:`straight_layout` and
:func:`striped_layout` build the seed's two device-number layouts for any channels.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

import numpy as np

from ...errors import McioError
from .rules import (MAX_DEVICES, MAX_DEVNO, check_pair, first_member, format_chpid, format_devno,
                         format_devno_ranges, is_real, parse_chpid, parse_devno, parse_devno_ranges, writers)

# ---- the link ------------------------------------------------------------------------------


@dataclass(frozen=True)
class IsfcLink:
    """An ISFC logical link: two members, its channels, and each FCTC device's channel.

    ``devices`` maps device number -> CHPID (ints); ``chpids`` lists the link's channels in order;
    ``shared`` holds the CHPIDs whose FCTC connections have both ends on that channel.
    """

    systems: tuple[str, str]
    chpids: tuple[int, ...]
    devices: tuple[tuple[int, int], ...]      # (devno, chpid), sorted by devno
    shared: frozenset = field(default=frozenset())

    @classmethod
    def build(cls, systems: Sequence[str], chpids: Iterable, devices: Mapping, shared=True) -> "IsfcLink":
        """Validate and build. ``devices``: {devno: chpid} (hex strings or ints). ``shared``: True
        (every channel), False, or the CHPIDs that are shared."""
        pair = check_systems(systems)
        if isinstance(chpids, (str, bytes)) or not isinstance(chpids, Iterable):
            raise McioError("chpids", chpids, "must be a list of CHPIDs, e.g. ['3C', '3D']")
        chs = [parse_chpid(c, f"chpids[{i}]") for i, c in enumerate(chpids)]
        if not chs:
            raise McioError("chpids", list(chpids), "a link needs at least one channel")
        if len(set(chs)) != len(chs):
            dup = next(c for c in chs if chs.count(c) > 1)
            raise McioError("chpids", [format_chpid(c) for c in chs], f"CHPID {format_chpid(dup)} is listed twice")
        if not isinstance(devices, Mapping) or not devices:
            raise McioError("devices", devices, "must map FCTC device numbers to CHPIDs, e.g. {'D000': '3C'}")
        if len(devices) > MAX_DEVICES:
            raise McioError("devices", len(devices),
                            f"{len(devices)} FCTC devices; an ISFC link holds at most {MAX_DEVICES}")
        devs: dict[int, int] = {}
        for d_raw, c_raw in devices.items():
            d = parse_devno(d_raw, "devices")
            c = parse_chpid(c_raw, f"devices.{format_devno(d)}")
            if d in devs:
                raise McioError("devices", format_devno(d), "duplicate device number in the link")
            if c not in chs:
                raise McioError(f"devices.{format_devno(d)}", format_chpid(c),
                                f"unknown CHPID; the link's CHPIDs are {', '.join(map(format_chpid, chs))}")
            devs[d] = c
        if shared is True:
            sh = frozenset(chs)
        elif shared is False or shared is None:
            sh = frozenset()
        else:
            sh = frozenset(parse_chpid(c, "shared") for c in shared)
            bad = sh - set(chs)
            if bad:
                raise McioError("shared", [format_chpid(c) for c in sorted(bad)], "unknown CHPID in the shared list")
        return cls(pair, tuple(chs), tuple(sorted(devs.items())), sh)

    @classmethod
    def from_ranges(cls, systems: Sequence[str], ranges: Mapping, shared=True, chpids=None) -> "IsfcLink":
        """Build from device-number ranges per CHPID: {'3C': 'D000-D002', '3D': 'D003-D005'}.
        ``chpids`` (default: the keys of ``ranges``) lists the link's channels."""
        if not isinstance(ranges, Mapping) or not ranges:
            raise McioError("ranges", ranges, "must map CHPIDs to device-number ranges, e.g. {'3C': 'D000-D002'}")
        devs: dict[int, object] = {}
        for c_raw, text in ranges.items():
            c = parse_chpid(c_raw, "ranges")
            for d in parse_devno_ranges(text, f"ranges.{format_chpid(c)}"):
                if d in devs:
                    raise McioError("devices", format_devno(d),
                                    f"duplicate device number in the link (on CHPIDs "
                                    f"{format_chpid(parse_chpid(devs[d]))} and {format_chpid(c)})")
                devs[d] = c
                if len(devs) > MAX_DEVICES:
                    raise McioError("devices", f"{len(devs)}+",
                                    f"too many FCTC devices; an ISFC link holds at most {MAX_DEVICES}")
        return cls.build(systems, list(ranges) if chpids is None else chpids, devs, shared)

    # ---- derived ----
    @property
    def devnos(self) -> list[int]:
        return [d for d, _ in self.devices]

    def chpid_of(self, devno: int) -> int:
        return dict(self.devices)[devno]

    def ranges(self) -> dict[str, str]:
        """CHPID -> its device numbers as ranges (the IOCDS view)."""
        return {format_chpid(c): format_devno_ranges(d for d, cc in self.devices if cc == c)
                for c in self.chpids}

    def n_ranges(self) -> int:
        return sum(len(r.split(", ")) for r in self.ranges().values() if r)

    def describe(self) -> str:
        return "; ".join(f"{c}: {r}" if r else f"{c}: (none)" for c, r in self.ranges().items())


def check_systems(systems) -> tuple[str, str]:
    """The link's two z/VM members' system names, checked (:func:`.rules.check_pair`)."""
    if not isinstance(systems, (list, tuple)) or len(systems) != 2:
        raise McioError("systems", systems, "give the two z/VM members' system names")
    return check_pair(*systems)


def check_room(base: int, n: int) -> None:
    """``n`` device numbers from ``base`` up must fit in 4 hex digits."""
    if base + n - 1 > MAX_DEVNO:
        raise McioError("base", format_devno(base), f"no room for {n} device numbers above it")


def parse_senders(link: IsfcLink, senders) -> dict[str, float]:
    """``'LPAR2'`` (that member sends everything), ``{'LPAR1': 0.3, 'LPAR2': 0.7}``, or ``'auto'``:
    the member whose name sorts second sends (the seed's LPAR2 and BOER3740)."""
    if senders == "auto":
        a, b = link.systems
        senders = b if first_member(a, b) == a else a
    if isinstance(senders, str):
        senders = {senders: 1.0}
    if not isinstance(senders, Mapping) or not senders:
        raise McioError("senders", senders, f"name the sending member ({' or '.join(link.systems)}) "
                                            "or give shares per member")
    out = {s: 0.0 for s in link.systems}
    for k, v in senders.items():
        name = k.strip().upper() if isinstance(k, str) else k
        if name not in out:
            raise McioError("senders", k, f"not a member of this link; allowed: {', '.join(link.systems)}")
        if not is_real(v) or v < 0:
            raise McioError(f"senders.{name}", v, "a share must be a number >= 0")
        out[name] = float(v)
    if sum(out.values()) <= 0:
        raise McioError("senders", senders, "at least one member needs a positive share")
    return out


def direction_shares(link: IsfcLink, senders: Mapping[str, float]) -> np.ndarray:
    """(device, member) fraction of each device's I/Os written by each member.

    A device only one sending member may write on carries only that member's I/Os; a device both
    sending members may write on is alternated between them in the ratio of their shares (their
    relative intensity of contention for it). A device no sending member may use stays idle.
    """
    w = writers(link.devnos, *link.systems)
    out = np.zeros((len(link.devices), 2))
    for i, d in enumerate(link.devnos):
        tot = sum(senders[s] for s in w[d])
        for j, s in enumerate(link.systems):
            if s in w[d] and tot > 0:
                out[i, j] = senders[s] / tot
    return out


# ---- layouts ---------------------------------------------------------------------------------


def _balanced(n: int, k: int) -> list[int]:
    return [n // k + (1 if i < n % k else 0) for i in range(k)]


def straight_layout(systems, chpids, n_devices: int, base="D000", shared=True) -> IsfcLink:
    """Sequential device numbers: the first CHPID gets the lowest block, and so on (balanced)."""
    return _layout(systems, chpids, base, shared,
                   lambda chs: [c for c, cnt in zip(chs, _balanced(n_devices, len(chs))) for _ in range(cnt)])


def striped_layout(systems, chpids, n_devices: int, base="D000", shared=True) -> IsfcLink:
    """Striped device numbers: device i on CHPID i mod (number of CHPIDs)."""
    return _layout(systems, chpids, base, shared, lambda chs: [chs[i % len(chs)] for i in range(n_devices)])


def _layout(systems, chpids, base, shared, order_of) -> IsfcLink:
    """The link whose i-th device number from ``base`` up is on CHPID ``order_of(chpids)[i]``."""
    chs = list(chpids)
    b = parse_devno(base, "base")
    return _link_from_order(systems, chs, order_of(chs), b, shared)


def _link_from_order(systems, chpids, order, base: int, shared) -> IsfcLink:
    n = len(order)
    if n < 1 or n > MAX_DEVICES:
        raise McioError("devices", n, f"an ISFC link holds 1 to {MAX_DEVICES} FCTC devices")
    check_room(base, n)
    return IsfcLink.build(systems, chpids, {base + i: c for i, c in enumerate(order)}, shared)


__all__ = ["IsfcLink", "check_systems", "check_room", "parse_senders", "direction_shares", "straight_layout", "striped_layout"]
