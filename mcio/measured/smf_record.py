"""One SMF record as transferred off z/OS: RDW framing (spanned segments reassembled), the standard
header, the RMF product section, the self-defining triplets, the field formats, and the tidy-frame
builder the decoders (smf73, smf74, smf78) share. The entry points are in smf.py.

A dump is a sequence of variable-length records, each prefixed by its 4-byte RDW (bytes 0-1: length
including the RDW, big-endian; bytes 2-3: segment descriptor, byte 2 = 0 complete, 1 first,
2 last, 3 middle segment of a spanned record). The layouts decoded here are IBM's, cited field by
field in docs/measured_smf.md (z/OS MVS System Management Facilities, "Header/Self-defining
Section" of records 73/74/78 and the RMF product section SMFxxPRO). Binary fields are big-endian,
text fields EBCDIC (cp037), dates packed decimal 0cyydddF, RMF times packed 0hhmmssF / mmsstttF,
some RMF counters IBM hexadecimal floating point (:func:`hfp32`).

A record that cannot be framed or decoded is one :class:`~mcio.errors.McioError` naming the file, the
record number and its byte offset, and what was expected (:func:`bad_record`).
"""
from __future__ import annotations

import datetime as _dt
import functools
from dataclasses import dataclass
from typing import Iterator

import numpy as np
import pandas as pd

from ..errors import McioError
from .table import COLUMNS, KEYS, columns

#: bytes of the RDW
RDW_LEN = 4
#: the longest SMF record (SMFxxLEN is a halfword; SMF writes at most 32,756 bytes of data)
MAX_RECORD_LEN = 32767
#: the common header up to and including the product-section triplet (SMFxxPRS/PRL/PRN)
HEADER_LEN = 36
#: the RMF product section fields this reader uses end at SMFxxSNM (offset 96, length 8)
PRODUCT_MIN_LEN = 104

EBCDIC = "cp037"


class RecordError(Exception):
    """A decoder's complaint about one record; :func:`iter_records` adds the file, record number
    and byte offset and raises it as a McioError."""

    def __init__(self, expected: str, got: object = None):
        super().__init__(expected)
        self.expected = expected
        self.got = got


def bad_record(path, recno: int, offset: int, expected: str, got: object = None) -> McioError:
    """The one error for a bad record: file, record number (1-based), byte offset of its RDW in the
    file, and what was expected (and what was found)."""
    where = f"{path}: record {recno} at byte {offset}"
    return McioError(where, got if got is not None else "(see message)", f"expected {expected}")


# ---------------------------------------------------------------- field decoders

def ebcdic(b: bytes) -> str:
    """EBCDIC text, trailing blanks and NULs stripped."""
    return bytes(b).decode(EBCDIC).rstrip(" \x00")


def packed_digits(b: bytes) -> str | None:
    """The decimal digits of a packed-decimal field (sign nibble dropped), None if a digit nibble is
    above 9 or the sign nibble is not a sign (A-F)."""
    out = []
    for i, byte in enumerate(bytes(b)):
        hi, lo = byte >> 4, byte & 0xF
        if hi > 9:
            return None
        out.append(chr(48 + hi))
        if i == len(b) - 1:
            if lo < 0xA:
                return None
        else:
            if lo > 9:
                return None
            out.append(chr(48 + lo))
    return "".join(out)


def smf_date(b: bytes) -> _dt.date:
    """Packed date 0cyydddF (c: 0 = 19yy, 1 = 20yy, 2 = 21yy) -> date."""
    d = packed_digits(b)
    if d is None or len(d) != 7:
        raise RecordError("a packed date 0cyydddF", bytes(b).hex().upper())
    c, yy, ddd = int(d[0:2]), int(d[2:4]), int(d[4:7])
    if c > 2 or not 1 <= ddd <= 366:
        raise RecordError("a packed date 0cyydddF with c in 0..2 and ddd in 1..366", bytes(b).hex().upper())
    year = 1900 + 100 * c + yy
    if ddd == 366 and not (year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)):
        raise RecordError("day 366 only in a leap year", bytes(b).hex().upper())
    return _dt.date(year, 1, 1) + _dt.timedelta(days=ddd - 1)


def rmf_time(b: bytes) -> _dt.timedelta:
    """Packed time of day 0hhmmssF (RMF SMFxxIST) -> time since midnight."""
    d = packed_digits(b)
    if d is None or len(d) != 7:
        raise RecordError("a packed time 0hhmmssF", bytes(b).hex().upper())
    hh, mm, ss = int(d[1:3]), int(d[3:5]), int(d[5:7])
    if d[0] != "0" or hh > 23 or mm > 59 or ss > 59:
        raise RecordError("a packed time 0hhmmssF with hh<24, mm<60, ss<60", bytes(b).hex().upper())
    return _dt.timedelta(hours=hh, minutes=mm, seconds=ss)


def rmf_duration_s(b: bytes) -> float:
    """Packed duration mmsstttF (RMF SMFxxINT: minutes, seconds, milliseconds) -> seconds."""
    d = packed_digits(b)
    if d is None or len(d) != 7:
        raise RecordError("a packed interval length mmsstttF", bytes(b).hex().upper())
    mm, ss, ttt = int(d[0:2]), int(d[2:4]), int(d[4:7])
    if ss > 59:
        raise RecordError("a packed interval length mmsstttF with ss<60", bytes(b).hex().upper())
    return 60.0 * mm + ss + ttt / 1000.0


def hfp32(raw: np.ndarray) -> np.ndarray:
    """IBM System/360 short hexadecimal floating point (big-endian uint32 words) -> float64.

    Bit 0 sign, bits 1-7 exponent (excess 64, base 16), bits 8-31 fraction: value =
    (-1)^s * 0.f * 16^(e-64). Exact in float64 for every HFP short value."""
    u = np.asarray(raw, dtype=np.uint32)
    sign = np.where(u >> 31, -1.0, 1.0)
    exp = ((u >> 24) & 0x7F).astype(np.int64) - 64
    frac = (u & 0xFFFFFF).astype(np.float64) / float(1 << 24)
    return sign * frac * np.power(16.0, exp)


# ---------------------------------------------------------------- header, product, triplets

@dataclass(frozen=True)
class Header:
    """The standard SMF header of an RMF record (offsets 4-35)."""

    rtype: int          # SMFxxRTY
    subtype: int        # SMFxxSTY
    written: _dt.datetime | None  # SMFxxDTE + SMFxxTME (hundredths since midnight); None if no date
    system: str         # SMFxxSID
    subsystem: str      # SMFxxSSI ('RMF')
    n_triplets: int     # SMFxxTRN


@dataclass(frozen=True)
class Product:
    """The RMF product section (SMFxxPRO), the fields this reader uses."""

    start: _dt.datetime  # SMFxxDAT + SMFxxIST, interval start, local time
    interval_s: float    # SMFxxINT
    samples: int         # SMFxxSAM
    sysplex: str         # SMFxxXNM
    system_name: str     # SMFxxSNM


def header(rec: bytes) -> Header:
    """Decode the standard header of a complete record (RDW included). Short records (e.g. the
    18-byte dump header and trailer, types 2 and 3) get subtype 0 and no triplets."""
    if len(rec) < 6:
        raise RecordError("a record of at least 6 bytes (RDW, flag and record type)", len(rec))
    u = int.from_bytes
    written = None
    if len(rec) >= 14:
        try:
            written = _dt.datetime.combine(smf_date(rec[10:14]), _dt.time()) + \
                _dt.timedelta(milliseconds=10 * u(rec[6:10], "big"))
        except RecordError:
            pass   # only RMF records need a valid date (checked in their product section)
    full = len(rec) >= 26
    return Header(rtype=rec[5], subtype=u(rec[22:24], "big") if full else 0, written=written,
                  system=ebcdic(rec[14:18]) if len(rec) >= 18 else "",
                  subsystem=ebcdic(rec[18:22]) if len(rec) >= 22 else "",
                  n_triplets=u(rec[24:26], "big") if full else 0)


def triplet(rec: bytes, at: int, what: str) -> tuple[int, int, int]:
    """The triplet (offset from RDW: 4 bytes, length: 2, number: 2) at byte ``at``, checked to lie
    inside the record."""
    if at + 8 > len(rec):
        raise RecordError(f"the {what} triplet at offset {at} inside the record", len(rec))
    off = int.from_bytes(rec[at:at + 4], "big")
    ln = int.from_bytes(rec[at + 4:at + 6], "big")
    n = int.from_bytes(rec[at + 6:at + 8], "big")
    if n and (ln == 0 or off < HEADER_LEN or off + ln * n > len(rec)):
        raise RecordError(f"{what} sections (offset {off}, length {ln}, number {n}) inside the "
                          f"{len(rec)}-byte record", (off, ln, n))
    return off, ln, n


def product(rec: bytes) -> Product:
    """Decode the RMF product section located by SMFxxPRS/PRL/PRN (offsets 28/32/34)."""
    off, ln, n = triplet(rec, 28, "RMF product section")
    if n < 1 or ln < PRODUCT_MIN_LEN:
        raise RecordError(f"one RMF product section of at least {PRODUCT_MIN_LEN} bytes", (off, ln, n))
    p = rec[off:off + ln]
    start = _dt.datetime.combine(smf_date(p[14:18]), _dt.time()) + rmf_time(p[10:14])
    interval_s = rmf_duration_s(p[18:22])
    if interval_s <= 0:
        raise RecordError("an interval length SMFxxINT > 0", interval_s)
    return Product(start=start, interval_s=interval_s, samples=int.from_bytes(p[24:28], "big"),
                   sysplex=ebcdic(p[88:96]), system_name=ebcdic(p[96:104]))


def sections(rec: bytes, trip: tuple[int, int, int], dtype: np.dtype, what: str) -> np.ndarray:
    """The ``number`` sections a triplet locates, as a structured array over the record's bytes
    (no copy): ``dtype`` holds the documented fields at their offsets; its itemsize is the section
    length the record states (a longer section from a newer release keeps its extra bytes unread)."""
    off, ln, n = trip
    if n == 0:
        return np.zeros(0, dtype=dtype)
    if ln < dtype.itemsize:
        raise RecordError(f"{what} sections of at least {dtype.itemsize} bytes", ln)
    dt = np.dtype({"names": dtype.names, "formats": [dtype.fields[k][0] for k in dtype.names],
                   "offsets": [dtype.fields[k][1] for k in dtype.names], "itemsize": ln})
    return np.frombuffer(rec, dtype=dt, count=n, offset=off)


def with_optional(dtype: np.dtype, optional: dict, section_len: int | None = None) -> np.dtype:
    """See :func:`_with_optional`; cached on the layout (called once per record)."""
    return _with_optional(dtype, tuple(optional.items()), section_len)


#: bytes of each optional field format ("hfp": an IBM short float read as its 4-byte word)
_OPT_SIZE = {"u1": 1, "u2": 2, "u4": 4, "u8": 8, "hfp": 4}
_OPT_DTYPE = {"u1": "u1", "u2": ">u2", "u4": ">u4", "u8": ">u8", "hfp": ">u4"}


@functools.lru_cache(maxsize=256)
def _with_optional(dtype: np.dtype, optional: tuple, section_len: int | None) -> np.dtype:
    """``dtype`` plus the fields of ``optional`` (name -> (offset, format), format "u1", "u2",
    "u4", "u8" or "hfp") that, if ``section_len`` is given, lie inside a section of that length: the
    fields a section carries only from some release on (an older, shorter section leaves them
    unread and their columns NaN). Fields may overlap (a union, e.g. SMF73CCM's words by
    measurement group). The itemsize grows to hold them (the writer's layout); :func:`sections`
    reads with the record's stated section length."""
    names, formats, offsets = list(dtype.names), [dtype.fields[k][0] for k in dtype.names], \
        [dtype.fields[k][1] for k in dtype.names]
    end = dtype.itemsize
    for k, (off, fmt) in optional:
        if section_len is not None and off + _OPT_SIZE[fmt] > section_len:
            continue
        names.append(k)
        formats.append(_OPT_DTYPE[fmt])
        offsets.append(off)
        end = max(end, off + _OPT_SIZE[fmt])
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": end})


# ---------------------------------------------------------------- framing

def iter_records(path) -> Iterator[tuple[int, int, bytes]]:
    """(record number from 1, byte offset of its first RDW, complete record with a 4-byte RDW) for
    every logical record of the file; spanned records (segment descriptor first/middle/last) are
    reassembled. Reads sequentially, one record in memory."""
    recno, pos = 0, 0
    pending: list[bytes] | None = None
    pend_at, pend_no = 0, 0
    with open(path, "rb") as f:
        while True:
            rdw = f.read(RDW_LEN)
            if not rdw:
                break
            recno += 1
            if len(rdw) < RDW_LEN:
                raise bad_record(path, recno, pos, "a 4-byte RDW (file ends inside one)", len(rdw))
            ln = int.from_bytes(rdw[0:2], "big")
            seg = rdw[2]
            if ln < RDW_LEN + 1 or rdw[3] != 0 or seg > 3:
                raise bad_record(path, recno, pos, "an RDW: length >= 5 (RDW included), segment "
                                 "descriptor X'0000', X'0100', X'0200' or X'0300'", rdw.hex().upper())
            body = f.read(ln - RDW_LEN)
            if len(body) < ln - RDW_LEN:
                raise bad_record(path, recno, pos, f"{ln} bytes as the RDW states (file ends after "
                                 f"{len(body) + RDW_LEN})", len(body) + RDW_LEN)
            if seg == 0 or seg == 1:
                if pending is not None:
                    raise bad_record(path, recno, pos, "the middle or last segment of the spanned "
                                     f"record begun at byte {pend_at}", f"segment descriptor {seg}")
                if seg == 0:
                    yield recno, pos, rdw + body
                else:
                    pending, pend_at, pend_no = [body], pos, recno
            else:
                if pending is None:
                    raise bad_record(path, recno, pos, "a first segment before a middle or last one",
                                     f"segment descriptor {seg}")
                pending.append(body)
                if seg == 2:
                    data = b"".join(pending)
                    if len(data) + RDW_LEN > MAX_RECORD_LEN:
                        raise bad_record(path, pend_no, pend_at, f"a spanned record of at most "
                                         f"{MAX_RECORD_LEN} bytes", len(data) + RDW_LEN)
                    yield pend_no, pend_at, (len(data) + RDW_LEN).to_bytes(2, "big") + b"\0\0" + data
                    pending = None
            pos += ln
    if pending is not None:
        raise bad_record(path, pend_no, pend_at, "the last segment of a spanned record (file ends)",
                         f"{len(pending)} segment(s)")


def sniff(head: bytes) -> bool:
    """True if ``head`` (the first bytes of a file) looks like an RDW-prefixed SMF dump: a plausible
    RDW, a valid packed date 0cyydddF in the header, and the next RDW (if within ``head``) plausible."""
    pos, seen = 0, 0
    while pos + 14 <= len(head) and seen < 4:
        ln = int.from_bytes(head[pos:pos + 2], "big")
        if ln < 18 or head[pos + 3] != 0 or head[pos + 2] > 3:
            return False
        if head[pos + 2] in (0, 1):   # a first or only segment carries the header
            try:
                smf_date(head[pos + 10:pos + 14])
            except RecordError:
                return False
        seen += 1
        pos += ln
    return seen > 0


# ---------------------------------------------------------------- tidy frames

def _column(level: str, name: str, v, n: int) -> np.ndarray:
    """One column of ``n`` rows in table.py's dtype for ``level``.``name`` (a scalar broadcast;
    None: NaN or '')."""
    d = {**KEYS, **COLUMNS[level]}[name][0]
    if d == "str":
        a = np.empty(n, dtype=object)
        a[:] = "" if v is None else v
        return a
    if d.startswith("datetime"):
        return np.broadcast_to(np.asarray(v, dtype="datetime64[ns]"), (n,))
    return np.full(n, np.nan) if v is None else np.broadcast_to(np.asarray(v, dtype=d), (n,))


def frame_from_parts(level: str, parts: list[tuple[dict, int]]) -> pd.DataFrame:
    """One frame of ``level`` from decoded parts, each (column name -> array or scalar, rows), with
    table.py's columns in order and dtypes: absent columns NaN / ''; an unknown one is a reader's bug."""
    known = columns(level)
    for cols, _n in parts:
        extra = set(cols) - set(known)
        if extra:
            raise ValueError(f"measured.{level}: unknown column(s) {sorted(extra)}")
    out = {c: np.concatenate([_column(level, c, cols.get(c), n) for cols, n in parts]) if parts
           else _column(level, c, None, 0) for c in known}
    return pd.DataFrame(out, columns=list(known))


def frame_from_columns(level: str, cols: dict[str, object], n: int) -> pd.DataFrame:
    """A frame of ``level`` from one set of columns (see :func:`frame_from_parts`)."""
    return frame_from_parts(level, [(cols, n)])
