"""Reader of RMF Postprocessor text reports (the printed interval reports of z/OS RMF):
DIRECT ACCESS DEVICE ACTIVITY (level ``device``), CHANNEL PATH ACTIVITY (``channel``), I/O QUEUING
ACTIVITY (``lcu`` and ``lcu_path``), CACHE SUBSYSTEM ACTIVITY and CACHE DEVICE ACTIVITY (``cache``).

A file may hold many intervals and systems: every page states its own (page header), so rows are
keyed by the header of the page they are printed on. Tables are read by their column headings
(stacked words above each column), not by fixed character positions, so the column sets of
different z/OS releases (e.g. AVG INT DLY present or not) read alike. Pages of any other report
(CPU, PAGING, WORKLOAD...) are skipped and counted in ``Measured.skipped`` by title, one per
report section (title, system, interval). See docs/measured.md, section RMF.
"""
from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Iterator

import numpy as np
import pandas as pd

from . import _rmfpage as rp
from .table import Measured

#: heading (group + stacked words, blanks normalised) -> device column
DEVICE_COLS = {
    "DEV NUM": "devnum", "DEVICE TYPE": "dev_type", "VOLUME SERIAL": "volser", "LCU": "lcu",
    "DEVICE ACTIVITY RATE": "ssch_per_s", "AVG RESP TIME": "resp_ms", "AVG IOSQ TIME": "iosq_ms",
    "AVG CMR DLY": "cmr_ms", "AVG DB DLY": "db_ms", "AVG PEND TIME": "pend_ms",
    "AVG DISC TIME": "disc_ms", "AVG CONN TIME": "conn_ms", "% DEV CONN": "dev_conn_pct",
    "% DEV UTIL": "dev_util_pct", "AVG INT DLY": "int_dly_ms", "PAV": "pav",
}
_DEVICE_TEXT = ("devnum", "dev_type", "volser", "lcu", "pav")
#: I/O queuing headings -> (level, column)
IOQ_COLS = {
    "LCU": "lcu", "CU": "cu", "CHAN PATHS": "chpid", "CHPID TAKEN": "taken_per_s",
    "% DP BUSY": "dp_busy_pct", "% CU BUSY": "cu_busy_pct", "AVG CUB DLY": "cub_dly_ms",
    "AVG CMR DLY": "cmr_ms", "CONTENTION RATE": "cont_per_s", "DELAY Q LNGTH": "delay_q_length",
    "HPAV WAIT": "hpav_wait", "HPAV MAX": "hpav_max", "% ALL CH PATH BUSY": "all_paths_busy_pct",
    "AVG CSS DLY": "css_dly_ms",
}
_LCU_ONLY = ("cont_per_s", "delay_q_length", "hpav_wait", "hpav_max", "all_paths_busy_pct", "css_dly_ms")
_PATH_COLS = ("taken_per_s", "dp_busy_pct", "cu_busy_pct", "cub_dly_ms", "cmr_ms")
#: channel heading groups (as printed) -> column prefix, with the sub-headings each may hold
CHAN_GROUPS = (
    ("UTILIZATION", "util", ("PART", "TOTAL", "BUS")),
    ("READ(MB/SEC)", "read", ("PART", "TOTAL")),
    ("WRITE(MB/SEC)", "write", ("PART", "TOTAL")),
    ("FICON OPERATIONS", "ficon", ("RATE", "ACTIVE", "DEFER")),
    ("ZHPF OPERATIONS", "zhpf", ("RATE", "ACTIVE", "DEFER")),
)
CHAN_COLS = {
    "util PART": "util_part_pct", "util TOTAL": "util_total_pct", "util BUS": "bus_pct",
    "read PART": "read_mb_s_part", "read TOTAL": "read_mb_s_total",
    "write PART": "write_mb_s_part", "write TOTAL": "write_mb_s_total",
    "ficon RATE": "ficon_ops_per_s", "ficon ACTIVE": "ficon_active", "ficon DEFER": "ficon_defer_per_s",
    "zhpf RATE": "zhpf_ops_per_s", "zhpf ACTIVE": "zhpf_active", "zhpf DEFER": "zhpf_defer_per_s",
}
#: cache device overview headings -> cache column
CACHE_DEV_COLS = {
    "VOLUME SERIAL": "volser", "DEV NUM": "devnum", "I/O RATE": "io_per_s",
    "TOTAL H/R": "hit_ratio", "READ H/R": "read_hit_ratio", "WRITE H/R": "write_hit_ratio",
    "DASD I/O RATE STAGE": "staging_per_s", "% READ": "read_pct",
}
_CHAN_TEXT = {"TYPE": "chpid_type", "G": "generation", "SPEED": "speed", "SHR": "shared"}
_HEX = re.compile(r"^[0-9A-F]{2,5}$")


def sniff(head: bytes) -> bool:
    """True if the first bytes look like a printed RMF Postprocessor report."""
    text = head.decode("latin-1")
    if "A C T I V I T Y" not in text:
        text = head.decode("cp037", errors="replace")
    if any(rp.title_of(ln) in rp.KNOWN_TITLES.values() for ln in text.splitlines()):
        return True
    return "RPT VERSION" in text and "SYSTEM ID" in text and "INTERVAL" in text


LEVELS = ("device", "channel", "lcu", "lcu_path", "cache")


def read(path) -> Measured:
    """Every known report section of ``path`` as one :class:`Measured`."""
    parts = list(iter_read(path, chunk_intervals=None))
    out = parts[0]
    for m in parts[1:]:
        out = out.merge(m)
    return out


def iter_read(path, chunk_intervals: int | None = 96) -> Iterator[Measured]:
    """``path`` read page by page, as one :class:`Measured` per ``chunk_intervals`` distinct
    (system, interval) pairs (None: one for the whole file). A chunk holds whole pages; when the
    file is not in interval order an interval may span two chunks. The chunks together hold what
    :func:`read` returns."""
    path = Path(path)
    chunk = _Chunk(path)
    seen_unknown: set = set()
    known = False
    for page in rp.iter_pages(rp.text_lines(path)):
        if page.title not in rp.KNOWN_TITLES.values():
            hdr = _maybe_header(path, page)
            key = (page.title, hdr.system if hdr else "", hdr.start if hdr else page.lineno)
            if key not in seen_unknown:
                seen_unknown.add(key)
                chunk.skipped[page.title] = chunk.skipped.get(page.title, 0) + 1
            continue
        known = True
        hdr = rp.header(path, page)
        ikey = (hdr.system, hdr.start)
        if chunk_intervals and ikey not in chunk.intervals and len(chunk.intervals) >= chunk_intervals:
            yield chunk.measured()
            chunk = _Chunk(path)
        chunk.intervals.add(ikey)
        keys = {"interval": hdr.start, "interval_s": hdr.interval_s, "system": hdr.system}
        if page.title == "DIRECT ACCESS DEVICE ACTIVITY":
            _device(chunk, page, keys)
        elif page.title == "CHANNEL PATH ACTIVITY":
            chunk.rows["channel"] += _channel(path, page, keys)
        elif page.title == "I/O QUEUING ACTIVITY":
            lcus, paths = _ioq(path, page, keys)
            chunk.rows["lcu"] += lcus
            chunk.rows["lcu_path"] += paths
        else:
            _cache(chunk, page, keys)
    if not known:
        raise rp.bad(path, "line 1", "an RMF Postprocessor report: a page titled in spaced capitals "
                     "such as 'D I R E C T   A C C E S S   D E V I C E   A C T I V I T Y'")
    yield chunk.measured()


#: data lines of a table held before they are parsed in one pass (bounds the memory of a chunk)
BATCH_LINES = 20000


class _Chunk:
    """The rows of one chunk as it is read: per level, row dicts and frames, each row carrying the
    line it was printed on (``_ln``, to keep the file's order), and the data lines of the device
    tables (DASD activity, cache device overview) not yet parsed: the pages of one table with the
    same headings are parsed together (:func:`_rmfpage.split_lines`)."""

    def __init__(self, path):
        self.path = path
        self.intervals: set = set()
        self.skipped: dict[str, int] = {}
        self.rows: dict[str, list[dict]] = {lv: [] for lv in LEVELS}
        self.frames: dict[str, list] = {lv: [] for lv in LEVELS}
        self.batches: dict = {}  # parse function -> lines held for it

    def table(self, parse, lay, page, start: int, keys: dict) -> None:
        """Hold the lines of ``page`` from ``start`` on (a table under ``lay``'s headings, rows
        keyed by ``keys``) to be parsed by ``parse`` with the other pages of that table."""
        b = self.batches.get(parse)
        if b is None or b["lay"] is not lay or len(b["lines"]) > BATCH_LINES:
            self.flush(parse)
            b = self.batches[parse] = {"lay": lay, "lines": [], "ln": [], "page": [], "keys": []}
        texts = page.texts
        sel = [k for k in range(start, len(texts)) if texts[k].strip(" -")]  # not blank, not a rule
        b["lines"] += [texts[k] for k in sel]
        b["ln"].append(page.lineno + np.asarray(sel, dtype=np.int64))
        b["page"].append(np.full(len(sel), len(b["keys"])))
        b["keys"].append(keys)

    def flush(self, parse) -> None:
        b = self.batches.pop(parse, None)
        if b is None or not b["lines"]:
            return
        level, df = parse(self.path, b["lay"], b["lines"], np.concatenate(b["ln"]),
                          np.concatenate(b["page"]), b["keys"])
        if len(df):
            self.frames[level].append(df)

    def measured(self) -> Measured:
        for parse in list(self.batches):
            self.flush(parse)
        frames = {}
        for lv in LEVELS:
            parts = list(self.frames[lv])
            if self.rows[lv]:
                parts.append(rp.conform(lv, pd.DataFrame(self.rows[lv])))
            if not parts:
                continue
            df = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
            if len(parts) > 1:
                df = df.sort_values("_ln", kind="stable")
            frames[lv] = df.drop(columns="_ln").reset_index(drop=True)
        return Measured(frames, [str(self.path)], self.skipped)


def _maybe_header(path, page):
    try:
        return rp.header(path, page)
    except Exception:  # an unknown report need not have the header we know
        return None


def _table(page, is_last_heading, above: int = 3):
    """(first data index, heading lines, layout) of the table whose last heading line satisfies
    ``is_last_heading``, or None. The heading is that line and up to ``above`` non-blank lines
    over it (stopping at rules and blank lines)."""
    lines = page.texts
    for i, ln in enumerate(lines):
        if is_last_heading(ln):
            h = [ln]
            j = i - 1
            while j >= 0 and len(h) <= above and lines[j].strip() and not set(lines[j].strip()) <= {"-"} \
                    and "IODF" not in lines[j] and "SAMPLES" not in lines[j]:
                h.insert(0, lines[j])
                j -= 1
            return i + 1, h, rp.layout(h)
    return None


def _is_device_heading(ln: str) -> bool:
    return bool(re.search(r"\bGROUP\b", ln) and re.search(r"\bNUM\b", ln) and re.search(r"\bRATE\b", ln))


def _device(chunk, page, keys) -> None:
    t = _table(page, _is_device_heading)
    if t is None:
        return
    start, _h, lay = t
    if "DEV NUM" not in lay.index or "DEVICE ACTIVITY RATE" not in lay.index:
        raise rp.bad(chunk.path, f"line {page.lineno + start - 1}",
                     "the DASD activity headings DEV NUM and DEVICE ACTIVITY RATE")
    chunk.table(_parse_device, lay, page, start, keys)


def _key_columns(keys: list[dict], page_of: np.ndarray) -> dict:
    """Per row, the page keys (interval, system...) of the page it is printed on."""
    return {k: np.asarray([kv[k] for kv in keys], dtype="datetime64[ns]" if k == "interval" else object)[page_of]
            for k in keys[0]}


def _device_rows(path, lay, cells, ln, label: str):
    """Which rows of a device table are devices: a hex device number (4 or 5 digits) under
    ``label``; rows without one are summary or note lines, unless a number stands under the rate
    column (a misprinted device row: a bad file)."""
    dev = cells[lay.index[label]].astype(str)
    ok = np.isin(np.strings.str_len(dev), (4, 5)) & (np.strings.strip(dev, "0123456789ABCDEF") == "")
    rate_label = "DEVICE ACTIVITY RATE" if "DEVICE ACTIVITY RATE" in lay.index else None
    if rate_label:
        odd = np.flatnonzero(~ok & (dev != ""))
        for i in odd:
            if re.match(r"^[\d.]+$", str(cells[lay.index[rate_label]][i])):
                raise rp.bad(path, f"line {ln[i]}", f"a device number (4 or 5 hex digits) under {label!r}, "
                             f"got {dev[i]!r}")
    return ok


def _parse_device(path, lay, lines, ln, page_of, keys):
    cells = rp.split_lines(lay, lines)
    ok = _device_rows(path, lay, cells, ln, "DEV NUM")
    ln, page_of = ln[ok], page_of[ok]
    cols = _key_columns(keys, page_of)
    for label, col in DEVICE_COLS.items():
        if label not in lay.index:
            continue
        v = cells[lay.index[label]][ok]
        if col in _DEVICE_TEXT:
            cols[col] = rp.text(np.strings.upper(v.astype(str)) if col in ("devnum", "dev_type", "lcu") else v)
        else:
            cols[col] = rp.numbers(path, ln, label, v)
    cols["_ln"] = ln
    return "device", rp.conform("device", pd.DataFrame(cols))


def _channel(path, page, keys) -> list[dict]:
    lines = page.lines
    for i, (_n, ln) in enumerate(lines):
        if re.match(r"^\s*ID\s+TYPE\b", ln) and i > 0:
            upper, leaf = lines[i - 1][1], ln
            break
    else:
        return []
    names = _channel_names(upper, leaf)
    cols = [rp.Column([w], "", m.start(), m.end()) for w, m in
            ((m.group(), m) for m in re.finditer(r"\S+", leaf))]
    split = rp.Cells(cols)
    out = []
    for n, ln in lines[i + 1:]:
        m = re.match(r"^\s*([0-9A-F]{2})\s", ln)
        if not m:
            continue
        v = split(ln)
        row = dict(keys, chpid=m.group(1), _ln=n)
        for k, name in enumerate(names):
            tok = v.get(k)
            if name in _CHAN_TEXT:
                row[_CHAN_TEXT[name]] = tok or ""
            elif name in CHAN_COLS:
                if tok is not None and tok.isalpha():  # OFFLINE, NOT AVAIL...: no value measured
                    tok = None
                row[CHAN_COLS[name]] = rp.number(path, n, name, tok)
        out.append(row)
    return out


def _channel_names(upper: str, leaf: str) -> list[str]:
    """Names of the leaf headings: 'ID', 'TYPE', 'G', ... then 'util PART', 'read TOTAL', ...
    following the groups in the order the upper heading line prints them."""
    groups = sorted((upper.find(g), pre, subs) for g, pre, subs in CHAN_GROUPS if g in upper)
    leaves = leaf.split()
    names, k = [], 0
    while k < len(leaves) and leaves[k] not in ("PART", "TOTAL", "RATE"):
        names.append(leaves[k])
        k += 1
    for _pos, pre, subs in groups:
        used = set()
        while k < len(leaves) and leaves[k] in subs and leaves[k] not in used:
            used.add(leaves[k])
            names.append(f"{pre} {leaves[k]}")
            k += 1
    names += leaves[k:]
    return names


def _ioq(path, page, keys):
    t = _table(page, lambda ln: re.search(r"\bPATHS\b", ln) and re.search(r"\bTAKEN\b", ln))
    if t is None:
        return [], []
    start, _h, lay = t
    idx, split = lay.index, lay.cells
    for need in ("LCU", "CHAN PATHS", "CHPID TAKEN"):
        if need not in idx:
            raise rp.bad(path, f"line {page.lineno + start - 1}", f"the I/O queuing heading {need!r}")
    lcus, paths = [], []
    cur = None

    def close():
        if cur is not None:
            r = cur["row"]
            if math.isnan(r.get("ssch_per_s", math.nan)):
                r["ssch_per_s"] = cur["taken"]
            r["cu"] = " ".join(cur["cu"])
            lcus.append(r)

    for n, ln in page.lines[start:]:
        if not ln.strip() or set(ln.strip()) <= {"-"}:
            continue
        v = split(ln)
        get = {lab: v.get(i) for lab, i in idx.items()}
        lcu, chp = get.get("LCU"), get.get("CHAN PATHS")
        if lcu is None and chp is None and get.get("CU") is None:
            continue
        if not re.match(r"^[\d.]+$", get.get("CHPID TAKEN") or "") and not (
                (lcu is None or _HEX.match(lcu)) and (chp is None or chp == "*" or _HEX.match(chp))):
            continue  # a note or legend line under the table
        if lcu is not None:
            if not _HEX.match(lcu):
                raise rp.bad(path, f"line {n}", f"an LCU number (hex) under 'LCU', got {lcu!r}")
            close()
            cur = {"row": dict(keys, lcu=lcu.upper(), ssch_per_s=math.nan, _ln=n), "cu": [], "taken": 0.0}
        if cur is None:
            raise rp.bad(path, f"line {n}", "an LCU number on the first line of an LCU's paths")
        if get.get("CU"):
            cur["cu"] += [c.upper() for c in get["CU"].split()]
        vals = {}
        for label, col in IOQ_COLS.items():
            if col in ("lcu", "cu", "chpid") or label not in idx:
                continue
            vals[col] = rp.number(path, n, label, get.get(label))
        for col in _LCU_ONLY:
            if col in vals and not math.isnan(vals[col]):
                cur["row"][col] = vals[col]
        if chp is None:
            continue
        if chp == "*":  # the LCU's total line
            cur["row"]["ssch_per_s"] = vals.get("taken_per_s", math.nan)
            continue
        if not _HEX.match(chp):
            raise rp.bad(path, f"line {n}", f"a channel path id under 'CHAN PATHS', got {chp!r}")
        prow = dict(keys, lcu=cur["row"]["lcu"], chpid=chp.upper(), _ln=n)
        prow.update({c: vals[c] for c in _PATH_COLS if c in vals})
        if not math.isnan(prow.get("taken_per_s", math.nan)):
            cur["taken"] += prow["taken_per_s"]
        paths.append(prow)
    close()
    return lcus, paths


_REQ_ROWS = ("NORMAL", "SEQUENTIAL", "CFW DATA", "TOTAL")


def _cache(chunk, page, keys) -> None:
    """A cache page: the subsystem (or, on CACHE DEVICE ACTIVITY pages, one device) from the
    READ/WRITE I/O REQUESTS and CACHE MISSES tables, and the devices of the CACHE SUBSYSTEM
    DEVICE OVERVIEW table."""
    path = chunk.path
    text = "\n".join(page.texts[:20])
    m_ssid = re.search(r"\bSSID\s+([0-9A-Fa-f]{1,4})\b", text)
    if not m_ssid:  # the subsystem heading lower on the page than usual
        text = "\n".join(page.texts)
        m_ssid = re.search(r"\bSSID\s+([0-9A-Fa-f]{1,4})\b", text)
    m_cu = re.search(r"\bCU-ID\s+([0-9A-Fa-f]{1,4})\b", text)
    if not m_ssid:
        raise rp.bad(path, f"line {page.lineno}", "'SSID nnnn' in the cache report heading")
    base = dict(keys, ssid=m_ssid.group(1).upper(), cu=m_cu.group(1).upper() if m_cu else "")
    top = dict(base, _ln=page.lineno)
    if page.title == "CACHE DEVICE ACTIVITY":
        m_v = re.search(r"\bVOLSER\s+(\S+)\s+NUM\s+([0-9A-Fa-f]{4,5})\b", "\n".join(page.texts))
        if not m_v:
            raise rp.bad(path, f"line {page.lineno}", "'VOLSER xxxxxx NUM nnnn' in the cache device heading")
        top.update(volser=m_v.group(1), devnum=m_v.group(2).upper())
    if _cache_tables(path, page, top):
        chunk.rows["cache"].append(top)
    t = _table(page, lambda ln: re.match(r"^\s*SERIAL\s+NUM\b", ln) is not None, above=2)
    if t is not None:
        start, _h, lay = t
        if "DEV NUM" not in lay.index:
            raise rp.bad(path, f"line {page.lineno + start - 1}", "the cache device heading 'DEV NUM'")
        chunk.table(_parse_cache_devices, lay, page, start, base)


def _cache_tables(path, page, row) -> bool:
    """Fill ``row`` from the overview tables of the page; False if the page has none."""
    mode, found = None, False
    req, miss = {}, {}
    for n, ln in page.lines:
        s = ln.strip()
        m = re.search(r"(?<![\w-])TOTAL H/R\s+(\S+)", s)
        if m:
            row["hit_ratio"] = rp.number(path, n, "TOTAL H/R", m.group(1))
            found = True
        if "READ I/O REQUESTS" in s:
            mode = "req"
            continue
        if "CACHE MISSES" in s:
            mode = "miss"
            continue
        if "DEVICE OVERVIEW" in s:
            break  # the device table (read by _parse_cache_devices) comes last
        if mode is None or set(s) <= {"-"}:
            continue
        if s.startswith("----") or "CKD STATISTICS" in s:
            mode = None
            continue
        name = next((r for r in _REQ_ROWS if s.startswith(r + " ")), None)
        if name is None:
            continue
        toks = s[len(name):].split()
        nums = []
        for tk in toks:
            if not re.match(r"^[-+]?\d*\.?\d+[KMG]?$|^-+$|^N/A$", tk):
                break
            nums.append(rp.number(path, n, f"{name} ({mode})", tk))
        (req if mode == "req" else miss)[name] = nums
        found = True
    tot = req.get("TOTAL", [])
    if len(tot) >= 12:
        row.update(read_per_s=tot[1], read_hit_ratio=tot[4], write_per_s=tot[6],
                   write_hit_ratio=tot[11], io_per_s=tot[1] + tot[6])
    seq = req.get("SEQUENTIAL", [])
    if len(seq) >= 2:
        row["seq_read_per_s"] = seq[1]
    stage = [miss[r][5] for r in ("NORMAL", "SEQUENTIAL") if len(miss.get(r, [])) >= 6]
    if stage:
        row["staging_per_s"] = sum(stage)
    return found


def _parse_cache_devices(path, lay, lines, ln, page_of, keys):
    """Rows of CACHE SUBSYSTEM DEVICE OVERVIEW tables; lines without a device number (*ALL, the
    subsystem total, and *CACHE-OFF) are not devices."""
    cells = rp.split_lines(lay, lines)
    dev = cells[lay.index["DEV NUM"]].astype(str)
    has = dev != ""
    ok = has & np.isin(np.strings.str_len(dev), (4, 5)) & (np.strings.strip(dev, "0123456789ABCDEF") == "")
    bad = np.flatnonzero(has & ~ok)
    if len(bad):
        raise rp.bad(path, f"line {ln[bad[0]]}", f"a device number under 'DEV NUM', got {dev[bad[0]]!r}")
    ln, page_of = ln[ok], page_of[ok]
    cols = _key_columns(keys, page_of)
    cols["devnum"] = rp.text(dev[ok])
    for label, col in CACHE_DEV_COLS.items():
        if label in lay.index and col != "devnum":
            v = cells[lay.index[label]][ok]
            cols[col] = rp.text(v) if col == "volser" else rp.numbers(path, ln, label, v)
    cols["_ln"] = ln
    return "cache", rp.conform("cache", pd.DataFrame(cols))
