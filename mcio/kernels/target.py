"""Numba's array implementations loaded without ``scipy.linalg`` (for a command's own process).

Numba's own, not mcio's: as its CPU target first loads (the first kernel called, compiled or from
the cache), numba/np/arraymath.py (Numba 0.68: ``_HAVE_BLAS = _check_blas()``) imports
``scipy.linalg.cython_blas``, only to choose how ``np.correlate`` / ``np.convolve`` compute their
dot products (BLAS or a plain loop). No mcio kernel calls either, and importing scipy.linalg is a
tenth of a warm ``mcio run`` (benchmarks/README.md, "issue 29: a warm mcio run without xarray").
"""
from __future__ import annotations

import sys


def load_arrays_without_scipy_linalg() -> None:
    """Import ``numba.np.arraymath`` with ``scipy.linalg`` hidden: that one import fails and
    Numba takes the loop for np.correlate / np.convolve; the name is back at once, so a later
    ``import scipy.linalg`` (Numba compiling ``np.dot``) works as before. For a command's
    process (a library call leaves Numba as it is); nothing done where either is loaded already."""
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return
    sys.modules["scipy.linalg"] = None     # (None in sys.modules: that import raises ImportError)
    try:
        import numba.np.arraymath  # noqa: F401
    except ImportError:
        pass    # (another Numba: its first kernel loads its own way, scipy.linalg back in place)
    finally:
        if "scipy.linalg" in sys.modules and sys.modules["scipy.linalg"] is None:
            del sys.modules["scipy.linalg"]
