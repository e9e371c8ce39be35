"""The final file's writer: netCDF-4 (HDF5 with dimension scales) written with h5py's low-level API."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .cf import CONVENTIONS, _attr_value, _chars, _encoding
from .paths import _atomic, check_writable, clear_tmp

NOT_A_VARIABLE = "This is a netCDF dimension but not a netCDF variable."


def write_netcdf4(ds, path, chunk_dims=()) -> None:
    """Write ``ds`` as netCDF-4 (HDF5 with dimension scales, the layout netCDF-C and h5netcdf
    write) with h5py's low-level API, atomically. The same file as ``to_netcdf(engine="h5netcdf")``
    to any netCDF reader, without h5netcdf's or h5py's high-level Python layers (their time per
    variable: benchmarks/README.md, "store"). Dims
    without a coordinate get netCDF's placeholder scale; non-index coordinates are named in each
    variable's ``coordinates`` attribute (CF)."""
    path = Path(path)
    if path.suffix == ".tmp":   # the caller's own temporary name (write_results: OUT.tmp)
        tmp = clear_tmp(path)
    else:
        check_writable(path)
        tmp = clear_tmp(path.with_name(path.name + f".{os.getpid()}.tmp"), path)
    dims, variables, gattrs = _plan(ds, chunk_dims)
    with _atomic(path, tmp):
        _write_plan(tmp, dims, variables, gattrs)



def _plan(ds, chunk_dims=()):
    """What :func:`_for_writing` and :func:`encoding_for` make of ``ds``, without building
    Datasets: ``(dims, variables, global attrs)``, ``dims``
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
    """The file of a :func:`_plan` at ``path`` (which must not exist), written with h5py's low-level API
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
    # ACC_EXCL (O_CREAT | O_EXCL): a new file, never one a symlink planted at ``path`` points to
    fid = h5f.create(str(path).encode(), h5f.ACC_EXCL, fcpl=fcpl, fapl=fapl)
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
            own = name not in scales
            h = T.dataset(fid, name, a, enc) if own else scales[name]
            try:
                if own:
                    for i, d in enumerate(vdims):
                        h5ds.attach_scale(h, scales[d], i)
                for k, x in attrs.items():
                    T.attr(h, k, x)
                if not is_coord:
                    mine = [c for c in aux if aux_dims[c] <= set(vdims)]
                    if mine:
                        T.attr(h, "coordinates", " ".join(mine))
            finally:
                if own:   # closed once written: its chunk cache goes now, not after the last variable
                    h.close()
        for k, x in gattrs.items():
            T.attr(fid, k, x)
    finally:
        for h in ids:
            h.close()
        fid.close()
