"""SMF dumps in: the reader entry points :func:`sniff`, :func:`read` and :func:`iter_read`, which
frame the records (smf_record) and hand each RMF record to its decoder (smf73, smf74, smf78).

Records of other types or subtypes are skipped and counted in ``Measured.skipped``, never guessed at.
A record that cannot be framed or decoded is one :class:`~mcio.errors.McioError` naming the file, the
record number and its byte offset, and what was expected. Layouts, sources and formulas:
docs/measured_smf.md.
"""
from __future__ import annotations

import os
from typing import Callable, Iterator

from ..errors import McioError
from . import smf73, smf74, smf78
from .smf_record import (Header, Product, RecordError, bad_record, frame_from_columns, frame_from_parts,
                         header, hfp32, iter_records, product, sniff)
from .table import LEVELS, Measured


#: (record type, subtype) -> decoder(rec, header, product) -> ({level: (columns, rows)}, {kind:
#: count of records or sections skipped}); columns are arrays or scalars named as in table.py
Decoder = Callable[[bytes, Header, Product], tuple[dict[str, tuple[dict, int]], dict[str, int]]]


def _decoders() -> dict[tuple[int, int], Decoder]:
    return {(73, 1): smf73.decode_73, (74, 1): smf74.decode_74_1, (74, 5): smf74.decode_74_5,
            (78, 3): smf78.decode_78_3}


class _Chunk:
    """Decoded columns of the intervals met since the last flush (one frame per level is built at
    the flush, not one per record)."""

    def __init__(self):
        self.parts: dict[str, list[tuple[dict, int]]] = {lv: [] for lv in LEVELS}
        self.skipped: dict[str, int] = {}
        self.starts: set = set()

    def measured(self, source: str) -> Measured:
        frames = {lv: frame_from_parts(lv, p) for lv, p in self.parts.items() if p}
        return Measured(frames, [source], dict(self.skipped))


def iter_read(path, chunk_intervals: int = 96) -> Iterator[Measured]:
    """Stream a dump: one :class:`Measured` per ``chunk_intervals`` distinct interval starts (96 =
    one day of 15-minute intervals), in file order, memory bounded by one chunk. RMF writes an
    interval's records together; an interval whose records are scattered through the file can come
    out split across two chunks (``Measured.merge`` puts the rows together). ``skipped`` counts
    records by kind ("type 30", "74.3", "74.1 device class X'0080'") in the chunk that met them."""
    if chunk_intervals < 1:
        raise McioError("chunk_intervals", chunk_intervals, "an integer >= 1")
    if not os.path.isfile(path):
        raise McioError("SMF dump", str(path), "an existing file")
    decoders = _decoders()
    chunk = _Chunk()
    n_records = 0
    for recno, pos, rec in iter_records(path):
        n_records += 1
        try:
            h = header(rec)
        except RecordError as e:
            raise bad_record(path, recno, pos, e.expected, e.got) from None
        dec = decoders.get((h.rtype, h.subtype))
        if dec is None:
            key = f"{h.rtype}.{h.subtype}" if h.rtype in (70, 71, 72, 73, 74, 75, 76, 77, 78, 79) else f"type {h.rtype}"
            chunk.skipped[key] = chunk.skipped.get(key, 0) + 1
            continue
        try:
            p = product(rec)
            frames, skipped = dec(rec, h, p)
        except RecordError as e:
            raise bad_record(path, recno, pos, f"in SMF {h.rtype}.{h.subtype}: {e.expected}", e.got) from None
        if p.start not in chunk.starts and len(chunk.starts) >= chunk_intervals:
            yield chunk.measured(str(path))
            chunk = _Chunk()
        chunk.starts.add(p.start)
        for k, n in skipped.items():
            chunk.skipped[k] = chunk.skipped.get(k, 0) + n
        for lv, (cols, n) in frames.items():
            if n:
                chunk.parts[lv].append((cols, n))
    if n_records == 0:
        raise McioError(f"{path}: record 1 at byte 0", "end of file", "expected an RDW-prefixed SMF "
                        "record (the file is empty)")
    yield chunk.measured(str(path))


def read(path) -> Measured:
    """The whole dump as one :class:`Measured` (for a month of data use :func:`iter_read`)."""
    out = Measured(sources=[str(path)])
    for m in iter_read(path, chunk_intervals=1 << 30):
        out = out.merge(m)
    out.sources = [str(path)]
    return out


__all__ = ["sniff", "read", "iter_read", "iter_records", "header", "product", "hfp32", "Header",
           "Product", "RecordError", "frame_from_columns", "frame_from_parts"]
