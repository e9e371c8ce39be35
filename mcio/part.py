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
            (coords if is_coord else data)[name] = xr.Variable(dims, a, attrs)
        return xr.Dataset(data, coords=coords, attrs=dict(self.attrs))

    def data(self, name: str) -> np.ndarray:
        """The array of variable ``name`` (KeyError if absent)."""
        return self.vars[name][1]
