"""ESAMON's DASD screen (ESADSD2, "DASD Performance Analysis - Part 1", Velocity Software's z/VM
monitor) read into the device level of a :class:`~mcio.measured.table.Measured`.

The screen as ESAMON prints it (seed 002 holds one, inside prose: the reader finds the screen and
ignores the text around it)::

    Screen: ESADSD2  <node>                          ESAMON V2.2  05/04 11:14-13:10
    1 of 3  DASD Performance Analysis - Part 1      DEVICE 1007-100c     9672 xxxxx
              Dev        Device %Dev  <-----Response times (ms)--->
    Time      No. Serial Type   Busy   avg  peak  Resp  Serv  Pend  Disc  Conn
    -------- *--- ------ ------ ---- *---- ----- ----- ----- ----- ----- -----
    11:15:23 1007 LIN501 3390-3 95.6  36.2  36.2  26.4  26.4   0.2  15.4  10.8
             1008 LIN502 3390-3 21.1   7.5   7.5  28.2  28.2   0.2  17.0  11.1

Columns, and where each goes (:data:`COLUMN_MAP`):

- ``Time``: the END of a one-minute interval (the header's range 11:14-13:10 starts a minute
  before the first row's 11:15:23), printed on the interval's first row only. ``interval`` is the
  end minus ``interval_s``; ``interval_s`` is the smallest gap between two printed times (60 s
  on the seed's screen), a lone time 60 s (ESAMON's default interval).
- ``Dev No.`` -> ``devnum``; ``Serial`` -> ``volser``; ``Device Type`` -> ``dev_type``.
- ``avg`` -> ``ssch_per_s`` (the I/O rate, SSCH/s: on every row rate x Serv = %Dev Busy).
  ``peak`` (the peak rate within the interval) has no column: not kept.
- ``Resp`` -> ``resp_ms``; ``Pend`` -> ``pend_ms``; ``Disc`` -> ``disc_ms``; ``Conn`` -> ``conn_ms``.
- ``Serv`` (pend + disc + conn) has no column; ``iosq_ms`` = Resp - Serv (the screen's own
  definition: "Response Time: total of the I/O components. Service Time: total of the
  components, excluding the queue time delays"), never negative.
- ``%Dev Busy`` is z/VM's device busy, rate x (pend + disc + conn); table.py's ``dev_util_pct``
  is RMF's (disc + conn) and is left NaN, not converted.

Not on the screen, left empty: ``lcu``, ``cmr_ms``, ``db_ms``, ``dev_conn_pct``, ``mb_s``,
``read_share``; ``system`` (the node name is masked on the seed's screen) and the year (the screen
prints MM/DD only: :data:`YEAR` is assumed, and said in ``Measured.sources``).
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from .table import Measured, bad_file, frame

#: the year the screen does not print (MM/DD only); said in the Measured's sources
YEAR = 2000

#: ESAMON's default interval, s (used when the screen prints a single time)
DEFAULT_INTERVAL_S = 60.0

#: screen heading -> table column (device level)
COLUMN_MAP = {"Dev No.": "devnum", "Serial": "volser", "Device Type": "dev_type", "avg": "ssch_per_s",
              "Resp": "resp_ms", "Pend": "pend_ms", "Disc": "disc_ms", "Conn": "conn_ms",
              "Resp - Serv": "iosq_ms"}

_SCREEN = re.compile(r"Screen:\s*ESADSD2\b.*?(\d\d)/(\d\d)\s+(\d\d):(\d\d)-(\d\d):(\d\d)")
_HEAD = re.compile(r"^\s*Time\s+No\.\s+Serial\s+Type\s+Busy\s+avg\s+peak\s+Resp\s+Serv\s+Pend\s+Disc\s+Conn\s*$")
_TIME = re.compile(r"^\d\d:\d\d:\d\d$")
_DEV = re.compile(r"^[0-9A-Fa-f]{4,5}$")
_NUMS = ("busy", "avg", "peak", "resp", "serv", "pend", "disc", "conn")



def sniff(head: bytes) -> bool:
    """True if the first bytes hold an ESAMON ESADSD2 screen's title line."""
    return re.search(rb"Screen:\s*ESADSD2\b", head) is not None


def _row(tokens: list[str], path, lineno: int) -> dict:
    """One data line's tokens (without the time) -> the screen's fields."""
    if len(tokens) < 2 + len(_NUMS) or not _DEV.match(tokens[0]):
        raise bad_file(path, f"line {lineno}", "an ESADSD2 row: [time] devno serial type busy avg peak "
                                               "resp serv pend disc conn")
    try:
        nums = [float(t) for t in tokens[-len(_NUMS):]]
    except ValueError:
        raise bad_file(path, f"line {lineno}", "eight numbers (busy avg peak resp serv pend disc conn)") from None
    mid = tokens[1:-len(_NUMS)]      # serial and type; a device without a label has no serial
    if len(mid) == 2:
        serial, dtype = mid
    elif len(mid) == 1:
        serial, dtype = "", mid[0]
    else:
        raise bad_file(path, f"line {lineno}", "a serial and a device type between the device number and %Dev Busy")
    return {"devnum": tokens[0].upper(), "volser": serial, "dev_type": dtype, **dict(zip(_NUMS, nums))}


def _screens(lines: list[str], path):
    """Yield (month, day, [(lineno, time or None, fields)]) for every ESADSD2 screen in ``lines``."""
    i = 0
    while i < len(lines):
        m = _SCREEN.search(lines[i])
        if not m:
            i += 1
            continue
        month, day = int(m.group(1)), int(m.group(2))
        j = i + 1
        while j < len(lines) and not _HEAD.match(lines[j]):
            if _SCREEN.search(lines[j]) or j - i > 12:
                raise bad_file(path, f"line {i + 1}", "the ESADSD2 column heading (Time No. Serial Type Busy "
                                                      "avg peak Resp Serv Pend Disc Conn) within 12 lines")
            j += 1
        if j >= len(lines):
            raise bad_file(path, f"line {i + 1}", "the ESADSD2 column heading after the screen title")
        j += 1
        if j < len(lines) and lines[j].lstrip().startswith("---"):
            j += 1
        rows, now = [], None
        while j < len(lines):
            s = lines[j].strip()
            if not s:
                if rows:
                    break
                j += 1
                continue
            tok = s.split()
            if _TIME.match(tok[0]):
                now, tok = tok[0], tok[1:]
            elif not _DEV.match(tok[0]):
                break                         # the prose after the screen
            if now is None:
                raise bad_file(path, f"line {j + 1}", "a time (HH:MM:SS) on the screen's first row")
            rows.append((j + 1, now, _row(tok, path, j + 1)))
            j += 1
        if not rows:
            raise bad_file(path, f"line {i + 1}", "at least one device row on the ESADSD2 screen")
        yield month, day, rows
        i = j


def read(path) -> Measured:
    """The ESADSD2 screens of ``path`` as the device level of a Measured (module docstring)."""
    p = Path(path)
    try:
        text = p.read_bytes().decode("latin-1")
    except OSError as e:
        raise bad_file(p, "whole file", f"a readable file ({e})") from None
    lines = text.splitlines()
    out = []
    n_screens = 0
    for month, day, rows in _screens(lines, p):
        n_screens += 1
        ends = []
        for lineno, hms, _f in rows:
            try:
                ends.append(pd.Timestamp(f"{YEAR:04d}-{month:02d}-{day:02d} {hms}"))
            except ValueError:
                raise bad_file(p, f"line {lineno}", f"a date and time (MM/DD {month:02d}/{day:02d}, {hms})") from None
        distinct = np.unique(np.array(ends, dtype="datetime64[ns]"))
        gaps = np.diff(distinct).astype("timedelta64[s]").astype(float)
        # an interval ending after midnight: the clock's wrap shows as a negative gap
        gaps = gaps[gaps > 0]
        interval_s = float(gaps.min()) if len(gaps) else DEFAULT_INTERVAL_S
        for (lineno, _hms, f), end in zip(rows, ends):
            out.append({"interval": end - pd.Timedelta(seconds=interval_s), "interval_s": interval_s,
                        "system": "", "lcu": "", "devnum": f["devnum"], "volser": f["volser"], "dev_type": f["dev_type"],
                        "ssch_per_s": f["avg"], "resp_ms": f["resp"], "iosq_ms": max(round(f["resp"] - f["serv"], 6), 0.0),
                        "pend_ms": f["pend"], "disc_ms": f["disc"], "conn_ms": f["conn"]})
    if not n_screens:
        raise bad_file(p, "whole file", "an ESAMON screen titled 'Screen: ESADSD2 ... MM/DD HH:MM-HH:MM'")
    return Measured({"device": frame("device", out)},
                    [f"{p} (ESAMON ESADSD2, {n_screens} screen(s), {len(out)} device rows; "
                     f"year not printed: {YEAR} assumed; peak rate and %Dev Busy not kept)"], {})


__all__ = ["sniff", "read", "YEAR", "COLUMN_MAP"]
