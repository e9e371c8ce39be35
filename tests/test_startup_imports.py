"""What a sweep and a plot import: nothing heavy they do not use. scipy.stats (~1-2 s to import here) is
not needed for a t quantile (scipy.special.stdtrit, the same values), and xarray's checks for
dask arrays would import dask.array (~0.6 s where dask is installed) for data that never is one."""
import subprocess
import sys

import numpy as np
import pytest
import xarray as xr
from scipy import special, stats

from mcio.engine.results import t975
from mcio.part import variable
from sweep_specs import FICON_GRID

CHILD = """
import sys
from mcio.sweep import sweep
sweep(sys.stdin.read())
print(sorted(m for m in ("scipy.stats", "dask.array") if m in sys.modules))
"""


def test_a_sweep_imports_neither_scipy_stats_nor_dask_array():
    out = subprocess.run([sys.executable, "-c", CHILD], input=FICON_GRID, capture_output=True, text=True,
                         check=True)
    assert out.stdout.split("\n")[-2] == "[]", out.stdout + out.stderr


PLOT_CHILD = """
import sys
from mcio.cli import main
try:
    main(["plot", sys.argv[1], "-o", sys.argv[2]])
except SystemExit as e:
    assert not e.code, e.code
print(sorted(m for m in ("scipy.stats", "dask.array") if m in sys.modules))
"""


def test_a_plot_of_a_results_file_imports_neither_scipy_stats_nor_dask_array(tmp_path):
    from mcio.sweep import sweep
    sweep(FICON_GRID, out=tmp_path / "grid.h5")   # two sweep dims: a line per hue value
    out = subprocess.run([sys.executable, "-c", PLOT_CHILD, str(tmp_path / "grid.h5"), str(tmp_path / "grid.png")],
                         capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[-2] == "[]", out.stdout + out.stderr
    assert (tmp_path / "grid.png").stat().st_size > 10_000


@pytest.mark.parametrize("dof", [1, 2, 3, 7, 63, 1000, 2.5, 1e6])
def test_t975_is_scipys_t_ppf_to_the_bit(dof):
    assert t975(dof) == stats.t.ppf(0.975, dof) == special.stdtrit(dof, 0.975)


def test_variable_takes_plain_arrays_as_they_are_and_the_rest_the_xarray_way():
    a = np.arange(6.0).reshape(2, 3)
    assert variable(("x", "y"), a, {"units": "ms"}).identical(xr.Variable(("x", "y"), a, {"units": "ms"}))
    s = variable((), np.float64(2.5), {})
    assert s.ndim == 0 and isinstance(s.data, np.ndarray) and s.values == 2.5
    text = np.array(["", "over capacity"], dtype=object)
    assert variable(("p",), text, {}).identical(xr.Variable(("p",), text, {}))
    m = np.ma.masked_array([1.0, 2.0], mask=[False, True])
    assert np.isnan(variable(("p",), m, {}).values[1])        # masked: NaN, as xarray makes it
    t = np.array(["2026-01-01"], dtype="datetime64[ns]")
    assert variable(("p",), t, {}).identical(xr.Variable(("p",), t, {}))
