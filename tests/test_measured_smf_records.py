"""Round trip of each decoded SMF record (written by mcio.measured.smf_write from IBM's documented
layouts, read by mcio.measured.smf): random raw counters in, RMF's derived columns out, checked
against the formulas of docs/measured_smf.md computed here independently from the same counters.
"""
import datetime as dt

import numpy as np
import pytest

from mcio.measured import smf
from mcio.measured import smf_write as w

START = dt.datetime(2026, 3, 2, 9, 15, 0)
T = 899.998          # RMF intervals are rarely exactly 900 s
SAM = 900


@pytest.fixture
def rng():
    return np.random.default_rng(31)


def _read(tmp_path, records):
    p = tmp_path / "r.smf"
    w.write_dump(p, records)
    return smf.read(p)


def test_74_1_device_formulas(tmp_path, rng):
    n = 700                                                  # several records (32 KB limit)
    ssc = rng.integers(0, 400_000, n)
    mec = np.maximum(ssc - rng.integers(0, 3, n), 0)
    cnn, pen, dis = (rng.integers(0, 4_000_000, n) for _ in range(3))
    que, utl = rng.integers(0, 5000, n), rng.integers(0, 50, n)
    cnf = np.where(np.arange(n) % 50 == 7, 0x20, 0x01)       # a few with "SSCH..DIS incorrect"
    cnf[3] = 0x80                                            # IOS queue length incorrect
    dev = {"SMF74NUM": np.arange(n) + 0xA000, "SMF74LCU": np.arange(n) // 256 + 0x30,
           "SMF74SER": [f"X{i:05d}" for i in range(n)], "SMF74TYP": np.where(np.arange(n) < 5, 0x3010200E, 0x3010200F),
           "SMF74CNF": cnf, "SMF74SSC": ssc, "SMF74MEC": mec, "SMF74CNN": cnn, "SMF74PEN": pen,
           "SMF74DIS": dis, "SMF74QUE": que, "SMF74UTL": utl}
    recs = w.records_74_1("PRD1", START, T, SAM, dev)
    assert len(recs) > 1
    d = _read(tmp_path, recs)["device"]
    assert len(d) == n
    assert (d["interval"] == np.datetime64(START)).all() and (d["interval_s"] == T).all()
    assert (d["system"] == "PRD1").all()
    assert d["devnum"].iloc[0] == "A000" and d["lcu"].iloc[300] == "0031" and d["volser"].iloc[12] == "X00012"
    assert d["dev_type"].iloc[0] == "3380" and d["dev_type"].iloc[9] == "3390"
    ok = (cnf & 0x20) == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = ssc / T
        conn, pend, disc = (np.where(mec > 0, x * 0.128 / mec, np.nan) for x in (cnn, pen, dis))
        iosq = np.where(rate > 0, que / SAM / rate * 1000, np.nan)
    iosq[3] = np.nan
    exp = {"ssch_per_s": rate, "conn_ms": conn, "pend_ms": pend, "disc_ms": disc, "iosq_ms": iosq,
           "resp_ms": iosq + pend + disc + conn, "dev_conn_pct": cnn * 128e-6 / T * 100,
           "dev_util_pct": ((cnn + dis) * 128e-6 / T + utl / SAM) * 100}
    for k, v in exp.items():
        np.testing.assert_allclose(d[k].to_numpy()[ok], np.asarray(v)[ok], rtol=1e-12, err_msg=k)
        assert d[k][~ok].isna().all(), k
    # a 68-byte section (SMF74DVB, SMF74CMR not given: as an older release writes it): NaN, not 0
    assert d[["cmr_ms", "db_ms", "mb_s", "read_share"]].isna().all().all()


def test_73_channel_formulas(tmp_path, rng):
    pid = np.array([0x10, 0x11, 0x2A, 0xFF])
    pti = np.array([878_904, 878_904, 0, 878_904])
    pby = rng.integers(0, 878_904, 4)
    paths = {"SMF73PID": pid, "SMF73FG3": [0x02, 0x02, 0x02, 0x02], "SMF73FG2": [0x01, 0x03, 0x01, 0x01],
             "SMF73PBY": pby, "SMF73PTI": pti, "SMF73ACR": ["FC_S", "FC", "FC_S", "CNC_S"]}
    c = _read(tmp_path, [w.record_73("PRD1", START, T, SAM, paths)])["channel"]
    assert c["chpid"].tolist() == ["10", "11", "2A", "FF"]             # the 252 dummy sections dropped
    assert c["chpid_type"].tolist() == ["FC_S", "FC", "FC_S", "CNC_S"]
    u = c["util_part_pct"].to_numpy()
    assert u[0] == pytest.approx(pby[0] / pti[0] * 100, rel=1e-12)
    assert u[3] == pytest.approx(pby[3] / pti[3] * 100, rel=1e-12)
    assert np.isnan(u[1])                                              # reconfigured in the interval
    assert np.isnan(u[2])                                              # no measurement interval
    assert c[["ficon_ops_per_s", "util_total_pct", "read_mb_s_total"]].isna().all().all()   # no CPMF group given
    assert c["generation"].eq("").all() and c["speed"].eq("").all()


def test_78_3_lcu_and_path_formulas(tmp_path, rng):
    lcus = []
    for i, lcu in enumerate((0x40, 0x41, 0x42)):
        m = 4 if i < 2 else 2
        p = {"R783CPID": 0x50 + np.arange(m), "R783CPST": np.full(m, 0xC0), "R783CUN": np.full(m, 2),
             "R783CU1": np.full(m, 0x9000 + lcu), "R783CU2": np.full(m, 0x9100 + lcu),
             "R783PT": rng.integers(1, 10**6, m), "R783CUB": rng.integers(0, 10**4, m),
             "R783DPB": rng.integers(0, 10**4, m), "R783CBT": rng.integers(0, 10**5, m),
             "R783CMR": rng.integers(0, 10**6, m)}
        lcus.append({"R783ID2": lcu, "R783QSM": int(rng.integers(1000, 2000)), "R783QCT": int(rng.integers(1, 999)),
                     "R783DST": 0x80 if i == 2 else 0, "paths": p})
    lcus[1]["paths"]["R783CPST"][3] = 0x40                                   # not installed: no row
    lcus[0]["paths"]["R783CPST"][1] = 0xC4                                   # measured data incorrect
    m = _read(tmp_path, [w.record_78_3("PRD1", START, T, SAM, lcus)])
    L, P = m["lcu"], m["lcu_path"]
    assert L["lcu"].tolist() == ["0040", "0041", "0042"]
    assert L["cu"].tolist() == ["9040 9140", "9041 9141", "9042 9142"]
    assert len(P) == 4 + 3 + 2
    for j, l in enumerate(lcus):
        q = L.iloc[j]
        assert q["cont_per_s"] == pytest.approx(l["R783QCT"] / T, rel=1e-12)
        assert q["delay_q_length"] == pytest.approx((l["R783QSM"] - l["R783QCT"]) / l["R783QCT"], rel=1e-12)
    p1 = lcus[1]["paths"]
    assert L.iloc[1]["ssch_per_s"] == pytest.approx(p1["R783PT"][:3].sum() / T, rel=1e-12)
    assert np.isnan(L.iloc[0]["ssch_per_s"]) and np.isnan(L.iloc[2]["ssch_per_s"])
    rows = P[P["lcu"] == "0041"]
    pt, cub, dpb = (p1[k][:3].astype(float) for k in ("R783PT", "R783CUB", "R783DPB"))
    np.testing.assert_allclose(rows["taken_per_s"], pt / T, rtol=1e-12)
    np.testing.assert_allclose(rows["cu_busy_pct"], cub / (pt + cub + dpb) * 100, rtol=1e-12)
    np.testing.assert_allclose(rows["dp_busy_pct"], dpb / (pt + cub + dpb) * 100, rtol=1e-12)
    np.testing.assert_allclose(rows["cub_dly_ms"], p1["R783CBT"][:3] * 0.128 / pt, rtol=1e-12)
    np.testing.assert_allclose(rows["cmr_ms"], p1["R783CMR"][:3] * 0.128 / pt, rtol=1e-12)
    assert rows["chpid"].tolist() == ["50", "51", "52"]
    assert P[(P["lcu"] == "0040") & (P["chpid"] == "51")]["taken_per_s"].isna().all()
    assert P[P["lcu"] == "0042"][["taken_per_s", "cmr_ms"]].isna().all().all()   # no hardware measurements


def test_74_5_cache_hfp_counters(tmp_path, rng):
    n = 600                                                                   # two records
    rd = rng.integers(0, 2_000_000, n).astype(float)
    v = {"R745DVOL": [f"C{i:05d}" for i in range(n)], "R745DEVN": 0x3000 + np.arange(n),
         "R745DRCR": rd, "R745DCRH": np.floor(rd * 0.93), "R745DWRC": np.floor(rd / 3),
         "R745DWCH": np.floor(rd / 3), "R745DRSR": np.floor(rd / 7), "R745DRSH": np.floor(rd / 8),
         "R745DWSR": np.floor(rd / 11), "R745DWSH": np.floor(rd / 11), "R745DRNR": np.floor(rd / 100),
         "R745DNRH": np.floor(rd / 101), "R745DWNR": np.floor(rd / 13), "R745DWNH": np.floor(rd / 14),
         "R745DTC": np.floor(rd / 17), "R745DNTD": np.floor(rd / 19)}
    v["R745DRCR"][0] = 3.3e8                                                  # beyond 2**24: HFP rounds
    c = _read(tmp_path, w.records_74_5("PRD1", START, T, SAM, v))["cache"]
    assert len(c) == n and c["devnum"].iloc[5] == "3005" and c["volser"].iloc[5] == "C00005"
    rr = v["R745DRCR"] + v["R745DRSR"] + v["R745DRNR"]
    rh = v["R745DCRH"] + v["R745DRSH"] + v["R745DNRH"]
    wr = v["R745DWRC"] + v["R745DWSR"] + v["R745DWNR"]                       # cache fast write included
    wh = v["R745DWCH"] + v["R745DWSH"] + v["R745DWNH"]
    with np.errstate(invalid="ignore", divide="ignore"):
        exp = {"io_per_s": (rr + wr) / T, "read_per_s": rr / T, "write_per_s": wr / T,
               "read_hit_ratio": rh / rr, "write_hit_ratio": wh / wr, "hit_ratio": (rh + wh) / (rr + wr),
               "seq_read_per_s": v["R745DRSR"] / T, "staging_per_s": (v["R745DNTD"] + v["R745DTC"]) / T,
               "read_pct": rr / (rr + wr) * 100}
    for k, e in exp.items():
        np.testing.assert_allclose(c[k].to_numpy()[1:], e[1:], rtol=1e-12, err_msg=k)   # exact below 2**24
        assert c[k].iloc[0] == pytest.approx(e[0], rel=2.0 ** -20), k                 # HFP precision
    assert c[["ssid", "cu"]].eq("").all().all()            # section ends before R745DSID; no CU-ID


def test_78_3_hyperpav_wait_and_max(tmp_path, rng):
    """HPAV WAIT = sum(R783HNAI) / sum(R783HTIO), HPAV MAX = max(R783HAIU) over the LCU's HyperPAV
    data sections (SMF78HPS at 60); NaN for an LCU without HyperPAV devices (R783DST bit 6)."""
    one = {"R783CPID": [0x50], "R783CPST": [0xC0], "R783CUN": [1], "R783CU1": [0x9000], "R783PT": [1000]}
    nai, tio = np.array([12.0, 3.0]), np.array([40_000.0, 2.5e7])       # 2.5e7 > 2**24: HFP rounds
    lcus = [{"R783ID2": 0x40, "R783QSM": 10, "R783QCT": 5, "R783DST": 0x02, "paths": one,
             "hpav": {"R783HNAI": nai, "R783HTIO": tio, "R783HAIU": [7, 9], "R783HCU": [0x9000, 0x9001]}},
            {"R783ID2": 0x41, "R783QSM": 10, "R783QCT": 5, "R783DST": 0x00, "paths": one,
             "hpav": {"R783HNAI": [1.0], "R783HTIO": [2.0], "R783HAIU": [4]}},     # bit 6 off: NaN
            {"R783ID2": 0x42, "R783QSM": 10, "R783QCT": 5, "R783DST": 0x02, "paths": one}]  # no sections
    rec = w.record_78_3("PRD1", START, T, SAM, lcus)
    assert int.from_bytes(rec[24:26], "big") == 5                             # product + 4 triplets
    assert int.from_bytes(rec[66:68], "big") == 3                             # SMF78HPN: 2 + 1 sections
    L = _read(tmp_path, [rec])["lcu"]
    assert L["hpav_wait"].iloc[0] == pytest.approx(nai.sum() / tio.sum(), rel=2.0 ** -20)
    assert L["hpav_max"].iloc[0] == 9
    assert L[["hpav_wait", "hpav_max"]].iloc[1:].isna().all().all()


def test_74_5_triplets_in_mapping_order():
    """SMF745CO/DO/XO/SO at 36/44/52/60 (IBM z/OS Data Gatherer's SMF74HDR): the triplet at 44 locates
    the device sections, the one at 60 the status section."""
    rec = w.records_74_5("PRD1", START, T, SAM, {"R745DEVN": [0x3000, 0x3001], "R745DRCR": [1.0, 2.0]})[0]
    trip = lambda at: (int.from_bytes(rec[at:at + 4], "big"), int.from_bytes(rec[at + 4:at + 6], "big"),  # noqa: E731
                       int.from_bytes(rec[at + 6:at + 8], "big"))
    off, ln, n = trip(44)
    assert (ln, n) == (w.CACHE_DEV.itemsize, 2)
    assert int.from_bytes(rec[off + 12:off + 14], "big") == 0x3000         # R745DEVN at 12
    assert trip(52)[2] == 0 and trip(60)[1:] == (48, 1)


def test_layouts_match_the_documented_offsets():
    """The offsets the decoders use, pinned to the field table of docs/measured_smf.md (IBM's z/OS SMF
    manual pages cited there): a change to a layout must be a change to the table."""
    from mcio.measured import smf73, smf74, smf78
    doc = {
        smf74.DEV_DATA: {"SMF74NUM": 0, "SMF74LCU": 2, "SMF74CNF": 5, "SMF74SER": 6, "SMF74TYP": 12, "SMF74NUX": 16,
                         "SMF74SSC": 20, "SMF74MEC": 24, "SMF74CNN": 28, "SMF74PEN": 32, "SMF74ATV": 36,
                         "SMF74DIS": 40, "SMF74QUE": 44, "SMF74UTL": 48, "SMF74RSV": 52, "SMF74ALC": 60, "SMF74MTP": 64},
        smf74.DEV_CONTROL: {"SMF74NXT": 0, "SMF74TOT": 2, "SMF74GEN": 4, "SMF74SUB": 6, "SMF74DCF": 8,
                            "SMF74DMS": 9, "SMF74ENF": 10},
        smf74.CACHE_DEV: {"R745DVOL": 0, "R745DFL4": 6, "R745DEVN": 12, "R745DFLG": 16, "R745DRCR": 20,
                          "R745DCRH": 24, "R745DWRC": 28, "R745DWCH": 32, "R745DRSR": 36, "R745DRSH": 40,
                          "R745DWSR": 44, "R745DWSH": 48, "R745DRNR": 52, "R745DNRH": 56},
        smf73.CHAN_DATA: {"SMF73PID": 0, "SMF73FG2": 1, "SMF73FG3": 2, "SMF73FG4": 3, "SMF73BSY": 4, "SMF73PBY": 8,
                          "SMF73PTI": 12, "SMF73CPD": 16, "SMF73ACR": 17, "SMF73CMG": 22},
        smf78.CONFIG_DATA: {"R783CPID": 0, "R783CPST": 1, "R783CUN": 2, "R783CU1": 4, "R783CU2": 6, "R783CU3": 8,
                            "R783CU4": 10, "R783CUB": 12, "R783PT": 16, "R783DPB": 24, "R783CBT": 28,
                            "R783CMR": 32, "R783SBS": 36, "R783CPXF": 44, "R783CPAT": 45},
        smf78.QUEUE_DATA: {"R783ID2": 0, "R783DST": 2, "R783QSM": 4, "R783QCT": 8, "R783DCTM": 44, "R783DDTM": 48,
                           "R783CSST": 52, "R783HCNT": 56, "R783HIX": 58},
        smf78.HYPERPAV_DATA: {"R783HLCU": 0, "R783HCU": 2, "R783HNAI": 8, "R783HTIO": 12, "R783HAIU": 16,
                              "R783HCAD": 20, "R783HIOQ": 24},
    }
    for dt_, fields in doc.items():
        assert {k: dt_.fields[k][1] for k in dt_.names} == fields
    assert (smf74.DCS_AT, smf74.DDS_AT) == (36, 44)
    assert (smf74.CO_AT, smf74.DO_AT, smf74.XO_AT, smf74.SO_AT) == (36, 44, 52, 60)
    assert (smf73.HIS_AT, smf73.HPS_AT, smf73.HES_AT) == (36, 44, 52)
    assert (smf78.DCS_AT, smf78.ASS_AT, smf78.QDS_AT, smf78.HPS_AT) == (36, 44, 52, 60)
    # beyond the manual's pages: IBM z/OS Data Gatherer's OpenAPI mapping (x-zml-offset / x-zml-size)
    assert smf74.DEV_DATA_OPT == {"SMF74DVB": (76, "u4"), "SMF74CMR": (164, "u4")}
    assert smf74.CACHE_DEV_OPT == {"R745DWNR": (60, "hfp"), "R745DWNH": (64, "hfp"), "R745DTC": (76, "hfp"),
                                   "R745DNTD": (80, "hfp"), "R745DSID": (106, "u2")}
    g2 = ("MBC", "MCU", "MWU", "MRU", "US", "TBC", "TUC", "PUC", "TWU", "PWU", "TRU", "PRU")
    assert smf73.CHAN_OPT == {"SMF73FG5": (23, "u1"), "SMF73TUT": (24, "hfp"), "SMF73PUT": (28, "hfp"),
                              **{f"SMF73{k}": (24 + 4 * i, "hfp") for i, k in enumerate(g2)},
                              "SMF73GEN": (73, "u1"), "SMF73SPD": (76, "u2"), "SMF73MSC": (78, "u1")}
    assert {k: smf73.EXT_DATA.fields[k][1] for k in smf73.EXT_DATA.names} == {
        "SMF73ECP": 0, "SMF73EOC": 4, "SMF73EOD": 8, "SMF73EOS": 12, "SMF73ETC": 20, "SMF73ETD": 24, "SMF73ETS": 28}
    assert smf73.EXT_DATA.itemsize == 36 and smf73.EXT_DATA.fields["SMF73EOS"][0] == np.dtype(">u8")
    assert smf78.HYPERPAV_OPT == {"R783XHBC": (60, "u4")}
    assert {k: smf78.CONFIG_CONTROL.fields[k][1] for k in smf78.CONFIG_CONTROL.names} == {
        "R783ID1": 0, "R783NTR": 2, "R783CPDS": 4, "R783CPDL": 8, "R783CPDN": 10}


def test_74_1_cmr_and_device_busy_delay(tmp_path, rng):
    """SMF74DVB at 76 and SMF74CMR at 164 of the device data section (128 us units):
    AVG DB DLY = DVB x 0.128 / MEC, AVG CMR DLY = CMR x 0.128 / MEC where SMF74ENF says CMR valid."""
    n = 40
    mec = rng.integers(1, 10**5, n)
    cmr, dvb = rng.integers(0, 10**6, n), rng.integers(0, 10**6, n)
    dev = {"SMF74NUM": np.arange(n), "SMF74SSC": mec, "SMF74MEC": mec, "SMF74TYP": np.full(n, 0x3010200F),
           "SMF74CNF": np.where(np.arange(n) == 3, 0x20, 0), "SMF74CMR": cmr, "SMF74DVB": dvb}
    recs = w.records_74_1("PRD1", START, T, SAM, dev)
    sec = int.from_bytes(recs[0][44:48], "big")                               # SMF74DDS
    assert int.from_bytes(recs[0][sec + 164:sec + 168], "big") == cmr[0]
    assert int.from_bytes(recs[0][sec + 76:sec + 80], "big") == dvb[0]
    d = _read(tmp_path, recs)["device"]
    ok = np.arange(n) != 3                                                    # SSC..DIS incorrect: NaN
    np.testing.assert_allclose(d["cmr_ms"][ok], (cmr * 0.128 / mec)[ok], rtol=1e-12)
    np.testing.assert_allclose(d["db_ms"][ok], (dvb * 0.128 / mec)[ok], rtol=1e-12)
    assert d[["cmr_ms", "db_ms"]].iloc[3].isna().all()
    no_cmr = {k: v for k, v in dev.items() if k != "SMF74CMR"}
    d = _read(tmp_path, w.records_74_1("PRD1", START, T, SAM, no_cmr))["device"]
    assert d["cmr_ms"].isna().all() and d["db_ms"].notna()[ok].all()        # SMF74ENF bit 2 off: no CMR


def test_sections_shorter_than_the_optional_fields_leave_them_unread(tmp_path):
    """A device section of an older release, 68 bytes (SMF74DDL): SMF74DVB / SMF74CMR not read, NaN."""
    dev = {"SMF74NUM": [1], "SMF74SSC": [100], "SMF74MEC": [100], "SMF74CMR": [1000], "SMF74DVB": [2000]}
    rec = bytearray(w.records_74_1("PRD1", START, T, SAM, dev)[0])
    rec[48:50] = (68).to_bytes(2, "big")                                      # SMF74DDL
    d = _read(tmp_path, [bytes(rec)])["device"]
    assert d["ssch_per_s"].iloc[0] == pytest.approx(100 / T) and d[["cmr_ms", "db_ms"]].isna().all().all()


def test_73_cpmf_groups_generation_and_extended(tmp_path, rng):
    """SMF73CCM from byte 24 by measurement group (1: TUT/PUT, 2: MBC..PRU, HFP), SMF73GEN at 73,
    SMF73SPD at 76 with SMF73MSC's power, and the extended sections (SMF73HES at 52; ECP at 0, EOC 4,
    EOD 8, EOS 12 (8 bytes), ETC 20, ETD 24, ETS 28 (8 bytes)) joined on the CHPID."""
    pid = np.array([0x40, 0x41, 0x42, 0x43, 0x44])
    pti = np.full(5, 878_904)
    secs = pti * 1024e-6
    g2 = {"SMF73MBC": [8e5] * 5, "SMF73MCU": [4e5] * 5, "SMF73MWU": [1e5] * 5, "SMF73MRU": [1e5] * 5,
          "SMF73US": [32.0] * 5, "SMF73TBC": rng.uniform(1e7, 1e8, 5).round(),
          "SMF73TUC": rng.uniform(1e7, 1e8, 5).round(), "SMF73PUC": rng.uniform(1e6, 1e7, 5).round(),
          "SMF73TWU": rng.uniform(1e6, 1e7, 5).round(), "SMF73PWU": rng.uniform(1e5, 1e6, 5).round(),
          "SMF73TRU": rng.uniform(1e6, 1e7, 5).round(), "SMF73PRU": rng.uniform(1e5, 1e6, 5).round()}
    g1 = {"SMF73TUT": [0.0, 0.0, 2e6, 0.0, 0.0], "SMF73PUT": [0.0, 0.0, 1e6, 0.0, 0.0]}
    paths = {"SMF73PID": pid, "SMF73FG3": [0x03, 0x02, 0x02, 0x02, 0x02], "SMF73PTI": pti,
             "SMF73CMG": [2, 2, 1, 2, 0], "SMF73PBY": [1000, 2000, 300_000, 5, 400_000],
             "SMF73FG4": [0, 0, 0, 0x80, 0],                                  # 0x43: CPMB entry not valid
             "SMF73FG5": [0xF8, 0x38, 0, 0xF8, 0],                            # 0x41: MBC and MCU not valid
             "SMF73ACR": ["FC", "FC", "CNC_S", "FC", "OSD"], "SMF73GEN": [6, 7, 0, 6, 0],
             "SMF73SPD": [160, 320, 0, 8, 10], "SMF73MSC": [0, 0, 0, 9, 0], **g1, **g2}
    ext = {"SMF73ECP": [0x41, 0x40], "SMF73EOC": [500_000, 900_000], "SMF73EOD": [10, 0],
           "SMF73EOS": [1_500_000, 2**33 + 7], "SMF73ETC": [200_000, 0], "SMF73ETD": [1, 0], "SMF73ETS": [400_000, 0]}
    rec = w.record_73("PRD1", START, T, SAM, paths, extended=ext)
    hps = int.from_bytes(rec[44:48], "big")
    sec = hps + 0x40 * int.from_bytes(rec[48:50], "big")                      # CHPID 40's section
    assert rec[sec + 22] == 2 and rec[sec + 73] == 6 and int.from_bytes(rec[sec + 76:sec + 78], "big") == 160
    assert rec[sec + 24:sec + 28] == w.hfp32_encode([8e5])[0].tobytes()[::-1]   # SMF73MBC, big-endian word
    c = _read(tmp_path, [rec])["channel"]
    a = {k: np.asarray(v, dtype=float) for k, v in g2.items()}
    rel = 2.0 ** -20                                                          # HFP above 2**24
    np.testing.assert_allclose(c["util_total_pct"][:1], (a["SMF73TUC"] * 100 / (a["SMF73MCU"] * secs))[:1], rtol=rel)
    np.testing.assert_allclose(c["util_part_pct"][:1], (a["SMF73PUC"] * 100 / (a["SMF73MCU"] * secs))[:1], rtol=rel)
    np.testing.assert_allclose(c["bus_pct"][:1], (a["SMF73TBC"] * 100 / (a["SMF73MBC"] * secs))[:1], rtol=rel)
    np.testing.assert_allclose(c["read_mb_s_total"][:2], (a["SMF73TRU"] * 32 / secs / 1e6)[:2], rtol=rel)
    np.testing.assert_allclose(c["write_mb_s_part"][:2], (a["SMF73PWU"] * 32 / secs / 1e6)[:2], rtol=rel)
    assert c[["util_total_pct", "bus_pct"]].iloc[1].isna().all()             # FG5: MCU, MBC not valid:
    assert c["util_part_pct"].iloc[1] == pytest.approx(2000 / 878_904 * 100, rel=1e-12)   # PBY / PTI
    assert c["util_total_pct"].iloc[2] == pytest.approx(2e6 * 100 / (878_904 * 8), rel=1e-12)   # group 1
    assert c["util_part_pct"].iloc[2] == pytest.approx(1e6 * 100 / (878_904 * 8), rel=1e-12)
    assert c[["bus_pct", "read_mb_s_total"]].iloc[2].isna().all()
    assert c[["util_total_pct", "read_mb_s_total"]].iloc[3].isna().all()     # CPMB not valid
    assert c["util_part_pct"].iloc[3] == pytest.approx(5 / 878_904 * 100, rel=1e-12)
    assert c["util_part_pct"].iloc[4] == pytest.approx(400_000 / 878_904 * 100, rel=1e-12)  # no CPMF: PBY/PTI
    assert np.isnan(c["util_total_pct"].iloc[4])
    assert c["generation"].tolist() == ["6", "7", "", "6", ""]
    assert c["speed"].tolist() == ["16G", "32G", "", "8G", "1G"]              # 8 x 10**9 bit/s; 10 x 100 Mbit/s
    assert c["shared"].tolist() == ["Y", "N", "N", "N", "N"]
    # extended sections in another order than the paths, joined on SMF73ECP; FG4 bit 6 set by the writer
    assert c["ficon_ops_per_s"].iloc[0] == pytest.approx(9e5 / secs[0], rel=1e-12)
    assert c["ficon_active"].iloc[0] == pytest.approx((2**33 + 7) / 9e5, rel=1e-12)     # doubleword summation
    assert c["zhpf_ops_per_s"].iloc[1] == pytest.approx(2e5 / secs[1], rel=1e-12)
    assert c["zhpf_active"].iloc[1] == pytest.approx(2.0, rel=1e-12)
    assert c["ficon_defer_per_s"].iloc[1] == pytest.approx(10 / secs[1], rel=1e-12)
    assert np.isnan(c["zhpf_active"].iloc[0])                                 # no zHPF operations
    assert c[["ficon_ops_per_s", "zhpf_ops_per_s"]].iloc[2:].isna().all().all()   # no extended section


def test_74_5_ssid(tmp_path):
    v = {"R745DEVN": [0x3000, 0x3001], "R745DRCR": [1.0, 2.0], "R745DSID": [0x00A1, 0xFFFE]}
    rec = w.records_74_5("PRD1", START, T, SAM, v)[0]
    off = int.from_bytes(rec[44:48], "big")
    assert rec[off + 106:off + 108] == b"\x00\xa1"
    c = _read(tmp_path, [rec])["cache"]
    assert c["ssid"].tolist() == ["00A1", "FFFE"]


def test_78_3_superpav_borrowed_aliases_in_hpav_max(tmp_path):
    """HPAV MAX = max(R783HAIU + R783XHBC) (R783XHBC at 60 of the HyperPAV/SuperPAV section)."""
    one = {"R783CPID": [0x50], "R783CPST": [0xC0], "R783CUN": [1], "R783CU1": [0x9000], "R783PT": [1000]}
    lcus = [{"R783ID2": 0x40, "R783DST": 0x02, "paths": one,
             "hpav": {"R783HNAI": [1.0, 2.0], "R783HTIO": [10.0, 20.0], "R783HAIU": [7, 9], "R783XHBC": [5, 1]}}]
    assert _read(tmp_path, [w.record_78_3("PRD1", START, T, SAM, lcus)])["lcu"]["hpav_max"].iloc[0] == 12
