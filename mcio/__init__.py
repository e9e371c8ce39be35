"""mcio: Monte Carlo simulation of mainframe (IBM Z, FICON) I/O performance.

``simulate(model, ...)`` runs one model; ``sweep(spec, out=...)`` runs a grid of them to HDF5;
``open_results(path)`` reads a results file back.
"""
from ._version import __version__
from .errors import McioError
from .model import Dist, Model
from .engine import simulate  # noqa: E402
from . import sweep  # noqa: E402  (the module is callable: mcio.sweep(spec, out=...))
from .sweep import open_results  # noqa: E402

__all__ = ["McioError", "Dist", "Model", "simulate", "sweep", "open_results", "__version__"]
