"""z/VM Performance Toolkit FCX108 DEVICE and FCX215 FCHANNEL reports. The test page
(tests/data/measured/perfkit_fcx108_fcx215.txt) is mcio's layout of the reports' columns, not a
real report (none was found public; see tests/data/measured/README.md): it checks the reader maps
the headings and numbers exactly, that other FCX reports are skipped and counted, and the errors."""
from pathlib import Path

import pandas as pd
import pytest

from mcio.errors import McioError
from mcio.measured import perfkit, rmf_text, rmf_xml

DATA = Path(__file__).parent / "data" / "measured"
PAGE = DATA / "perfkit_fcx108_fcx215.txt"


def test_fcx108_device_rows_exact():
    m = perfkit.read(PAGE)
    d = m["device"].set_index("devnum")
    assert list(d.index) == ["9800", "9801"]  # the '>> All DASD <<' total line is not a device
    r = d.loc["9801"]
    assert (r["interval"], r["interval_s"], r["system"]) == (pd.Timestamp("2026-03-02 08:00:00"), 900.0, "VMSYS1")
    assert (r["dev_type"], r["volser"]) == ("3390-A", "PRD002")
    assert (r["ssch_per_s"], r["pend_ms"], r["disc_ms"], r["conn_ms"], r["resp_ms"]) == (13.2, .145, .160, .399, .704)
    assert r["dev_util_pct"] == 0.9 and r["read_share"] == 0.66
    assert (r["serv_ms"], r["cu_wait_ms"], r["queued"]) == (.704, 0.0, .01)
    assert d.loc["9800", "ssch_per_s"] == 25.3 and d.loc["9800", "read_share"] == 0.75


def test_fcx215_channel_rows_exact_and_other_reports_counted():
    m = perfkit.read(PAGE)
    c = m["channel"].set_index("chpid")
    assert list(c.index) == ["40", "41"]
    r = c.loc["41"]
    assert (r["bus_pct"], r["util_total_pct"], r["util_part_pct"]) == (11.9, 38.8, 19.0)
    assert (r["write_mb_s_total"], r["read_mb_s_total"]) == (40.2, 127.5)
    assert m.skipped == {"FCX109": 1}


def test_sniff():
    assert perfkit.sniff(PAGE.read_bytes()[:4096])
    assert not rmf_text.sniff(PAGE.read_bytes()[:4096]) and not rmf_xml.sniff(PAGE.read_bytes()[:4096])


def test_without_carriage_control(tmp_path):
    plain = tmp_path / "plain.txt"
    plain.write_text("\n".join(ln[1:] if ln[:1] in (" ", "1") else ln for ln in PAGE.read_text().splitlines()) + "\n")
    a, b = perfkit.read(PAGE), perfkit.read(plain)
    for lv in ("device", "channel"):
        pd.testing.assert_frame_equal(a[lv], b[lv])


def test_errors(tmp_path):
    p = tmp_path / "other.txt"
    p.write_text("FCX108 mentioned in prose, but no report follows\n")
    with pytest.raises(McioError, match=r"other.txt.*line 1.*FCX108"):
        perfkit.read(p)
    lines = PAGE.read_text().splitlines()
    k = next(i for i, ln in enumerate(lines) if ln.startswith(" 9801"))
    lines[k] = lines[k].replace(" 13.2 ", " 13a2 ")
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(McioError) as e:
        perfkit.read(bad)
    assert "bad.txt" in str(e.value) and f"line {k + 1}" in str(e.value) and "'13a2'" in str(e.value)
    nohead = tmp_path / "nohead.txt"
    nohead.write_text("1FCX108  Run 2026/03/02\n From 2026/03/02 08:00:00\n To   2026/03/02 08:15:00\n")
    with pytest.raises(McioError, match=r"nohead.txt.*line 1.*For nnn Secs"):
        perfkit.read(nohead)


# ---- IBM's FCX110 figure (real layout, IBM's sample values) ----

FCX110 = DATA / "perfkit_ibm_fcx110.txt"


def test_ibm_fcx110_device_details():
    """IBM's figure: a screen header ('FCX110 CPU nnnn SER nnnnn Interval HH:MM:SS - ...'), not the
    printed 'From / To / For' heading the reader first knew; the device's fields as 'label : value'."""
    head = FCX110.read_bytes()[:4096]
    assert perfkit.sniff(head) and not rmf_text.sniff(head) and not rmf_xml.sniff(head)
    m = perfkit.read(FCX110)
    (r,) = m["device"].to_dict("records")
    assert (r["devnum"], r["dev_type"], r["volser"]) == ("0145", "3380-A", "VMPG1C")
    assert (r["ssch_per_s"], r["pend_ms"], r["disc_ms"], r["conn_ms"]) == (4.6, 4.8, 38.5, 7.3)
    assert (r["serv_ms"], r["resp_ms"], r["cu_wait_ms"], r["dev_util_pct"]) == (50.6, 54.1, 0.0, 23.0)
    # the figure's own arithmetic: service = pend + disconnect + connect
    assert r["serv_ms"] == pytest.approx(r["pend_ms"] + r["disc_ms"] + r["conn_ms"], abs=0.05)
    # the screen states no date, and IBM prints placeholders for the times: not stated, not guessed
    assert pd.isna(r["interval"]) and pd.isna(r["interval_s"]) and r["system"] == ""
    assert len(m["channel"]) == 0 and m.skipped == {}


def test_screen_header_times_give_the_interval_length(tmp_path):
    p = tmp_path / "fcx110.txt"
    p.write_text(FCX110.read_text().replace("Interval HH:MM:SS - HH:MM:SS", "Interval 23:55:00 - 00:05:00"))
    (r,) = perfkit.read(p)["device"].to_dict("records")
    assert r["interval_s"] == 600.0 and pd.isna(r["interval"])
    q = tmp_path / "bad110.txt"
    q.write_text(FCX110.read_text().replace("38.5ms", "38,5ms"))
    with pytest.raises(McioError, match=r"bad110.txt.*line 11.*Disconnected.*38,5"):
        perfkit.read(q)


def test_dispatcher_refuses_rows_without_interval_start():
    """mcio.measured.read (what `mcio base` reads with) needs every row's interval start; a screen
    states none: one clear error naming the file, not an internal error further on."""
    from mcio.measured import read
    with pytest.raises(McioError, match=r"perfkit_ibm_fcx110.txt.*interval start.*From yyyy/mm/dd"):
        read.read([PAGE, FCX110])
    assert len(read.read(PAGE)["device"]) == 2
