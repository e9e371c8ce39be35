"""The measured table: intervals (RMF-style rows) read from CSV or TOML and validated into :class:`Row`.

One row per measured interval, from a CSV file (``#`` lines are comments) or a TOML file (an array
of tables ``[[row]]``, or a table of equal-length column arrays); docs/calibration.md has an
example. Columns, by mcio's name or by the RMF report heading (:data:`RMF_COLUMNS`, matched
without regard to case, spaces or underscores):

=================  ========  =================================================================
column             needed    meaning
=================  ========  =================================================================
iops               yes       I/O rate, SSCH per second (RMF: DEVICE ACTIVITY RATE)
channel_busy       yes (*)   channel MP busy as a FRACTION in [0, 1]; a value written ``72%`` is
                             a percentage
channel_busy_pct   yes (*)   the same as a PERCENTAGE in [0, 100] (give one of the two columns;
                             RMF: UTILIZATION(%) TOTAL of the channel path)
response_ms        yes       mean response time, ms (RMF: AVG RESP TIME)
iosq_ms            no        mean IOSQ, ms (RMF: AVG IOSQ TIME)
pend_ms            no        mean pend, ms (includes CMR; RMF: AVG PEND TIME)
cmr_ms             no        mean command response delay, ms (RMF: AVG CMR DLY)
disconnect_ms      no        mean disconnect, ms (RMF: AVG DISC TIME)
connect_ms         no        mean connect, ms (RMF: AVG CONN TIME)
open_exchanges     no        mean open exchanges on the channel (RMF: FICON OPERATIONS ACTIVE)
population         no        how the row's load is set: with it, a closed workload keeping this
                             many I/Os outstanding; without it, an open (Poisson) stream at the
                             row's IOPS
think_ms           no        closed rows: think time (exponential mean, ms; default 0 = flat
                             out), or ``solve``: the think time that delivers the row's IOPS
=================  ========  =================================================================

Empty cells mean "not measured". A busy fraction over 1 (or percentage over 100) is an error, as are
unknown columns, non-numbers and fewer rows than parameters to fit.
"""
from __future__ import annotations

import csv
import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ..errors import McioError


REQUIRED = ("iops", "response_ms")


OPTIONAL = ("iosq_ms", "pend_ms", "cmr_ms", "disconnect_ms", "connect_ms", "open_exchanges")


LOAD = ("population", "think_ms")


ALLOWED = REQUIRED + ("channel_busy", "channel_busy_pct") + OPTIONAL + LOAD


#: RMF's report headings (Device Activity and Channel Path Activity reports; the seed 001 post's
#: own IOPS / CHAN% / AVGRSPMS) -> mcio's column. RMF reports times in ms and utilisation in %.
RMF_COLUMNS: dict[str, str] = {
    "DEVICE ACTIVITY RATE": "iops", "ACTIVITY RATE": "iops", "FICON OPERATIONS RATE": "iops", "IOPS": "iops",
    "UTILIZATION(%) TOTAL": "channel_busy_pct", "TOTAL UTILIZATION(%)": "channel_busy_pct",
    "CHANNEL UTILIZATION(%) TOTAL": "channel_busy_pct", "CHAN%": "channel_busy_pct",
    "AVG RESP TIME": "response_ms", "AVGRSPMS": "response_ms",
    "AVG IOSQ TIME": "iosq_ms", "AVG PEND TIME": "pend_ms", "AVG CMR DLY": "cmr_ms",
    "AVG DISC TIME": "disconnect_ms", "AVG CONN TIME": "connect_ms",
    "FICON OPERATIONS ACTIVE": "open_exchanges",
}


def _norm(name: str) -> str:
    return "".join(name.upper().replace("_", " ").split())


_BY_NORM = {**{_norm(k): v for k, v in RMF_COLUMNS.items()}, **{_norm(c): c for c in ALLOWED}}


def column_name(name: str) -> str:
    """mcio's column for a heading (mcio's own or RMF's; unknown headings are returned as given)."""
    return _BY_NORM.get(_norm(name), name) if isinstance(name, str) else name


@dataclass(frozen=True)
class Row:
    """One measured interval: ``values`` (column -> number, busy as a fraction) and its load."""

    values: dict
    population: int | None = None
    think_ms: float | str = 0.0

    @property
    def iops(self) -> float:
        return self.values["iops"]

    @property
    def is_open(self) -> bool:
        return self.population is None


def _num(where: str, v, lo: float | None = 0.0, lo_open: bool = False) -> float:
    if isinstance(v, bool) or v is None:
        raise McioError(where, v, "must be a number")
    if isinstance(v, str):
        try:
            x = float(v.strip())
        except ValueError:
            raise McioError(where, v, "must be a number") from None
    elif isinstance(v, (int, float)):
        x = float(v)
    else:
        raise McioError(where, v, "must be a number")
    if not math.isfinite(x):
        raise McioError(where, v, "must be a finite number")
    if lo is not None and (x < lo or (lo_open and x == lo)):
        raise McioError(where, v, f"must be {'>' if lo_open else '>='} {lo:g}")
    return x


def _busy(where: str, v, percent_column: bool) -> float:
    """Channel busy as a fraction; ``72%`` or the _pct column are percentages."""
    percent = percent_column
    if isinstance(v, str) and v.strip().endswith("%"):
        percent, v = True, v.strip()[:-1]
    x = _num(where, v)
    if percent:
        if x > 100.0:
            raise McioError(where, v, "channel busy is a percentage here and cannot exceed 100 %")
        return x / 100.0
    if x > 1.0:
        raise McioError(where, v, "channel_busy is a fraction in [0, 1] and cannot exceed 1 "
                                  "(100 %); for a percentage write e.g. 72% or use channel_busy_pct")
    return x


def _blank(v) -> bool:
    return v is None or (isinstance(v, str) and not v.strip())


def parse_rows(raw_rows: Sequence[dict], source: str = "measured") -> list[Row]:
    """Validate a list of column -> value dicts into :class:`Row` objects."""
    if not isinstance(raw_rows, (list, tuple)) or not raw_rows:
        raise McioError(source, raw_rows, "must hold at least one measured row")
    renamed = []
    for r in raw_rows:
        if isinstance(r, dict):
            rr: dict = {}
            for k, v in r.items():
                c = column_name(k)
                if c in rr and not _blank(rr[c]) and not _blank(v):
                    raise McioError(f"{source} column", k, f"gives {c} a second time")
                if c not in rr or _blank(rr[c]):
                    rr[c] = v
            r = rr
        renamed.append(r)
    raw_rows = renamed
    cols = set()
    for r in raw_rows:
        if not isinstance(r, dict):
            raise McioError(source, r, "each row must be a table of column -> value")
        cols |= {k for k, v in r.items() if not _blank(v)}
    unknown = sorted(c for c in cols if c not in ALLOWED)
    if unknown:
        raise McioError(f"{source} column", ", ".join(unknown), f"unknown; allowed: {', '.join(ALLOWED)} "
                        f"or RMF's {', '.join(RMF_COLUMNS)}")
    missing = [c for c in REQUIRED if c not in cols]
    if "channel_busy" not in cols and "channel_busy_pct" not in cols:
        missing.insert(1, "channel_busy (fraction) or channel_busy_pct (percent)")
    if missing:
        raise McioError(source, f"columns {', '.join(sorted(cols)) or '(none)'}",
                        f"missing column(s): {', '.join(missing)}")
    if "channel_busy" in cols and "channel_busy_pct" in cols:
        raise McioError(source, "channel_busy and channel_busy_pct",
                        "give channel busy once: channel_busy as a fraction or channel_busy_pct in %")
    rows = []
    for i, r in enumerate(raw_rows):
        where = f"{source} row {i + 1}"
        vals: dict = {}
        for c in REQUIRED:
            if _blank(r.get(c)):
                raise McioError(f"{where} {c}", r.get(c), "is required in every row")
        vals["iops"] = _num(f"{where} iops", r["iops"], lo=0.0, lo_open=True)
        vals["response_ms"] = _num(f"{where} response_ms", r["response_ms"], lo=0.0, lo_open=True)
        bcol = "channel_busy" if "channel_busy" in cols else "channel_busy_pct"
        if _blank(r.get(bcol)):
            raise McioError(f"{where} {bcol}", r.get(bcol), "is required in every row")
        vals["channel_busy"] = _busy(f"{where} {bcol}", r[bcol], bcol == "channel_busy_pct")
        for c in OPTIONAL:
            if not _blank(r.get(c)):
                vals[c] = _num(f"{where} {c}", r[c], lo=0.0, lo_open=(c not in ("open_exchanges", "iosq_ms")))
        pop = None
        if not _blank(r.get("population")):
            x = _num(f"{where} population", r["population"], lo=1.0)
            if not float(x).is_integer():
                raise McioError(f"{where} population", r["population"], "must be a whole number of I/Os")
            pop = int(x)
        think: float | str = 0.0
        if not _blank(r.get("think_ms")):
            if pop is None:
                raise McioError(f"{where} think_ms", r["think_ms"], "needs a population (closed row)")
            t = r["think_ms"]
            think = "solve" if isinstance(t, str) and t.strip().lower() == "solve" else _num(f"{where} think_ms", t)
        rows.append(Row(vals, pop, think))
    return rows


def load_measured(path) -> list[Row]:
    """Read a measured table from CSV or TOML (see the module docstring)."""
    p = Path(path)
    if not p.exists():
        raise McioError("--measured", str(p), "does not exist")
    try:
        text = p.read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise McioError("--measured", str(p), f"cannot be read ({e})") from None
    if p.suffix.lower() == ".toml":
        try:
            raw = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise McioError("--measured", str(p), f"is not valid TOML ({e})") from None
        rows = raw.get("row", raw.get("rows"))
        if rows is None:
            lists = {k: v for k, v in raw.items() if isinstance(v, list)}
            if not lists:
                raise McioError("--measured", str(p), "TOML needs [[row]] tables or column arrays")
            n = {len(v) for v in lists.values()}
            if len(n) != 1:
                raise McioError("--measured", str(p), "TOML column arrays must all have the same length")
            rows = [{k: v[i] for k, v in lists.items()} for i in range(n.pop())]
        return parse_rows(rows, source=str(p))
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        raise McioError("--measured", str(p), "holds no CSV header and rows")
    reader = csv.DictReader(lines)
    if reader.fieldnames is None:
        raise McioError("--measured", str(p), "holds no CSV header")
    reader.fieldnames = [f.strip() for f in reader.fieldnames]
    rows = []
    for r in reader:
        if None in r:
            raise McioError(f"{p} row {len(rows) + 1}", r[None], "has more cells than the header")
        rows.append({k: v for k, v in r.items()})
    return parse_rows(rows, source=str(p))
