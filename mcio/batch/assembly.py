"""Assembly: per-point results (Parts or Datasets, in point order) stacked into one labelled
:class:`xarray.Dataset` with the sweep axes as dimensions.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import McioError
from .grid import VARIANT_DIM, dim_attrs


def assemble(spec, parts: list):
    """Stack per-point results (Datasets or :class:`mcio.store.Part`, in point order) into one
    Dataset with the sweep axes as dimensions, plus ``unstable_reason`` over them. Engine dims of
    different sizes (e.g. a ``channels.count`` axis) align by label, the shorter padded with NaN."""
    import xarray as xr

    from .. import store
    from ..part import variable

    if len(parts) != spec.n_points:
        raise McioError("parts", len(parts), f"need all {spec.n_points} points")
    parts = [q if isinstance(q, store.Part) else store.Part.from_dataset(q) for q in parts]
    first = parts[0]
    axis_dims = set(spec.dims)
    # engine dims: their labels in every part must be prefixes of the longest (0..n-1, quantiles)
    labels = {}
    for q in parts:
        for name, (dims, a, attrs, is_coord) in q.vars.items():
            if is_coord and dims == (name,):
                cur = labels.get(name)
                short, long_ = (cur, a) if cur is None or len(a) > len(cur) else (a, cur)
                if short is not None and not np.array_equal(long_[:len(short)], short):
                    raise McioError("parts", name, "labels differ between points; cannot align them")
                labels[name] = long_
    shape = spec.shape
    P = spec.n_points
    data_vars = {}
    names = list(dict.fromkeys(n for q in parts for n, v in q.vars.items() if not v[3]))
    stacked = _stacked_buffers(parts)
    for name in names:
        if stacked is not None and name in stacked:
            dims, attrs = first.vars[name][0], first.vars[name][2]
            arr = stacked[name]
            data_vars[name] = variable(spec.dims + tuple(dims), arr.reshape(shape + arr.shape[1:]), dict(attrs))
            continue
        held = [q.vars[name] for q in parts if name in q.vars]
        dims, a0, attrs = held[0][0], held[0][1], held[0][2]
        full = tuple(len(labels[d]) if d in labels else a0.shape[i] for i, d in enumerate(dims))
        padded = len(held) < P or any(v[1].shape != full for v in held)
        if a0.dtype.kind == "U":
            arr = np.full((P,) + full, "", dtype=f"<U{max(1, max(v[1].dtype.itemsize // 4 for v in held))}")
        elif padded:
            arr = np.full((P,) + full, np.nan, dtype=np.result_type(a0.dtype, np.float64))
        else:
            arr = np.empty((P,) + full, dtype=a0.dtype)
        for i, q in enumerate(parts):
            if name in q.vars:
                a = q.vars[name][1]
                arr[(i,) + tuple(slice(0, n) for n in a.shape)] = a
        data_vars[name] = variable(spec.dims + tuple(dims), arr.reshape(shape + full), dict(attrs))
    reason = np.array([str(q.attrs.get("unstable_reason", "")) for q in parts], dtype=object)  # as read back (CF chars decode to str objects)
    data_vars["unstable_reason"] = _reason_var(spec, reason, shape)
    coords = _sweep_coords(spec)
    for name, lab in labels.items():
        if name in axis_dims:
            continue
        attrs = next(q.vars[name][2] for q in parts if name in q.vars)
        coords[name] = variable((name,), np.asarray(lab), dict(attrs))
    for name, (dims, a, attrs, is_coord) in first.vars.items():  # scalar coordinates equal in every point
        if is_coord and not dims and name not in axis_dims:
            if all(name in q.vars and np.array_equal(q.vars[name][1], a) for q in parts):
                coords[name] = variable((), a, dict(attrs))
    ds = xr.Dataset(data_vars, coords=coords)
    ds.attrs = store.global_attrs(spec, first.attrs)
    return ds


def assemble_stacked(spec, names, metas: dict, stacked: dict, reason, attrs0: dict):
    """What :func:`assemble` makes of Parts that all hold the variables ``names`` (point 0's
    order) under the same dims, dtypes and shapes, given them stacked over the points
    (:class:`mcio.batch.collect.Collected`): ``stacked`` {name: array (P,) + shape}, ``metas``
    {name: (dims, attrs, is_coord)} of point 0, ``reason`` each point's ``unstable_reason``
    (object array), ``attrs0`` point 0's global attributes. The data variables' arrays are
    taken as they are (reshaped to the grid), not copied."""
    import xarray as xr

    from .. import store
    from ..part import variable

    shape = spec.shape
    axis_dims = set(spec.dims)
    labels = {}
    for name in names:
        dims, _, is_coord = metas[name]
        if is_coord and dims == (name,):
            col = stacked[name]
            if not (col == col[0]).all():   # (equal lengths: assemble's prefix test is equality)
                raise McioError("parts", name, "labels differ between points; cannot align them")
            labels[name] = np.array(col[0])
    data_vars = {}
    for name in names:
        dims, attrs, is_coord = metas[name]
        if not is_coord:
            arr = stacked[name]
            data_vars[name] = variable(spec.dims + tuple(dims), arr.reshape(shape + arr.shape[1:]), dict(attrs))
    data_vars["unstable_reason"] = _reason_var(spec, reason, shape)
    coords = _sweep_coords(spec)
    for name, lab in labels.items():
        if name not in axis_dims:
            coords[name] = variable((name,), lab, dict(metas[name][1]))
    for name in names:   # scalar coordinates equal in every point
        dims, attrs, is_coord = metas[name]
        if is_coord and not dims and name not in axis_dims:
            col = stacked[name]
            if (col == col[0]).all():
                coords[name] = variable((), np.array(col[0]), dict(attrs))
    ds = xr.Dataset(data_vars, coords=coords)
    ds.attrs = store.global_attrs(spec, attrs0)
    return ds


def _stacked_buffers(parts: list) -> dict | None:
    """Every data variable of ``parts`` stacked over the points, {name: array[P, ...]}, from the
    engine's buffers (:class:`mcio.part.Layout`): one copy of all the buffers, then one per
    variable, not one assignment per variable and point (what that saves: benchmarks/README.md,
    "batch: figures behind the estimates"). Only where every part was made by one layout and
    holds its variables under its names, shapes and dtypes: a part whose entries were replaced
    since (an unstable point's blanked figures) gets its own arrays copied into its row. None
    otherwise (the caller stacks variable by variable)."""
    p0 = parts[0].packed
    if p0 is None:
        return None
    layout = p0[0]
    stale = []
    for i, q in enumerate(parts):
        if q.packed is None or q.packed[0] is not layout:
            return None
        if q.packed_prefix() is None:
            names = tuple(q.vars)[:len(layout.names)]
            if names != layout.names or any(
                    np.asarray(q.vars[n][1]).dtype != dt or np.shape(q.vars[n][1]) != sh
                    for n, dt, sh in zip(layout.names, layout.dtypes, layout.shapes)):
                return None
            stale.append(i)
    P, nbytes = len(parts), layout.nbytes
    everything = np.frombuffer(b"".join([q.packed[1] for q in parts]), np.uint8).reshape(P, nbytes)
    out = {}
    for name, (_, _, is_coord), dt, sh, off in zip(layout.names, layout.metas, layout.dtypes, layout.shapes,
                                                    layout.offsets):
        if is_coord:
            continue
        n = dt.itemsize * math.prod(sh)
        a = everything[:, off:off + n].copy().view(dt).reshape((P,) + sh)   # (its own, writeable, even for one point)
        for i in stale:   # (their own arrays, not the buffer's: replaced after assembly)
            a[i] = parts[i].vars[name][1]
        out[name] = a
    return out


def _reason_var(spec, reason: np.ndarray, shape: tuple):
    """The points' ``unstable_reason`` texts over the sweep's dims (both assemblers)."""
    from ..part import variable
    return variable(spec.dims, reason.reshape(shape), {
        "units": "1", "long_name": "why the point is unstable (its steady-state figures are NaN); empty if stable"})


def _sweep_coords(spec) -> dict:
    """The sweep's own coordinates: the variant names (if any) and every axis's values."""
    from ..part import variable
    attrs_of = dim_attrs(spec)
    coords = {}
    if spec.variants:
        coords[VARIANT_DIM] = variable((VARIANT_DIM,), np.asarray(spec.variant_names, dtype=object),
                                       attrs_of[VARIANT_DIM])
    coords.update({a.dim: variable((a.dim,), np.asarray(a.values), a.attrs) for a in spec.axes})
    return coords
