"""Results on disk: netCDF-4 (HDF5) final files, and the checkpoint of a running sweep.

A sweep writing ``OUT.h5`` appends each finished point to ``OUT.h5.parts/points.log`` (one record
per point, one write each: see :class:`PartStore`), with the spec text beside it in
``OUT.h5.parts/spec.toml``. When every point is done the combined file is written to
``OUT.h5.tmp`` and renamed to ``OUT.h5``: a file under the final name is always complete. On Dask a
worker encodes its point's part (:func:`part_bytes`) and this process stores it the same way.

A part record is raw arrays, not netCDF (a netCDF file per point cost ~0.3 s, more than most
points take to simulate): ``MAGIC``, the record length (uint64 LE), the point index (int64, so a
record cut short still says whose it was) and the header length (uint64), a JSON
header (spec hash, point index and coordinates, attributes, and per variable its dims, dtype,
shape, offset and attributes), the arrays' bytes, and a CRC-32 of everything after the lengths.
The bytes lie where the offsets say: an engine point's first variables are its one buffer as it
is (:class:`mcio.part.Layout`, in the buffer's order), the variables added after it follow.
A sweep's own log holds that table of variables (the same at every point, ~90 % of a record's
bytes) once: a *layout record* (point -1, header ``{"format": 2, "layout": ID, "vars": [...]}``,
no arrays) written in the same os.write as the first point that uses it, and format-2 point
records that name it by ID. Format 1 (the table in the record) is what a Dask worker sends.
The final file is written with h5py directly in netCDF-4's layout (:func:`write_netcdf4`). :meth:`PartStore.validate` checks each
part on resume (whole, same spec, same point and coordinates, every variable) so a damaged one is
recomputed, not merged. ``OUT.h5.lock`` (an flock) keeps two sweeps off one output.
"""
from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import io
import itertools
import json
import math
import operator
import os
import queue
import shutil
import struct
import sys
import threading
import time
import tomllib
import zlib
from pathlib import Path
from types import MappingProxyType
from typing import Callable

import numpy as np

from ..errors import McioError
from ..part import Part, variable

COMPRESSION = {"zlib": True, "complevel": 4}
#: The one CF convention every mcio results file declares (sweeps, ISFC links, scripts' files).
CONVENTIONS = "CF-1.8"  # the newest version the reference checker (cfchecker 4.1) knows; these files use nothing later
SPEC_FILE = "spec.toml"
MAGIC = b"MCIOPART\x01\n"
#: Target size of one HDF5 chunk of the final file: a 1e5-point sweep reads in slices of ~this.
CHUNK_BYTES = 1 << 20
#: A numeric variable smaller than this is stored contiguous and uncompressed: compressing it
#: saved little or nothing (a chunk index and a filter pipeline per variable: the main job's file
#: was 161 kB compressed, 58 kB contiguous) and cost a 400-point grid's final file ~13 of ~40 ms.
SMALL_BYTES = 64 << 10
#: Variables every part must hold (a part missing one is damaged, whatever else it has).
CORE_VARS = ("response_ms", "throughput_iops", "ios_measured", "unstable")


def parts_dir(out) -> Path:
    out = Path(out)
    return out.with_name(out.name + ".parts")


def tmp_path(out) -> Path:
    out = Path(out)
    return out.with_name(out.name + ".tmp")


def lock_path(out) -> Path:
    out = Path(out)
    return out.with_name(out.name + ".lock")


def spec_hash(text: str) -> str:
    """SHA-256 of a spec's TOML content (parsed: comments and layout do not count)."""
    try:
        canon = json.dumps(tomllib.loads(text), sort_keys=True, default=str)
    except tomllib.TOMLDecodeError:
        canon = text
    return hashlib.sha256(canon.encode()).hexdigest()


def check_writable(path, what: str = "output") -> Path:
    """Raise McioError unless a file can be created at ``path`` (its directory exists and is writable)."""
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    if p.exists() and p.is_dir():
        raise McioError(what, str(p), "is a directory; give a file name")
    if not parent.exists():
        raise McioError(what, str(p), f"cannot be written: directory {str(parent)!r} does not exist")
    if not parent.is_dir():
        raise McioError(what, str(p), f"cannot be written: {str(parent)!r} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise McioError(what, str(p), f"cannot be written: no write permission in {str(parent)!r}")
    return p


def _versions() -> dict:
    import numba
    from .._version import __version__
    return {"mcio_version": __version__, "numba_version": numba.__version__, "numpy_version": np.__version__}


def global_attrs(spec, engine_attrs: dict) -> dict:
    """The CF global attributes of a sweep's Dataset."""
    a = {"Conventions": CONVENTIONS, "title": spec.title, **_versions()}
    for k in ("mcio_version", "numba_version", "numpy_version"):
        if k in engine_attrs:
            a[k] = engine_attrs[k]
    a.update({
        "seed": int(spec.run["seed"]),
        "ios": int(spec.run["ios"]),
        "replications": int(spec.run["replications"]),
        "warmup_ios": engine_attrs.get("warmup_ios", spec.run["warmup"] if spec.run["warmup"] is not None else "auto"),
        "warmup_rule": engine_attrs.get("warmup_rule", ""),
        "device_busy_definition": engine_attrs.get("device_busy_definition", ""),
        "sweep_keys": ", ".join(a_.key for a_ in spec.axes),
        "sweep_dims": ", ".join(spec.dims),
        "scenario": spec.scenario or "",
        "model_toml": spec.model.to_toml(),
        "spec_toml": spec.text,
        "source": f"mcio sweep {spec.source}",
        "history": f"{_now()} created by mcio sweep",
        "date_created": _now(),
    })
    if getattr(spec, "variants", ()):
        a["variants"] = ", ".join(spec.variant_names)
    return {k: _attr_value(v) for k, v in a.items()}


def cf_attrs(title: str, source: str, **extra) -> dict:
    """The CF global attributes of a results Dataset that is not a sweep's (an ISFC link, a
    script's figures): Conventions, title, versions, source, history, date_created, ``extra``."""
    now = _now()
    a = {"Conventions": CONVENTIONS, "title": title, **_versions(), "source": source,
         "history": f"{now} created by {source}", "date_created": now, **extra}
    return {k: _attr_value(v) for k, v in a.items()}


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


def _attr_value(v):
    """netCDF attributes hold strings and numbers only."""
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if v is None:
        return ""
    if isinstance(v, (str, int, float, np.integer, np.floating)):
        return v
    if isinstance(v, (list, tuple, np.ndarray)) and len(v) and all(
            isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool) for x in v):
        return np.asarray(v)   # a 1-D numeric attribute (CF flag_values), as netCDF allows
    return str(v)


def encoding_for(ds, chunk_dims=()) -> dict:
    """zlib compression on every non-scalar, non-string variable of SMALL_BYTES or more; with
    ``chunk_dims`` (the sweep dims) chunks of about CHUNK_BYTES split along them (C order: the last varies fastest, so it
    is kept whole first), every other dim whole, so a slice of a large sweep reads lazily."""
    enc = {}
    for name, v in ds.variables.items():
        e = _encoding(tuple(v.dims), v.shape, v.dtype, chunk_dims)
        if e:
            enc[name] = e
    return enc


def _local_locks():
    """xarray guards HDF5 writes with a lock of the active Dask scheduler: on a Dask worker, or in a
    client with a default ``distributed.Client``, that is a cluster-wide lock named after the file
    (or a BytesIO's repr), which fails. These in-memory Datasets need only a thread lock."""
    if "dask" not in sys.modules:
        return contextlib.nullcontext()
    import dask
    return dask.config.set(scheduler="synchronous")


def _as_chars(v):
    """A string variable as a CF character array (netCDF NC_CHAR, one more dimension
    ``<n>_strlen``), which every netCDF reader and CF checker takes; netCDF-4's variable-length
    strings are not (cfchecker 4.1: "vlen types not supported"). ``_Encoding`` makes xarray
    read it back as strings."""
    chars = _chars(v.values)
    return variable(v.dims + (f"strlen{chars.shape[-1]}",), chars, {**v.attrs, "_Encoding": "utf-8"})


def _for_writing(ds):
    """A shallow copy of ``ds`` with netCDF-safe attributes and no inherited encodings."""
    ds = ds.copy()
    ds.attrs = {k: _attr_value(v) for k, v in ds.attrs.items()}
    ds.attrs["Conventions"] = CONVENTIONS  # one convention for every file mcio writes
    for name in list(ds.coords):
        v = ds[name].variable
        if v.dtype.kind in "OU" and v.dims == (name,):
            # a string dimension coordinate (variant names, figure names): CF labels, an auxiliary
            # character variable over the dimension; open_results makes it the index again
            label = f"{name}_label"
            ds = ds.drop_vars(name).assign_coords({label: _as_chars(variable(v.dims, v.values,
                                                                                 {**v.attrs, "mcio_labels_of": name}))})
    for name in list(ds.variables):
        if ds[name].dtype.kind in "OU":
            ds[name] = _as_chars(ds[name].variable) if name in ds.data_vars else ds[name]
            if name in ds.coords:
                ds = ds.assign_coords({name: _as_chars(ds[name].variable)})
    for v in ds.variables.values():
        v.attrs = {k: _attr_value(x) for k, x in v.attrs.items()}
        if isinstance(v.attrs.get("flag_values"), np.ndarray) and v.dtype.kind in "iu":
            v.attrs["flag_values"] = v.attrs["flag_values"].astype(v.dtype)  # CF: the variable's type
        v.encoding = {}
    return ds


def write_netcdf(ds, path, chunk_dims=()) -> None:
    """Write ``ds`` to ``path`` atomically (temporary name in the same directory, then rename)."""
    write_netcdf4(ds, path, chunk_dims)   # one writer for every single-group file


def netcdf_bytes(ds) -> bytes:
    """The content :func:`write_netcdf` would store for ``ds``, as bytes (a Dask worker computes a
    point's part file this way; the client, which may not share its file system, writes it)."""
    ds = _for_writing(ds)
    buf = io.BytesIO()
    with _local_locks():
        ds.to_netcdf(buf, engine="h5netcdf", encoding=encoding_for(ds))
    return buf.getvalue()


def write_bytes(data: bytes, path) -> None:
    """Store ``data`` at ``path`` atomically (temporary name in the same directory, then rename)."""
    path = Path(path)
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    with _atomic(path, tmp):
        with open(tmp, "wb") as f:
            f.write(data)


@contextlib.contextmanager
def _atomic(path: Path, tmp: Path):
    """Write to ``tmp`` inside the block, then rename it to ``path``; on failure remove ``tmp``
    (an OSError becomes one McioError naming the output)."""
    try:
        yield
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise McioError("output", str(path), f"cannot be written ({e})") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if tmp != path:
        os.replace(tmp, path)


def dataset_from_bytes(data: bytes, what: str = "<bytes>"):
    """The in-memory Dataset a part file's content holds (as :func:`open_results` reads it)."""
    import xarray as xr
    try:
        with _local_locks(), xr.open_dataset(io.BytesIO(data), engine="h5netcdf", decode_timedelta=False) as ds:
            return ds.load()
    except (OSError, ValueError, KeyError, TypeError) as e:
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise McioError("part", what, f"is not a readable HDF5/netCDF part ({msg})") from None


NOT_A_VARIABLE = "This is a netCDF dimension but not a netCDF variable."


def write_netcdf4(ds, path, chunk_dims=()) -> None:
    """Write ``ds`` as netCDF-4 (HDF5 with dimension scales, the layout netCDF-C and h5netcdf
    write) with h5py's low-level API, atomically. The same file as ``to_netcdf(engine="h5netcdf")``
    to any netCDF reader, ~20x faster: h5netcdf's Python layer spent ~8 ms per variable (a third
    of a 12-point sweep), h5py's high-level one ~0.8 ms; what is left is HDF5's own work. Dims
    without a coordinate get netCDF's placeholder scale; non-index coordinates are named in each
    variable's ``coordinates`` attribute (CF)."""
    path = Path(path)
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp") if path.suffix != ".tmp" else path
    dims, variables, gattrs = _plan(ds, chunk_dims)
    with _atomic(path, tmp):
        _write_plan(tmp, dims, variables, gattrs)


def _encoding(dims, shape, dtype, chunk_dims) -> dict:
    """One variable's encoding (see :func:`encoding_for`); text: variable-length strings (read
    back as object), even when all empty."""
    if not shape or dtype.kind not in "iufb":
        return {"dtype": str} if shape and dtype.kind in "OU" else {}
    if dtype.itemsize * math.prod(shape) < SMALL_BYTES:
        return {}   # contiguous, uncompressed: read whole in one request anyway
    e = dict(COMPRESSION)
    swept = [d for d in dims if d in chunk_dims]
    if swept:
        per_point = dtype.itemsize * math.prod(n for d, n in zip(dims, shape) if d not in chunk_dims)
        budget = max(1, CHUNK_BYTES // max(per_point, 1))
        sizes = dict(zip(dims, shape))
        chunk = {}
        for d in reversed(swept):
            chunk[d] = max(1, min(sizes[d], budget))
            budget = max(1, budget // chunk[d])
        e["chunksizes"] = tuple(chunk.get(d, n) for d, n in zip(dims, shape))
    return e


def _chars(a: np.ndarray) -> np.ndarray:
    """Strings as a CF character array (one more axis of S1; see :func:`_as_chars`)."""
    a = np.asarray(a).astype(str)
    raw = [x.encode("utf-8") for x in a.ravel()]
    n = max([1] + [len(b) for b in raw])
    return np.array(raw, dtype=f"S{n}").view("S1").reshape(a.shape + (n,))   # (1-d first: a 0-d view cannot change size)


def _plan(ds, chunk_dims=()):
    """What :func:`_for_writing` and :func:`encoding_for` make of ``ds``, without building
    Datasets (~7 ms saved on a sweep's file): ``(dims, variables, global attrs)``, ``dims``
    {name: size} in netCDF order (first use), ``variables`` a list of (name, dims, array, attrs,
    encoding, is_coord) in file order. tests/test_store_writer.py checks it against _for_writing."""
    coord_names = set(ds.coords)
    vs = {name: (tuple(v.dims), v.values, v.attrs, name in coord_names) for name, v in ds.variables.items()}
    for name in [n for n in vs if vs[n][3]]:
        dims, a, attrs, _ = vs[name]
        if a.dtype.kind in "OU" and dims == (name,):
            # a string dimension coordinate: CF labels (see _for_writing)
            del vs[name]
            c = _chars(a)
            vs[f"{name}_label"] = (dims + (f"strlen{c.shape[-1]}",), c,
                                   {**attrs, "mcio_labels_of": name, "_Encoding": "utf-8"}, True)
    for name, (dims, a, attrs, is_coord) in list(vs.items()):
        if a.dtype.kind in "OU":
            c = _chars(a)
            vs[name] = (dims + (f"strlen{c.shape[-1]}",), c, {**attrs, "_Encoding": "utf-8"}, is_coord)
    sizes, variables = {}, []
    for name, (dims, a, attrs, is_coord) in vs.items():
        a = np.asarray(a)
        for d, n in zip(dims, a.shape):
            sizes.setdefault(d, n)
        attrs = {k: _attr_value(x) for k, x in attrs.items()}
        fv = attrs.get("flag_values")
        if isinstance(fv, np.ndarray) and a.dtype.kind in "iu":
            attrs["flag_values"] = fv.astype(a.dtype)  # CF: the variable's type
        variables.append((name, dims, a, attrs, _encoding(dims, a.shape, a.dtype, chunk_dims), is_coord))
    gattrs = {k: _attr_value(v) for k, v in ds.attrs.items()}
    gattrs["Conventions"] = CONVENTIONS
    return sizes, variables, gattrs


class _H5Types:
    """HDF5 types, dataspaces and creation property lists, made once per writer (h5py's
    high-level layer remakes them for every dataset and attribute)."""

    def __init__(self):
        import h5py
        from h5py import h5p, h5s, h5t
        self.h5p, self.h5s, self.h5t = h5p, h5s, h5t
        self.vstr = h5py.string_dtype()
        self.scalar = h5s.create_simple(())
        self._types, self._dcpl, self._spaces = {}, {}, {}

    def types(self, dtype):
        """(logical type, memory type) of ``dtype``, as h5py's AttributeManager.create makes them."""
        t = self._types.get(dtype)
        if t is None:
            t = self._types[dtype] = (self.h5t.py_create(dtype, logical=True), self.h5t.py_create(dtype))
        return t

    def space(self, shape):
        if not shape:
            return self.scalar
        s = self._spaces.get(shape)
        if s is None:
            s = self._spaces[shape] = self.h5s.create_simple(shape)
        return s

    def dcpl(self, chunks, level, fill):
        """What h5py's create_dataset makes for (chunks, gzip level, fill value), reused."""
        key = (chunks, level, None if fill is None else (fill.dtype.str, fill.tobytes()))
        p = self._dcpl.get(key)
        if p is None:
            h5p = self.h5p
            p = h5p.create(h5p.DATASET_CREATE)
            if chunks is not None:
                p.set_chunk(chunks)
            if level is not None:
                p.set_deflate(level)
            if fill is not None:
                p.set_fill_value(fill)
            p.set_obj_track_times(False)
            p.set_attr_creation_order(0)
            self._dcpl[key] = p
        return p

    def attr(self, oid, name: str, value) -> None:
        """Attribute ``name`` = ``value`` on object ``oid``, typed as h5py's ``attrs[name] = value``
        types it (str: a variable-length UTF-8 string; int: int64; float: float64; arrays as is)."""
        from h5py import h5a
        if isinstance(value, str):
            a, dt = np.array(value, dtype=self.vstr), self.vstr
        else:
            a = np.asarray(value, order="C")
            dt = a.dtype
        htype, mtype = self.types(dt)
        at = h5a.create(oid, name.encode(), htype, self.space(a.shape))
        try:
            at.write(a, mtype=mtype)
        finally:
            at.close()

    def dataset(self, parent, name: str, a: np.ndarray, enc: dict, data: bool = True):
        """A dataset holding ``a`` (what the high-level ``create_dataset(name, data=a, compression=
        "gzip", chunks=..., fillvalue=nan)`` made): variable-length strings for text, gzip and the
        chunks of ``enc`` for non-scalars (h5py's guess without them), NaN as the fill value of
        floats. ``data=False``: ``a``'s shape and type only, no data and no fill value (netCDF's
        placeholder scale of a dim without a coordinate)."""
        from h5py import h5d
        if a.dtype.kind in "OU":
            a = np.array([str(x) for x in a.ravel()], dtype=object).reshape(a.shape)
            dt = self.vstr
        else:
            a = a if a.flags.c_contiguous else a.copy(order="C")   # (ascontiguousarray makes 0-d 1-d)
            dt = a.dtype
        chunks = level = None
        if a.ndim and enc.get("zlib"):
            level = enc.get("complevel", 4)
            chunks = tuple(enc["chunksizes"]) if "chunksizes" in enc else _guess_chunk(a.shape, a.dtype.itemsize)
        fill = np.array(np.nan, dtype=a.dtype) if a.dtype.kind == "f" and data else None
        htype, _ = self.types(dt)
        did = h5d.create(parent, name.encode(), htype, self.space(a.shape), dcpl=self.dcpl(chunks, level, fill))
        if data:
            did.write(self.h5s.ALL, self.h5s.ALL, a)
        return did


def _guess_chunk(shape, itemsize):
    """The chunks h5py's create_dataset picks for a compressed dataset given none (files that are
    not a sweep's: no chunk dims)."""
    from h5py._hl.filters import guess_chunk
    return guess_chunk(shape, None, itemsize)


def _write_plan(path: Path, dims: dict, variables: list, gattrs: dict) -> None:
    """The file of a :func:`_plan` at ``path`` (overwritten), written with h5py's low-level API
    in the layout h5py's high-level one gave (kept by tests/test_store_writer.py)."""
    import h5py
    from h5py import h5ds, h5f, h5p
    T = _H5Types()
    fapl = h5p.create(h5p.FILE_ACCESS)
    fapl.set_libver_bounds(h5f.LIBVER_EARLIEST, h5f.LIBVER_LATEST)  # h5py's libver="earliest": the
    # HDF5 file format every netCDF-4 reader (netCDF-C >= 4.0) reads
    fcpl = h5p.create(h5p.FILE_CREATE)
    order = h5p.CRT_ORDER_TRACKED | h5p.CRT_ORDER_INDEXED   # h5py.File(track_order=True)
    fcpl.set_link_creation_order(order)
    fcpl.set_attr_creation_order(order)
    fcpl.set_obj_track_times(False)
    fid = h5f.create(str(path).encode(), h5f.ACC_TRUNC, fcpl=fcpl, fapl=fapl)
    ids = []
    try:
        T.attr(fid, "_NCProperties", f"version=2,mcio=1,hdf5={h5py.version.hdf5_version},h5py={h5py.__version__}")
        by_name = {v[0]: v for v in variables}
        scales = {}
        for dimid, (d, n) in enumerate(dims.items()):
            if d in by_name:
                _, _, a, _, enc, _ = by_name[d]
                h = T.dataset(fid, d, a, enc)
                h5ds.set_scale(h, d.encode())
            else:
                h = T.dataset(fid, d, np.empty((n,), ">f4"), {}, data=False)   # netCDF's placeholder
                h5ds.set_scale(h, f"{NOT_A_VARIABLE}{n:10d}".encode())
            T.attr(h, "_Netcdf4Dimid", np.int32(dimid))
            scales[d] = h
            ids.append(h)
        aux = [name for name, _, _, _, _, is_coord in variables if is_coord and name not in dims]
        aux_dims = {c: {d for d in by_name[c][1] if not d.startswith("strlen")} for c in aux}
        for name, vdims, a, attrs, enc, is_coord in variables:
            if name in scales:
                h = scales[name]
            else:
                h = T.dataset(fid, name, a, enc)
                ids.append(h)
                for i, d in enumerate(vdims):
                    h5ds.attach_scale(h, scales[d], i)
            for k, x in attrs.items():
                T.attr(h, k, x)
            if not is_coord:
                mine = [c for c in aux if aux_dims[c] <= set(vdims)]
                if mine:
                    T.attr(h, "coordinates", " ".join(mine))
        for k, x in gattrs.items():
            T.attr(fid, k, x)
    finally:
        for h in ids:
            h.close()
        fid.close()


def write_results(ds, out, what: str = "output", chunk_dims=None) -> Path:
    """A results file (a sweep's, an ISFC link's, ...): ``OUT.tmp`` first, renamed to ``OUT`` once
    complete; chunked along ``chunk_dims`` (default: the sweep dims named in
    ``ds.attrs["sweep_dims"]``). ``what`` names the output in the McioError of an unwritable path."""
    out = check_writable(out, what)
    tmp = tmp_path(out)
    if tmp.is_dir():
        raise McioError("output", str(out), f"{str(tmp)!r} is a directory in the way of the final file; remove it")
    if chunk_dims is None:
        chunk_dims = tuple(d.strip() for d in str(ds.attrs.get("sweep_dims", "")).split(",") if d.strip())
    write_netcdf4(ds, tmp, chunk_dims)
    os.replace(tmp, out)
    return out


def write_groups(datasets: dict, out, what: str = "output") -> Path:
    """Several Datasets as the groups of one file (``name -> Dataset``; read one back with
    ``xr.open_dataset(out, engine="h5netcdf", group=name)``), atomically like :func:`write_results`."""
    out = check_writable(out, what)
    tmp = tmp_path(out)
    with _atomic(out, tmp):
        with _local_locks():
            for i, (name, ds) in enumerate(datasets.items()):
                ds = _for_writing(ds)
                ds.to_netcdf(tmp, engine="h5netcdf", group=name, mode="w" if i == 0 else "a",
                             encoding=encoding_for(ds))
    return out


def open_results(path):
    """A results file as an in-memory :class:`xarray.Dataset` (the file is closed on return)."""
    import xarray as xr
    p = Path(path)
    if not p.exists():
        raise McioError("file", str(p), "does not exist")
    if p.is_dir():
        raise McioError("file", str(p), "is a directory, not an HDF5 results file")
    try:
        with _local_locks(), xr.open_dataset(p, engine="h5netcdf", decode_timedelta=False) as ds:
            return restore_labels(ds.load())
    except (OSError, ValueError, KeyError, TypeError) as e:
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise McioError("file", str(p), f"is not a readable HDF5/netCDF results file ({msg})") from None


def restore_labels(ds):
    """Label variables written for string dimension coordinates (``mcio_labels_of``) back as the
    dimension's index, as the Dataset was before writing."""
    for name in list(ds.variables):
        dim = ds[name].attrs.get("mcio_labels_of")
        if dim and dim in ds.dims and ds[name].dims == (dim,):
            attrs = {k: v for k, v in ds[name].attrs.items() if k != "mcio_labels_of"}
            vals = ds[name].values.astype(object)
            ds = ds.drop_vars(name).assign_coords({dim: (dim, vals, attrs)})
    return ds


# ---- parts: one point's arrays, raw ---------------------------------------------------------


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


class Saver:
    """Saving work run off the main thread while the kernels run (``gate``, by default
    :data:`mcio.interrupt.KERNELS_RUNNING`, is set): the kernels release the GIL, so then a
    thread of Python and HDF5 work costs the sweep at most a share of a core, where beside the
    main thread's own Python work (between kernels) it would hold up both.

    Tasks run in order, each once the gate is open. :meth:`close` stops taking tasks (those not
    started are dropped: every task is work the main thread would otherwise do itself, so it
    must check what was done), waits for the running one and raises its exception, if any, in
    the caller's thread: a failure is never lost in the background."""

    def __init__(self, gate: threading.Event | None = None):
        if gate is None:
            from ..interrupt import KERNELS_RUNNING as gate
        self._gate = gate
        self._tasks = queue.SimpleQueue()
        self._stopped = threading.Event()
        self._error = None
        self.cpu_s = 0.0   # CPU time its tasks took (benchmarks/saving.py counts it as saving)
        self._thread = threading.Thread(target=self._run, name="mcio-saver", daemon=True)
        self._thread.start()

    def submit(self, fn: Callable, *args) -> None:
        self._tasks.put((fn, args))

    def _run(self) -> None:
        while True:
            task = self._tasks.get()
            if task is None:
                return
            while not self._gate.wait(0.05):  # (a timeout: close() must not wait for a gate never opened)
                if self._stopped.is_set():
                    return
            if self._stopped.is_set():
                return
            t = time.thread_time()
            try:
                task[0](*task[1])
            except BaseException as e:  # noqa: BLE001 - handed to the main thread by close()
                self._error = e
                return
            finally:
                self.cpu_s += time.thread_time() - t

    def close(self, raise_error: bool = True) -> None:
        """Stop; wait for the running task; raise its exception here if it failed (unless
        ``raise_error`` is false: the caller is raising another already)."""
        self._stopped.set()
        self._tasks.put(None)
        self._thread.join()
        err, self._error = self._error, None
        if err is not None and raise_error:
            raise err


def h5py_loaded() -> bool:
    return "h5py" in sys.modules


def prefetch_h5py() -> None:
    """Import h5py (~50-110 ms on this machine the first time: paid by every ``mcio sweep -o``,
    by nothing in memory), so that the final file does not wait for it."""
    import h5py  # noqa: F401


class OutputLock:
    """An exclusive lock on output ``OUT`` (``OUT.lock``, flock): a second sweep into the same
    output refuses at once instead of duplicating the work. Released when the process ends,
    however it ends (kill -9 included); the lock file is removed on a clean release."""

    def __init__(self, out):
        self.out = Path(out)
        self.path = lock_path(self.out)
        self.fd = None

    def __enter__(self):
        try:
            import fcntl
        except ImportError:  # no flock (Windows): no lock
            return self
        for _ in range(10):  # the file may be replaced between open and lock: retry on a stale inode
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as e:
                raise McioError("output", str(self.out), f"cannot create the lock file {str(self.path)!r} "
                                                         f"({e.strerror or e})") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                try:
                    holder = os.read(fd, 64).decode(errors="replace").strip() or "?"
                finally:
                    os.close(fd)
                raise McioError("output", str(self.out), f"another sweep (pid {holder}) is writing it "
                                                         f"(lock {str(self.path)!r}); wait for it or choose "
                                                         "another output") from None
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                os.ftruncate(fd, 0)
                os.write(fd, str(os.getpid()).encode())
                self.fd = fd
                return self
            os.close(fd)
        raise McioError("output", str(self.out), f"cannot take the lock {str(self.path)!r}")

    def __exit__(self, *exc):
        if self.fd is not None:
            self.path.unlink(missing_ok=True)  # unlinked while held: a waiting opener sees a new inode
            os.close(self.fd)
            self.fd = None


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


class PartStore:
    """The sidecar directory of one sweep's finished points: ``spec.toml`` and ``points.log``, an
    append-only log of part records (:func:`part_bytes`), one os.write per finished point.

    A record reaches the file system's page cache when the write returns, so it survives the
    process being killed (kill -9) at any later moment; one cut short (killed mid-write, disk
    full) fails its length or checksum and is recomputed on resume. Appending costs ~30 us where a
    file per point cost ~0.5-0.9 ms here (create + rename), more than 5 % of a fast point."""

    LOG = "points.log"

    def __init__(self, out, spec_text: str, resume: bool = False, same_spec: Callable[[str], bool] | None = None):
        self.out = check_writable(out)
        self.dir = parts_dir(self.out)
        self.log = self.dir / self.LOG
        self.spec_sha256 = spec_hash(spec_text)
        self._fd = None
        self._layouts: set = set()   # IDs of the layout records in the log
        spec_file = self.dir / SPEC_FILE
        if self.dir.exists() and not self.dir.is_dir():
            raise McioError("output", str(self.out), f"{str(self.dir)!r} is a file, where the sweep keeps its "
                                                     "finished points; remove it or choose another output")
        if tmp_path(self.out).is_dir():
            raise McioError("output", str(self.out), f"{str(tmp_path(self.out))!r} is a directory in the way of "
                                                     "the final file; remove it")
        if self.dir.exists() and not (self.log.is_file() and self.log.stat().st_size > 0):
            shutil.rmtree(self.dir, ignore_errors=True)  # interrupted before any point finished: nothing to keep
        if self.dir.exists():
            if not resume:
                raise McioError("output", str(self.out),
                                f"an interrupted sweep left {str(self.dir)!r}: add --resume to continue it "
                                "(or delete that directory to start over)")
            try:
                stored = spec_file.read_text() if spec_file.exists() else ""
            except (OSError, UnicodeDecodeError):
                stored = ""
            same = same_spec(stored) if same_spec else stored == spec_text
            if not same:
                raise McioError("--resume", str(self.dir),
                                "was started from a different spec (its spec.toml differs); "
                                "run the same spec, or delete that directory to start over")
            for stale in self.dir.glob("*.tmp"):  # a write cut short by the interruption
                stale.unlink(missing_ok=True)
        else:
            try:
                self.dir.mkdir()
            except OSError as e:
                raise McioError("output", str(self.out), f"cannot create {str(self.dir)!r} ({e.strerror or e})") from None
            tmp = spec_file.with_name(SPEC_FILE + ".tmp")
            try:
                tmp.write_text(spec_text)
                os.replace(tmp, spec_file)
            except OSError as e:
                tmp.unlink(missing_ok=True)
                raise McioError("output", str(self.out), f"cannot write {str(spec_file)!r} ({e.strerror or e})") from None

    def finished(self, total: int) -> set[int]:
        """Points with a whole record in the log (not checked against the spec: see :meth:`validate`)."""
        return {p for p in stored_points(self.out) if p < total}

    def validate(self, total: int, coords: Callable[[int], dict]) -> tuple[dict, dict]:
        """Read and check every record: ``(good, bad)`` with ``good`` {point: Part} and ``bad``
        {point, or "bytes A-B" where no point can be read: reason}. With anything bad the log is
        rewritten (atomically) with the good records only, so the bad points are recomputed."""
        good, bad, keep, used = {}, {}, [], {}
        try:
            data = self.log.read_bytes() if self.log.exists() else b""
        except OSError as e:
            raise McioError("--resume", str(self.log), f"cannot be read ({e.strerror or e})") from None
        if not data and self.log.exists():
            bad[f"{self.LOG}"] = "empty"
        layouts, records = read_log(data)
        for off, rec, why in records:
            where = f"{self.LOG} bytes {off}-{off + len(rec)}"
            if is_layout_record(rec):
                if why:
                    bad[where] = f"{why} (a layout record)"   # its points fail below: recomputed
                continue
            p = _record_point(rec)
            key = p if p is not None and 0 <= p < total else where
            if why:
                if p not in good:
                    bad[key] = why
                continue
            if p is not None and p >= total:
                bad[key] = f"point {p} is beyond this sweep's {total} points"
                continue
            if p in good:
                continue  # a point stored twice (recomputed after a damaged copy): the first whole one
            try:
                good[p] = read_part(rec, self.spec_sha256, p, coords(p) if p is not None else None, layouts)
                keep.append(rec)
                lid = _record_layout(rec)
                if lid is not None:
                    used[lid] = layouts[lid][1]
                bad.pop(p, None)
            except PartError as e:
                bad[key] = e.reason
        if bad:  # atomically: the layouts still used, then the good records
            write_bytes(b"".join(list(used.values()) + keep), self.log)
            self._layouts = set(used)
        else:
            self._layouts = set(layouts)
        return good, bad

    def _open(self):
        if self._fd is None:
            try:
                self._fd = os.open(self.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            except OSError as e:
                raise McioError("output", str(self.out), f"cannot write {str(self.log)!r} ({e.strerror or e})") from None
        return self._fd

    def heads(self, points, coords) -> list[str]:
        """The start of each point's record header (spec hash, point, coordinates: all known
        before it runs; ``coords`` a dict per point), for :meth:`write`'s ``head``. Formatted a
        batch of points at a time, in one loop that stays in the caches (~5 us a point here),
        not right after each point's kernels (~25 us there: the first statements after them
        find nothing cached)."""
        return [_record_head(self.spec_sha256, p, c, 2) for p, c in zip(points, coords)]

    def write(self, p: int, ds, coords: dict | None = None, head: str | None = None) -> None:
        """Append point ``p`` (a Part or Dataset) as a format-2 record, with its layout record
        first if the log has none for its layout yet (one write: both or, cut short, neither
        usable). ``head``: :meth:`heads`' entry for this ``p`` and ``coords``, if made already."""
        data, lid = encode_part(ds, self.spec_sha256, p, coords or {}, self._layouts, head)
        self.write_bytes(p, data)
        if lid is not None:
            self._layouts.add(lid)

    def write_bytes(self, p: int, data: bytes) -> None:
        """Append a part record made here or elsewhere (:func:`part_bytes` on a Dask worker)."""
        fd = self._open()
        try:
            view = memoryview(data)
            while view:
                n = os.write(fd, view)
                view = view[n:]
        except OSError as e:
            raise McioError("output", str(self.out), f"cannot write {str(self.log)!r} "
                                                     f"({e.strerror or e}); finished points are kept: "
                                                     "free space and run again with --resume") from None

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def remove(self) -> None:
        self.close()
        try:  # the two files it holds, then the directory: a third of rmtree's time
            for f in (self.log, self.dir / SPEC_FILE):
                f.unlink(missing_ok=True)
            self.dir.rmdir()
        except OSError:  # something else in it (or already gone)
            shutil.rmtree(self.dir, ignore_errors=True)


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


def stored_points(out) -> list[int]:
    """Point indices with a whole, checksummed, readable record in ``OUT.parts/points.log``
    (its layout record too, for format 2), in log order."""
    log = parts_dir(out) / PartStore.LOG
    if not log.exists():
        return []
    pts = []
    layouts, records = read_log(log.read_bytes())
    for _, rec, why in records:
        if not why and not is_layout_record(rec):
            try:
                pts.append(read_part(rec, layouts=layouts).point)
            except PartError:
                pass
    return pts


__all__ = ["CONVENTIONS", "cf_attrs", "write_groups", "open_results", "write_results", "write_netcdf", "netcdf_bytes", "write_bytes", "dataset_from_bytes",
           "check_writable", "parts_dir", "tmp_path", "lock_path", "global_attrs", "PartStore", "Part",
           "part_bytes", "encode_part", "read_part", "read_layout", "read_log", "is_layout_record", "PartError", "OutputLock", "spec_hash", "stored_points", "split_log"]
