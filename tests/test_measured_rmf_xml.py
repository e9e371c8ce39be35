"""RMF Postprocessor XML. No real sample was found public: the test file
(tests/data/measured/rmf_xml_written.xml) follows the structure IBM documents (postprocessor /
metric / segment / part / table / column-headers / row) with mcio's guesses where the
documentation is silent (time-data children, column names); see docs/measured.md."""
from pathlib import Path

import pandas as pd
import pytest

from mcio.errors import McioError
from mcio.measured import perfkit, rmf_text, rmf_xml

DATA = Path(__file__).parent / "data" / "measured"
XML = DATA / "rmf_xml_written.xml"


def test_device_channel_ioq_exact():
    m = rmf_xml.read(XML)
    d = m["device"].set_index("devnum")
    assert list(d.index) == ["9800", "9801"]
    r = d.loc["9800"]
    assert (r["interval"], r["interval_s"], r["system"]) == (pd.Timestamp("2026-03-02 08:00:00"), 900.0, "SYSA")
    assert (r["volser"], r["lcu"]) == ("PRD001", "0018")
    assert (r["ssch_per_s"], r["resp_ms"], r["iosq_ms"], r["pend_ms"], r["disc_ms"], r["conn_ms"], r["dev_util_pct"]) == \
        (18.371, .463, 0.0, .126, .034, .303, 0.62)
    assert pd.isna(d.loc["9801", "dev_util_pct"])  # '------' = not available
    assert (r["pav"], r["int_dly_ms"], d.loc["9801", "pav"]) == ("1.0H", .002, "8")
    (c,) = m["channel"].to_dict("records")
    assert (c["chpid"], c["util_part_pct"], c["util_total_pct"], c["bus_pct"], c["zhpf_ops_per_s"]) == ("40", 12.3, 40.25, 10.0, 8000.1)
    assert (c["speed"], c["shared"]) == ("16G", "Y")
    lp = m["lcu_path"].set_index("chpid")
    assert list(lp.index) == ["40", "41"] and lp.loc["41", "taken_per_s"] == 480.5 and lp.loc["41", "cmr_ms"] == 0.025
    (lcu,) = m["lcu"].to_dict("records")
    assert (lcu["lcu"], lcu["cu"], lcu["ssch_per_s"], lcu["cont_per_s"], lcu["hpav_max"]) == ("0018", "9800", 980.5, 0.5, 4.0)
    assert lcu["css_dly_ms"] == 0.013
    assert m.skipped == {"CPU": 1}


def test_sniff():
    head = XML.read_bytes()[:4096]
    assert rmf_xml.sniff(head) and not rmf_text.sniff(head) and not perfkit.sniff(head)


def test_errors(tmp_path):
    p = tmp_path / "broken.xml"
    p.write_text("<ddsml>\n<postprocessor>\n<metric id='DEVICE'>\n</ddsml>\n")
    with pytest.raises(McioError, match=r"broken.xml.*line 4.*well-formed"):
        rmf_xml.read(p)
    q = tmp_path / "other.xml"
    q.write_text("<html><body>hi</body></html>")
    with pytest.raises(McioError, match=r"other.xml.*<postprocessor>"):
        rmf_xml.read(q)
    r = tmp_path / "notime.xml"
    r.write_text(XML.read_text().replace("<report-interval>15.00.000</report-interval>", "", 1))
    with pytest.raises(McioError, match=r"notime.xml.*postprocessor report 1.*time-data"):
        rmf_xml.read(r)
    s = tmp_path / "badnum.xml"
    s.write_text(XML.read_text().replace("<col>18.371</col>", "<col>18,371</col>"))
    with pytest.raises(McioError, match=r"badnum.xml.*postprocessor report 1, table row 1.*DART.*18,371"):
        rmf_xml.read(s)


def test_table_without_key_is_counted(tmp_path):
    p = tmp_path / "nokey.xml"
    p.write_text(XML.read_text().replace("<col type=\"T\">DEV NUM</col>", "<col type=\"T\">XYZ</col>"))
    m = rmf_xml.read(p)
    assert len(m["device"]) == 0 and m.skipped == {"CPU": 1, "DEVICE table without a known key column": 1}


def test_iter_read_chunks_add_up_to_read():
    whole = rmf_xml.read(XML)
    chunks = list(rmf_xml.iter_read(XML, chunk_reports=1))
    assert len(chunks) == 4
    for lv in ("device", "channel", "lcu", "lcu_path"):
        pd.testing.assert_frame_equal(whole[lv], pd.concat([c[lv] for c in chunks], ignore_index=True))
    assert sum(c.skipped.get("CPU", 0) for c in chunks) == 1
