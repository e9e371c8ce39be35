"""RMF Postprocessor text reports: real IBM excerpts (tests/data/measured/rmf_ibm_*, sources in
tests/data/measured/README.md) parse to exactly what they print; files written by rmf_write read
back to the written values (round trip); bad and foreign files give one McioError naming the file
and the line."""
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mcio.errors import McioError
from mcio.measured import Measured, frame, perfkit, rmf_text, rmf_write, rmf_xml
from mcio.measured import _rmfpage as rp

DATA = Path(__file__).parent / "data" / "measured"


# ---- real excerpts -------------------------------------------------------------------------------

def test_ibm_channel_heading_is_understood():
    p = DATA / "rmf_ibm_chan_v2r4_head.txt"
    assert rmf_text.sniff(p.read_bytes()[:4096])
    (page,) = rp.pages(p, p.read_text())
    assert page.title == "CHANNEL PATH ACTIVITY"
    h = rp.header(p, page)
    assert (h.system, h.start, h.interval_s) == ("CB88", pd.Timestamp("2019-05-11 08:00:00"), 899.999)
    lines = p.read_text().splitlines()
    names = rmf_text._channel_names(lines[-2], lines[-1])
    assert names[:15] == ["ID", "TYPE", "G", "SPEED", "SHR", "util PART", "util TOTAL", "util BUS",
                          "read PART", "read TOTAL", "write PART", "write TOTAL",
                          "ficon RATE", "ficon ACTIVE", "ficon DEFER"]
    m = rmf_text.read(p)  # headings only: no rows, no error
    assert len(m["channel"]) == 0 and m.skipped == {}


def test_row_under_ibm_channel_heading(tmp_path):
    """A made-up row right-aligned under IBM's real headings (the excerpt has none) lands in the
    right columns."""
    text = (DATA / "rmf_ibm_chan_v2r4_head.txt").read_text().replace(" RAT\n", " RATE  ACTIVE   DEFER\n")
    row = " 40 FC_S   11  16G  Y      0.26   1.86   2.15   0.02   0.34   0.00   0.01      67.3     1.0     0.0    12.3     1.0     0.0\n"
    p = tmp_path / "chan.txt"
    p.write_text(text + row)
    (r,) = rmf_text.read(p)["channel"].to_dict("records")
    assert (r["chpid"], r["chpid_type"], r["generation"]) == ("40", "FC_S", "11")
    assert (r["util_part_pct"], r["util_total_pct"], r["bus_pct"]) == (0.26, 1.86, 2.15)
    assert (r["read_mb_s_part"], r["read_mb_s_total"], r["write_mb_s_part"], r["write_mb_s_total"]) == (0.02, 0.34, 0.0, 0.01)
    assert (r["ficon_ops_per_s"], r["ficon_active"], r["ficon_defer_per_s"]) == (67.3, 1.0, 0.0)
    assert (r["zhpf_ops_per_s"], r["zhpf_active"], r["zhpf_defer_per_s"]) == (12.3, 1.0, 0.0)


def test_ibm_dasd_heading_is_understood():
    """IBM's z/OS 2.4 DASD activity page head and headings (the stored copy breaks off in the first
    row): the header reads exactly, every heading reads as its Measured column."""
    p = DATA / "rmf_ibm_dasd_v2r4_head.txt"
    assert rmf_text.sniff(p.read_bytes()[:4096])
    (page,) = rp.pages(p, p.read_text())
    assert page.title == "DIRECT ACCESS DEVICE ACTIVITY"
    h = rp.header(p, page)
    assert (h.system, h.start, h.interval_s) == ("SYSF", pd.Timestamp("2019-05-11 06:00:00"), 899.998)
    lay = rp.layout(p.read_text().splitlines()[-3:])
    assert set(rmf_text.DEVICE_COLS) <= set(lay.index)  # incl. PAV and AVG INT DLY
    m = rmf_text.read(p)
    assert len(m["device"]) == 0 and m.skipped == {}


def _row_under(lay, values: dict) -> str:
    """A data line with ``values`` (heading -> text) under ``lay``'s headings: numbers right-aligned
    to the heading's end, text from the heading's start (a 5-digit device number one to the left,
    as IBM's first row prints it; mcio's guess for the other columns)."""
    line = ""
    for lab, v in values.items():
        c = lay.cols[lay.index[lab]]
        left = lab in ("STORAGE GROUP", "DEV NUM", "DEVICE TYPE", "VOLUME SERIAL", "PAV", "LCU")
        pos = c.start - (lab == "DEV NUM") if left else c.end - len(v)
        line = line.ljust(pos) + v
    return line


def test_row_under_ibm_dasd_heading(tmp_path):
    """A made-up row (and an LCU summary line) under IBM's real DASD headings lands in the right
    columns, with the fast and the token-by-token split alike."""
    text = (DATA / "rmf_ibm_dasd_v2r4_head.txt").read_text()
    lay = rp.layout(text.splitlines()[-3:])
    vals = {"STORAGE GROUP": "SGPROD", "DEV NUM": "09801", "DEVICE TYPE": "33909", "NUMBER CYL": "30051",
            "VOLUME SERIAL": "PRD002", "PAV": "1.0H", "LCU": "0018", "DEVICE ACTIVITY RATE": "1234.5",
            "AVG RESP TIME": "2.25", "AVG IOSQ TIME": "1.50", "AVG CMR DLY": ".100", "AVG DB DLY": ".010",
            "AVG INT DLY": ".002", "AVG PEND TIME": ".300", "AVG DISC TIME": "9.75", "AVG CONN TIME": ".700",
            "% DEV CONN": "86.38", "% DEV UTIL": "99.99", "% DEV RESV": "0.0", "AVG NMBR ALLOC": "1.0",
            "% ANY ALLOC": "50.0"}
    summary = {k: v for k, v in vals.items() if k not in ("STORAGE GROUP", "DEV NUM", "DEVICE TYPE", "NUMBER CYL",
                                                          "VOLUME SERIAL", "PAV")}
    p = tmp_path / "dasd.txt"
    p.write_text(text + _row_under(lay, vals) + "\n" + _row_under(lay, dict(summary, **{"VOLUME SERIAL": "LCU"})) + "\n")
    got = []
    for fast in (True, False):
        rp.FAST = fast
        try:
            got.append(rmf_text.read(p)["device"])
        finally:
            rp.FAST = True
    pd.testing.assert_frame_equal(got[0], got[1])
    (r,) = got[0].to_dict("records")
    assert (r["devnum"], r["dev_type"], r["volser"], r["pav"], r["lcu"]) == ("09801", "33909", "PRD002", "1.0H", "0018")
    assert (r["ssch_per_s"], r["resp_ms"], r["iosq_ms"], r["cmr_ms"], r["db_ms"], r["int_dly_ms"]) == (1234.5, 2.25, 1.5, .1, .01, .002)
    assert (r["pend_ms"], r["disc_ms"], r["conn_ms"], r["dev_conn_pct"], r["dev_util_pct"]) == (.3, 9.75, .7, 86.38, 99.99)
    assert (r["system"], r["interval_s"]) == ("SYSF", 899.998)


def test_ibm_cache_subsystem_excerpt_exact():
    m = rmf_text.read(DATA / "rmf_ibm_cache_v2r4.txt")
    (r,) = m["cache"].to_dict("records")
    assert r["interval"] == pd.Timestamp("2019-05-11 08:50:00")
    assert r["interval_s"] == 600.010 and r["system"] == "SYS1"
    assert (r["ssid"], r["cu"], r["devnum"]) == ("1800", "B005", "")
    assert r["hit_ratio"] == 1.000
    # the excerpt ends inside the NORMAL row: nothing else is stated, so nothing else is filled
    assert all(math.isnan(r[c]) for c in ("io_per_s", "read_per_s", "write_hit_ratio", "staging_per_s"))


def test_ibm_cpu_page_is_skipped_and_counted():
    m = rmf_text.read(DATA / "rmf_ibm_cpu_cachedev.txt")
    assert m.skipped == {"CPU ACTIVITY": 1}
    assert len(m["cache"]) == 0  # the cache device page's tables are not in the excerpt
    pages = rp.pages("x", (DATA / "rmf_ibm_cpu_cachedev.txt").read_text())
    h = rp.header("x", pages[1])
    assert (h.system, h.start, h.interval_s) == ("SYS1", pd.Timestamp("2013-09-28 00:30:00"), 900.055)
    assert "VOLSER     NP1MHI      NUM    1E85" in "\n".join(t for _n, t in pages[1].lines)


# ---- round trip through rmf_write ----------------------------------------------------------------

def _measured(seed=7, n_dev=61):
    rng = np.random.default_rng(seed)
    rows = {lv: [] for lv in ("device", "channel", "lcu", "lcu_path", "cache")}
    for system in ("SYSA", "SYSB"):
        for iv in pd.date_range("2026-03-02 08:00", periods=2, freq="15min"):
            k = dict(interval=iv, interval_s=899.999, system=system)
            for i in range(n_dev):
                rows["device"].append(dict(
                    k, devnum="%04X" % (0x9800 + i), volser="PR%04d" % i, lcu="0018" if i % 2 else "0019",
                    dev_type="33909", ssch_per_s=rng.uniform(0, 900), resp_ms=rng.uniform(0.1, 9),
                    iosq_ms=rng.uniform(0, 1), cmr_ms=rng.uniform(0, .1), db_ms=0.0, pend_ms=rng.uniform(.05, .4),
                    disc_ms=rng.uniform(0, 3), conn_ms=rng.uniform(.05, 1), dev_conn_pct=rng.uniform(0, 60),
                    dev_util_pct=np.nan if i == 3 else rng.uniform(0, 99), int_dly_ms=rng.uniform(0, .02),
                    pav=("1.0H", "8", "", "2.5*")[i % 4]))
            for c in ("40", "41", "C8"):
                rows["channel"].append(dict(
                    k, chpid=c, chpid_type="FC_S", generation="11", speed="16G" if c != "C8" else "",
                    shared="Y" if c != "41" else "N", util_part_pct=rng.uniform(0, 100),
                    util_total_pct=rng.uniform(0, 100), bus_pct=rng.uniform(0, 100),
                    read_mb_s_part=rng.uniform(0, 2000), read_mb_s_total=rng.uniform(0, 3000),
                    write_mb_s_part=rng.uniform(0, 900), write_mb_s_total=rng.uniform(0, 900),
                    ficon_ops_per_s=rng.uniform(0, 20000), ficon_active=rng.uniform(0, 60),
                    ficon_defer_per_s=rng.uniform(0, 5), zhpf_ops_per_s=rng.uniform(0, 90000),
                    zhpf_active=rng.uniform(0, 60), zhpf_defer_per_s=np.nan))
            for lcu in ("0018", "0019"):
                rows["lcu"].append(dict(k, lcu=lcu, cu="9800 9880", ssch_per_s=rng.uniform(0, 9000),
                                        cont_per_s=rng.uniform(0, 9), delay_q_length=rng.uniform(0, 2),
                                        hpav_wait=rng.uniform(0, 1), hpav_max=float(rng.integers(0, 32)),
                                        css_dly_ms=rng.uniform(0, .1)))
                for c in ("40", "41", "C8"):
                    rows["lcu_path"].append(dict(k, lcu=lcu, chpid=c, taken_per_s=rng.uniform(0, 3000),
                                                 dp_busy_pct=rng.uniform(0, 5), cu_busy_pct=rng.uniform(0, 5),
                                                 cub_dly_ms=rng.uniform(0, 1), cmr_ms=rng.uniform(0, 1)))
            for ssid in ("1800", "1880"):
                rd, wr, seq = rng.uniform(100, 5000), rng.uniform(10, 2000), rng.uniform(0, 50)
                rows["cache"].append(dict(k, ssid=ssid, cu="B005", devnum="", io_per_s=rd + wr, read_per_s=rd,
                                          write_per_s=wr, read_hit_ratio=rng.uniform(.5, 1), write_hit_ratio=1.0,
                                          hit_ratio=rng.uniform(.5, 1), staging_per_s=rng.uniform(0, 300),
                                          seq_read_per_s=seq))
                for i in range(3):
                    rows["cache"].append(dict(k, ssid=ssid, cu="B005", devnum="%04X" % (0x9800 + i), volser="PR%04d" % i,
                                              io_per_s=rng.uniform(0, 500), read_hit_ratio=rng.uniform(.5, 1),
                                              write_hit_ratio=1.0, hit_ratio=rng.uniform(.5, 1),
                                              staging_per_s=rng.uniform(0, 30), read_pct=rng.uniform(0, 100)))
    return Measured({lv: frame(lv, r) for lv, r in rows.items()})


#: half a unit of the last printed digit, per column (rmf_write's formats)
def _tol(level, col):
    f = {"device": rmf_write.DEVICE_LAYOUT, "lcu_path": rmf_write.IOQ_LAYOUT, "lcu": rmf_write.IOQ_LAYOUT}
    if level == "channel":
        fmt = {c: f_ for _h, _w, c, f_ in rmf_write.CHAN_LEAVES}.get(col, "%.3f")
    elif level == "cache":
        fmt = {c: f_ for _w, _wd, c, f_ in rmf_write.CACHE_DEV_LAYOUT}.get(col, "%.3f")
    else:
        fmt = {c: f_ for _w, _wd, c, f_ in f[level]}.get(col, "%.3f")
        if level == "lcu" and col == "ssch_per_s":
            fmt = "%.3f"
    return 0.5 * 10.0 ** -int(fmt[2]) + 1e-9


def _compare(level, want, got):
    key = {"device": ["system", "interval", "devnum"], "channel": ["system", "interval", "chpid"],
           "lcu": ["system", "interval", "lcu"], "lcu_path": ["system", "interval", "lcu", "chpid"],
           "cache": ["system", "interval", "ssid", "devnum"]}[level]
    w = want.sort_values(key).reset_index(drop=True)
    g = got.sort_values(key).reset_index(drop=True)
    assert len(w) == len(g)
    for col in w.columns:
        if w[col].dtype == object or col == "interval":
            assert (w[col] == g[col]).all(), (level, col)
            continue
        a, b = w[col].to_numpy(float), g[col].to_numpy(float)
        assert (np.isnan(a) == np.isnan(b)).all(), (level, col)
        ok = ~np.isnan(a)
        if level == "cache" and col in ("io_per_s",):
            tol = 1e-3  # written as read + write, both rounded to 3 decimals
        else:
            tol = _tol(level, col)
        assert np.max(np.abs(a[ok] - b[ok]), initial=0.0) <= tol, (level, col)


def test_round_trip(tmp_path):
    m = _measured()
    p = rmf_write.write(m, tmp_path / "rmf.txt")
    got = rmf_text.read(p)
    assert got.skipped == {} and got.sources == [str(p)]
    for lv in ("device", "channel", "lcu", "lcu_path"):
        _compare(lv, m[lv], got[lv])
    for lv in ("device", "channel", "lcu", "lcu_path", "cache"):  # typed as table.frame types them
        assert (got[lv].dtypes == frame(lv, []).dtypes).all(), lv
    want_cache = m["cache"].copy()
    dev = want_cache["devnum"] != ""
    for c in ("read_per_s", "write_per_s", "seq_read_per_s"):  # the device overview prints none of these
        want_cache.loc[dev, c] = np.nan
    _compare("cache", want_cache, got["cache"])
    text = p.read_text()
    assert text.count("\n1") + text.startswith("1") >= 2 * 2 * (2 + 1 + 1 + 2)  # pages per interval and system
    assert len(got.intervals()) == 2


def test_without_carriage_control_and_in_ebcdic(tmp_path):
    m = _measured(n_dev=5)
    p = rmf_write.write(m, tmp_path / "cc.txt")
    ref = rmf_text.read(p)
    plain = tmp_path / "plain.txt"
    plain.write_text("\n".join(ln[1:] for ln in p.read_text().splitlines()) + "\n")
    ebc = tmp_path / "ebcdic.txt"
    ebc.write_bytes(p.read_text().replace("\n", "\x85").encode("cp037"))
    assert rmf_text.sniff(ebc.read_bytes()[:4096])
    for q in (plain, ebc):
        got = rmf_text.read(q)
        for lv in ("device", "channel", "lcu", "lcu_path", "cache"):
            pd.testing.assert_frame_equal(ref[lv], got[lv], check_exact=True)


def test_unknown_sections_counted_once_per_interval(tmp_path):
    m = _measured(n_dev=2)
    p = rmf_write.write(m, tmp_path / "r.txt")
    paging = []
    for day, t in (("03/02/2026", "08.00.00"), ("03/02/2026", "08.00.00"), ("03/02/2026", "08.15.00")):
        paging += ["1                    P A G I N G   A C T I V I T Y",
                   "            z/OS V2R4   SYSTEM ID SYSA   DATE %s   INTERVAL 14.59.999" % day,
                   "                        RPT VERSION V2R4 RMF   TIME %s" % t, " ", "  SOMETHING   1   2"]
    q = tmp_path / "mixed.txt"
    q.write_text("\n".join(paging) + "\n" + p.read_text())
    got = rmf_text.read(q)
    assert got.skipped == {"PAGING ACTIVITY": 2}
    assert len(got["device"]) == len(m["device"])


# ---- bad and foreign files -----------------------------------------------------------------------

def test_foreign_and_binary_files(tmp_path):
    p = tmp_path / "notes.txt"
    p.write_text("hello\nworld\n")
    with pytest.raises(McioError) as e:
        rmf_text.read(p)
    assert "notes.txt" in str(e.value) and "line 1" in str(e.value)
    b = tmp_path / "dump.smf"
    b.write_bytes(b"\x00\x10\x00\x00" + bytes(range(256)))
    with pytest.raises(McioError, match="dump.smf.*byte 0"):
        rmf_text.read(b)
    for other in (DATA / "rmf_xml_written.xml", DATA / "perfkit_fcx108_fcx215.txt"):
        assert not rmf_text.sniff(other.read_bytes()[:4096])
    assert not rmf_xml.sniff((DATA / "rmf_ibm_cache_v2r4.txt").read_bytes()[:4096])
    assert not perfkit.sniff((DATA / "rmf_ibm_cache_v2r4.txt").read_bytes()[:4096])


def test_bad_value_names_file_line_and_heading(tmp_path):
    p = rmf_write.write(_measured(n_dev=3), tmp_path / "r.txt")
    lines = p.read_text().splitlines()
    k = next(i for i, ln in enumerate(lines) if ln.startswith(" ") and " 9801 " in ln)
    lines[k] = lines[k].replace("33909", "3390X").rsplit(" ", 1)[0] + " 12,5"
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(McioError) as e:
        rmf_text.read(bad)
    msg = str(e.value)
    assert "bad.txt" in msg and f"line {k + 1}" in msg and "'12,5'" in msg and "% DEV UTIL" in msg


def test_known_page_without_header_is_an_error(tmp_path):
    p = tmp_path / "h.txt"
    p.write_text("\n\n1    D I R E C T   A C C E S S   D E V I C E   A C T I V I T Y\n  no header here\n")
    with pytest.raises(McioError, match=r"h.txt.*line 3.*SYSTEM ID.*INTERVAL"):
        rmf_text.read(p)


def test_iter_read_chunks_add_up_to_read(tmp_path):
    p = rmf_write.write(_measured(n_dev=4), tmp_path / "r.txt")
    whole = rmf_text.read(p)
    chunks = list(rmf_text.iter_read(p, chunk_intervals=1))
    assert len(chunks) == 4  # 2 systems x 2 intervals, written in order
    for lv in ("device", "channel", "lcu", "lcu_path", "cache"):
        got = pd.concat([c[lv] for c in chunks], ignore_index=True)
        pd.testing.assert_frame_equal(whole[lv], got)
    assert all(len(c.intervals()) == 1 for c in chunks)


def test_dasd_page_with_every_heading_and_summary_lines(tmp_path):
    """A tight DASD page with the full V2R4 heading list (NUMBER OF CYL, PAV, AVG INT DLY, % DEV
    RESV, AVG NUMBER ALLOC, % ANY ALLOC, % MT PEND: columns Measured does not hold), one blank
    between columns, and LCU / storage-group summary lines: the known columns still read exactly,
    the others are ignored, summary lines are not devices."""
    layout = (
        (("STORAGE", "GROUP"), 8, None, ""), (("DEV", "NUM"), 4, "devnum", ""), (("DEVICE", "TYPE"), 6, "dev_type", ""),
        (("NUMBER", "OF CYL"), 6, "cyl", "%.0f"), (("VOLUME", "SERIAL"), 6, "volser", ""), (("PAV",), 4, "pav", ""),
        (("LCU",), 4, "lcu", ""), (("DEVICE", "ACTIVITY", "RATE"), 8, "ssch_per_s", "%.3f"),
        (("AVG", "RESP", "TIME"), 5, "resp_ms", "%.3f"), (("AVG", "IOSQ", "TIME"), 5, "iosq_ms", "%.3f"),
        (("AVG", "CMR", "DLY"), 5, "cmr_ms", "%.3f"), (("AVG", "DB", "DLY"), 5, "db_ms", "%.3f"),
        (("AVG", "INT", "DLY"), 5, "int", "%.3f"), (("AVG", "PEND", "TIME"), 5, "pend_ms", "%.3f"),
        (("AVG", "DISC", "TIME"), 5, "disc_ms", "%.3f"), (("AVG", "CONN", "TIME"), 5, "conn_ms", "%.3f"),
        (("%", "DEV", "CONN"), 6, "dev_conn_pct", "%.2f"), (("%", "DEV", "UTIL"), 6, "dev_util_pct", "%.2f"),
        (("%", "DEV", "RESV"), 5, "resv", "%.1f"), (("AVG", "NUMBER", "ALLOC"), 6, "alloc", "%.1f"),
        (("%", "ANY", "ALLOC"), 6, "any", "%.1f"), (("%", "MT", "PEND"), 5, "mt", "%.1f"),
    )
    head, spans = rmf_write._stacked(layout, gap=1)
    rows = [dict(devnum="9800", dev_type="33909", cyl=10017.0, volser="PRD001", pav="1.0H", lcu="0018",
                 ssch_per_s=18.371, resp_ms=.463, iosq_ms=0.0, cmr_ms=.088, db_ms=0.0, int=0.0, pend_ms=.126,
                 disc_ms=.034, conn_ms=.303, dev_conn_pct=0.56, dev_util_pct=0.62, resv=0.0, alloc=8.0, any=100.0,
                 mt=0.0),
            dict(devnum="9801", dev_type="33909", cyl=30051.0, volser="PRD002", pav="8", lcu="0018",
                 ssch_per_s=1234.5, resp_ms=2.25, iosq_ms=1.5, cmr_ms=.1, db_ms=.01, int=.002, pend_ms=.3,
                 disc_ms=9.75, conn_ms=.7, dev_conn_pct=86.38, dev_util_pct=99.99, resv=0.0, alloc=1.0, any=50.0,
                 mt=0.0)]
    lines = rmf_write._header("device", "SYSC", pd.Timestamp("2026-03-02 09:00"), 1799.998, 1)
    lines += [" TOTAL SAMPLES =  1,800    IODF = 29   CR-DATE: 06/23/2025   CR-TIME: 14.36.19   ACT: ACTIVATE", " "]
    lines += head + [rmf_write._row(layout, spans, r) for r in rows]
    summary = dict(rows[0], devnum=None, dev_type=None, cyl=None, volser="LCU", pav=None)
    lines += [rmf_write._row(layout, spans, summary)]
    lines += [" SG01    " + rmf_write._row(layout, spans, dict(summary, volser="", lcu=None))[10:]]
    p = tmp_path / "dasd.txt"
    p.write_text("\n".join(lines) + "\n")
    d = rmf_text.read(p)["device"].set_index("devnum")
    assert list(d.index) == ["9800", "9801"]
    r = d.loc["9801"]
    assert (r["system"], r["interval_s"], r["volser"], r["lcu"], r["dev_type"]) == ("SYSC", 1799.998, "PRD002", "0018", "33909")
    assert (r["ssch_per_s"], r["resp_ms"], r["iosq_ms"], r["cmr_ms"], r["db_ms"]) == (1234.5, 2.25, 1.5, .1, .01)
    assert (r["pend_ms"], r["disc_ms"], r["conn_ms"], r["dev_conn_pct"], r["dev_util_pct"]) == (.3, 9.75, .7, 86.38, 99.99)
    assert d.loc["9800", "pend_ms"] == .126 and d.loc["9800", "dev_util_pct"] == 0.62


def test_blank_system_id_round_trips(tmp_path):
    m = _measured(n_dev=2)
    for lv, df in m.frames.items():
        m.frames[lv] = df[df["system"] == "SYSA"].assign(system="")
    got = rmf_text.read(rmf_write.write(m, tmp_path / "r.txt"))
    assert set(got["device"]["system"]) == {""} and len(got["device"]) == len(m["device"])


def test_bad_device_number_and_notes(tmp_path):
    p = rmf_write.write(_measured(n_dev=3), tmp_path / "r.txt")
    lines = p.read_text().splitlines()
    k = next(i for i, ln in enumerate(lines) if " 9801 " in ln)
    notes = tmp_path / "notes.txt"  # a legend line under the table is not a device
    notes.write_text("\n".join(lines[:k + 2] + ["             NOTE: PAV, H = HYPERPAV"] + lines[k + 2:]) + "\n")
    assert len(rmf_text.read(notes)["device"]) == len(rmf_text.read(p)["device"])
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(lines[:k] + [lines[k].replace(" 9801 ", " 98X1 ")] + lines[k + 1:]) + "\n")
    with pytest.raises(McioError, match=rf"bad.txt.*line {k + 1}.*device number.*'98X1'"):
        rmf_text.read(bad)


def test_ioq_note_line_and_bad_lcu(tmp_path):
    p = rmf_write.write(_measured(n_dev=2), tmp_path / "r.txt")
    lines = p.read_text().splitlines()
    k = next(i for i, ln in enumerate(lines) if ln.strip().startswith("0018"))
    note = tmp_path / "note.txt"
    note.write_text("\n".join(lines[:k] + ["  NOTE: * = TOTAL OF THE LCU"] + lines[k:]) + "\n")
    pd.testing.assert_frame_equal(rmf_text.read(note)["lcu"], rmf_text.read(p)["lcu"])
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(lines[:k] + [lines[k].replace("0018", "00G8")] + lines[k + 1:]) + "\n")
    with pytest.raises(McioError, match=rf"bad.txt.*line {k + 1}.*LCU number.*'00G8'"):
        rmf_text.read(bad)


def test_fast_split_equals_token_split(tmp_path):
    """The one-pass fixed-width split gives what the token-by-token split gives, also where values
    overflow their column (they cross a cut and go the slow way) and sit in the gaps."""
    m = _measured(n_dev=40)
    m.frames["device"].loc[5, "ssch_per_s"] = 123456789.125  # wider than its column
    m.frames["device"].loc[6, "resp_ms"] = 98765.5
    p = rmf_write.write(m, tmp_path / "r.txt")
    lines = p.read_text().splitlines()
    k = next(i for i, ln in enumerate(lines) if " 9807 " in ln)
    lines[k] = lines[k][:30] + " " + lines[k][30:]  # every value after column 30 one to the right
    q = tmp_path / "shifted.txt"
    q.write_text("\n".join(lines) + "\n")
    for f in (p, q):
        got = []
        for fast in (True, False):
            rp.FAST = fast
            try:
                got.append(rmf_text.read(f))
            finally:
                rp.FAST = True
        for lv in ("device", "channel", "lcu", "lcu_path", "cache"):
            pd.testing.assert_frame_equal(got[0][lv], got[1][lv], check_exact=True)
    d = rmf_text.read(p)["device"].set_index(["system", "interval", "devnum"]).sort_index()
    assert (d["ssch_per_s"] == 123456789.125).sum() == 1 and (d["resp_ms"] == 98765.5).sum() == 1


def test_conform_types_as_table_frame():
    m = _measured(n_dev=3)
    for lv in ("device", "channel", "lcu", "lcu_path", "cache"):
        rows = m[lv].to_dict("records")
        pd.testing.assert_frame_equal(rp.conform(lv, pd.DataFrame(rows)), frame(lv, rows), check_exact=True)


def test_writer_rows_a_column_at_a_time_as_row_by_row():
    m = _measured(n_dev=9)
    for layout, df in ((rmf_write.DEVICE_LAYOUT, m["device"]), (rmf_write.CACHE_DEV_LAYOUT, m["cache"])):
        df = df.copy()
        df.loc[df.index[1], df.columns[-1]] = np.nan
        df.loc[df.index[2], "io_per_s" if "io_per_s" in df else "ssch_per_s"] = 123456789.125  # wider than its column
        df.loc[df.index[3], "volser"] = None
        _h, spans = rmf_write._stacked(layout)
        assert rmf_write._rows(layout, spans, df) == [rmf_write._row(layout, spans, r) for r in df.to_dict("records")]


def test_decimals_read_as_float_reads_them():
    rng = np.random.default_rng(3)
    vals = [("%." + str(rng.integers(0, 7)) + "f") % rng.uniform(0, 10.0 ** rng.integers(0, 9)) for _ in range(20000)]
    vals += [".192", "12.", "0", "999999999999999", "00012.500"]
    got = rp.decimals(np.array(vals))
    assert got is not None and (got == np.array([float(v) for v in vals])).all()
    for other in ("1.5K", "", "-1", "1.2.3", ".", "1 2", "1e5", "1234567890123456"):  # left to float() / number()
        assert rp.decimals(np.array(["1.0", other])) is None
    assert list(rp.numbers("x", [1, 2, 3, 4], "L", np.array(["1.5K", "----", "2", "N/A"]))[[0, 2]]) == [1500.0, 2.0]
