"""The part record: one point's arrays, raw, as a sweep's points log and a Dask worker hold them.

A part record is raw arrays, not netCDF (a netCDF file per point cost more than most points take
to simulate): ``MAGIC``, the record length (uint64 LE), the point index (int64, so a record cut
short still says whose it was) and the header length (uint64), a JSON header (spec hash, point
index and coordinates, attributes, and per variable its dims, dtype, shape, offset and
attributes), the arrays' bytes, and a CRC-32 of everything after the lengths. The bytes lie where
the offsets say: an engine point's first variables are its one buffer as it is
(:class:`mcio.part.Layout`, in the buffer's order), the variables added after it follow.

A sweep's own log holds that table of variables (the same at every point, ~90 % of a record's
bytes) once: a *layout record* (point -1, header ``{"format": 2, "layout": ID, "vars": [...]}``,
no arrays) written in the same os.write as the first point that uses it, and format-2 point
records that name it by ID. Format 1 (the table in the record) is what a Dask worker sends.
tests/test_golden_store.py pins these bytes.
"""
from __future__ import annotations

import hashlib
import json
import math
import struct
import zlib

import numpy as np

from ..errors import McioError
from ..part import Layout, Part

MAGIC = b"MCIOPART\x01\n"
#: Variables every part must hold (a part missing one is damaged, whatever else it has).
CORE_VARS = ("response_ms", "throughput_iops", "ios_measured", "unstable")


_PLAIN = frozenset({str, int, float, bool, type(None)})


def _json_value(v):
    """Attributes as JSON: numpy scalars as Python numbers, anything else as a string."""
    if type(v) in _PLAIN:   # (most values: one test)
        return v
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    if isinstance(v, (str, int, float)) or v is None:
        return v
    if isinstance(v, (list, tuple)):
        return [_json_value(x) for x in v]
    if isinstance(v, np.ndarray) and v.ndim == 1 and v.dtype.kind in "iuf":
        return [_json_value(x) for x in v]   # e.g. CF flag_values
    return str(v)


def _json_dict(d: dict) -> dict:
    """``d`` with :func:`_json_value` applied to each value."""
    return {k: _json_value(v) for k, v in d.items()}


def _entry(name, dims, dtype, shape, attrs, is_coord, offset: int, nbytes: int) -> dict:
    """A variable's entry in a record's table of variables (offset and size in bytes into the
    record's arrays). Raises McioError for a dtype a part cannot hold."""
    if dtype.kind not in "biufU":
        raise McioError("part", name, f"dtype {dtype} cannot be stored in a part")
    return {"name": name, "dims": list(dims), "dtype": dtype.str, "shape": list(shape), "coord": bool(is_coord),
            "attrs": _json_dict(attrs), "offset": offset, "nbytes": nbytes}


def _table(part: Part) -> tuple[str, str, tuple]:
    """``(table, layout ID, arrays)`` of a record of ``part``: the text of its ``"vars"`` list
    (without the brackets), a hash of that text, and the arrays whose bytes follow the header.
    A packed Part's buffer is its first variables' bytes, as it is (in the buffer's order, as its
    :class:`mcio.part.Layout` says); the variables after them follow. The table of a Part that is
    its buffer alone is the same at every point of that layout: kept in ``layout.cache``."""
    packed = part.packed_prefix()
    entries, arrays, offset = [], [], 0
    if packed is not None:
        layout, buf, names, part_vars = packed
        n = len(layout.names)
        if len(names) == n and "table" in layout.cache:
            return (*layout.cache["table"], (buf,))
        rest = tuple(zip(names[n:], part_vars[n:]))
        for name, (dims, attrs, is_coord), dt, shape, off in zip(layout.names, layout.metas, layout.dtypes,
                                                                  layout.shapes, layout.offsets):
            entries.append(_entry(name, dims, dt, shape, attrs, is_coord, off, dt.itemsize * math.prod(shape)))
        arrays.append(buf)
        offset = layout.nbytes
    else:
        rest = tuple(part.vars.items())
    for name, (dims, a, attrs, is_coord) in rest:
        a = np.asarray(a)
        entries.append(_entry(name, dims, a.dtype, a.shape, attrs, is_coord, offset, a.nbytes))
        arrays.append(a)
        offset += a.nbytes
    table = json.dumps(entries)[1:-1]
    lid = hashlib.sha256(table.encode()).hexdigest()[:32]
    if packed is not None and not rest:
        layout.cache["table"] = (table, lid)
    return table, lid, tuple(arrays)


LAYOUT_POINT = -1   # the point field of a layout record


def _frame(point: int, header: bytes, arrays=()) -> bytes:
    """A record: MAGIC, its length, the point, the header's length, the header, the arrays'
    bytes, and the CRC-32 of everything after the record length."""
    try:   # C-contiguous arrays' memory (and a packed Part's buffer) as it is
        body = b"".join(arrays)
    except (TypeError, BufferError):   # another layout: tobytes is C order whatever the layout
        body = b"".join(map(np.ndarray.tobytes, arrays))
    head = struct.pack("<qQ", int(point), len(header))
    crc = zlib.crc32(body, zlib.crc32(header, zlib.crc32(head)))
    return b"".join((MAGIC, struct.pack("<Q", 20 + len(header) + len(body)), head, header, body,
                     struct.pack("<I", crc)))


def encode_part(ds_or_part, spec_sha256: str, point: int, coords: dict,
                layouts: set | None = None) -> tuple[bytes, str | None]:
    """A part record for point ``point`` (see the module docstring for the layout) and the layout
    ID it introduces. ``layouts=None``: a self-contained record (format 1), no ID. Else
    ``layouts`` holds the IDs of the layout records the log already has: the record names its
    table by ID (format 2), preceded by that table's layout record when the ID is not among
    them; the new ID is returned (the caller adds it once the bytes are written), else None."""
    part = ds_or_part if isinstance(ds_or_part, Part) else Part.from_dataset(ds_or_part, point, coords)
    table, lid, arrays = _table(part)
    header = {"format": 1 if layouts is None else 2, "spec_sha256": spec_sha256, "point": int(point),
              "coords": _json_dict(coords), "attrs": _json_dict(part.attrs)}
    if layouts is None:
        return _frame(point, (json.dumps(header)[:-1] + ', "vars": [' + table + "]}").encode(), arrays), None
    header["layout"] = lid
    rec = _frame(point, json.dumps(header).encode(), arrays)
    if lid in layouts:
        return rec, None
    return _frame(LAYOUT_POINT, f'{{"format": 2, "layout": "{lid}", "vars": [{table}]}}'.encode()) + rec, lid


def part_bytes(ds_or_part, spec_sha256: str, point: int, coords: dict) -> bytes:
    """A self-contained part record (format 1: its table of variables inside) for point ``point``."""
    return encode_part(ds_or_part, spec_sha256, point, coords)[0]


def read_layout(data: bytes) -> tuple[str, list]:
    """(ID, table of variables) of a whole, checksummed layout record; PartError if it is not one."""
    if not data.startswith(MAGIC) or len(data) < len(MAGIC) + 20:
        raise PartError("not an mcio layout record")
    try:
        h = _header(data)
        return str(h["layout"]), list(h["vars"])
    except (ValueError, KeyError, TypeError) as e:
        raise PartError(f"malformed layout record ({type(e).__name__}: {e})") from None


def is_layout_record(rec: bytes) -> bool:
    """Whether a record's fixed point field marks it a layout record (readable when cut short)."""
    return (rec.startswith(MAGIC) and len(rec) >= len(MAGIC) + 16
            and struct.unpack("<q", rec[len(MAGIC) + 8:len(MAGIC) + 16])[0] == LAYOUT_POINT)


def read_log(data: bytes):
    """The layouts of a points log ({ID: (table, record bytes)}, from its whole layout records)
    and its records as :func:`split_log` yields them, layout records included."""
    records = list(split_log(data))
    return log_layouts(records), records


def log_layouts(records) -> dict:
    """{ID: (table, record bytes)} of the whole layout records among ``records`` (``(offset,
    bytes, reason)`` as :func:`split_log` yields them: a list, or the generator itself, so that
    a long log's records need not all be held at once)."""
    layouts = {}
    for _, rec, why in records:
        if not why and is_layout_record(rec):
            try:
                lid, table = read_layout(rec)
            except PartError:
                continue
            layouts.setdefault(lid, (table, rec))
    return layouts


def read_sent(data: bytes, point: int, layouts: dict) -> tuple[bytes, Part]:
    """A part a Dask worker sent: one part record, after its layout record the first time the
    worker's task used that layout (:func:`encode_part` with the task's own set of IDs).
    ``layouts`` ({ID: (table, record bytes)}, the client's so far) gains a new layout. Returns
    (the bytes for the points log: the part record, with its layout record only where
    ``layouts`` lacked it, so the log holds each layout once as in-process; the Part). PartError
    if the bytes are anything else."""
    recs = list(split_log(data))
    if (not 1 <= len(recs) <= 2 or any(why for _, _, why in recs)
            or (len(recs) == 2 and not is_layout_record(recs[0][1])) or is_layout_record(recs[-1][1])):
        raise PartError("not a part record, with or without its layout record")
    keep = data
    if len(recs) == 2:
        lid, table = read_layout(recs[0][1])
        if lid in layouts:
            keep = recs[1][1]
        else:
            layouts[lid] = (table, recs[0][1])
    return keep, read_part(recs[-1][1], None, point, layouts=layouts)


class PartError(ValueError):
    """A part file that cannot be used; ``reason`` says why in a few words."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def read_part(data: bytes, spec_sha256: str | None = None, point: int | None = None,
              coords: dict | None = None, layouts: dict | None = None) -> Part:
    """Decode and check a part's bytes (``layouts``: {ID: (table, ...)} of the log it is in, for a
    format-2 record). Raises PartError saying why it cannot be used: not a part, truncated,
    corrupt (CRC), another spec, another point or coordinates, its layout missing, a variable
    missing."""
    if len(data) == 0:
        raise PartError("empty")
    if not data.startswith(MAGIC):
        raise PartError("not an mcio part record")
    if len(data) < len(MAGIC) + 20:
        raise PartError("truncated")
    (rlen,) = struct.unpack("<Q", data[len(MAGIC):len(MAGIC) + 8])
    if len(MAGIC) + 8 + rlen != len(data):
        raise PartError("truncated" if len(MAGIC) + 8 + rlen > len(data) else "trailing bytes")
    body, crc = data[len(MAGIC) + 8:-4], data[-4:]
    (hlen,) = struct.unpack("<Q", body[8:16])
    if 16 + hlen > len(body):
        raise PartError("truncated")
    if struct.unpack("<I", crc)[0] != zlib.crc32(body):
        raise PartError("truncated or corrupt (checksum mismatch)")
    try:
        h = json.loads(body[16:16 + hlen])
        blob = memoryview(body)[16 + hlen:]
        if spec_sha256 is not None and h["spec_sha256"] != spec_sha256:
            raise PartError("written by a different spec")
        if point is not None and h["point"] != point:
            raise PartError(f"holds point {h['point']}, not {point}")
        if coords is not None and h["coords"] != {k: _json_value(v) for k, v in coords.items()}:
            raise PartError(f"coordinates {h['coords']} are not those of point {point}")
        if h.get("format", 1) == 2:
            got = (layouts or {}).get(h["layout"])
            if got is None:
                raise PartError("its layout record is missing or damaged")
            table = got[0]   # (its attrs are this log's; the checked rest is kept by the record's bytes)
            key = got[1] if len(got) > 1 and isinstance(got[1], bytes) else None
            cached = _CHECKED.get(key) if key is not None else None
            if cached is None or cached[2] is not table:
                entries = _checked_table(table)
                cached = (entries, _layout_of(table, entries), table)
                if key is not None:
                    if len(_CHECKED) >= 256:
                        _CHECKED.clear()
                    _CHECKED[key] = cached
            entries, layout = cached[:2]
        else:
            table = h["vars"]
            entries, layout = _checked_table(table), None
        out = {}
        for t, (name, dims, shape, dt, offset, nbytes, is_coord) in zip(table, entries):
            if offset + nbytes > len(blob):
                raise PartError(f"variable {name} runs past the end")
            out[name] = (dims, np.frombuffer(blob[offset:offset + nbytes], dtype=dt).reshape(shape), t["attrs"],
                         is_coord)
    except PartError:
        raise
    except (ValueError, KeyError, TypeError) as e:
        raise PartError(f"malformed header ({type(e).__name__}: {e})") from None
    missing = [v for v in CORE_VARS if v not in out]
    if missing:
        raise PartError(f"lacks variable(s) {', '.join(missing)}")
    # a format-2 record's variables are views of its blob as its layout places them: a packed
    # Part (mcio.part), which a sweep stacks a block of rows at a time (mcio.batch.collect)
    packed = (layout, blob, tuple(out.values())) if layout is not None and len(blob) >= layout.nbytes else None
    return Part(h["point"], h["coords"], h["attrs"], out, packed=packed)


def _layout_of(table: list, entries: list) -> Layout | None:
    """The :class:`mcio.part.Layout` of a checked table whose names are distinct (else None)."""
    names = [e[0] for e in entries]
    if len(set(names)) != len(names):
        return None
    return Layout(names, [(e[1], t["attrs"], e[6]) for t, e in zip(table, entries)], [e[3] for e in entries],
                  [e[2] for e in entries], [e[4] for e in entries],
                  max((e[4] + e[5] for e in entries), default=0))


_CHECKED: dict = {}   # by a layout record's bytes: its checked table, its Layout, the table it was read as


def _checked_table(table: list) -> list:
    """A record's table of variables, each entry checked (:func:`_checked_entry`), as tuples
    (name, dims, shape, dtype, offset, nbytes, is_coord)."""
    sizes, out = {}, []
    for t in table:
        dims, shape, dt = _checked_entry(t, sizes)
        offset, nbytes = t["offset"], t["nbytes"]
        if not (type(offset) is int and offset >= 0):
            raise PartError(f"variable {t['name']}: offset {offset!r}")
        out.append((t["name"], dims, shape, dt, offset, nbytes, t["coord"]))
    return out


def _checked_entry(t: dict, sizes: dict) -> tuple[tuple, tuple, np.dtype]:
    """(dims, shape, dtype) of a table entry, checked: dims names and a shape of as many sizes
    (whole numbers >= 0), a dtype a part holds, ``nbytes`` = its size x itemsize, each dim of one
    size across the record (``sizes``, filled here) and a dimension coordinate as long as its dim.
    PartError otherwise (a record that would break stacking, not a point's figures)."""
    name, dims, shape = t["name"], t["dims"], t["shape"]
    if not (isinstance(name, str) and isinstance(dims, list) and isinstance(shape, list)
            and all(isinstance(d, str) for d in dims) and len(dims) == len(shape)
            and all(type(n) is int and n >= 0 for n in shape) and len(set(dims)) == len(dims)):
        raise PartError(f"variable {name!r}: dims {dims!r} and shape {shape!r} do not match")
    dt = np.dtype(t["dtype"])
    if dt.kind not in "biufU" or dt.hasobject:
        raise PartError(f"variable {name}: dtype {dt} is not one a part holds")
    if t["nbytes"] != dt.itemsize * math.prod(shape):
        raise PartError(f"variable {name}: {t['nbytes']} bytes for shape {tuple(shape)} of {dt}")
    for d, n in zip(dims, shape):
        if sizes.setdefault(d, n) != n:
            raise PartError(f"dimension {d} has sizes {sizes[d]} and {n} (variable {name})")
    return tuple(dims), tuple(shape), dt


#: Dimensions of one size at every point of a sweep (the run's replications), unlike e.g.
#: ``channel``, whose size a sweep axis may change (the stacking aligns such dims by label).
UNIFORM_DIMS = ("replication",)


def part_signature(part: Part) -> tuple[tuple, dict]:
    """``(structure, sizes)`` of a part: structure a sorted tuple of (name, dims, dtype, is_coord)
    of every variable (text as text, whatever its length), sizes {dim: size}. Points of one sweep
    share a variable's dims and dtype wherever it is held, and the sizes of :data:`UNIFORM_DIMS`."""
    structure, sizes = [], {}
    for name, (dims, a, _, is_coord) in part.vars.items():
        a = np.asarray(a)
        kind = "<U" if a.dtype.kind == "U" else a.dtype.str   # (a text's length may differ by point)
        structure.append((name, tuple(dims), kind, bool(is_coord)))
        for d, n in zip(dims, a.shape):
            sizes.setdefault(d, n)
    return tuple(sorted(structure)), sizes


def split_log(data: bytes):
    """Yield ``(offset, bytes, reason)`` for each record of a points log, ``reason`` empty for a
    whole record; a damaged one (reason given, its bytes as found) is skipped by its length prefix
    when the next record's magic follows it, else up to the next magic (or the end)."""
    o, n, head = 0, len(data), len(MAGIC) + 8
    while o < n:
        if not data.startswith(MAGIC, o):
            nxt = data.find(MAGIC, o + 1)
            end = nxt if nxt > 0 else n
            yield o, data[o:end], f"{end - o} bytes that are no part record"
            o = end
            continue
        if o + head > n:
            yield o, data[o:], "a truncated record"
            return
        (rlen,) = struct.unpack("<Q", data[o + len(MAGIC):o + head])
        end = o + head + rlen
        whole = end <= n and rlen >= 20 and \
            struct.unpack("<I", data[end - 4:end])[0] == zlib.crc32(data[o + head:end - 4])
        if whole:
            yield o, data[o:end], ""
            o = end
            continue
        nxt = data.find(MAGIC, o + 1)  # a damaged record: resume at the next record's magic
        stop = nxt if nxt > 0 else n
        why = "a truncated record" if end > n and stop == n else "a corrupt record (checksum mismatch)"
        yield o, data[o:stop], why
        o = stop


def _record_point(rec: bytes) -> int | None:
    """The point index a record's fixed field names (readable in a record cut short), or None."""
    if not rec.startswith(MAGIC) or len(rec) < len(MAGIC) + 16:
        return None
    (p,) = struct.unpack("<q", rec[len(MAGIC) + 8:len(MAGIC) + 16])
    return p if p >= 0 else None


def _header(rec: bytes) -> dict:
    """The JSON header of a whole record (after MAGIC, the record length, the point and the
    header length)."""
    (hlen,) = struct.unpack("<Q", rec[len(MAGIC) + 16:len(MAGIC) + 24])
    return json.loads(rec[len(MAGIC) + 24:len(MAGIC) + 24 + hlen])


def _record_layout(rec: bytes) -> str | None:
    """The layout ID a whole format-2 point record names (None for format 1)."""
    h = _header(rec)
    return h.get("layout") if h.get("format", 1) == 2 else None
