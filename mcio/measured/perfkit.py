"""Reader of z/VM Performance Toolkit reports: FCX108 DEVICE (General I/O Device Load and
Performance, level ``device``), FCX110 DEVICE devno (I/O Device Details, one device, level
``device``) and FCX215 FCHANNEL (FICON Channel Load, level ``channel``).

A report starts with a line holding its FCX number, in one of two forms:
- printed (PRINT of INTERIM / history reports): 'FCX108  Run ...', followed by 'From yyyy/mm/dd
  hh:mm:ss' (interval start, with the z/VM system id at the end of the line), 'To ...' and 'For nnn
  Secs hh:mm:ss' (interval length);
- screen, as IBM's report figures show it (z/VM Performance Toolkit Reference, e.g. "FCX110, I/O
  Device Details Screen"): 'FCX110  CPU nnnn  SER nnnnn  Interval hh:mm:ss - hh:mm:ss  Perf.
  Monitor'. The screen states times but no date: ``interval`` is then NaT (not stated) and
  ``interval_s`` the difference of the two times (NaN where IBM prints the placeholders HH:MM:SS).
A file may hold several reports; each gives its own interval. Tables are read by their stacked
column headings (group headings such as '<-Rate/s->' or '<------- Time (msec) ------->' name the
columns under them); FCX110 by its 'label : value' fields. Any other FCX report is skipped and
counted in ``Measured.skipped`` as 'FCXnnn'. See docs/measured.md, section Performance Toolkit,
for which layouts are IBM's and which are reconstructions.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd

from . import _rmfpage as rp
from .table import Measured, frame

_FCX = re.compile(r"^[ 01]?\s*FCX(\d{3})\b")
#: screen header: 'FCX110  CPU nnnn  SER nnnnn  Interval HH:MM:SS - HH:MM:SS  Perf. Monitor'
_SCREEN = re.compile(r"^[ 01]?\s*FCX(\d{3})\s+CPU\s+\S+\s+SER\s+\S+\s+Interval\s+(\S+)\s*-\s*(\S+)")
_HMS = re.compile(r"^(\d\d):(\d\d):(\d\d)$")
#: FCX110 'label : value' pairs, three to a line
_PAIR = re.compile(r"(\S[^:]*?)\s*:\s*(\S+)")
_DETAIL = re.compile(r"^\s*Detailed Analysis for Device\s+([0-9A-Fa-f]{4,5})\b")
_FROM = re.compile(r"^\s*From\s+(\d{4})/(\d\d)/(\d\d)\s+(\d\d):(\d\d):(\d\d)(?:\s+(\S+))?")
_FOR = re.compile(r"^\s*For\s+(\d+(?:\.\d+)?)\s+Secs\b")
_HEX = re.compile(r"^[0-9A-Fa-f]{4,5}$")

#: FCX108 heading (group + stacked words; matched as the end of the full heading) -> column
FCX108_COLS = {
    "Addr": "devnum", "Type": "dev_type", "Label/ID": "volser", "Rate/s I/O": "ssch_per_s",
    "Time (msec) Pend": "pend_ms", "Time (msec) Disc": "disc_ms", "Time (msec) Conn": "conn_ms",
    "Time (msec) Resp": "resp_ms", "Percent Busy": "dev_util_pct", "Percent READ": "read_share",
    "Serv": "serv_ms", "CUWt": "cu_wait_ms", "Qued": "queued",
}
#: FCX215 heading -> channel column
FCX215_COLS = {
    "Channel Path ID": "chpid",
    "Total for System Bus Cycl": "bus_pct", "Total for System Work Units": "util_total_pct",
    "Own Partition Work Units": "util_part_pct",
    "Data Rate MB/s Write": "write_mb_s_total", "Data Rate MB/s Read": "read_mb_s_total",
}
#: FCX110 field label -> device column (values carry their unit: '4.8ms', '23%')
FCX110_FIELDS = {
    "Device type": "dev_type", "VOLSER": "volser", "SSCH rate/s": "ssch_per_s",
    "Function pend.": "pend_ms", "Disconnected": "disc_ms", "Connected": "conn_ms",
    "Service time": "serv_ms", "Response time": "resp_ms", "CU queue time": "cu_wait_ms",
    "Device busy": "dev_util_pct",
}
KNOWN = {"108": "device", "110": "device", "215": "channel"}


def sniff(head: bytes) -> bool:
    """True if the first bytes look like a Performance Toolkit report."""
    text = head.decode("latin-1")
    return ((re.search(r"^[ 01]?\s*FCX\d{3}\b", text, re.M) is not None
             and re.search(r"^\s*From\s+\d{4}/", text, re.M) is not None)
            or any(_SCREEN.match(ln) for ln in text.splitlines()))


def read(path) -> Measured:
    """Every FCX108 and FCX215 report in ``path`` as one :class:`Measured`."""
    path = Path(path)
    raw = path.read_bytes()
    if b"\x00" in raw[:4096]:
        raise rp.bad(path, "byte %d" % raw.index(b"\x00"), "a printed Performance Toolkit report (text)")
    lines = raw.decode("latin-1").splitlines()
    cc = rp.has_cc(lines)
    lines = [(i, (ln[1:] if cc and ln else ln).rstrip()) for i, ln in enumerate(lines, 1)]
    starts = [k for k, (_n, ln) in enumerate(lines) if _SCREEN.match(ln) or (
              _FCX.match(ln) and k + 1 < len(lines) and any(_FROM.match(x) for _m, x in lines[k:k + 6]))]
    if not starts:
        raise rp.bad(path, "line 1", "a Performance Toolkit report: a line with its number "
                     "(e.g. 'FCX108') followed by 'From yyyy/mm/dd hh:mm:ss', or a screen header "
                     "'FCXnnn CPU nnnn SER nnnnn Interval hh:mm:ss - hh:mm:ss'")
    rows = {"device": [], "channel": []}
    skipped: dict[str, int] = {}
    for a, b in zip(starts, starts[1:] + [len(lines)]):
        sect = lines[a:b]
        num = _FCX.match(sect[0][1]).group(1)
        if num not in KNOWN:
            skipped["FCX" + num] = skipped.get("FCX" + num, 0) + 1
            continue
        keys = _interval(path, sect)
        if num == "108":
            rows["device"] += _table(path, sect, keys, FCX108_COLS, "Addr", _device_row)
        elif num == "110":
            rows["device"] += _details(path, sect, keys)
        else:
            rows["channel"] += _table(path, sect, keys, FCX215_COLS, "Channel Path ID", _channel_row)
    frames = {lv: frame(lv, rp.complete(lv, r)) for lv, r in rows.items() if r}
    return Measured(frames, [str(path)], skipped)


def _interval(path, sect) -> dict:
    scr = _SCREEN.match(sect[0][1])
    if scr:  # a screen: times, no date
        t0, t1 = (_HMS.match(g) for g in scr.groups()[1:])
        length = math.nan
        if t0 and t1:
            s0, s1 = (int(m[1]) * 3600 + int(m[2]) * 60 + int(m[3]) for m in (t0, t1))
            length = float((s1 - s0) % 86400)
        return {"interval": pd.NaT, "interval_s": length, "system": ""}
    m_from = m_for = None
    for _n, ln in sect[:8]:
        m_from = m_from or _FROM.match(ln)
        m_for = m_for or _FOR.match(ln)
    if not (m_from and m_for):
        raise rp.bad(path, f"line {sect[0][0]}", "'From yyyy/mm/dd hh:mm:ss' and 'For nnn Secs' "
                     "in the report heading")
    y, mo, d, h, mi, s = (int(g) for g in m_from.groups()[:6])
    return {"interval": pd.Timestamp(y, mo, d, h, mi, s), "interval_s": float(m_for.group(1)),
            "system": m_from.group(7) or ""}


def _table(path, sect, keys, mapping, first, make) -> list[dict]:
    """Rows of the section's table: the heading ends at the line whose first word is the first
    column's last heading word; it starts after the '____' rule (dot lines are sort marks)."""
    last = first.split()[-1]
    for k, (_n, ln) in enumerate(sect):
        if ln.split()[:1] == [last] and k > 0:
            break
    else:
        return []
    h, j = [sect[k][1]], k - 1
    while j > 0 and sect[j][1].strip() and not set(sect[j][1].strip()) <= set("._ "):
        h.insert(0, sect[j][1])
        j -= 1
    cols = rp.columns(h)
    split = rp.Cells(cols)
    labels = [rp.full_label(c) for c in cols]
    idx = {}
    for key, col in mapping.items():
        hit = [i for i, lab in enumerate(labels) if lab == key or lab.endswith(" " + key)]
        if hit:
            idx[col] = hit[0]
    if mapping[first] not in idx:
        raise rp.bad(path, f"line {sect[k][0]}", f"the column heading {first!r}")
    out = []
    for n, ln in sect[k + 1:]:
        if not ln.strip() or ln.lstrip().startswith(">>") or set(ln.strip()) <= set("._- "):
            continue
        v = split(ln)
        key_tok = v.get(idx[mapping[first]])
        if key_tok is None:
            continue
        row = make(path, n, v, idx, key_tok)
        if row is not None:
            out.append({**keys, **row})
    return out


def _details(path, sect, keys) -> list[dict]:
    """FCX110: the one device of an I/O Device Details screen, from its 'label : value' fields."""
    row = None
    for n, ln in sect[1:]:
        m = _DETAIL.match(ln)
        if m:
            row = {"devnum": m.group(1).upper()}
            continue
        if row is None:
            continue
        if ln.strip().startswith("System Page/Spool"):
            break  # the paging details below are not the device's I/O
        for label, val in _PAIR.findall(ln):
            col = FCX110_FIELDS.get(label)
            if col in ("dev_type", "volser"):
                row[col] = val
            elif col:
                num = re.sub(r"(ms|%)$", "", val)
                row[col] = math.nan if num == "..." else rp.number(path, n, label, num)
    if row is None:
        raise rp.bad(path, f"line {sect[0][0]}", "'Detailed Analysis for Device nnnn' in an FCX110 report")
    return [{**keys, **row}]


def _device_row(path, n, v, idx, dev):
    if not _HEX.match(dev):
        return None  # e.g. a sub-total line or a page footer
    row = {"devnum": dev.upper()}
    for col, i in idx.items():
        tok = v.get(i)
        if col == "devnum":
            continue
        if col in ("dev_type", "volser"):
            row[col] = tok or ""
        elif col == "read_share":
            row[col] = rp.number(path, n, "Percent READ", tok) / 100.0
        else:
            row[col] = rp.number(path, n, col, tok)
    return row


def _channel_row(path, n, v, idx, chp):
    if not re.match(r"^[0-9A-Fa-f]{2}$", chp):
        return None
    row = {"chpid": chp.upper(), "chpid_type": "FC"}
    for col, i in idx.items():
        if col != "chpid":
            row[col] = rp.number(path, n, col, v.get(i))
    return row
