"""One simulated point as plain arrays (:class:`Part`): what the engine produces, a part record
stores and a sweep stacks. Building an xarray Dataset per point cost a fast-path grid point more
than its kernels (benchmarks/README.md, "Figures behind comments"); a Dataset is made only where
one is asked for."""
from __future__ import annotations

import operator

import numpy as np


class Layout:
    """Where the variables of a point lie in one buffer (:attr:`Part.packed`): one object shared by
    every point of the same structure, so that an encoder which has seen it knows the variables'
    names, dims, attributes, dtypes and shapes by identity, with no look at each variable.

    ``names`` in the variables' order, and per variable ``metas`` (dims, attrs, is_coord),
    ``dtypes``, ``shapes`` and ``offsets`` (bytes into the buffer; the buffer's order may differ
    from the variables', e.g. 8-byte types first so every view is aligned); ``nbytes`` the
    buffer's size. Read-only by convention; ``cache`` is its encoders' (mcio.store keeps a
    record's table of variables there)."""

    __slots__ = ("names", "metas", "dtypes", "shapes", "offsets", "nbytes", "cache")

    def __init__(self, names, metas, dtypes, shapes, offsets, nbytes: int):
        self.names, self.metas, self.dtypes = tuple(names), tuple(metas), tuple(dtypes)
        self.shapes, self.offsets, self.nbytes = tuple(shapes), tuple(offsets), int(nbytes)
        self.cache: dict = {}


class Part:
    """One point: ``vars`` maps name -> (dims, array, attrs, is_coord), data variables first, in
    the order a Dataset lists them; ``attrs`` the global attributes; ``coords`` the point's sweep
    coordinates (empty outside a sweep).

    ``packed``, if not None, is ``(layout, buffer, entries)``: the Part's first ``len(entries)``
    variables were made as views of ``buffer`` (a bytearray of ``layout.nbytes``) by ``layout``,
    and ``entries`` are those variables' entries as made. It holds while ``vars`` starts with
    those very entries under those names (:meth:`packed_prefix` checks it): a variable replaced,
    renamed or removed makes it void; one added after them (a sweep's coordinates) is not in it;
    an array changed in place is changed in the buffer too."""

    __slots__ = ("point", "coords", "attrs", "vars", "packed")

    def __init__(self, point: int, coords: dict, attrs: dict, vars: dict, packed: tuple | None = None):
        self.point, self.coords, self.attrs, self.vars = point, coords, attrs, vars
        self.packed = packed

    def __getstate__(self):
        # a copy (pickle, copy.deepcopy) has no buffer: its arrays are copies, not views of one
        return self.point, self.coords, self.attrs, self.vars

    def __setstate__(self, state):
        self.point, self.coords, self.attrs, self.vars = state
        self.packed = None

    def packed_prefix(self):
        """``(layout, buffer, names, entries)`` with the names and entries of every variable
        (``vars``' own order) where :attr:`packed` holds, else None: the first
        ``len(layout.names)`` variables are then exactly the buffer's."""
        p = self.packed
        if p is None:
            return None
        layout, buf, made = p
        n = len(made)
        names, entries = tuple(self.vars), tuple(self.vars.values())
        # identity, not equality: an entry holds arrays (and equal ones could be other objects)
        if len(entries) >= n and names[:n] == layout.names and all(map(operator.is_, entries, made)):
            return layout, buf, names, entries
        return None

    @classmethod
    def from_dataset(cls, ds, point: int | None = None, coords: dict | None = None) -> "Part":
        out = {}
        for name, v in ds.variables.items():
            a = np.asarray(v.values)
            if a.dtype.kind == "O":
                a = a.astype(str)
            out[name] = (tuple(v.dims), a, dict(v.attrs), name in ds.coords)
        p = int(ds.attrs.get("point", 0)) if point is None else int(point)
        return cls(p, dict(coords or {}), dict(ds.attrs), out)

    def to_dataset(self):
        import xarray as xr
        data, coords = {}, {}
        for name, (dims, a, attrs, is_coord) in self.vars.items():
            (coords if is_coord else data)[name] = variable(dims, a, attrs)
        return xr.Dataset(data, coords=coords, attrs=dict(self.attrs))

    def data(self, name: str) -> np.ndarray:
        """The array of variable ``name`` (KeyError if absent)."""
        return self.vars[name][1]


def variable(dims, data, attrs):
    """``xr.Variable(dims, data, attrs)`` of a plain numeric, text or object array (a numpy
    scalar becomes 0-d), taken as it is: xarray's checks of other kinds of data (pandas, masked
    and dask arrays) are skipped; the first of them imports dask.array where dask is installed,
    a large part of a command's start, for data that is never a dask array."""
    import xarray as xr
    if type(data) is np.ndarray or isinstance(data, np.generic):
        a = np.asarray(data)
        if a.dtype.kind not in "mMV":
            return xr.Variable(dims, a, attrs, fastpath=True)
    return xr.Variable(dims, data, attrs)   # (times, records, masked arrays, anything else: xarray's way)


class PartView:
    """A read-only view of a :class:`Part` with the few Dataset reads a report makes (``name in
    v``, ``v[name]``, ``v.get``, ``attrs``, ``coords``, ``dims``, ``sizes``), so that ``mcio run``
    prints from the engine's arrays without importing xarray (a third of a warm run's start). The
    values are the Part's own arrays: the same numbers a Dataset made of it holds."""

    __slots__ = ("part", "attrs", "coords", "dims", "sizes")

    def __init__(self, part: Part):
        self.part, self.attrs = part, part.attrs
        self.coords = frozenset(n for n, e in part.vars.items() if e[3])
        dims: dict = {}
        for vdims, a, _, _ in part.vars.values():    # (first appearance, as a Dataset's dims)
            for d, n in zip(vdims, np.shape(a)):
                dims.setdefault(d, int(n))
        self.dims = self.sizes = dims

    def __contains__(self, name) -> bool:
        return name in self.part.vars

    def __getitem__(self, name: str) -> "VarView":
        e = self.part.vars.get(name)
        if e is None:
            if name not in self.dims:
                raise KeyError(name)
            return VarView(self, (name,), np.arange(self.dims[name]))   # (a dim without labels)
        return VarView(self, e[0], e[1])

    def get(self, name: str, default=None):
        return self[name] if name in self.part.vars else default


class VarView:
    """One variable of a :class:`PartView`: ``values``, ``dims``, ``isel``, its coordinates by
    name, ``float()`` / ``int()`` of a one-value variable (as a DataArray's)."""

    __slots__ = ("frame", "dims", "values")

    def __init__(self, frame: PartView, dims: tuple, values):
        self.frame, self.dims, self.values = frame, tuple(dims), np.asarray(values)

    @property
    def variable(self) -> "VarView":
        return self

    def isel(self, indexers: dict | None = None, **by_dim) -> "VarView":
        """The values at integer positions along the named dims (those dims dropped)."""
        at = {**(indexers or {}), **by_dim}
        for d in at:
            if d not in self.dims:
                raise ValueError(f"dimension {d!r} not in {self.dims}")
        key = tuple(at.get(d, slice(None)) for d in self.dims)
        return VarView(self.frame, tuple(d for d in self.dims if d not in at), self.values[key])

    def __getitem__(self, name: str) -> "VarView":
        c = self.frame[name]
        if name not in self.frame.coords or not set(c.dims) <= set(self.dims):
            raise KeyError(name)
        return c

    def __float__(self) -> float:
        return float(self.values)

    def __int__(self) -> int:
        return int(self.values)
