"""SMF dump framing and field decoding (mcio.measured.smf): RDW records, spanned segments, packed
dates and times, IBM hexadecimal floating point, sniff, skipped records, bad files.

Every dump here is written by mcio.measured.smf_write from IBM's documented layouts (no public SMF
73/74/78 dump was found to test on; docs/measured_smf.md says so). The HFP and packed-decimal
vectors are worked by hand from the documented formats.
"""
import datetime as dt

import numpy as np
import pytest

from mcio.errors import McioError
from mcio.measured import smf
from mcio.measured import smf_record as rec
from mcio.measured import smf_write as w

START = dt.datetime(2026, 3, 2, 14, 0, 0)


def _dev(n=3, **over):
    d = {"SMF74NUM": 0x2000 + np.arange(n), "SMF74LCU": np.full(n, 0x12), "SMF74SER": [f"PR{i:04d}" for i in range(n)],
         "SMF74TYP": np.full(n, 0x3010200F), "SMF74SSC": np.full(n, 9000), "SMF74MEC": np.full(n, 9000),
         "SMF74CNN": np.full(n, 14000), "SMF74PEN": np.full(n, 7000), "SMF74DIS": np.full(n, 30000),
         "SMF74QUE": np.full(n, 45)}
    d.update(over)
    return d


def _dump(tmp_path, records, name="d.smf"):
    p = tmp_path / name
    w.write_dump(p, records)
    return p


# ---------------------------------------------------------------- field formats

def test_packed_date_time_duration_by_hand():
    assert rec.smf_date(bytes.fromhex("0126061F")) == dt.date(2026, 3, 2)      # 2026, day 61
    assert rec.smf_date(bytes.fromhex("0099365F")) == dt.date(1999, 12, 31)
    assert rec.rmf_time(bytes.fromhex("0143015F")) == dt.timedelta(hours=14, minutes=30, seconds=15)
    assert rec.rmf_duration_s(bytes.fromhex("1500000F")) == 900.0
    assert rec.rmf_duration_s(bytes.fromhex("1459998F")) == pytest.approx(899.998)
    for bad in ("0126000F", "0125366F", "01260A1F", "0326061F"):   # day 0, 366 in 2025, nibble A, c=3
        with pytest.raises(rec.RecordError):
            rec.smf_date(bytes.fromhex(bad))
    with pytest.raises(rec.RecordError):
        rec.rmf_time(bytes.fromhex("0246000F"))                                 # hour 24
    # the writer's encodings are the same
    assert w.smf_date(dt.date(2026, 3, 2)) == bytes.fromhex("0126061F")
    assert w.rmf_time(dt.datetime(2026, 1, 1, 14, 30, 15)) == bytes.fromhex("0143015F")
    assert w.rmf_duration(899.998) == bytes.fromhex("1459998F")


def test_hfp32_known_words_and_round_trip():
    words = np.array([0x41100000, 0xC276A000, 0x42640000, 0x00000000, 0x3F100000], dtype=np.uint32)
    # 1.0; -118.625 (= -0x76.A); 100.0; 0; 1/256
    assert rec.hfp32(words).tolist() == [1.0, -118.625, 100.0, 0.0, 1.0 / 256]
    assert w.hfp32_encode([1.0, -118.625, 100.0, 0.0]).tolist() == [0x41100000, 0xC276A000, 0x42640000, 0]
    ints = np.random.default_rng(1).integers(0, 1 << 24, 5000).astype(np.float64)
    assert np.array_equal(rec.hfp32(w.hfp32_encode(ints)), ints)                 # exact below 2**24
    big = np.random.default_rng(2).uniform(1e7, 1e12, 2000)
    rel = np.abs(rec.hfp32(w.hfp32_encode(big)) / big - 1)
    assert rel.max() <= 2.0 ** -20                                               # 24-bit fraction, hex-normalised


# ---------------------------------------------------------------- framing

def test_sniff(tmp_path):
    p = _dump(tmp_path, w.records_74_1("SYSA", START, 900, 900, _dev()))
    assert smf.sniff(p.read_bytes()[:4096])
    assert not smf.sniff(b"1  DIRECT ACCESS DEVICE ACTIVITY   z/OS V2R4  SYSTEM ID SYSA")
    assert not smf.sniff(b"")
    assert not smf.sniff(bytes(range(256)) * 4)


def test_spanned_record_reads_as_the_whole_one(tmp_path):
    recs = w.records_74_1("SYSA", START, 900, 900, _dev(40))
    whole = smf.read(_dump(tmp_path, recs, "whole.smf"))
    seg = smf.read(_dump(tmp_path, w.segments(recs[0], 1000), "seg.smf"))
    assert len(w.segments(recs[0], 1000)) >= 3                                   # first, middle(s), last
    assert whole["device"].equals(seg["device"])


def test_segment_out_of_order_is_one_error(tmp_path):
    segs = w.segments(w.records_74_1("SYSA", START, 900, 900, _dev(40))[0], 1000)
    p = _dump(tmp_path, segs[1:])
    with pytest.raises(McioError, match=r"d\.smf: record 1 at byte 0.*first segment"):
        smf.read(p)
    p = _dump(tmp_path, segs[:-1], "cut.smf")
    with pytest.raises(McioError, match=r"cut\.smf: record 1 at byte 0.*last segment"):
        smf.read(p)


def test_bad_rdw_and_truncation_name_file_record_offset(tmp_path):
    good = w.records_74_1("SYSA", START, 900, 900, _dev())[0]
    short = b"\x00\x05\x00\x00\x40"                                                  # RDW + flag, no type
    with pytest.raises(McioError, match=r"short\.smf: record 1 at byte 0\b.*at least 6 bytes"):
        smf.read(_dump(tmp_path, [short], "short.smf"))
    p = _dump(tmp_path, [good, b"\x00\x03\x00\x00"])
    with pytest.raises(McioError, match=rf"d\.smf: record 2 at byte {len(good)}\b.*expected an RDW"):
        smf.read(p)
    p = _dump(tmp_path, [good, good[:100]], "trunc.smf")
    with pytest.raises(McioError, match=rf"trunc\.smf: record 2 at byte {len(good)}\b.*expected {len(good)} bytes"):
        smf.read(p)
    (tmp_path / "empty.smf").write_bytes(b"")
    with pytest.raises(McioError, match="empty"):
        smf.read(tmp_path / "empty.smf")


def test_foreign_file_is_one_error_at_record_1(tmp_path):
    p = tmp_path / "report.txt"
    p.write_text("1  D I R E C T   A C C E S S   D E V I C E   A C T I V I T Y\n" * 20)
    with pytest.raises(McioError, match=r"report\.txt: record 1 at byte 0 = '31202044'.*expected an RDW"):
        smf.read(p)


def test_triplet_outside_record_is_one_error(tmp_path):
    rec = bytearray(w.records_74_1("SYSA", START, 900, 900, _dev())[0])
    rec[50:52] = (500).to_bytes(2, "big")                                        # SMF74DDN: 500 devices
    p = _dump(tmp_path, [w.other_record(30, 4, "SYSA", START), bytes(rec)])
    with pytest.raises(McioError, match=r"record 2 at byte 64\b.*expected in SMF 74\.1: SMF74 device data sections"):
        smf.read(p)


def test_bad_product_date_is_one_error(tmp_path):
    rec = bytearray(w.records_74_1("SYSA", START, 900, 900, _dev())[0])
    prs = int.from_bytes(rec[28:32], "big")
    rec[prs + 14:prs + 18] = bytes.fromhex("0126400F")                           # day 400
    with pytest.raises(McioError, match="packed date"):
        smf.read(_dump(tmp_path, [bytes(rec)]))


def test_other_records_skipped_and_counted(tmp_path):
    recs = [w.other_record(2, 0, "SYSA", START, length=18), w.other_record(30, 4, "SYSA", START),  # dump header: 18 bytes
            w.other_record(74, 3, "SYSA", START),
            w.other_record(30, 5, "SYSA", START), *w.records_74_1("SYSA", START, 900, 900, _dev()),
            *w.records_74_1("SYSA", START, 900, 900, _dev(), dev_class=0x0080)]
    m = smf.read(_dump(tmp_path, recs))
    assert m.skipped == {"type 2": 1, "type 30": 2, "74.3": 1, "74.1 device class X'0080'": 1}
    assert len(m["device"]) == 3
    assert m.sources == [str(tmp_path / "d.smf")]


def test_iter_read_chunks_and_merge(tmp_path):
    recs = list(w.synthetic_intervals(START, 5, 20, n_chpids=2, devices_per_lcu=10))
    p = _dump(tmp_path, recs)
    chunks = list(smf.iter_read(p, chunk_intervals=2))
    assert [len(c.intervals()) for c in chunks] == [2, 2, 1]
    whole = smf.read(p)
    assert len(whole.intervals()) == 5
    for lv in ("device", "channel", "lcu", "lcu_path", "cache"):
        joined = chunks[0].merge(chunks[1]).merge(chunks[2])[lv]
        assert joined.equals(whole[lv]), lv
    with pytest.raises(McioError, match="chunk_intervals"):
        next(smf.iter_read(p, chunk_intervals=0))
    with pytest.raises(McioError, match="existing file"):
        next(smf.iter_read(tmp_path / "nope.smf"))
