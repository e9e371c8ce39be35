"""``mcio run`` prints from the engine's arrays (:class:`mcio.part.PartView`): no xarray, pandas,
dask or scipy.linalg / special / stats in its process (issue 29: a warm run's start), and the
same report, to the byte, as from the point's Dataset."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mcio.batch import load_spec, point_part
from mcio.cli.commands import report
from mcio.cli.whatif import diagnostics
from mcio.part import PartView
from mcio.plot import sweep_dims

ROOT = Path(__file__).resolve().parent.parent
TOPOLOGY = ROOT / "examples" / "topology" / "two_subsystems.toml"
HEAVY = ("xarray", "pandas", "dask", "scipy.linalg", "scipy.special", "scipy.stats")

CHILD = """
import sys
from mcio.cli import main
try:
    main(["run", *sys.argv[1:], "--ios", "3000", "--replications", "2"])
except SystemExit as e:
    assert not e.code, e.code
import numba.np.arraymath
print(numba.np.arraymath._HAVE_BLAS)
print(sorted(m for m in sys.modules if m.startswith({heavy})))
import scipy.linalg   # hidden only while Numba loaded its arrays: importable after
""".format(heavy=HEAVY)


def _imports_of_run(*args) -> list[str]:
    out = subprocess.run([sys.executable, "-c", CHILD, *args], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.strip().split("\n")
    assert "mcio run:" in out.stdout and lines[-2] == "False", out.stdout   # (Numba's BLAS probe found none)
    return eval(lines[-1])


def test_run_of_a_configuration_imports_no_xarray_pandas_dask_or_scipy_linalg():
    assert _imports_of_run(str(TOPOLOGY)) == []


def test_run_of_the_main_job_imports_no_xarray_pandas_dask_or_scipy_linalg():
    assert _imports_of_run() == []    # (the built-in example: a scenario's spec)


@pytest.mark.parametrize("spec, p", [(TOPOLOGY, 0), (ROOT / "mcio" / "examples" / "ficon_knee.toml", 3)])
def test_the_report_of_a_part_is_the_report_of_its_dataset(spec, p):
    s = _short(load_spec(spec))
    part = point_part(s, p, describe=True)
    view, ds = PartView(part), part.to_dataset()
    text = report(view, s, p)
    assert text == report(ds, s, p)
    assert text.count("\n") > 8 and "nan" not in text
    assert diagnostics(view) == diagnostics(ds)
    assert sweep_dims(view) == sweep_dims(ds)
    assert list(view.dims) == list(ds.dims) and dict(view.sizes) == dict(ds.sizes)
    assert view.coords == set(ds.coords) and view.attrs == ds.attrs


def test_a_view_reads_as_a_dataset():
    s = _short(load_spec(TOPOLOGY))
    part = point_part(s, 0)
    view, ds = PartView(part), part.to_dataset()
    q, qd = view["workload_response_quantile_ms"], ds["workload_response_quantile_ms"]
    assert q.dims == qd.dims and np.array_equal(q["quantile"].values, qd["quantile"].values)
    assert float(q.isel(workload=1, quantile=2)) == float(qd.isel(workload=1, quantile=2))
    assert int(view.get("unstable", 0)) == int(ds.get("unstable", 0)) == 0 and view.get("nope") is None
    with pytest.raises(KeyError):
        view["nope"]
    with pytest.raises(KeyError):
        q["channel_busy"]          # (not a coordinate)
    with pytest.raises(ValueError):
        q.isel(channel=0)          # (not one of its dims)


def _short(s):
    """``s`` with 2 replications of 4,000 I/Os (the parse of its own TOML)."""
    from mcio.batch import parse_spec
    run = {**s.raw.get("run", {}), "ios": 4000, "replications": 2}
    return parse_spec({**s.raw, "run": run}, source=s.source)
