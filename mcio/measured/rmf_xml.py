"""Reader of RMF Postprocessor XML reports (ddnames XPRPTS / XPXSRPTS, or the DDS API
``rmfpp.xml?reports=DEVICE``): DEVICE, CHAN, IOQ and CACHE reports into the levels ``device``,
``channel``, ``lcu`` / ``lcu_path`` and ``cache``.

Structure, as IBM documents it (z/OS RMF Programmer's Guide, "Postprocessor element", "Segment",
"Part", "Column-Headers"): each ``<postprocessor>`` encloses one report: ``<metric id="DEVICE">``,
``<version>``, ``<resource>``, ``<time-data>``, then ``<segment><name>..</name>`` elements made of
``<part>`` elements holding ``<var-list>`` or ``<table>``; a table has ``<column-headers>`` with one
``<col type="N|T|M|S">NAME</col>`` per column, and rows of ``<col>`` values in the same order.

A real file from the RMF Distributed Data Server (a CPU report, z/OS V2R5, in the Zowe ZEBRA
project's tests; see docs/measured.md) shows what the documentation leaves open, and this reader
follows it: the reports sit in a ``<ddsml>`` root; ``<resource>`` names the system in
``<resname>`` (``<restype>SYSTEM</restype>``); ``<time-data>`` holds ``<display-start>`` as
'mm/dd/yyyy-hh.mm.ss' and ``<report-interval unit="minutes">`` as 'mm:ss:ttt'; column names are
the printed headings in mixed case, a group heading joined by ': ' ('Number of Address Spaces:
MIN'); total rows carry ``type="SUM"``; an empty ``<col/>`` is not available. No real I/O report
(DEVICE, CHAN, IOQ, CACHE) was available, so their column names are still accepted in several forms:
a column is known by its printed heading ('DEVICE ACTIVITY RATE', 'AVG RESP TIME'...), compared
without case, blanks or colons, or by its documented Overview condition name (DART, DPTAVG,
CHTBSY, IOART, ...); other columns are ignored, and a table with no known key column is skipped and
counted in ``Measured.skipped``. Also accepted: an ISO start 'yyyy-mm-ddThh:mm:ss', a length in
seconds or 'mm.ss.ttt', and the system in an element named '*system*' or 'resource-name'.
"""
from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Iterator

import pandas as pd

from . import _rmfpage as rp
from .table import Measured, frame

#: report (metric id) -> level(s)
METRICS = {"DEVICE": "device", "CHAN": "channel", "IOQ": "ioq", "CACHE": "cache"}
#: column name (printed heading or Overview condition name, upper case) -> column, per report
COLUMN_NAMES = {
    "DEVICE": {
        "DEV NUM": "devnum", "DEVICE NUMBER": "devnum", "DEVN": "devnum", "VOLUME SERIAL": "volser",
        "VOLSER": "volser", "LCU": "lcu", "DEVICE TYPE": "dev_type",
        "DEVICE ACTIVITY RATE": "ssch_per_s", "DART": "ssch_per_s",
        "AVG RESP TIME": "resp_ms", "AVG IOSQ TIME": "iosq_ms", "DQTAVG": "iosq_ms",
        "AVG CMR DLY": "cmr_ms", "AVG DB DLY": "db_ms", "AVG PEND TIME": "pend_ms", "DPTAVG": "pend_ms",
        "AVG DISC TIME": "disc_ms", "DDTAVG": "disc_ms", "AVG CONN TIME": "conn_ms", "DCTAVG": "conn_ms",
        "% DEV CONN": "dev_conn_pct", "% DEV UTIL": "dev_util_pct", "DVUTL": "dev_util_pct",
        "AVG INT DLY": "int_dly_ms", "PAV": "pav",
    },
    "CHAN": {
        "ID": "chpid", "CHANNEL PATH ID": "chpid", "CHPID": "chpid", "TYPE": "chpid_type", "G": "generation",
        "SPEED": "speed", "SHR": "shared",
        "UTILIZATION (%) PART": "util_part_pct", "CHLBSY": "util_part_pct",
        "UTILIZATION (%) TOTAL": "util_total_pct", "CHTBSY": "util_total_pct",
        "UTILIZATION (%) BUS": "bus_pct", "CHBTOT": "bus_pct",
        "PART READ RATE": "read_mb_s_part", "CHLREAD": "read_mb_s_part",
        "TOTAL READ RATE": "read_mb_s_total", "CHTREAD": "read_mb_s_total",
        "PART WRITE RATE": "write_mb_s_part", "CHLWRITE": "write_mb_s_part",
        "TOTAL WRITE RATE": "write_mb_s_total", "CHTWRITE": "write_mb_s_total",
        "FICON OPERATIONS RATE": "ficon_ops_per_s", "CHFRATE": "ficon_ops_per_s",
        "FICON OPERATIONS ACTIVE": "ficon_active", "CHFACTV": "ficon_active",
        "FICON OPERATIONS DEFER": "ficon_defer_per_s", "CHFDFER": "ficon_defer_per_s",
        "ZHPF OPERATIONS RATE": "zhpf_ops_per_s", "CHFXRATE": "zhpf_ops_per_s",
        "ZHPF OPERATIONS ACTIVE": "zhpf_active", "CHFXACTV": "zhpf_active",
        "ZHPF OPERATIONS DEFER": "zhpf_defer_per_s", "CHFXDFER": "zhpf_defer_per_s",
    },
    "IOQ": {
        "LCU": "lcu", "CU": "cu", "CONTROL UNITS": "cu", "CHAN PATHS": "chpid", "CHPID": "chpid",
        "CHPID TAKEN": "taken_per_s", "IOART": "taken_per_s", "% DP BUSY": "dp_busy_pct", "IODPB": "dp_busy_pct",
        "% CU BUSY": "cu_busy_pct", "IOCUB": "cu_busy_pct", "AVG CUB DLY": "cub_dly_ms", "IOCBT": "cub_dly_ms",
        "AVG CMR DLY": "cmr_ms", "IOCMR": "cmr_ms", "CONTENTION RATE": "cont_per_s", "IOCTR": "cont_per_s",
        "DELAY Q LNGTH": "delay_q_length", "IODLQ": "delay_q_length", "HPAV WAIT": "hpav_wait",
        "IOHWAIT": "hpav_wait", "HPAV MAX": "hpav_max", "IOHMAX": "hpav_max", "AVG CSS DLY": "css_dly_ms",
    },
    "CACHE": {
        "SSID": "ssid", "CU-ID": "cu", "CUID": "cu", "DEV NUM": "devnum", "DEVN": "devnum", "VOLSER": "volser",
        "VOLUME SERIAL": "volser", "I/O RATE": "io_per_s", "TOTAL H/R": "hit_ratio", "CASHRT": "hit_ratio",
        "CADHRT": "hit_ratio", "READ H/R": "read_hit_ratio", "WRITE H/R": "write_hit_ratio",
        "STAGING RATE": "staging_per_s", "STAGE": "staging_per_s",
        "READ I/O REQUESTS RATE": "read_per_s", "WRITE I/O REQUESTS RATE": "write_per_s",
        "SEQUENTIAL READ RATE": "seq_read_per_s", "% READ": "read_pct",
    },
}


def _norm(name: str) -> str:
    """A column name compared without case, blanks or colons: DDS writes 'Time% LPAR Busy' and
    'Number of Address Spaces: MIN' where the printed report stacks 'TIME %' over 'LPAR BUSY'."""
    return re.sub(r"[\s:]+", "", name).upper()


#: COLUMN_NAMES with normalised names (see _norm)
_COLUMN_NORM = {rep: {_norm(k): v for k, v in names.items()} for rep, names in COLUMN_NAMES.items()}
#: reports whose total rows (type="SUM": LCU, storage-group, all-channel lines) are no objects
_SKIP_SUM = {"DEVICE", "CHAN"}
KEY_COLUMN = {"DEVICE": "devnum", "CHAN": "chpid", "IOQ": "lcu", "CACHE": "ssid"}
_TEXT = {"devnum", "volser", "lcu", "dev_type", "chpid", "chpid_type", "generation", "cu", "ssid", "pav", "speed",
         "shared"}
_ISO = re.compile(r"(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)")
_RMFDT = re.compile(r"(\d\d)/(\d\d)/(\d{4})[-\s]+(\d\d)[.:](\d\d)[.:](\d\d)")
#: interval length mm.ss.ttt (printed reports) or mm:ss:ttt (DDS XML, unit="minutes")
_MMSS = re.compile(r"^(\d+)([.:])(\d\d)\2(\d{3})$")


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1].lower()


def sniff(head: bytes) -> bool:
    """True if the first bytes look like RMF Postprocessor XML."""
    text = head.decode("utf-8", errors="replace")
    return text.lstrip().startswith("<") and "<postprocessor" in text


def read(path) -> Measured:
    """Every DEVICE / CHAN / IOQ / CACHE report of ``path`` as one :class:`Measured`."""
    return next(iter_read(path, chunk_reports=None))


def iter_read(path, chunk_reports: int | None = 400) -> Iterator[Measured]:
    """``path`` parsed one ``<postprocessor>`` element at a time, as one :class:`Measured` per
    ``chunk_reports`` reports (None: one for the whole file); the chunks together hold what
    :func:`read` returns."""
    path = Path(path)
    rows = {lv: [] for lv in LEVELS}
    skipped: dict[str, int] = {}
    n_pp = n_chunk = 0
    try:
        for _ev, el in ET.iterparse(path, events=("end",)):
            if _local(el.tag) != "postprocessor":
                continue
            n_pp += 1
            n_chunk += 1
            _report(path, el, n_pp, rows, skipped)
            el.clear()
            if chunk_reports and n_chunk >= chunk_reports:
                yield _measured(path, rows, skipped)
                rows, skipped, n_chunk = {lv: [] for lv in LEVELS}, {}, 0
    except ET.ParseError as e:
        line = e.position[0] if hasattr(e, "position") else "?"
        raise rp.bad(path, f"line {line}", f"well-formed RMF Postprocessor XML ({e})") from None
    if n_pp == 0:
        raise rp.bad(path, "line 1", "RMF Postprocessor XML: at least one <postprocessor> element")
    if n_chunk or not chunk_reports:
        yield _measured(path, rows, skipped)


LEVELS = ("device", "channel", "lcu", "lcu_path", "cache")


def reports(path) -> pd.DataFrame:
    """What ``path`` holds, one row per ``<postprocessor>`` report, known or not: ``metric`` (the
    report id, e.g. 'DEVICE', 'CPU'), ``system``, ``interval`` (start), ``interval_s``."""
    path = Path(path)
    out = []
    try:
        for _ev, el in ET.iterparse(path, events=("end",)):
            if _local(el.tag) != "postprocessor":
                continue
            _no_report(path, el, len(out) + 1)
            metric = _child(el, "metric")
            mid = ((metric.get("id") if metric is not None else "") or "").upper()
            out.append({"metric": mid, **_keys(path, el, len(out) + 1)})
            el.clear()
    except ET.ParseError as e:
        line = e.position[0] if hasattr(e, "position") else "?"
        raise rp.bad(path, f"line {line}", f"well-formed RMF Postprocessor XML ({e})") from None
    return pd.DataFrame(out, columns=["metric", "system", "interval", "interval_s"])


def _measured(path, rows, skipped) -> Measured:
    frames = {lv: frame(lv, rp.complete(lv, r)) for lv, r in rows.items() if r}
    return Measured(frames, [str(path)], skipped)


def _child(el, name):
    return next((c for c in el if _local(c.tag) == name), None)


def _no_report(path, pp, k) -> None:
    """A DDS error answer: a <postprocessor> with a <message> and no <metric> (real sample: the
    Zowe ZEBRA project's cpu-error.xml, GPM0739E) is a bad file quoting the message, not an empty
    report."""
    msg = _child(pp, "message")
    if _child(pp, "metric") is None and msg is not None:
        desc, sev = (" ".join((getattr(_child(msg, n), "text", "") or "").split()) for n in ("description", "severity"))
        raise rp.bad(path, f"postprocessor report {k}", f"a report, got the RMF DDS message "
                     f"{msg.get('id', '')} {desc!r} (severity {sev})")


def _report(path, pp, k, rows, skipped) -> None:
    _no_report(path, pp, k)
    metric = _child(pp, "metric")
    mid = (metric.get("id") if metric is not None else "") or ""
    mid = mid.upper()
    if mid not in METRICS:
        what = mid or "postprocessor without metric id"
        skipped[what] = skipped.get(what, 0) + 1
        return
    keys = _keys(path, pp, k)
    names = _COLUMN_NORM[mid]
    for seg in (c for c in pp if _local(c.tag) == "segment"):
        for part in (c for c in seg if _local(c.tag) == "part"):
            for tab in (c for c in part if _local(c.tag) == "table"):
                got = _table(path, tab, names, k, mid in _SKIP_SUM)
                if got is None or KEY_COLUMN[mid] not in got[0]:
                    what = f"{mid} table without a known key column"
                    skipped[what] = skipped.get(what, 0) + 1
                    continue
                cols, recs = got
                _emit(mid, keys, cols, recs, rows)


def _emit(mid, keys, cols, recs, rows) -> None:
    if mid == "DEVICE":
        rows["device"] += [dict(keys, **r) for r in recs]
    elif mid == "CHAN":
        rows["channel"] += [dict(keys, **r) for r in recs]
    elif mid == "CACHE":
        rows["cache"] += [dict(keys, **r) for r in recs]
    else:  # IOQ: rows with a channel path are LCU paths, rows with '*' or none are the LCU's total
        lcu_cols = ("cu", "cont_per_s", "delay_q_length", "hpav_wait", "hpav_max", "css_dly_ms")
        path_cols = ("taken_per_s", "dp_busy_pct", "cu_busy_pct", "cub_dly_ms", "cmr_ms")
        for r in recs:
            chp = r.get("chpid", "")
            if chp and chp != "*":
                vals = {c: r[c] for c in path_cols if c in r}
                rows["lcu_path"].append(dict(keys, lcu=r["lcu"], chpid=chp, **vals))
            else:
                lr = dict(keys, lcu=r["lcu"], **{c: r[c] for c in lcu_cols if c in r})
                if "taken_per_s" in r:
                    lr["ssch_per_s"] = r["taken_per_s"]
                rows["lcu"].append(lr)


def _table(path, tab, names, k, skip_sum=False):
    head = _child(tab, "column-headers")
    if head is None:
        raise rp.bad(path, f"postprocessor report {k}", "<column-headers> in every <table>")
    heads = [" ".join((c.text or "").split()) for c in head if _local(c.tag) == "col"]
    cols = [names.get(_norm(h)) for h in heads]
    if not any(cols):
        return None
    recs = []
    for r, row in enumerate((c for c in tab if _local(c.tag) == "row"), 1):
        if skip_sum and (row.get("type") or "").upper() == "SUM":
            continue
        vals = [(c.text or "").strip() for c in row if _local(c.tag) == "col"]
        rec = {}
        for name, col, v in zip(heads, cols, vals):
            if col is None:
                continue
            if col in _TEXT:
                rec[col] = v.upper() if col != "volser" else v
            else:
                rec[col] = rp.number(path, f"postprocessor report {k}, table row {r}", name, v)
        recs.append(rec)
    return [c for c in cols if c], recs


def _keys(path, pp, k) -> dict:
    td = _child(pp, "time-data")
    start = length = None
    if td is not None:
        for el in td.iter():
            txt = (el.text or "").strip()
            if start is None and txt:
                start = _datetime(txt)
            name = _local(el.tag)
            if length is None and txt and ("interval" in name or "duration" in name):
                length = _seconds(txt)
    if start is None or length is None:
        raise rp.bad(path, f"postprocessor report {k}", "<time-data> stating the interval start "
                     "(a date and time) and its length (an element named *interval* or *duration*)")
    system = ""
    res = _child(pp, "resource")
    if res is not None:
        for el in res.iter():
            name = _local(el.tag)
            if ("system" in name or name in ("resource-name", "resname")) and (el.text or "").strip():
                system = el.text.strip()
                break
    return {"interval": start, "interval_s": length, "system": system}


def _datetime(txt: str):
    m = _ISO.search(txt)
    if m:
        y, mo, d, h, mi, s = (int(g) for g in m.groups())
        return pd.Timestamp(y, mo, d, h, mi, s)
    m = _RMFDT.search(txt)
    if m:
        mo, d, y, h, mi, s = (int(g) for g in m.groups())
        return pd.Timestamp(y, mo, d, h, mi, s)
    return None


def _seconds(txt: str):
    m = _MMSS.match(txt)
    if m:
        return int(m.group(1)) * 60 + int(m.group(3)) + int(m.group(4)) / 1000.0
    try:
        v = float(txt)
    except ValueError:
        return None
    return v if math.isfinite(v) and v > 0 else None
