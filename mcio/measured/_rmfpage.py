"""Pages of a printed RMF Postprocessor report: carriage control, page titles, page headers and
column headings, shared by the text reader (rmf_text.py) and its writer (rmf_write.py).

A printed report is a sequence of pages. Each page opens with a title in spaced capitals
(``D I R E C T   A C C E S S   D E V I C E   A C T I V I T Y``) and a two-line header stating the
system, the interval start (DATE mm/dd/yyyy, TIME hh.mm.ss) and its length (INTERVAL mm.ss.ttt,
z/OS RMF Report Analysis, "Report headings"). When the file keeps the ASA carriage-control column
(column 1: '1' new page, '0' double space, '-' triple space, ' ' single space) it is removed.
"""
from __future__ import annotations

import bisect
import itertools
import math
import re
from dataclasses import dataclass, field

from ..errors import McioError
from .table import COLUMNS, bad_file

#: page title (spaces removed) -> report kind; the readers know these, any other title is counted
#: in ``Measured.skipped`` under its own name
KNOWN_TITLES = {
    "DIRECTACCESSDEVICEACTIVITY": "DIRECT ACCESS DEVICE ACTIVITY",
    "CHANNELPATHACTIVITY": "CHANNEL PATH ACTIVITY",
    "I/OQUEUINGACTIVITY": "I/O QUEUING ACTIVITY",
    "CACHESUBSYSTEMACTIVITY": "CACHE SUBSYSTEM ACTIVITY",
    "CACHEDEVICEACTIVITY": "CACHE DEVICE ACTIVITY",
}

_CC = set(" 01-+")
_SYSTEM = re.compile(r"SYSTEM ID(?:\s+(?!DATE\b)(\S+))?")
_DATE = re.compile(r"(?<![\w-])DATE\s+(\d\d)/(\d\d)/(\d{4})")
_TIME = re.compile(r"(?<![\w-])TIME\s+(\d\d)\.(\d\d)\.(\d\d)")
_INTERVAL = re.compile(r"(?<![\w-])INTERVAL\s+(\d+)\.(\d\d)\.(\d{1,3})(?!\d)")
_NA = re.compile(r"^(?:-+|\*+|N/A|NA)$")
_SCALED = re.compile(r"^([-+]?\d*\.?\d+)([KMG])$")


def bad(path, where: str, expected: str) -> McioError:
    """``table.bad_file`` (one clear error naming file, line, what was expected)."""
    try:
        return bad_file(path, where, expected)
    except TypeError:  # table.bad_file builds McioError with one argument; see the h-rmf report
        return McioError(str(path), where, f"expected {expected}")


def title_of(line: str) -> str | None:
    """The page title of ``line`` in plain words if it is a spaced-capitals title, else None."""
    s = line.strip()
    toks = s.split()
    if toks and toks[0] in ("1", "0", "-") and len(line) - len(line.lstrip()) == 0:
        s = s[1:].strip()  # carriage control left on the title line of a file that mixes in other lines
        toks = toks[1:]
    if len(toks) < 8 or any(len(t) > 3 for t in toks):
        return None
    if sum(len(t) == 1 and t.isalpha() for t in toks) < 0.8 * len(toks):
        return None
    key = "".join(toks)
    if key in KNOWN_TITLES:
        return KNOWN_TITLES[key]
    return " ".join(w.replace(" ", "") for w in re.split(r" {2,}", s))


@dataclass
class Page:
    """One printed page: its title, the (1-based) line number of its title line, and its lines
    (``(lineno, text)``, carriage control removed)."""

    title: str
    lineno: int
    lines: list[tuple[int, str]] = field(default_factory=list)


def has_cc(lines: list[str]) -> bool:
    """True if column 1 holds ASA carriage control: every non-blank line starts with one of
    ' 01-+' and at least one page starts with '1'."""
    seen = False
    for ln in lines:
        if not ln.strip():
            continue
        if ln[0] not in _CC:
            return False
        seen = seen or ln[0] == "1"
    return seen


def pages(path, text: str) -> list[Page]:
    """Split a report into pages at its title lines; lines before the first title belong to no
    page (JCL listings, messages) and are ignored."""
    return list(iter_pages(text.splitlines()))


def iter_pages(lines, cc: bool | None = None):
    """The pages of a stream of lines, one at a time. Carriage control is detected on the first
    lines when ``cc`` is None."""
    it = iter(lines)
    if cc is None:
        head = list(itertools.islice(it, CC_SNIFF_LINES))
        cc = has_cc(head)
        it = itertools.chain(head, it)
    page = None
    for i, ln in enumerate(it, 1):
        body = ln[1:] if cc and ln else ln
        t = title_of(body)
        if t is not None:
            if page is not None:
                yield page
            page = Page(t, i)
        if page is not None:
            page.lines.append((i, body.rstrip()))
    if page is not None:
        yield page


CC_SNIFF_LINES = 5000


def text_lines(path):
    """The lines of a report file, decoded lazily: UTF-8 (Latin-1 where a line is not UTF-8), or
    EBCDIC (cp037, lines ended by NL or LF) when the head reads as EBCDIC; a binary file is a bad
    file."""
    with open(path, "rb") as f:
        head = f.read(65536)
        if b"\x00" in head[:4096]:
            raise bad(path, "byte %d" % head.index(b"\x00"), "a printed report (text), not a binary file")
        ebcdic = b"A C T I V I T Y" not in head and "A C T I V I T Y" in head.decode("cp037", errors="replace")
        f.seek(0)
        if not ebcdic:
            for raw in f:
                try:
                    yield raw.decode("utf-8").rstrip("\r\n")
                except UnicodeDecodeError:
                    yield raw.decode("latin-1").rstrip("\r\n")
            return
        buf = ""
        for chunk in iter(lambda: f.read(1 << 20), b""):
            buf += chunk.decode("cp037", errors="replace")
            parts = re.split("[\x85\n]", buf)
            buf = parts.pop()
            yield from parts
        if buf:
            yield buf


@dataclass
class Header:
    """What a page header states: system id, interval start, interval length (s)."""

    system: str
    start: "object"
    interval_s: float


def header(path, page: Page) -> Header:
    """The page header (within the first lines after the title); a known report without one is
    a bad file."""
    import pandas as pd

    sysid = date = time = ivl = None
    for _n, ln in page.lines[:8]:
        sysid = sysid or _SYSTEM.search(ln)
        date = date or _DATE.search(ln)
        time = time or _TIME.search(ln)
        ivl = ivl or _INTERVAL.search(ln)
    if not (sysid and date and time and ivl):
        missing = [k for k, v in (("SYSTEM ID", sysid), ("DATE mm/dd/yyyy", date),
                                  ("TIME hh.mm.ss", time), ("INTERVAL mm.ss.ttt", ivl)) if not v]
        raise bad(path, f"line {page.lineno}", f"an RMF page header with {', '.join(missing)} "
                  f"after the title {page.title!r}")
    mo, dd, yy = (int(g) for g in date.groups())
    hh, mi, ss = (int(g) for g in time.groups())
    a, b, c = ivl.groups()
    if len(c) == 3:  # mm.ss.ttt
        secs = int(a) * 60 + int(b) + int(c) / 1000.0
    else:  # hh.mm.ss (intervals of an hour or more)
        secs = int(a) * 3600 + int(b) * 60 + int(c)
    try:
        start = pd.Timestamp(yy, mo, dd, hh, mi, ss)
    except ValueError:
        raise bad(path, f"line {page.lineno}", "a valid DATE and TIME in the page header") from None
    return Header(sysid.group(1) or "", start, secs)


def number(path, lineno, label: str, tok: str | None) -> float:
    """A report value: a number (RMF may print '.192', '12.3K'), NaN for a blank or '----' /
    '****' / 'N/A' (not available); anything else is a bad file."""
    if tok is None or tok == "" or _NA.match(tok):
        return math.nan
    try:
        return float(tok)
    except ValueError:
        m = _SCALED.match(tok)
        if m:
            return float(m.group(1)) * {"K": 1e3, "M": 1e6, "G": 1e9}[m.group(2)]
    where = f"line {lineno}" if isinstance(lineno, int) else str(lineno)
    raise bad(path, where, f"a number under {label!r}, got {tok!r}")


# ---- column headings --------------------------------------------------------------------------

_TOKEN = re.compile(r"<[^<>\n]*>|-{2,}[^-\n]+?-{2,}|\S+")


@dataclass
class Column:
    """One column of a table: its label (stacked heading words, top to bottom), the group heading
    spanning it and neighbours (e.g. 'UTILIZATION(%)'), and its character span."""

    words: list[str]
    group: str
    start: int
    end: int

    @property
    def label(self) -> str:
        return " ".join(self.words)


def columns(hlines: list[str]) -> list[Column]:
    """Columns from stacked headings, bottom line first: a word above exactly one column is part
    of its label, above none opens a column of its own, above several (or framed in dashes,
    '--READ--', or angle brackets, '<-Rate/s->') is a group heading."""
    cols: list[Column] = []
    for ln in reversed(hlines):
        pending: dict[int, list[tuple[str, int, int]]] = {}
        new: list[Column] = []
        for m in _TOKEN.finditer(ln):
            s, e, w = m.start(), m.end(), m.group()
            hit = [k for k, c in enumerate(cols) if s < c.end and c.start < e]
            if len(hit) == 1 and not w.startswith(("--", "<")):
                pending.setdefault(hit[0], []).append((w, s, e))
            elif not hit:
                new.append(Column([w], "", s, e))
            else:
                g = w.strip("<>-").strip()
                for k in hit:
                    cols[k].group = (g + " " + cols[k].group).strip()
        for k, ws in pending.items():  # words of one line over one column keep their order
            c = cols[k]
            c.words[:0] = [w for w, _s, _e in ws]
            c.start = min([c.start] + [s for _w, s, _e in ws])
            c.end = max([c.end] + [e for _w, _s, e in ws])
        cols += new
    cols.sort(key=lambda c: c.start)
    return cols


class Cells:
    """Splits data lines into the columns of a table: each token goes to the column it overlaps
    most, or the nearest one. The owner of every character position is computed once per table."""

    def __init__(self, cols: list[Column]):
        self.cols = cols
        width = max((c.end for c in cols), default=0) + 1
        self.owner = [-1] * width
        for i, c in enumerate(cols):
            for p in range(c.start, c.end):
                self.owner[p] = i
        # the column whose span is closest to each position (cols are sorted by start)
        starts = [c.start for c in cols]
        self.nearest = [-1] * width
        for p in range(width):
            if self.owner[p] >= 0:
                self.nearest[p] = self.owner[p]
            elif cols:
                k = bisect.bisect_right(starts, p)
                pair = [i for i in (k - 1, k) if 0 <= i < len(cols)]
                self.nearest[p] = min(pair, key=lambda i: max(cols[i].start - p, p - cols[i].end + 1, 0))

    def __call__(self, line: str) -> dict[int, str]:
        out: dict[int, str] = {}
        owner, cols, last = self.owner, self.cols, len(self.owner) - 1
        for m in _WORD.finditer(line):
            s, e = m.start(), m.end()
            cand = {owner[p] for p in range(s, min(e, last + 1))} - {-1}
            if len(cand) == 1:
                best = cand.pop()
            elif cand:
                best = max(cand, key=lambda i: min(e, cols[i].end) - max(s, cols[i].start))
            else:  # in a gap: the nearer of the columns nearest to its two ends
                pair = (self.nearest[min(s, last)], self.nearest[min(e - 1, last)])
                best = min(pair, key=lambda i: max(cols[i].start - e, s - cols[i].end, 0)) if cols else -1
            if best < 0:
                continue
            out[best] = (out[best] + " " + m.group()) if best in out else m.group()
        return out


_WORD = re.compile(r"\S+")


def cells(line: str, cols: list[Column]) -> dict[int, str]:
    """The values of a data line by column index (see :class:`Cells`)."""
    return Cells(cols)(line)


def full_label(c: Column) -> str:
    """Group and label together, dashes and repeated blanks removed, e.g. 'HPAV WAIT'."""
    return " ".join((c.group + " " + c.label).split())


def complete(level: str, rows: list[dict]) -> list[dict]:
    """``rows`` with every text column of ``level`` present ('' where the report states none), so
    that a text column no row fills stays text."""
    text = [c for c, (d, *_r) in COLUMNS[level].items() if d == "str"] + ["system"]
    for r in rows:
        for c in text:
            r.setdefault(c, "")
    return rows
