"""One simulated point as plain arrays (:class:`Part`): what the engine produces, a part record
stores and a sweep stacks. Building an xarray Dataset per point cost a fast-path grid point more
than its kernels (~6 ms of ~11 ms here); a Dataset is made only where one is asked for."""
from __future__ import annotations

import numpy as np


class Part:
    """One point: ``vars`` maps name -> (dims, array, attrs, is_coord), data variables first, in
    the order a Dataset lists them; ``attrs`` the global attributes; ``coords`` the point's sweep
    coordinates (empty outside a sweep)."""

    __slots__ = ("point", "coords", "attrs", "vars")

    def __init__(self, point: int, coords: dict, attrs: dict, vars: dict):
        self.point, self.coords, self.attrs, self.vars = point, coords, attrs, vars

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
    ~0.6 s of a command's start here, for data that is never a dask array."""
    import xarray as xr
    if type(data) is np.ndarray or isinstance(data, np.generic):
        a = np.asarray(data)
        if a.dtype.kind not in "mMV":
            return xr.Variable(dims, a, attrs, fastpath=True)
    return xr.Variable(dims, data, attrs)   # (times, records, masked arrays, anything else: xarray's way)
