"""mcio: Monte Carlo simulation of mainframe (IBM Z, FICON) I/O performance.

``simulate(model, ...)`` runs one model; ``sweep(spec, out=...)`` runs a grid of them to HDF5;
``open_results(path)`` reads a results file back.

The engine (NumPy, Numba, xarray, SciPy) is imported on first use, not here: ``mcio --help``,
``--version`` and shell completion start in a fraction of a second.
"""
from ._version import __version__
from .errors import McioError, McioWarning
from .model import Dist, Model

_LAZY = {"simulate": ("mcio.engine", "simulate"), "open_results": ("mcio.batch", "open_results"),
         "sweep": ("mcio.sweep", None)}


def __getattr__(name):
    if name in _LAZY:
        import importlib
        mod, attr = _LAZY[name]
        m = importlib.import_module(mod)
        if attr is None:
            return m
        f = getattr(m, attr)
        if name == "simulate":   # a damaged Numba cache: one clear McioError, as from the CLI
            from .kernelcache import cache_errors
            f = cache_errors(f)
        globals()[name] = f
        return f
    raise AttributeError(f"module 'mcio' has no attribute {name!r}")


__all__ = ["McioError", "McioWarning", "Dist", "Model", "simulate", "sweep", "open_results", "__version__"]
