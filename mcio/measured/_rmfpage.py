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

import numpy as np

from ..errors import McioError
from .table import COLUMNS, KEYS, bad_file

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
    return bad_file(path, where, expected)


def title_of(line: str) -> str | None:
    """The page title of ``line`` in plain words if it is a spaced-capitals title, else None."""
    s = line.lstrip()
    if s[:1] in ("1", "0", "-") and s[1:2] == " ":
        s = s[1:].lstrip()
    if len(s) < 15 or s[:12].count(" ") < 3:  # cheap test first: words of 1 to 3 letters
        return None
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
    from the title on (carriage control and trailing blanks removed); ``texts[k]`` is line
    ``lineno + k`` of the file."""

    title: str
    lineno: int
    texts: list[str] = field(default_factory=list)

    @property
    def lines(self) -> list[tuple[int, str]]:
        """``(lineno, text)`` of every line of the page."""
        return list(zip(range(self.lineno, self.lineno + len(self.texts)), self.texts))


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
    texts: list[str] = []
    hint = _TITLE_HINT.match
    for i, ln in enumerate(it, 1):
        body = ln[1:] if cc else ln
        t = title_of(body) if hint(body) else None
        if t is not None:
            if page is not None:
                yield page
            page = Page(t, i)
            texts = page.texts
        if page is not None:
            texts.append(body.rstrip())
    if page is not None:
        yield page


CC_SNIFF_LINES = 5000
#: what every title line starts with (words of 1 to 3 letters), a cheap test before title_of
_TITLE_HINT = re.compile(r"\s*(?:[01-]\s+)?\S{1,3}\s{1,6}\S{1,3}\s{1,6}\S")


BLOCK_BYTES = 1 << 22


def text_lines(path):
    """The lines of a report file, decoded lazily a block at a time: UTF-8 (Latin-1 where a line
    is not UTF-8), or EBCDIC (cp037, lines ended by NL or LF) when the head reads as EBCDIC; a
    binary file is a bad file."""
    with open(path, "rb") as f:
        head = f.read(65536)
        if b"\x00" in head[:4096]:
            raise bad(path, "byte %d" % head.index(b"\x00"), "a printed report (text), not a binary file")
        ebcdic = b"A C T I V I T Y" not in head and "A C T I V I T Y" in head.decode("cp037", errors="replace")
        f.seek(0)
        if not ebcdic:
            rest = b""
            for block in iter(lambda: f.read(BLOCK_BYTES), b""):
                raws = (rest + block).split(b"\n")
                rest = raws.pop()
                yield from _decode(raws)
            if rest:
                yield from _decode([rest])
            return
        buf = ""
        for chunk in iter(lambda: f.read(1 << 20), b""):
            buf += chunk.decode("cp037", errors="replace")
            parts = re.split("[\x85\n]", buf)
            buf = parts.pop()
            yield from parts
        if buf:
            yield buf


def _decode(raws: list[bytes]) -> list[str]:
    """Lines (without their CR) decoded as UTF-8, a line that is not UTF-8 as Latin-1."""
    if not raws:
        return []
    try:
        text = b"\n".join(raws).decode("utf-8")
        return [ln.rstrip("\r") for ln in text.split("\n")] if "\r" in text else text.split("\n")
    except UnicodeDecodeError:
        out = []
        for raw in raws:
            try:
                out.append(raw.decode("utf-8").rstrip("\r"))
            except UnicodeDecodeError:
                out.append(raw.decode("latin-1").rstrip("\r"))
        return out


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
    for ln in page.texts[:8]:
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


# ---- whole tables at once -----------------------------------------------------------------------

#: False: every data line is split token by token (Cells); True: the lines of a table are cut at
#: fixed positions in one numpy pass, lines where a token crosses a cut being split by Cells (the
#: two give the same cells; tests compare them)
FAST = True


@dataclass
class Layout:
    """A table's columns and where its lines are cut: column k owns the characters from
    ``bounds[k-1]`` to ``bounds[k]``. A bound lies in the gap between two columns' headings at the
    point that sends a token in the gap to the nearer column, as :class:`Cells` does; a token that
    crosses a bound is split by :class:`Cells`. ``bounds`` is None when the headings overlap."""

    cols: list[Column]
    index: dict[str, int]
    cells: Cells
    bounds: list[int] | None


_LAYOUTS: dict[tuple[str, ...], Layout] = {}


def layout(hlines: list[str]) -> Layout:
    """The :class:`Layout` of a table headed by ``hlines`` (cached: a report repeats its headings
    on every page)."""
    key = tuple(hlines)
    got = _LAYOUTS.get(key)
    if got is None:
        cols = columns(hlines)
        bounds = []
        for a, b in zip(cols, cols[1:]):
            if b.start < a.end:
                bounds = None
                break
            bounds.append(max(1, (a.end + b.start + 1) // 2))
        got = Layout(cols, {full_label(c): i for i, c in enumerate(cols)}, Cells(cols), bounds)
        if len(_LAYOUTS) > 256:
            _LAYOUTS.clear()
        _LAYOUTS[key] = got
    return got


def split_lines(lay: Layout, lines: list[str]) -> list[np.ndarray]:
    """The cells of ``lines`` under ``lay``'s columns: one array of stripped strings per column
    ('' where a line has nothing under a column)."""
    n = len(lines)
    if not n:
        return [np.array([], dtype=object) for _c in lay.cols]
    if not FAST or lay.bounds is None:
        return _split_slow(lay, lines, range(n), None)
    width = max(max(map(len, lines)), lay.bounds[-1] if lay.bounds else 0) + 1
    codes = np.array(lines, dtype=f"<U{width}").view(np.uint32).reshape(n, width)
    ink = codes > 32
    crossed = np.zeros(n, dtype=bool)
    for b in lay.bounds:
        crossed |= ink[:, b - 1] & ink[:, b]
    edges = [0] + lay.bounds + [width]
    out = []
    for a, b in zip(edges, edges[1:]):
        cell = np.ascontiguousarray(codes[:, a:b]).view(f"<U{b - a}").ravel()
        out.append(np.strings.strip(cell))
    if crossed.any():
        out = _split_slow(lay, lines, np.flatnonzero(crossed), [c.astype(object) for c in out])
    return out


def _split_slow(lay: Layout, lines, which, out):
    if out is None:
        out = [np.full(len(lines), "", dtype=object) for _c in lay.cols]
    for i in which:
        got = lay.cells(lines[i])
        for k, col in enumerate(out):
            col[i] = got.get(k, "")
    return out


def numbers(path, linenos, label: str, cells: np.ndarray) -> np.ndarray:
    """The values of a column of cells (see :func:`number`): NaN where not available, a bad file
    naming the first line whose cell is not a number."""
    cells = cells.astype(str)
    got = decimals(cells)  # the common case: a plain decimal in every cell
    if got is not None:
        return got
    try:
        return cells.astype(np.float64)
    except ValueError:
        pass
    out = np.full(len(cells), np.nan)
    na = ((np.strings.strip(cells, "-") == "") | (np.strings.strip(cells, "*") == "")
          | (cells == "N/A") | (cells == "NA"))
    idx = np.flatnonzero(~na)
    try:
        out[idx] = cells[idx].astype(np.float64)
    except ValueError:  # scaled values (12.3K) or a bad cell: one at a time
        for i in idx:
            out[i] = number(path, int(linenos[i]), label, str(cells[i]))
    return out


_POW10 = 10.0 ** np.arange(16)


def decimals(cells: np.ndarray) -> np.ndarray | None:
    """Plain decimals ('164.372', '.192', '12') read from their character codes, as ``float()``
    reads them (the digits as an integer of at most 15 digits, divided by a power of ten: both
    exact, so the quotient is the correctly rounded value); None unless every cell is one."""
    n, w = len(cells), cells.dtype.itemsize // 4
    if n == 0 or w == 0 or cells.dtype.kind != "U":
        return None
    c = np.ascontiguousarray(cells).view(np.uint32).reshape(n, w).astype(np.int64)
    d = c - 48
    dig = (d >= 0) & (d <= 9)
    dot = c == 46
    nul = c == 0
    ndig = dig.sum(axis=1)
    if (not (dig | dot | nul).all() or (dot.sum(axis=1) > 1).any() or (ndig == 0).any() or (ndig > 15).any()
            or (nul[:, :-1] & ~nul[:, 1:]).any()):
        return None
    m = np.zeros(n, dtype=np.int64)
    dec = np.zeros(n, dtype=np.int64)
    after = np.zeros(n, dtype=bool)
    for j in range(w):
        dj = dig[:, j]
        m = np.where(dj, m * 10 + d[:, j], m)
        dec += dj & after
        after |= dot[:, j]
    return m / _POW10[dec]


def conform(level: str, df) -> "object":
    """``df`` with exactly the columns of ``level`` (plus any starting with '_'), in order and
    typed as ``table.frame`` types them: missing text columns '', missing numbers NaN."""
    import pandas as pd

    spec = {**KEYS, **COLUMNS[level]}
    out = {}
    for c, (d, *_r) in spec.items():
        if c not in df:
            out[c] = np.full(len(df), "", dtype=object) if d == "str" else np.full(len(df), np.nan)
        elif d == "str":
            out[c] = df[c].astype(object).fillna("").to_numpy()
        elif d.startswith("datetime"):
            out[c] = pd.to_datetime(df[c]).astype("datetime64[ns]").to_numpy()
        else:
            out[c] = pd.to_numeric(df[c]).astype(d).to_numpy()
        if d == "str":  # as object, not pandas' own string dtype (which it infers from str objects)
            out[c] = pd.Series(out[c], dtype=object, index=pd.RangeIndex(len(df)))
    for c in df.columns:
        if str(c).startswith("_"):
            out[c] = df[c].to_numpy()
        elif c not in spec:
            raise ValueError(f"measured.{level}: unknown column {c!r}")
    return pd.DataFrame(out, index=pd.RangeIndex(len(df)))


def text(cells: np.ndarray) -> np.ndarray:
    """A column of text cells as objects, words separated by one blank (as :class:`Cells` joins
    the tokens under one column)."""
    cells = cells.astype(str)
    if (np.strings.find(cells, "  ") >= 0).any():
        return np.array([" ".join(c.split()) for c in cells], dtype=object)
    return cells.astype(object)
