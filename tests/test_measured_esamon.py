"""mcio.measured.esamon on seed 002's ESAMON ESADSD2 screen (shared/seeds/002_8dfc2cfae6c848b2.txt,
copied verbatim, prose included, to tests/data/measured/esamon_seed002.txt: a real screen
published with the seed's text), bad screens, and the read() dispatcher (mcio.measured.read) with
mcio's own tidy table (mcio.measured.tidy) round-tripped."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mcio import McioError
from mcio.measured import esamon, read, tidy

SEED = Path(__file__).parent / "data" / "measured" / "esamon_seed002.txt"
SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "seeds" / "002_8dfc2cfae6c848b2.txt"


def test_seed_copy_is_the_seed_file():
    if not SHARED.exists():
        pytest.skip("shared/seeds not beside the repository")
    assert SEED.read_bytes() == SHARED.read_bytes()


def test_sniff():
    assert esamon.sniff(SEED.read_bytes()[:4096])
    assert not esamon.sniff(b"DIRECT ACCESS DEVICE ACTIVITY\n z/OS V2R4")
    assert not esamon.sniff(b"")


def test_read_seed_screen():
    m = esamon.read(SEED)
    d = m["device"]
    assert len(d) == 42                                  # every device row of the screen
    assert d["interval"].nunique() == 30                 # 30 printed times
    assert set(d["devnum"]) == {"1007", "1008", "1009", "100A", "100B"}
    assert (d["interval_s"] == 60.0).all()               # one-minute intervals (smallest gap)
    first = d.iloc[0]
    # the time printed is the interval's end: 11:15:23 ends the interval that starts 11:14:23,
    # as the screen's title range 11:14-13:10 says
    assert first["interval"] == pd.Timestamp(f"{esamon.YEAR}-05-04 11:14:23")
    assert (first["volser"], first["dev_type"]) == ("LIN501", "3390-3")
    assert (first["ssch_per_s"], first["resp_ms"], first["pend_ms"], first["disc_ms"], first["conn_ms"]) == \
        (36.2, 26.4, 0.2, 15.4, 10.8)
    # a row with no time of its own belongs to the time above it
    assert d.iloc[1]["interval"] == first["interval"] and d.iloc[1]["devnum"] == "1008"
    # IOSQ = Resp - Serv (the screen's own definition)
    r = d[(d["devnum"] == "100A") & (d["interval"] == pd.Timestamp(f"{esamon.YEAR}-05-04 12:48:23"))].iloc[0]
    assert r["iosq_ms"] == pytest.approx(15.1 - 10.5)
    assert (d["iosq_ms"] >= 0).all() and (d["iosq_ms"] == 0).sum() == 34   # 8 rows print Resp > Serv
    # what the screen does not state stays empty, never guessed
    for c in ("cmr_ms", "db_ms", "dev_conn_pct", "dev_util_pct", "mb_s", "read_share"):
        assert d[c].isna().all(), c
    assert (d["lcu"] == "").all() and (d["system"] == "").all()
    # every other level is empty; the year is said to be assumed
    assert all(len(m[lv]) == 0 for lv in ("channel", "lcu", "lcu_path", "cache"))
    assert "assumed" in m.sources[0]


def _screen(rows: str) -> str:
    return ("Some prose.\n\nScreen: ESADSD2  NODE1   ESAMON V2.2  05/04 11:14-13:10\n"
            "1 of 3  DASD Performance Analysis - Part 1      DEVICE 1007-100c\n\n"
            "          Dev        Device %Dev  <-----Response times (ms)--->\n"
            "Time      No. Serial Type   Busy   avg  peak  Resp  Serv  Pend  Disc  Conn\n"
            "-------- *--- ------ ------ ---- *---- ----- ----- ----- ----- ----- -----\n" + rows + "\nMore prose.\n")


def test_bad_screens(tmp_path):
    p = tmp_path / "s.txt"
    p.write_text(_screen("11:15:23 1007 LIN501 3390-3 95.6  36.2  36.2  26.4  xx.x   0.2  15.4  10.8\n"))
    with pytest.raises(McioError, match=r"s\.txt.*line 9.*expected eight numbers"):
        esamon.read(p)
    p.write_text(_screen("         1007 LIN501 3390-3 95.6  36.2  36.2  26.4  26.4   0.2  15.4  10.8\n"))
    with pytest.raises(McioError, match=r"line 9.*expected a time"):
        esamon.read(p)
    p.write_text(_screen(""))
    with pytest.raises(McioError, match="at least one device row"):
        esamon.read(p)
    p.write_text("nothing here\n")
    with pytest.raises(McioError, match="expected an ESAMON screen"):
        esamon.read(p)
    # a device without a volume label; a single printed time: ESAMON's default 60 s
    p.write_text(_screen("11:15:23 1007        3390-3 95.6  36.2  36.2  26.4  26.4   0.2  15.4  10.8\n"))
    d = esamon.read(p)["device"]
    assert d.iloc[0]["volser"] == "" and d.iloc[0]["interval_s"] == 60.0


def test_dispatcher_and_tidy_round_trip(tmp_path):
    names = [mod.__name__.rsplit(".", 1)[-1] for mod in read.readers()]
    assert names[:2] == ["tidy", "esamon"]          # the modules not written yet are skipped
    a = esamon.read(SEED)
    b = read.read([SEED])
    pd.testing.assert_frame_equal(a["device"], b["device"])
    t = tmp_path / "t.csv"
    tidy.write(a, t)
    c = read.read(t)
    pd.testing.assert_frame_equal(a["device"], c["device"])
    other = tmp_path / "other.txt"
    other.write_text("hello\n")
    with pytest.raises(McioError, match=r"other\.txt.*tried: tidy, esamon"):
        read.read([SEED, other])
    with pytest.raises(McioError, match="give at least one"):
        read.read([])
