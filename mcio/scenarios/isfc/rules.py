"""z/VM's write-collision convention for the FCTC devices of an ISFC logical link (pure functions).

An FCTC connection can carry data both ways, but if both z/VM members start a write on the same
device at once a *write collision* occurs; recovery is expensive, so z/VM designates devices for
one-way use (IBM, "Avoidance of write collisions", z/VM 6.2 ISFC Improvements; seed 000):

- the member whose system name sorts first writes from the lowest device number upward, the other
  from the highest device number downward;
- with 2-8 devices in the link each member uses at most one device fewer than configured, with
  9-16 at most two fewer: the devices it skips are the ones at the *partner's* starting end, left
  to the partner for its exclusive writes.

So with D000-D008 (9 devices) and LPAR1 < LPAR2: LPAR1 writes on D000-D006 and LPAR2 on D008 down to
D002. D000 and D001 are written only by LPAR1, D007 and D008 only by LPAR2, and when LPAR2 alone
sends (the seed's live guest relocation) D000 and D001 carry ~0 sender traffic. IBM's own example:
D000-D00F, LPAR1 writes D000-D00D, leaving D00E-D00F to LPAR2.

With a single device nothing can be left to the partner without leaving oneself nothing, so both
members write on it (z/VM 6.1 links had exactly one CTC and worked in both directions; collisions
are then possible and recovered). A link holds at most 16 devices.

Names sort as z/VM compares them: 8-character, blank-padded, in EBCDIC (code page 037), where
letters sort *before* digits (unlike ASCII). This only matters when two names differ first at a
letter-versus-digit position, e.g. SYSA < SYS1 in EBCDIC but not in ASCII.
"""
from __future__ import annotations

import math
import re
from typing import Iterable

from ...errors import McioError

MAX_DEVICES = 16          # devices (FCTC connections) in one ISFC logical link (z/VM limit)
MAX_DEVNO = 0xFFFF        # device numbers are 4 hex digits
MAX_CHPID = 0xFF          # CHPIDs are 2 hex digits
_NAME_RE = re.compile(r"^[A-Z0-9@#$]{1,8}$")
_HEX_RE = re.compile(r"^(0X)?([0-9A-F]+)$")


# ---- device numbers, CHPIDs, system names ----------------------------------------------------


def _hex(field: str, value, hi: int, what: str) -> int:
    if isinstance(value, bool):
        raise McioError(field, value, f"must be a hexadecimal {what}")
    if isinstance(value, int):
        n = value
    elif isinstance(value, str):
        m = _HEX_RE.match(value.strip().upper())
        if not m:
            raise McioError(field, value, f"must be a hexadecimal {what}, e.g. {'D000' if hi > 0xFF else '3C'}")
        n = int(m.group(2), 16)
    else:
        raise McioError(field, value, f"must be a hexadecimal {what} (a string such as "
                                      f"{'D000' if hi > 0xFF else '3C'})")
    if not 0 <= n <= hi:
        raise McioError(field, value, f"{what} must be in 0-{hi:X} (hex)")
    return n


def parse_devno(value, field: str = "device") -> int:
    """A device number: hex string ('D000', '0xD000') or int, 0-FFFF."""
    return _hex(field, value, MAX_DEVNO, "device number")


def parse_chpid(value, field: str = "chpid") -> int:
    """A CHPID: hex string ('3C') or int, 0-FF."""
    return _hex(field, value, MAX_CHPID, "CHPID")


def format_devno(n: int) -> str:
    return f"{n:04X}"


def format_chpid(n: int) -> str:
    return f"{n:02X}"


def parse_devno_ranges(text, field: str = "devices") -> list[int]:
    """'D000-D002,D009' -> [0xD000, 0xD001, 0xD002, 0xD009] (order kept; duplicates are the
    caller's to reject). Also takes a list of such strings or of device numbers."""
    if isinstance(text, (list, tuple)):
        out: list[int] = []
        for i, part in enumerate(text):
            out += parse_devno_ranges(part, f"{field}[{i}]") if isinstance(part, str) else \
                [parse_devno(part, f"{field}[{i}]")]
        return out
    if not isinstance(text, str) or not text.strip():
        raise McioError(field, text, "must be device numbers or ranges, e.g. 'D000-D002,D009'")
    out = []
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        if "-" in part:
            lo_s, _, hi_s = part.partition("-")
            lo, hi = parse_devno(lo_s, field), parse_devno(hi_s, field)
            if hi < lo:
                raise McioError(field, part, "a range must run from the lower to the higher device number")
            if hi - lo + 1 > MAX_DEVICES:
                raise McioError(field, part, f"a range of {hi - lo + 1} devices; a link holds at most {MAX_DEVICES}")
            out += list(range(lo, hi + 1))
        else:
            out.append(parse_devno(part, field))
    return out


def format_devno_ranges(devnos: Iterable[int]) -> str:
    """[0xD000, 0xD001, 0xD002, 0xD009] -> 'D000-D002, D009' (sorted, consecutive runs merged)."""
    s = sorted(set(devnos))
    runs: list[list[int]] = []
    for d in s:
        if runs and d == runs[-1][1] + 1:
            runs[-1][1] = d
        else:
            runs.append([d, d])
    return ", ".join(format_devno(a) if a == b else f"{format_devno(a)}-{format_devno(b)}" for a, b in runs)


def is_real(v) -> bool:
    """A finite int or float (not a bool): what numeric ISFC inputs must be."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def check_system_name(name, field: str = "system") -> str:
    """A z/VM system name: 1-8 characters A-Z, 0-9, @, #, $ (upper-cased)."""
    if not isinstance(name, str) or not _NAME_RE.match(name.strip().upper()):
        raise McioError(field, name, "must be a z/VM system name: 1-8 characters A-Z, 0-9, @, #, $")
    return name.strip().upper()


def name_key(name: str) -> bytes:
    """Sort key of a system name as z/VM compares it: blank-padded to 8, EBCDIC (cp037)."""
    return name.ljust(8).encode("cp037")


def check_pair(system_a, system_b, field: str = "systems") -> tuple[str, str]:
    """Validate the two members' names; equal names cannot be ordered and are rejected."""
    a = check_system_name(system_a, f"{field}[0]")
    b = check_system_name(system_b, f"{field}[1]")
    if a == b:
        raise McioError(field, [system_a, system_b],
                        "the two z/VM members of a link must have different system names "
                        "(the write-collision convention orders them by name)")
    return a, b


def first_member(system_a: str, system_b: str) -> str:
    """The member whose name sorts first: it writes from the lowest device number upward."""
    a, b = check_pair(system_a, system_b)
    return a if name_key(a) < name_key(b) else b


# ---- the convention --------------------------------------------------------------------------


def reserved_per_side(n_devices: int) -> int:
    """How many devices each member leaves to its partner: 0 (1 device), 1 (2-8), 2 (9-16)."""
    if isinstance(n_devices, bool) or not isinstance(n_devices, int):
        raise McioError("devices", n_devices, "the number of devices must be an integer")
    if n_devices < 1:
        raise McioError("devices", n_devices, "an ISFC link needs at least 1 FCTC device")
    if n_devices > MAX_DEVICES:
        raise McioError("devices", n_devices, f"an ISFC link holds at most {MAX_DEVICES} FCTC devices")
    if n_devices == 1:
        return 0
    return 1 if n_devices <= 8 else 2


def _checked_devnos(devnos: Iterable, field: str = "devices") -> list[int]:
    ds = [parse_devno(d, f"{field}[{i}]") for i, d in enumerate(devnos)]
    seen: set[int] = set()
    for d in ds:
        if d in seen:
            raise McioError(field, format_devno(d), "duplicate device number in the link")
        seen.add(d)
    reserved_per_side(len(ds))  # 1..16
    return ds


def write_order(devnos: Iterable, system: str, partner: str) -> list[int]:
    """The devices ``system`` writes on, in the order it takes them into use."""
    ds = sorted(_checked_devnos(devnos))
    k = reserved_per_side(len(ds))
    me, other = check_pair(system, partner)
    if first_member(me, other) == me:
        return ds[: len(ds) - k]            # lowest upward, skipping the top k (partner's)
    return ds[k:][::-1]                     # highest downward, skipping the bottom k (partner's)


def writers(devnos: Iterable, system_a: str, system_b: str) -> dict[int, tuple[str, ...]]:
    """For each device number, the members that may write on it (one name: exclusive use), the
    member whose name sorts first listed first."""
    a, b = check_pair(system_a, system_b)
    if first_member(a, b) != a:
        a, b = b, a
    ds = _checked_devnos(devnos)
    wa, wb = set(write_order(ds, a, b)), set(write_order(ds, b, a))
    return {d: tuple(s for s, w in ((a, wa), (b, wb)) if d in w) for d in sorted(ds)}


def used_positions(n_devices: int, first: bool) -> range:
    """Positions (0 = lowest device number) a member writes on: ``first`` = its name sorts first."""
    k = reserved_per_side(n_devices)
    return range(0, n_devices - k) if first else range(k, n_devices)


__all__ = ["MAX_DEVICES", "parse_devno", "parse_chpid", "format_devno", "format_chpid",
           "parse_devno_ranges", "format_devno_ranges", "check_system_name", "check_pair",
           "name_key", "first_member", "reserved_per_side", "write_order", "writers",
           "used_positions", "is_real"]
