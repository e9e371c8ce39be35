"""The Python API refuses a run size outside the sweep spec's bounds (engine/limits.py, one home)
with a McioError naming the argument, before any allocation (it raised NumPy's errors for
replications=10**30)."""
import pytest

from mcio import McioError, simulate
from mcio.engine.limits import RUN_BOUNDS
from mcio.model import Model


@pytest.mark.parametrize("name, value", [("replications", 10**30), ("replications", 1),
                                         ("ios", 0), ("ios", 2**63), ("seed", -1), ("seed", 2**64),
                                         ("warmup", -1), ("point", -3), ("replications", True)])
def test_simulate_refuses_run_sizes_out_of_bounds(name, value):
    kw = {"ios": 100, "replications": 2, name: value}
    with pytest.raises(McioError, match=name):
        simulate(Model.from_dict({}), **kw)


def test_the_bounds_are_the_sweep_specs():
    from mcio.batch.spec import RUN_BOUNDS as spec_bounds
    assert spec_bounds is RUN_BOUNDS
