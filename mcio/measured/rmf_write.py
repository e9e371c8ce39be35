"""Writer of a :class:`~mcio.measured.table.Measured` as RMF Postprocessor text: DIRECT ACCESS
DEVICE ACTIVITY, CHANNEL PATH ACTIVITY, I/O QUEUING ACTIVITY and CACHE SUBSYSTEM ACTIVITY pages,
one set per interval and system, with ASA carriage control in column 1 ('1' starts a page).

The pages follow the layout of IBM's reports (spaced title, two-line header with SYSTEM ID, DATE,
TIME, INTERVAL; stacked column headings) closely enough for :mod:`mcio.measured.rmf_text` and for
a reader of real reports; column widths and the columns not in ``Measured`` (storage group,
cylinders, % DEV RESV...) are mcio's own. Values are rounded as printed: rates and times to 3
decimals, percentages and MB/s to 2, ratios to 3; NaN prints as '------' (not available).
Used by the round-trip tests and to emit synthetic RMF files (mcio.measured.synthetic).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from .table import Measured

TITLES = {
    "device": "D I R E C T   A C C E S S   D E V I C E   A C T I V I T Y",
    "channel": "C H A N N E L   P A T H   A C T I V I T Y",
    "ioq": "I/O   Q U E U I N G   A C T I V I T Y",
    "cache": "C A C H E   S U B S Y S T E M   A C T I V I T Y",
}
ROWS_PER_PAGE = 50

# (heading words top to bottom, width, column, format); format '' = text, left-aligned
DEVICE_LAYOUT = (
    (("STORAGE", "GROUP"), 8, None, ""),
    (("DEV", "NUM"), 5, "devnum", ""),
    (("DEVICE", "TYPE"), 6, "dev_type", ""),
    (("VOLUME", "SERIAL"), 6, "volser", ""),
    (("PAV",), 5, "pav", ""),
    (("LCU",), 4, "lcu", ""),
    (("DEVICE", "ACTIVITY", "RATE"), 9, "ssch_per_s", "%.3f"),
    (("AVG", "RESP", "TIME"), 7, "resp_ms", "%.3f"),
    (("AVG", "IOSQ", "TIME"), 7, "iosq_ms", "%.3f"),
    (("AVG", "CMR", "DLY"), 7, "cmr_ms", "%.3f"),
    (("AVG", "DB", "DLY"), 7, "db_ms", "%.3f"),
    (("AVG", "INT", "DLY"), 7, "int_dly_ms", "%.3f"),
    (("AVG", "PEND", "TIME"), 7, "pend_ms", "%.3f"),
    (("AVG", "DISC", "TIME"), 7, "disc_ms", "%.3f"),
    (("AVG", "CONN", "TIME"), 7, "conn_ms", "%.3f"),
    (("%", "DEV", "CONN"), 7, "dev_conn_pct", "%.2f"),
    (("%", "DEV", "UTIL"), 7, "dev_util_pct", "%.2f"),
)
IOQ_LAYOUT = (
    (("LCU",), 4, "lcu", ""),
    (("CU",), 14, "cu", ""),
    (("CHAN", "PATHS"), 5, "chpid", ""),
    (("CHPID", "TAKEN"), 9, "taken_per_s", "%.3f"),
    (("% DP", "BUSY"), 7, "dp_busy_pct", "%.2f"),
    (("% CU", "BUSY"), 7, "cu_busy_pct", "%.2f"),
    (("AVG", "CUB", "DLY"), 7, "cub_dly_ms", "%.3f"),
    (("AVG", "CMR", "DLY"), 7, "cmr_ms", "%.3f"),
    (("CONTENTION", "RATE"), 10, "cont_per_s", "%.3f"),
    (("DELAY", "Q", "LNGTH"), 7, "delay_q_length", "%.3f"),
    (("AVG", "CSS", "DLY"), 7, "css_dly_ms", "%.3f"),
    (("WAIT",), 7, "hpav_wait", "%.3f"),
    (("MAX",), 5, "hpav_max", "%.0f"),
)
CACHE_DEV_LAYOUT = (
    (("VOLUME", "SERIAL"), 6, "volser", ""),
    (("DEV", "NUM"), 5, "devnum", ""),
    (("I/O", "RATE"), 9, "io_per_s", "%.3f"),
    (("STAGE",), 17, "staging_per_s", "%.3f"),
    (("TOTAL", "H/R"), 8, "hit_ratio", "%.3f"),
    (("READ", "H/R"), 8, "read_hit_ratio", "%.3f"),
    (("WRITE", "H/R"), 8, "write_hit_ratio", "%.3f"),
    (("%", "READ"), 6, "read_pct", "%.1f"),
)
CHAN_LEAVES = (  # (heading, width, column, format)
    ("ID", 3, "chpid", ""), ("TYPE", 6, "chpid_type", ""), ("G", 3, "generation", ""),
    ("SPEED", 5, "speed", ""), ("SHR", 3, "shared", ""),
    ("PART", 8, "util_part_pct", "%.2f"), ("TOTAL", 8, "util_total_pct", "%.2f"), ("BUS", 8, "bus_pct", "%.2f"),
    ("PART", 9, "read_mb_s_part", "%.2f"), ("TOTAL", 9, "read_mb_s_total", "%.2f"),
    ("PART", 9, "write_mb_s_part", "%.2f"), ("TOTAL", 9, "write_mb_s_total", "%.2f"),
    ("RATE", 10, "ficon_ops_per_s", "%.1f"), ("ACTIVE", 8, "ficon_active", "%.1f"),
    ("DEFER", 8, "ficon_defer_per_s", "%.1f"),
    ("RATE", 10, "zhpf_ops_per_s", "%.1f"), ("ACTIVE", 8, "zhpf_active", "%.1f"),
    ("DEFER", 8, "zhpf_defer_per_s", "%.1f"),
)
CHAN_GROUPS = (("CHANNEL PATH", 0, 5), ("UTILIZATION(%)", 5, 8), ("READ(MB/SEC)", 8, 10),
               ("WRITE(MB/SEC)", 10, 12), ("FICON OPERATIONS", 12, 15), ("ZHPF OPERATIONS", 15, 18))


def fmt(v, f: str) -> str:
    """A value as RMF prints it: text as is, NaN as '------', numbers with ``f``."""
    if f == "":
        return "" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v)
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "------"
    return f % v


def overlay(line: str, pos: int, text: str) -> str:
    """``line`` with ``text`` written over it from column ``pos``."""
    line = line.ljust(pos + len(text))
    return (line[:pos] + text + line[pos + len(text):]).rstrip()


def interval_text(seconds: float) -> str:
    """INTERVAL as printed: mm.ss.ttt, or hh.mm.ss from one hour on."""
    ms = int(round(seconds * 1000))
    if ms >= 3600_000:
        s = ms // 1000
        return "%02d.%02d.%02d" % (s // 3600, s // 60 % 60, s % 60)
    return "%02d.%02d.%03d" % (ms // 60000, ms // 1000 % 60, ms % 1000)


def _header(kind: str, system: str, start: pd.Timestamp, interval_s: float, page: int) -> list[str]:
    t = TITLES[kind]
    return [
        "1" + " " * max(0, (132 - len(t)) // 2) + t,
        " " + " " * 123 + "PAGE %4d" % page,
        " " + "           z/OS V2R4               SYSTEM ID %-4s            DATE %s            INTERVAL %s"
        % (system, start.strftime("%m/%d/%Y"), interval_text(interval_s)),
        " " + "                                   RPT VERSION V2R4 RMF       TIME %s              CYCLE 1.000 SECONDS"
        % start.strftime("%H.%M.%S"),
        " ",
    ]


def _stacked(layout, gap: int = 2) -> tuple[list[str], list[tuple[int, int]]]:
    """Heading lines (bottom-aligned stacks) and each column's (start, width), ``gap`` blanks
    between columns."""
    depth = max(len(w) for w, *_ in layout)
    lines = [""] * depth
    spans = []
    pos = 1
    for words, width, _col, f in layout:
        stack = [""] * (depth - len(words)) + list(words)
        for k, w in enumerate(stack):
            cell = w.ljust(width) if f == "" else w.rjust(width)
            lines[k] = lines[k].ljust(pos) + cell
        spans.append((pos, width))
        pos += width + gap
    return [" " + ln.rstrip() for ln in lines], spans


def _row(layout, spans, values) -> str:
    line = ""
    for (_w, width, col, f), (pos, _wd) in zip(layout, spans):
        v = fmt(values.get(col), f) if col else ""
        line = line.ljust(pos) + (v.ljust(width) if f == "" else v.rjust(width))
    return " " + line.rstrip()


def _rows(layout, spans, df: pd.DataFrame) -> list[str]:
    """The lines :func:`_row` prints for every row of ``df``, built a column at a time."""
    n = len(df)
    if not n:
        return []
    sdt = np.dtypes.StringDType()
    line = np.full(n, "", dtype=sdt)
    for (_w, width, col, f), (pos, _wd) in zip(layout, spans):
        if col is None or col not in df:
            cell = np.full(n, "", dtype=sdt)
        else:
            vals = df[col].tolist()
            if f and df[col].dtype.kind == "f":  # fmt's rule, inline: NaN prints '------'
                cell = np.array(["------" if v != v else f % v for v in vals], dtype=sdt)
            else:
                cell = np.array([fmt(v, f) for v in vals], dtype=sdt)
        cell = np.strings.ljust(cell, width) if f == "" else np.strings.rjust(cell, width)
        pad = np.maximum(pos - np.strings.str_len(line), 0)
        line = np.strings.add(np.strings.add(line, np.strings.multiply(np.array(" ", dtype=sdt), pad)), cell)
    return [" " + ln for ln in np.strings.rstrip(line).tolist()]


def _groups(measured: Measured, level: str):
    df = measured[level]
    if not len(df):
        return []
    return list(df.groupby(["interval", "system", "interval_s"], sort=True))


def write(measured: Measured, path) -> Path:
    """Write ``measured`` to ``path`` as RMF Postprocessor text, interval by interval (system, then
    start); returns the path."""
    path = Path(path)
    out: list[str] = []
    page = [0]

    def newpage(kind, key):
        page[0] += 1
        (ivl, system, ivl_s) = key
        out.extend(_header(kind, system, pd.Timestamp(ivl), float(ivl_s), page[0]))

    groups = {lv: dict(_groups(measured, lv)) for lv in ("device", "channel", "lcu", "lcu_path", "cache")}
    keys = sorted(set().union(*[set(g) for g in groups.values()]), key=lambda k: (k[0], k[1]))
    for key in keys:  # as the Postprocessor prints them: every report of one interval, then the next
        df = groups["device"].get(key)
        if df is not None:
            head, spans = _stacked(DEVICE_LAYOUT)
            rows = _rows(DEVICE_LAYOUT, spans, df.sort_values("devnum"))
            for k in range(0, len(rows), ROWS_PER_PAGE):
                newpage("device", key)
                out += head
                out += rows[k:k + ROWS_PER_PAGE]
        df = groups["channel"].get(key)
        if df is not None:
            recs = df.sort_values("chpid").to_dict("records")
            for k in range(0, len(recs), ROWS_PER_PAGE):
                newpage("channel", key)
                out += _channel_page(recs[k:k + ROWS_PER_PAGE])
        if key in groups["lcu"] or key in groups["lcu_path"]:
            out += _ioq_pages(key, groups["lcu"].get(key), groups["lcu_path"].get(key), newpage)
        df = groups["cache"].get(key)
        if df is not None:
            for _ssid, d in df.groupby("ssid", sort=True):
                newpage("cache", key)
                out += _cache_page(key, d)
    path.write_text("\n".join(out) + "\n")
    return path


def _channel_page(recs) -> list[str]:
    spans, pos = [], 1
    for _h, width, _c, _f in CHAN_LEAVES:
        spans.append((pos, width))
        pos += width + 2
    leaf = ""
    for (h, width, _c, f), (p, _w) in zip(CHAN_LEAVES, spans):
        leaf = leaf.ljust(p) + (h.ljust(width) if f == "" else h.rjust(width))
    upper = ""
    for g, a, b in CHAN_GROUPS:
        lo, hi = spans[a][0], spans[b - 1][0] + spans[b - 1][1]
        upper = upper.ljust(lo) + g.center(hi - lo)
    lines = [" " + "-" * 131, " " + " " * 52 + "DETAILS FOR ALL CHANNELS", " " + "-" * 131,
             " " + upper.rstrip(), " " + leaf.rstrip()]
    for r in recs:
        line = ""
        for (_h, width, col, f), (p, _w) in zip(CHAN_LEAVES, spans):
            v = fmt(r.get(col), f)
            line = line.ljust(p) + (v.ljust(width) if f == "" else v.rjust(width))
        lines.append(" " + line.rstrip())
    return lines


def _ioq_pages(key, lcu_df, path_df, newpage) -> list[str]:
    head, spans = _stacked(IOQ_LAYOUT)
    # the HPAV group heading spans WAIT and MAX (the last two columns)
    lo = spans[-2][0]
    hi = spans[-1][0] + spans[-1][1]
    head[0] = " " + overlay(head[0][1:], lo, "---HPAV".ljust(hi - lo - 3, "-") + "---")
    out: list[str] = []
    lcu_recs = {r["lcu"]: r for r in (lcu_df.to_dict("records") if lcu_df is not None else [])}
    by_lcu: dict[str, list[dict]] = {}
    for r in (path_df.sort_values(["lcu", "chpid"]).to_dict("records") if path_df is not None else []):
        by_lcu.setdefault(r["lcu"], []).append(r)
    blocks = []
    for lcu in sorted(set(lcu_recs) | set(by_lcu)):
        L = lcu_recs.get(lcu, {"lcu": lcu})
        prs = by_lcu.get(lcu, [])
        lines = []
        for k, p in enumerate(prs):
            vals = dict(p)
            vals["lcu"] = lcu if k == 0 else None
            vals["cu"] = (L.get("cu") or "") if k == 0 else None
            lines.append(_row(IOQ_LAYOUT, spans, vals))
        tot = {c: L.get(c) for c in ("cont_per_s", "delay_q_length", "css_dly_ms", "hpav_wait", "hpav_max")}
        tot.update(chpid="*", taken_per_s=L.get("ssch_per_s"))
        if not prs:
            tot.update(lcu=lcu, cu=L.get("cu") or "")
        lines.append(_row(IOQ_LAYOUT, spans, tot))
        blocks.append(lines)
    cur = ROWS_PER_PAGE + 1
    for b in blocks:
        if cur + len(b) > ROWS_PER_PAGE:
            newpage("ioq", key)
            out += head
            cur = 0
        out += b + [" "]
        cur += len(b) + 1
    return out


def _cache_page(key, d) -> list[str]:
    ivl_s = float(key[2])
    tot = d[d["devnum"] == ""]
    devs = d[d["devnum"] != ""].sort_values("devnum")
    first = d.iloc[0]
    lines = [" SUBSYSTEM  2107-01     CU-ID  %-4s     SSID %-4s     CDATE  %s     CTIME %s      CINT  %s"
             % (first["cu"], first["ssid"], pd.Timestamp(key[0]).strftime("%m/%d/%Y"),
                pd.Timestamp(key[0]).strftime("%H.%M.%S"), interval_text(ivl_s)[:5]),
             " TYPE-MODEL 2107-981    MANUF  IBM      PLANT  75     SERIAL 000000000000", " "]
    if len(tot):
        t = tot.iloc[0]
        g = lambda c: float(t[c])  # noqa: E731
        rd, wr, seq = g("read_per_s"), g("write_per_s"), g("seq_read_per_s")
        rh, wh = g("read_hit_ratio"), g("write_hit_ratio")
        io = rd + wr if not (math.isnan(rd) or math.isnan(wr)) else g("io_per_s")
        n_io = io * ivl_s
        lines += [" " + "-" * 131, " " + " " * 50 + "CACHE SUBSYSTEM OVERVIEW", " " + "-" * 131,
                  " TOTAL I/O %10s   CACHE I/O %10s" % (fmt(n_io, "%.0f"), fmt(n_io, "%.0f")),
                  " TOTAL H/R %10s   CACHE H/R %10s" % (fmt(g("hit_ratio"), "%.3f"), fmt(g("hit_ratio"), "%.3f")),
                  " CACHE I/O     -------------READ I/O REQUESTS-------------   "
                  "----------------------WRITE I/O REQUESTS----------------------      %",
                  " REQUESTS         COUNT     RATE     HITS     RATE     H/R      COUNT     RATE"
                  "     FAST     RATE     HITS     RATE     H/R   READ"]
        seq0 = 0.0 if math.isnan(seq) else seq

        def req(name, r, h, w, wh_):
            nums = [r * ivl_s, r, r * h * ivl_s, r * h, h, w * ivl_s, w, w * ivl_s, w, w * wh_ * ivl_s,
                    w * wh_, wh_, 100.0 * r / (r + w) if r + w > 0 else 0.0]
            fm = ["%.0f", "%.3f", "%.0f", "%.3f", "%.3f", "%.0f", "%.3f",
                  "%.0f", "%.3f", "%.0f", "%.3f", "%.3f", "%.1f"]
            return " %-12s" % name + "".join(" %8s" % fmt(v, f) for v, f in zip(nums, fm))
        lines += [req("NORMAL", rd - seq0, rh, wr, wh), req("SEQUENTIAL", seq0, rh, 0.0, wh),
                  req("CFW DATA", 0.0, 0.0, 0.0, 0.0), req("TOTAL", rd, rh, wr, wh), " ",
                  " " + "-" * 23 + "CACHE MISSES" + "-" * 23,
                  " REQUESTS          READ     RATE    WRITE     RATE   TRACKS     RATE"]
        st = g("staging_per_s")
        miss = rd * (1 - rh) if not math.isnan(rh) else math.nan
        for name, m, s in (("NORMAL", miss, st), ("SEQUENTIAL", 0.0, 0.0)):
            nums = [m * ivl_s, m, 0.0, 0.0, s * ivl_s, s]
            fm = ["%.0f", "%.3f", "%.0f", "%.3f", "%.0f", "%.3f"]
            lines.append(" %-12s" % name + "".join(" %8s" % fmt(v, f) for v, f in zip(nums, fm)))
        lines.append(" ")
    if len(devs):
        head, spans = _stacked(CACHE_DEV_LAYOUT)
        lo, wd = spans[3]
        head.insert(0, " " + overlay("", lo, "--DASD I/O RATE--".center(wd, "-")))
        lines += [" " + "-" * 131, " " + " " * 46 + "CACHE SUBSYSTEM DEVICE OVERVIEW", " " + "-" * 131]
        lines += head
        lines += _rows(CACHE_DEV_LAYOUT, spans, devs)
    return lines
