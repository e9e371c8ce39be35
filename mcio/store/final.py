"""Results files: writing a Dataset (one group or several) atomically, reading one back."""
from __future__ import annotations

import io
import os
from pathlib import Path

from ..errors import McioError
from .bounds import check_declared_sizes
from .cf import _for_writing, _local_locks, encoding_for
from .h5writer import write_netcdf4
from .paths import _atomic, check_writable, clear_tmp, create_exclusive, tmp_path


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



def dataset_from_bytes(data: bytes, what: str = "<bytes>"):
    """The in-memory Dataset a part file's content holds (as :func:`open_results` reads it)."""
    import xarray as xr
    try:
        check_declared_sizes(io.BytesIO(data), len(data), what)
        with _local_locks(), xr.open_dataset(io.BytesIO(data), engine="h5netcdf", decode_timedelta=False) as ds:
            return ds.load()
    except McioError:
        raise
    except (OSError, ValueError, KeyError, TypeError) as e:
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise McioError("part", what, f"is not a readable HDF5/netCDF part ({msg})") from None


def write_results(ds, out, what: str = "output", chunk_dims=None) -> Path:
    """A results file (a sweep's, an ISFC link's, ...): ``OUT.tmp`` first, renamed to ``OUT`` once
    complete; chunked along ``chunk_dims`` (default: the sweep dims named in
    ``ds.attrs["sweep_dims"]``). ``what`` names the output in the McioError of an unwritable path."""
    out = check_writable(out, what)
    tmp = clear_tmp(tmp_path(out), out)
    if chunk_dims is None:
        chunk_dims = tuple(d.strip() for d in str(ds.attrs.get("sweep_dims", "")).split(",") if d.strip())
    write_netcdf4(ds, tmp, chunk_dims)
    os.replace(tmp, out)
    return out


def write_groups(datasets: dict, out, what: str = "output") -> Path:
    """Several Datasets as the groups of one file (``name -> Dataset``; read one back with
    ``xr.open_dataset(out, engine="h5netcdf", group=name)``), atomically like :func:`write_results`."""
    out = check_writable(out, what)
    tmp = clear_tmp(tmp_path(out), out)
    with _atomic(out, tmp):
        os.close(create_exclusive(tmp, out))   # ours: mode "w" below reopens this regular file
        with _local_locks():
            for i, (name, ds) in enumerate(datasets.items()):
                ds = _for_writing(ds)
                ds.to_netcdf(tmp, engine="h5netcdf", group=name, mode="w" if i == 0 else "a",
                             encoding=encoding_for(ds))
    return out


def open_results(path):
    """A results file as an in-memory :class:`xarray.Dataset` (the file is closed on return).
    McioError for a file whose variables declare more than it could hold or the machine has
    (:mod:`.bounds`), before reading any."""
    import xarray as xr
    p = Path(path)
    if not p.exists():
        raise McioError("file", str(p), "does not exist")
    if p.is_dir():
        raise McioError("file", str(p), "is a directory, not an HDF5 results file")
    try:
        check_declared_sizes(p, p.stat().st_size, str(p))   # before xarray allocates anything
        with _local_locks(), xr.open_dataset(p, engine="h5netcdf", decode_timedelta=False) as ds:
            return restore_labels(ds.load())
    except McioError:
        raise
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
