"""Fit model parameters to measured intervals (RMF-style rows) by simulation."""
from __future__ import annotations

from .measured import (
    RMF_COLUMNS,
    SCALES,
    CalibrationResult,
    Row,
    build_model,
    calibrate,
    column_name,
    evaluate,
    load_measured,
    parse_rows,
    parse_set,
    residual_names,
    residuals,
    resolve_scenario,
    row_model,
    search_bounds,
    simulate_row,
    start_values,
)

__all__ = ["Row", "SCALES", "RMF_COLUMNS", "column_name", "load_measured", "parse_rows", "calibrate", "evaluate", "CalibrationResult",
           "build_model", "row_model", "simulate_row", "resolve_scenario", "start_values", "search_bounds",
           "parse_set"]
