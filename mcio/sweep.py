"""``mcio.sweep``: the batch API (:mod:`mcio.batch`) under its older name, kept so that
``import mcio.sweep``, ``from mcio.sweep import load_spec, sweep, ...`` and ``mcio.sweep(spec, out=...)``
keep working. New code imports from :mod:`mcio.batch`.

Re-exported: the public names of the former ``mcio/sweep.py`` (functions, classes, constants).
A test that substitutes an internal (e.g. the engine call ``_simulate``) patches it where it
lives, in its :mod:`mcio.batch` module: a name set here would not be seen there.
"""
from __future__ import annotations
# ruff: noqa: F401  (re-exports)

import sys
import types

from .batch import (Axis, Estimate, McioWarning, SweepInterrupted, SweepSpec, assemble, check_size, dim_attrs,
                    estimate, load_spec, open_results, parse_spec, point_part, point_task, run_point, sweep)
from .batch.estimates import (BASE_MEMORY_BYTES, EVENT_S_PER_IO, FASTPATH_S_PER_IO, KERNEL_BYTES_PER_SLOT,
                              POINT_OVERHEAD_S, WARN_AFTER_S, machine_memory)
from .batch.grid import MAX_AXIS_VALUES, RESERVED_DIMS, UNIT_OF_SUFFIX, VARIANT_DIM
from .batch.points import MUST_BE_FINITE, STEADY_STATE_ONLY
from .batch.spec import (EAGER_POINTS, MAX_DEPTH, MAX_IOS_FACTOR, MAX_POINTS, MAX_RUN_IOS, PRECISION_VARS,
                         RUN_BOUNDS, RUN_DEFAULTS, RUN_KEYS, SAMPLED_VALUES, TOP_KEYS)
from .errors import McioError
from .model import Model

__all__ = ["Axis", "SweepSpec", "load_spec", "parse_spec", "sweep", "run_point", "point_part", "point_task", "assemble",
           "open_results", "estimate", "Estimate", "check_size", "McioWarning", "SweepInterrupted"]


class _CallableModule(types.ModuleType):
    """``mcio.sweep(spec, out=...)`` runs a sweep even where ``mcio.sweep`` names this module
    (importing a submodule rebinds the package attribute to the module, shadowing a function)."""

    def __call__(self, *args, **kwargs):
        return sweep(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
