"""Batch sweeps: a TOML spec expands into a grid of model points, each simulated, assembled into one
labelled :class:`xarray.Dataset` (sweep axes as dimensions) and, if asked, stored as HDF5.

One concept per module, in the order a sweep meets them:

- :mod:`~mcio.batch.spec`: the spec (its format is documented there), parsed and validated into a
  :class:`SweepSpec`: ``[run]`` (with its precision target), named variants;
- :mod:`~mcio.batch.grid`: the axes, the values each expands to, a point's coordinates set on a
  model, the attributes of the sweep dimensions;
- :mod:`~mcio.batch.estimates`: points, I/Os, memory and time before anything runs;
- :mod:`~mcio.batch.points`: one point simulated, labelled and checked;
- :mod:`~mcio.batch.precision`: precision rounds, until a point's CI meets a target;
- :mod:`~mcio.batch.run`: the run loop (points log, progress, Ctrl-C, resume), in-process or on Dask;
- :mod:`~mcio.batch.cluster`: the Dask hand-off;
- :mod:`~mcio.batch.assembly`: per-point results stacked into one Dataset.

``mcio.sweep`` (the function and the module) is this package's API under its older name.
"""
from __future__ import annotations

from ..errors import McioWarning
from ..interrupt import SweepInterrupted
from . import estimates as _estimates
from .assembly import assemble
from .estimates import Estimate, check_size
from .grid import Axis, dim_attrs
from .points import point_part, run_point
from .run import point_task, sweep
from .spec import SweepSpec, load_spec, parse_spec


def estimate(spec_or_path, threads: int | None = None, fast_path: bool | None = None) -> Estimate:
    """Peak memory and run time of a sweep (a path, TOML text, dict or :class:`SweepSpec`), from
    its sizes alone: :func:`mcio.batch.estimates.estimate`."""
    return _estimates.estimate(load_spec(spec_or_path), threads=threads, fast_path=fast_path)


def open_results(path):
    """The Dataset stored at ``path`` by :func:`sweep` (loaded into memory, file closed)."""
    from ..store import open_results as _open
    return _open(path)


__all__ = ["Axis", "SweepSpec", "load_spec", "parse_spec", "sweep", "run_point", "point_part", "point_task", "assemble",
           "open_results", "estimate", "Estimate", "check_size", "dim_attrs", "McioWarning", "SweepInterrupted"]
