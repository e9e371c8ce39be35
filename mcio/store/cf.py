"""What a results file holds besides the arrays: CF global attributes, netCDF-safe attribute values,
text as CF character arrays, and each variable's storage (compression, chunks)."""
from __future__ import annotations

import contextlib
import datetime as _dt
import math
import sys

import numpy as np

from ..part import variable

COMPRESSION = {"zlib": True, "complevel": 4}
#: The one CF convention every mcio results file declares (sweeps, ISFC links, scripts' files).
CONVENTIONS = "CF-1.8"  # the newest version the reference checker (cfchecker 4.1) knows; these files use nothing later
#: Target size of one HDF5 chunk of the final file: a 1e5-point sweep reads in slices of ~this.
CHUNK_BYTES = 1 << 20
#: A numeric variable smaller than this is stored contiguous and uncompressed: compressing it
#: saves little or nothing (a chunk index and a filter pipeline per variable) and costs time
#: (benchmarks/README.md, "store").
SMALL_BYTES = 64 << 10


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
    now = _now()      # (once: history and date_created name the same second)
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
        "history": f"{now} created by mcio sweep",
        "date_created": now,
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
    a = np.asarray(a)
    flat = a.ravel()
    if a.dtype.kind == "O" and all(type(x) is str and not x.endswith("\x00") for x in flat):
        raw = [x.encode("utf-8") for x in flat]   # (what astype(str) gives, without its P x longest x 4 bytes)
    else:
        raw = [x.encode("utf-8") for x in a.astype(str).ravel()]
    n = max([1] + [len(b) for b in raw])
    return np.array(raw, dtype=f"S{n}").view("S1").reshape(a.shape + (n,))   # (1-d first: a 0-d view cannot change size)
