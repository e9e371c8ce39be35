"""Results on disk: netCDF-4 compatible HDF5 written with xarray's h5netcdf engine.

A sweep writing ``OUT.h5`` keeps each finished point as ``OUT.h5.parts/p000012.nc`` (written to a
temporary name, then renamed, so a part is whole or absent), with the spec text beside them in
``OUT.h5.parts/spec.toml``. When every point is done the combined file is written to
``OUT.h5.tmp`` and renamed to ``OUT.h5``: a file under the final name is always complete. On Dask a
worker encodes its point's part (:func:`netcdf_bytes`) and this process stores it the same way.
"""
from __future__ import annotations

import contextlib
import datetime as _dt
import io
import os
import shutil
import sys
from pathlib import Path
from typing import Callable

import numpy as np

from .errors import McioError

COMPRESSION = {"zlib": True, "complevel": 4}
#: The one CF convention every mcio results file declares (sweeps, ISFC links, scripts' files).
CONVENTIONS = "CF-1.10"
SPEC_FILE = "spec.toml"


def parts_dir(out) -> Path:
    out = Path(out)
    return out.with_name(out.name + ".parts")


def tmp_path(out) -> Path:
    out = Path(out)
    return out.with_name(out.name + ".tmp")


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
    from ._version import __version__
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
    return str(v)


def encoding_for(ds) -> dict:
    """zlib compression on every non-scalar, non-string variable."""
    enc = {}
    for name, v in ds.variables.items():
        if v.ndim and v.dtype.kind in "iufb":
            enc[name] = dict(COMPRESSION)
    return enc


def _local_locks():
    """xarray guards HDF5 writes with a lock of the active Dask scheduler: on a Dask worker, or in a
    client with a default ``distributed.Client``, that is a cluster-wide lock named after the file
    (or a BytesIO's repr), which fails. These in-memory Datasets need only a thread lock."""
    if "dask" not in sys.modules:
        return contextlib.nullcontext()
    import dask
    return dask.config.set(scheduler="synchronous")


def _for_writing(ds):
    """A shallow copy of ``ds`` with netCDF-safe attributes and no inherited encodings."""
    ds = ds.copy()
    ds.attrs = {k: _attr_value(v) for k, v in ds.attrs.items()}
    ds.attrs["Conventions"] = CONVENTIONS  # one convention for every file mcio writes
    for v in ds.variables.values():
        v.attrs = {k: _attr_value(x) for k, x in v.attrs.items()}
        v.encoding = {}
    return ds


def write_netcdf(ds, path) -> None:
    """Write ``ds`` to ``path`` atomically (temporary name in the same directory, then rename)."""
    path = Path(path)
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp") if path.suffix != ".tmp" else path
    ds = _for_writing(ds)
    with _atomic(path, tmp):
        with _local_locks():
            ds.to_netcdf(tmp, engine="h5netcdf", encoding=encoding_for(ds))


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


def write_results(ds, out, what: str = "output") -> Path:
    """A results file (a sweep's, an ISFC link's, ...): ``OUT.tmp`` first, renamed to ``OUT`` once
    complete. ``what`` names the output in the McioError of an unwritable path."""
    out = check_writable(out, what)
    tmp = tmp_path(out)
    write_netcdf(ds, tmp)
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
            return ds.load()
    except (OSError, ValueError, KeyError, TypeError) as e:
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise McioError("file", str(p), f"is not a readable HDF5/netCDF results file ({msg})") from None


class PartStore:
    """The sidecar directory of one sweep's finished points."""

    def __init__(self, out, spec_text: str, resume: bool = False, same_spec: Callable[[str], bool] | None = None):
        self.out = check_writable(out)
        self.dir = parts_dir(self.out)
        spec_file = self.dir / SPEC_FILE
        if self.dir.exists() and not any(self.dir.glob("p*.nc")):
            shutil.rmtree(self.dir, ignore_errors=True)  # interrupted before any point finished: nothing to keep
        if self.dir.exists():
            if not resume:
                raise McioError("output", str(self.out),
                                f"an interrupted sweep left {str(self.dir)!r}: add --resume to continue it "
                                "(or delete that directory to start over)")
            stored = spec_file.read_text() if spec_file.exists() else ""
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
                raise McioError("output", str(self.out), f"cannot create {str(self.dir)!r} ({e})") from None
            tmp = spec_file.with_name(SPEC_FILE + ".tmp")
            tmp.write_text(spec_text)
            os.replace(tmp, spec_file)

    def path(self, p: int) -> Path:
        return self.dir / f"p{p:06d}.nc"

    def finished(self, total: int) -> set[int]:
        """Indices of points already stored (whole files only: temporaries are ignored)."""
        done = set()
        for f in self.dir.glob("p*.nc"):
            stem = f.stem[1:]
            if stem.isdigit() and int(stem) < total:
                done.add(int(stem))
        return done

    def write(self, p: int, ds) -> None:
        write_netcdf(ds, self.path(p))

    def write_bytes(self, p: int, data: bytes) -> None:
        """Store a part whose content was made elsewhere (:func:`netcdf_bytes` on a Dask worker)."""
        write_bytes(data, self.path(p))

    def read(self, p: int):
        return open_results(self.path(p))

    def remove(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


__all__ = ["CONVENTIONS", "cf_attrs", "write_groups", "open_results", "write_results", "write_netcdf", "netcdf_bytes", "write_bytes", "dataset_from_bytes",
           "check_writable", "parts_dir", "tmp_path", "global_attrs", "PartStore"]
