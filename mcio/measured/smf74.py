"""SMF record 74 (RMF): subtype 1 (device activity) -> the ``device`` level, subtype 5 (cache
subsystem activity) -> the ``cache`` level.

Offsets are IBM's (z/OS MVS System Management Facilities, record type 74: "Header/Self-defining
Section", "Device Control Data Section", "Device Data Section", "Cache device data section"; beyond
what the manual's pages at hand print, IBM z/OS Data Gatherer's OpenAPI mapping of SMF74B / R745DEV);
each field and each derived column's formula is listed in docs/measured_smf.md. Times in the device data
section are in units of 128 microseconds; the cache counters are IBM short hexadecimal floating
point ("s_float").
"""
from __future__ import annotations

import numpy as np

from .smf_record import Header, Product, RecordError, hfp32, sections, triplet, with_optional

#: 128-microsecond units -> ms
T128_MS = 0.128
#: device class code SMF74SUB of direct access devices
DASD_CLASS = 0x0020

# ---- subtype 1: header extension (SMF74DCS/DCL/DCN at 36, SMF74DDS/DDL/DDN at 44)
DCS_AT, DDS_AT = 36, 44

#: Device Control Data Section (one per device class), the fields used
DEV_CONTROL = np.dtype({
    "names": ["SMF74NXT", "SMF74TOT", "SMF74GEN", "SMF74SUB", "SMF74DCF", "SMF74DMS", "SMF74ENF"],
    "formats": [">u2", ">u2", ">u2", ">u2", "u1", "u1", "u1"],
    "offsets": [0, 2, 4, 6, 8, 9, 10], "itemsize": 27})

#: Device Data Section (one per device), offsets 0..67
DEV_DATA = np.dtype({
    "names": ["SMF74NUM", "SMF74LCU", "SMF74CNF", "SMF74SER", "SMF74TYP", "SMF74NUX", "SMF74SSC",
              "SMF74MEC", "SMF74CNN", "SMF74PEN", "SMF74ATV", "SMF74DIS", "SMF74QUE", "SMF74UTL",
              "SMF74RSV", "SMF74ALC", "SMF74MTP"],
    "formats": [">u2", ">u2", "u1", "S6", ">u4", ">u4", ">u4", ">u4", ">u4", ">u4", ">u4", ">u4",
                ">u4", ">u4", ">u4", ">u4", ">u4"],
    "offsets": [0, 2, 5, 6, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 60, 64], "itemsize": 68})

#: Device Data Section fields beyond byte 68 (IBM z/OS Data Gatherer's mapping of SMF74B): name ->
#: (offset, format), read only where the record's section is long enough (else cmr_ms, db_ms NaN).
#: SMF74DVB: device busy delay time, SMF74CMR: initial command response time; both 128-us units.
DEV_DATA_OPT: dict = {"SMF74DVB": (76, "u4"), "SMF74CMR": (164, "u4")}
#: SMF74ENF bit 2 (X'20'): initial command response time SMF74CMR valid
ENF_CMR_VALID = 0x20

#: SMF74CNF bits (bit 0 = X'80')
CNF_QUEUE_BAD = 0x80     # IOS queue length is incorrect
CNF_TIMES_BAD = 0x20     # data in SMF74SSC through SMF74DIS is incorrect

#: last byte of the UCB unit type SMF74TYP -> DASD model (3390: X'3010200F', 3380: X'3010200E'; byte 3
#: X'20' = direct access class; sources in docs/measured_smf.md)
DASD_TYPES = {0x0F: "3390", 0x0E: "3380"}
_TYPE_OF_BYTE = np.array([DASD_TYPES.get(i, "") for i in range(256)], dtype=object)

_HEX4 = None


def hex4(v: np.ndarray) -> np.ndarray:
    """Halfwords -> 4 upper-case hex digits (object array)."""
    global _HEX4
    if _HEX4 is None:
        _HEX4 = np.array([f"{i:04X}" for i in range(1 << 16)], dtype=object)
    return _HEX4[np.asarray(v, dtype=np.int64)]


def ebcdic_column(raw: np.ndarray) -> np.ndarray:
    """Fixed-width EBCDIC fields (a bytes array, e.g. S6) -> str (object array), trailing blanks
    and NULs stripped; the whole column decoded in one call (cp037 is one byte per character)."""
    width = raw.dtype.itemsize
    if len(raw) == 0:
        return np.empty(0, dtype=object)
    text = np.ascontiguousarray(raw).tobytes().decode("cp037")
    fixed = np.frombuffer(text.encode("utf-32-le"), dtype=f"<U{width}")
    return np.char.rstrip(fixed, " \x00").astype(object)


def _div(a, b):
    """a / b, NaN where b == 0."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    out = np.full(np.broadcast(a, b).shape, np.nan)
    np.divide(a, b, out=out, where=b != 0)
    return out


def decode_74_1(rec: bytes, h: Header, p: Product):
    """Device activity -> ``device`` rows (DASD only; other device classes counted as skipped)."""
    ctl = sections(rec, triplet(rec, DCS_AT, "SMF74 device control"), DEV_CONTROL, "SMF74 device control")
    dds = triplet(rec, DDS_AT, "SMF74 device data")
    dd = sections(rec, dds, with_optional(DEV_DATA, DEV_DATA_OPT, dds[1]), "SMF74 device data")
    if len(ctl) != 1:
        raise RecordError("one Device Control Data Section per 74.1 record (SMF74DCN = 1)", len(ctl))
    cls = int(ctl["SMF74SUB"][0])
    if cls != DASD_CLASS:
        return {}, {f"74.1 device class X'{cls:04X}'": 1}
    return {"device": device_columns(dd, h, p, cmr_valid=bool(ctl["SMF74ENF"][0] & ENF_CMR_VALID))}, {}


def device_columns(dd: np.ndarray, h: Header, p: Product, cmr_valid: bool = False):
    """The tidy ``device`` columns (and row count) of a structured array of Device Data Sections
    (RMF's DASD report formulas; see docs/measured_smf.md). cmr_ms and db_ms only where ``dd``
    carries SMF74CMR / SMF74DVB (:data:`DEV_DATA_OPT`), cmr_ms only if SMF74ENF says valid."""
    n = len(dd)
    f = lambda k: dd[k].astype(np.float64)  # noqa: E731
    cnf = dd["SMF74CNF"]
    mec, ssc = f("SMF74MEC"), f("SMF74SSC")
    rate = ssc / p.interval_s
    conn, disc, pend = _div(f("SMF74CNN") * T128_MS, mec), _div(f("SMF74DIS") * T128_MS, mec), \
        _div(f("SMF74PEN") * T128_MS, mec)
    q_len = f("SMF74QUE") / p.samples if p.samples else np.full(n, np.nan)
    iosq = _div(q_len * 1000.0, rate)
    iosq[(cnf & CNF_QUEUE_BAD) != 0] = np.nan
    busy_s = (f("SMF74CNN") + f("SMF74DIS")) * T128_MS / 1000.0
    reserved = f("SMF74UTL") / p.samples if p.samples else np.full(n, np.nan)
    cols = {
        "interval": np.datetime64(p.start, "ns"), "interval_s": p.interval_s, "system": h.system,
        "devnum": hex4(dd["SMF74NUM"]), "volser": ebcdic_column(dd["SMF74SER"]),
        "lcu": hex4(dd["SMF74LCU"]),
        "dev_type": _TYPE_OF_BYTE[(dd["SMF74TYP"] & 0xFF).astype(np.int64)],
        "ssch_per_s": rate, "resp_ms": iosq + pend + disc + conn, "iosq_ms": iosq,
        "pend_ms": pend, "disc_ms": disc, "conn_ms": conn,
        "dev_conn_pct": f("SMF74CNN") * T128_MS / 1000.0 / p.interval_s * 100.0,
        "dev_util_pct": (busy_s / p.interval_s + reserved) * 100.0,
    }
    names = dd.dtype.names
    if "SMF74CMR" in names and cmr_valid:
        cols["cmr_ms"] = _div(f("SMF74CMR") * T128_MS, mec)
    if "SMF74DVB" in names:
        cols["db_ms"] = _div(f("SMF74DVB") * T128_MS, mec)
    bad = (cnf & CNF_TIMES_BAD) != 0
    if bad.any():
        for k in ("ssch_per_s", "resp_ms", "iosq_ms", "pend_ms", "disc_ms", "conn_ms", "dev_conn_pct",
                  "dev_util_pct", "cmr_ms", "db_ms"):
            if k not in cols:
                continue
            cols[k] = np.where(bad, np.nan, cols[k])
    return (cols, n)


# ---- subtype 5: cache subsystem activity
#: header extension triplets of 74.5 (IBM z/OS Data Gatherer's SMF74HDR of subtype 5: SMF745CO 36,
#: SMF745DO 44, SMF745XO 52, SMF745SO 60, then SMF7451O 68): control, device data, device data
#: extension, status (docs/measured_smf.md, field table).
CO_AT, DO_AT, XO_AT, SO_AT = 36, 44, 52, 60

#: Cache device data section (one per device), offsets 0..59; counters are HFP short floats
CACHE_DEV = np.dtype({
    "names": ["R745DVOL", "R745DFL4", "R745DEVN", "R745DFLG", "R745DRCR", "R745DCRH", "R745DWRC",
              "R745DWCH", "R745DRSR", "R745DRSH", "R745DWSR", "R745DWSH", "R745DRNR", "R745DNRH"],
    "formats": ["S6", "u1", ">u2", "u1"] + [">u4"] * 10,
    "offsets": [0, 6, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56], "itemsize": 60})

#: Cache device data section fields beyond byte 60 (IBM z/OS Data Gatherer's mapping of R745DEV),
#: read only where the record's section is long enough: cache fast write (non-retentive) writes and
#: hits, DASD-to-cache transfers (sequential R745DTC, normal R745DNTD; HFP short floats) and the
#: subsystem id R745DSID (2 bytes binary).
CACHE_DEV_OPT: dict = {"R745DWNR": (60, "hfp"), "R745DWNH": (64, "hfp"), "R745DTC": (76, "hfp"),
                       "R745DNTD": (80, "hfp"), "R745DSID": (106, "u2")}


def decode_74_5(rec: bytes, h: Header, p: Product):
    """Cache subsystem activity -> ``cache`` rows, one per device (subsystem totals are the sum of
    a subsystem's devices, its SSID R745DSID; the control section's R745CUID is a CU *type* code,
    not RMF's CU-ID, and is not decoded)."""
    do = triplet(rec, DO_AT, "SMF74.5 cache device data")
    dv = sections(rec, do, with_optional(CACHE_DEV, CACHE_DEV_OPT, do[1]), "SMF74.5 cache device data")
    n = len(dv)
    names = dv.dtype.names
    c = {k: hfp32(dv[k]) for k in names if dv.dtype.fields[k][0] == np.dtype(">u4")}
    zero = np.zeros(n)
    read_req = c["R745DRCR"] + c["R745DRSR"] + c["R745DRNR"]
    read_hit = c["R745DCRH"] + c["R745DRSH"] + c["R745DNRH"]
    write_req = c["R745DWRC"] + c["R745DWSR"] + c.get("R745DWNR", zero)
    write_hit = c["R745DWCH"] + c["R745DWSH"] + c.get("R745DWNH", zero)
    t = p.interval_s
    cols = {
        "interval": np.datetime64(p.start, "ns"), "interval_s": t, "system": h.system,
        "devnum": hex4(dv["R745DEVN"]), "volser": ebcdic_column(dv["R745DVOL"]),
        "io_per_s": (read_req + write_req) / t, "read_per_s": read_req / t, "write_per_s": write_req / t,
        "read_hit_ratio": _div(read_hit, read_req), "write_hit_ratio": _div(write_hit, write_req),
        "hit_ratio": _div(read_hit + write_hit, read_req + write_req),
        "seq_read_per_s": c["R745DRSR"] / t,
        "read_pct": _div(read_req * 100.0, read_req + write_req),
    }
    if "R745DNTD" in names:
        cols["staging_per_s"] = (c["R745DNTD"] + c["R745DTC"]) / t
    if "R745DSID" in names:
        cols["ssid"] = hex4(dv["R745DSID"])
    return {"cache": (cols, n)}, {}
