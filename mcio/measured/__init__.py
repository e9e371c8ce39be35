"""Measured data in: readers of RMF Postprocessor reports (text, XML), SMF 73/74/78 records and
z/VM monitor reports (Performance Toolkit, ESAMON), each returning the same tidy
:class:`~mcio.measured.table.Measured` table (see table.py for the columns)."""
from .table import COLUMNS, LEVELS, Measured, bad_file, columns, empty_frame, frame

__all__ = ["COLUMNS", "LEVELS", "Measured", "bad_file", "columns", "empty_frame", "frame"]
