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


# ---- a real file: RMF DDS XML (CPU report), excerpt of the Zowe ZEBRA project's test sample ----

DDS = DATA / "rmf_xml_dds_cpu_zebra.xml"


def test_real_dds_file_is_recognised_and_its_reports_counted():
    head = DDS.read_bytes()[:4096]
    assert rmf_xml.sniff(head) and not rmf_text.sniff(head) and not perfkit.sniff(head)
    m = rmf_xml.read(DDS)
    assert m.skipped == {"CPU": 2}
    assert all(len(m[lv]) == 0 for lv in ("device", "channel", "lcu", "lcu_path", "cache"))


def test_real_dds_time_data_and_resource():
    """DDS writes the start as 'mm/dd/yyyy-hh.mm.ss', the length as 'mm:ss:ttt' (unit="minutes")
    and the system in <resname>: before this file was at hand the reader took none of the three."""
    r = rmf_xml.reports(DDS)
    assert list(r["metric"]) == ["CPU", "CPU"] and list(r["system"]) == ["RPRT", "RPRT"]
    assert list(r["interval"]) == [pd.Timestamp("2022-04-06 12:30:00"), pd.Timestamp("2022-04-06 13:00:00")]
    assert r["interval_s"].tolist() == [29 * 60 + 59.999, 1800.0]


def test_device_table_in_the_dds_form(tmp_path):
    """The real file's envelope with its CPU table replaced by a DEVICE table written the way DDS
    writes the CPU one (mixed case, a group heading joined by ': ', a type="SUM" total row, empty
    <col/>). The I/O column names are mcio's guess: no real DEVICE report XML was found."""
    text = DDS.read_text()
    head = text.index("<table id=\"4\">")
    tail = text.index("</table>", head) + len("</table>")
    dev = ('<table id="4"><column-headers><col type="T">Dev Num</col><col type="T">Volume Serial</col>'
           '<col type="N">Device Activity Rate</col><col type="N">Avg Resp Time</col><col type="N">Avg IOSQ Time</col>'
           '<col type="N">Avg Pend Time</col><col type="N">Avg Disc Time</col><col type="N">Avg Conn Time</col>'
           '<col type="N">% Dev Util</col><col type="N">Utilization (%): Bus</col></column-headers>'
           '<row refno="1"><col>9800</col><col>PRD001</col><col>18.371</col><col>.463</col><col>.000</col>'
           '<col>.126</col><col>.034</col><col>.303</col><col/><col>1</col></row>'
           '<row refno="2" type="SUM"><col>LCU 0018</col><col/><col>18.371</col><col>.463</col><col/><col/><col/>'
           '<col/><col/><col/></row></table>')
    p = tmp_path / "dds_device.xml"
    p.write_text(text[:head].replace('metric id="CPU"', 'metric id="DEVICE"', 1) + dev + text[tail:])
    m = rmf_xml.read(p)
    (r,) = m["device"].to_dict("records")
    assert (r["devnum"], r["volser"], r["system"], r["interval"]) == ("9800", "PRD001", "RPRT", pd.Timestamp("2022-04-06 12:30:00"))
    assert (r["ssch_per_s"], r["resp_ms"], r["iosq_ms"], r["pend_ms"], r["disc_ms"], r["conn_ms"]) == \
        (18.371, .463, 0.0, .126, .034, .303)
    assert pd.isna(r["dev_util_pct"]) and r["interval_s"] == 29 * 60 + 59.999
    assert m.skipped == {"CPU": 1}


def test_real_dds_error_answer_is_a_bad_file_quoting_the_message():
    """A real DDS error answer: before, it read as an empty Measured with {'postprocessor without
    metric id': 1} skipped; now one error naming the file, the report and the DDS message."""
    err = DATA / "rmf_xml_dds_error_zebra.xml"
    assert rmf_xml.sniff(err.read_bytes()[:4096])
    for fn in (rmf_xml.read, rmf_xml.reports):
        with pytest.raises(McioError, match=r"rmf_xml_dds_error_zebra.xml.*postprocessor report 1.*"
                                            r"GPM0739E.*Invalid DDS request parameter 'DATE'.*severity 3"):
            fn(err)
