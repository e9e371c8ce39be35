"""Fit model parameters to measured intervals (RMF-style rows) by simulation.

One concept per module, in the order a calibration meets them:

- :mod:`~mcio.calibrate.measured`: the measured table (its columns are documented there), read
  from CSV or TOML and validated into :class:`Row` objects;
- :mod:`~mcio.calibrate.params`: the fitted parameters: the scenario (or any model: a spec, a base
  model from ``mcio base``, fitted by dotted fields), its model at given values, starting values,
  search bounds, the fixed overrides (``--set``);
- :mod:`~mcio.calibrate.simulation`: one measured row simulated with its load (open, or closed
  with a given or solved think time), every row by :func:`evaluate`;
- :mod:`~mcio.calibrate.loss`: the scaled residuals the fit minimises (:data:`SCALES`);
- :mod:`~mcio.calibrate.fit`: the optimiser loop (:func:`calibrate`), its determinism and the
  uncertainty of its result (fewer rows than parameters: the least identified held, on request);
- :mod:`~mcio.calibrate.result`: :class:`CalibrationResult`, as text and as the fitted-scenario
  file (or the calibrated model's spec), the covariance of the fitted values beside them.
"""
from __future__ import annotations

from .fit import calibrate
from .loss import SCALES, residual_names, residuals
from .measured import RMF_COLUMNS, Row, column_name, load_measured, parse_rows
from .params import ModelScenario, build_model, parse_set, resolve_scenario, search_bounds, start_values
from .result import CalibrationResult
from .simulation import evaluate, row_model, simulate_row

# residual_names and residuals: importable from here (tests use them), outside __all__ as they were
__all__ = ["Row", "SCALES", "RMF_COLUMNS", "column_name", "load_measured", "parse_rows", "calibrate", "evaluate", "CalibrationResult",
           "build_model", "row_model", "simulate_row", "resolve_scenario", "start_values", "search_bounds",
           "parse_set", "ModelScenario"]
