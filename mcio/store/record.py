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
import itertools
import json
import math
import operator
import struct
import zlib
from types import MappingProxyType

import numpy as np

from ..errors import McioError
from ..part import Part

MAGIC = b"MCIOPART\x01\n"
#: Variables every part must hold (a part missing one is damaged, whatever else it has).
CORE_VARS = ("response_ms", "throughput_iops", "ios_measured", "unstable")


def _json_value(v):
    """Attributes as JSON: numpy scalars as Python numbers, anything else as a string."""
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


_FRAGMENTS: dict = {}  # JSON of a variable's fixed description, by (name, dims, dtype, shape, coord, attrs)
_HEADS: dict = {}      # a part header's first members, by (format, spec hash): the same for a whole sweep
_TABLES: dict = {}     # whole parts' tables of variables, by the variables' names (see _table)


def _var_json(name, dims, dtype, shape, attrs, is_coord) -> str:
    """A variable's entry in a part header without offset and size, from a cache: the same 40
    variables recur at every point, and encoding their attributes was half a part's cost."""
    try:
        key = (name, dims, dtype.str, shape, is_coord, tuple(attrs.items()))
        hit = _FRAGMENTS.get(key)
    except TypeError:  # an unhashable attribute value
        key, hit = None, None
    if hit is None:
        hit = json.dumps({"name": name, "dims": list(dims), "dtype": dtype.str, "shape": list(shape),
                          "coord": bool(is_coord), "attrs": {k: _json_value(x) for k, x in attrs.items()}})[:-1]
        if key is not None and len(_FRAGMENTS) < 4096:
            _FRAGMENTS[key] = hit
    return hit


_DTYPE_SHAPE = operator.attrgetter("dtype", "shape")
_ARRAY = operator.itemgetter(1)        # of a Part entry
_META = operator.itemgetter(0, 2, 3)   # (dims, attrs, is_coord) of a Part entry


def _table(names: tuple, arrays: tuple, part_vars: tuple, layout=None) -> tuple[str, str]:
    """The ``"vars"`` table of a part header, one entry per variable (:func:`_var_json` with its
    offset and size), and its layout ID (a hash of the table). Every point of a sweep has the
    same layout (names, dtypes, shapes, dims, attributes), so whole tables are cached: found by
    the names, then the dtypes and shapes, and the (dims, attributes, is_coord), each compared
    in one tuple comparison (the attributes by identity where the engine shares them, read-only
    mappings the cache keeps alive, or else by value). Raises McioError for a dtype a part
    cannot hold (a cached layout has passed). ``names`` are the Part's names; ``arrays`` and
    ``part_vars`` its arrays and entries, or with ``layout`` (a :class:`mcio.part.Layout` whose
    buffer holds the first variables: :meth:`Part.packed_prefix`) those of the variables after
    them, whose bytes follow the buffer's; that table is cached in the layout."""
    shapes = tuple(map(_DTYPE_SHAPE, arrays))
    meta = tuple(map(_META, part_vars))
    if layout is None:
        cache, key, first = _TABLES, names, 0
    else:
        cache, first = layout.cache, len(layout.names)
        key = names[first:]
    hits = cache.get(key)
    if hits is not None:
        for kept_shapes, kept, table, lid in hits:
            if shapes == kept_shapes and _same_meta(meta, kept):
                return table, lid
    entries, offset = [], 0
    if layout is not None:   # the buffer's variables, as the layout says, then the others
        for name, dt in zip(layout.names, layout.dtypes):
            if dt.kind not in "biufU":
                raise McioError("part", name, f"dtype {dt} cannot be stored in a part")
        for name, (dims, at, is_coord), dt, shape, off in zip(layout.names, layout.metas, layout.dtypes,
                                                               layout.shapes, layout.offsets):
            entries.append(f'{_var_json(name, tuple(dims), dt, shape, at, is_coord)}, "offset": {off}, '
                           f'"nbytes": {dt.itemsize * math.prod(shape)}}}')
        offset = layout.nbytes
    for name, a in zip(names[first:], arrays):
        if a.dtype.kind not in "biufU":
            raise McioError("part", name, f"dtype {a.dtype} cannot be stored in a part")
    for name, a, (dims, at, is_coord) in zip(names[first:], arrays, meta):
        n = a.nbytes
        entries.append(f'{_var_json(name, tuple(dims), a.dtype, a.shape, at, is_coord)}, "offset": {offset}, '
                       f'"nbytes": {n}}}')
        offset += n
    table = ", ".join(entries)
    lid = hashlib.sha256(table.encode()).hexdigest()[:32]
    if hits is None and len(cache) >= 64:
        return table, lid
    # read-only attributes (the engine's, shared by every point) are kept as they are, so the
    # next point's are the same objects; any other mapping is copied
    kept = tuple((tuple(d), at if isinstance(at, MappingProxyType) else dict(at), bool(c)) for d, at, c in meta)
    # the newest first (a sweep's every point), at most 8 layouts of the same names
    cache[key] = [(shapes, kept, table, lid), *(hits or ())][:8]
    return table, lid


def _same_meta(meta: tuple, kept: tuple) -> bool:
    """Whether a part's (dims, attributes, is_coord) per variable encode as a cached layout's:
    one tuple comparison where every attribute mapping is the cached one (identity) or equal."""
    try:
        if meta == kept:
            return True
    except (ValueError, TypeError):   # an array among attribute values: no plain truth value
        pass
    return all(tuple(d) == kd and bool(c) == kc and _same_attrs(at, kat)
               for (d, at, c), (kd, kat, kc) in zip(meta, kept))


def _same_attrs(a: dict, b: dict) -> bool:
    """Whether two variables' attributes encode alike (arrays, e.g. CF flag_values, by value)."""
    try:
        return a == b
    except (ValueError, TypeError):   # an array among the values: no plain truth value
        pass
    if a.keys() != b.keys():
        return False
    for k, x in a.items():
        y = b[k]
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            if not (isinstance(x, np.ndarray) and isinstance(y, np.ndarray) and x.dtype == y.dtype
                    and x.shape == y.shape and bool((x == y).all())):
                return False
        elif not x == y:
            return False
    return True


LAYOUT_POINT = -1   # the point field of a layout record


def _frame(point: int, header: bytes, arrays=()) -> bytes:
    """A record: MAGIC, its length, the point, the header's length, the header, the arrays'
    bytes, and the CRC-32 of everything after the record length (chained over the pieces: one
    join; a sweep's point is framed right after its kernels, where every statement costs us)."""
    if len(arrays) == 1 and type(arrays[0]) is bytearray:
        body = arrays[0]   # (a packed Part's buffer, as it is)
    else:
        try:   # C-contiguous arrays' memory as it is (their buffers)
            body = b"".join(arrays)
        except (TypeError, BufferError):   # another layout: tobytes is C order whatever the layout
            body = b"".join(map(np.ndarray.tobytes, arrays))
    head = _POINT_HEAD.pack(int(point), len(header))
    crc = zlib.crc32(body, zlib.crc32(header, zlib.crc32(head)))
    return b"".join((MAGIC, _U64.pack(20 + len(header) + len(body)), head, header, body, _U32.pack(crc)))


_POINT_HEAD = struct.Struct("<qQ")   # a record's point and its header's length
_U64 = struct.Struct("<Q")
_U32 = struct.Struct("<I")


def _record_head(spec_sha256: str, point: int, coords: dict, fmt: int) -> str:
    """The text a format-``fmt`` header of point ``point`` starts with, up to its attributes'
    value (spec hash, point, coordinates)."""
    start = _HEADS.get((fmt, spec_sha256))
    if start is None:
        if len(_HEADS) >= 64:
            _HEADS.clear()
        start = _HEADS[fmt, spec_sha256] = f'{{"format": {fmt}, "spec_sha256": {_json_text(spec_sha256)}, '
    return f'{start}"point": {int(point)}, "coords": {_json_object(coords)}, "attrs": '


def encode_part(ds_or_part, spec_sha256: str, point: int, coords: dict,
                layouts: set | None = None, head: str | None = None) -> tuple[bytes, str | None]:
    """A part record for point ``point`` (see the module docstring for the layout) and the layout
    ID it introduces. ``layouts=None``: a self-contained record (format 1), no ID. Else
    ``layouts`` holds the IDs of the layout records the log already has: the record names its
    table by ID (format 2), preceded by that table's layout record when the ID is not among
    them; the new ID is returned (the caller adds it once the bytes are written), else None.
    ``head``: the header's start for these spec hash, point, coordinates and format
    (``_record_head``, :meth:`PartStore.heads`), if made already."""
    part = ds_or_part if isinstance(ds_or_part, Part) else Part.from_dataset(ds_or_part, point, coords)
    packed = part.packed_prefix()
    if packed is not None:   # the engine's variables in one buffer, known by their layout
        layout, buf, names, part_vars = packed
        part_vars = part_vars[len(layout.names):]
        if part_vars:   # variables added after the buffer's
            arrays = tuple(map(np.asarray, map(_ARRAY, part_vars)))
            table, lid = _table(names, arrays, part_vars, layout)
            arrays = (buf, *arrays)
        else:   # (a sweep's point: every variable in the buffer)
            got = layout.cache.get(None)
            if got is None:
                got = layout.cache[None] = _table(names, (), (), layout)
            table, lid = got
            arrays = (buf,)
    else:
        names = tuple(part.vars)
        part_vars = tuple(part.vars.values())
        arrays = tuple(map(np.asarray, map(_ARRAY, part_vars)))
        table, lid = _table(names, arrays, part_vars)
    fmt = 1 if layouts is None else 2
    if head is None:
        head = _record_head(spec_sha256, point, coords, fmt)
    head += _json_object(part.attrs)
    if layouts is None:
        return _frame(point, (head + ', "vars": [' + table + "]}").encode(), arrays), None
    header = (head + f', "layout": "{lid}"}}').encode()
    rec = _frame(point, header, arrays)
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
    layouts = {}
    for _, rec, why in records:
        if not why and is_layout_record(rec):
            try:
                lid, table = read_layout(rec)
            except PartError:
                continue
            layouts.setdefault(lid, (table, rec))
    return layouts, records


_PLAIN = frozenset({str, int, float, bool, type(None)})
_CACHED = frozenset({str, int, bool, type(None)})   # values whose equal ones have one text (not 0.0 and -0.0)
_LAST: dict = {}   # by a dict's keys: (its values, _NEVER for a mutable one; their '"key": value' texts), never changed in place
_NEVER = object()  # in _LAST, a value that is formatted again whatever comes (a list, an array)


def _json_object(d: dict) -> str:
    """``json.dumps(_json_dict(d))``, the same text, reusing the member texts of the last dict
    with the same keys where a value is the same str / int / float / bool / None object, or an
    equal str / int / bool / None (a sweep's points have the same attributes, most unchanged:
    only those that changed are formatted, found by one identity pass in C; an equal float is
    formatted again, as 0.0 and -0.0 print differently; a mutable value, a list or an array,
    always is)."""
    keys = tuple(d)
    vals = tuple(d.values())
    last = _LAST.get(keys)
    try:
        if last is None:
            texts = []
            for k, v in zip(keys, vals):
                if type(k) is not str:
                    return json.dumps(_json_dict(d))
                texts.append(f"{_json_text(k)}: {_json_text(v)}")
            if len(_LAST) >= 64:
                _LAST.clear()
            _LAST[keys] = ([v if type(v) in _PLAIN else _NEVER for v in vals], texts)
        else:   # (copies, replaced whole: threads encoding side by side each see one consistent pair)
            kept, texts = list(last[0]), list(last[1])
            for i in itertools.compress(range(len(vals)), map(operator.is_not, vals, kept)):
                v, old = vals[i], kept[i]
                t = type(v)
                if not (t is type(old) and t in _CACHED and v == old):
                    texts[i] = f"{_json_text(keys[i])}: {_json_text(v)}"
                kept[i] = v if t in _PLAIN else _NEVER
            _LAST[keys] = (kept, texts)
    except TypeError:   # (a value json cannot take as it is)
        return json.dumps(_json_dict(d))
    return "{" + ", ".join(texts) + "}"


def _json_text(v) -> str:
    """``json.dumps(_json_value(v))``, the same text, without the encoder's machinery for the
    common members (a printable ASCII str, an int, a finite float): a point's new values (its
    index, its coordinates, its time) cost two json.dumps calls each, ~10 us cold."""
    t = type(v)
    if t is str:
        if v.isascii() and v.isprintable() and '"' not in v and "\\" not in v:
            return f'"{v}"'
    elif t is int:
        return int.__repr__(v)
    elif t is float and math.isfinite(v):
        return float.__repr__(v)
    return json.dumps(_json_value(v))


def _json_dict(d: dict) -> dict:
    """``d`` with :func:`_json_value` applied to each value (``d`` itself where every value is a
    plain str / int / float / bool / None, which it leaves alone)."""
    if all(type(v) in _PLAIN for v in d.values()):
        return d
    return {k: _json_value(v) for k, v in d.items()}


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
            table = got[0]
        else:
            table = h["vars"]
        out = {}
        for t in table:
            if t["offset"] + t["nbytes"] > len(blob):
                raise PartError(f"variable {t['name']} runs past the end")
            a = np.frombuffer(blob[t["offset"]:t["offset"] + t["nbytes"]], dtype=np.dtype(t["dtype"]))
            a = a.reshape(tuple(t["shape"]))
            out[t["name"]] = (tuple(t["dims"]), a, t["attrs"], t["coord"])
    except PartError:
        raise
    except (ValueError, KeyError, TypeError) as e:
        raise PartError(f"malformed header ({type(e).__name__}: {e})") from None
    missing = [v for v in CORE_VARS if v not in out]
    if missing:
        raise PartError(f"lacks variable(s) {', '.join(missing)}")
    return Part(h["point"], h["coords"], h["attrs"], out)


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
