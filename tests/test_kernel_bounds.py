"""The kernels stay inside their arrays: the main job, a configuration of two closed workloads on
two control units sharing one channel (where a link's list of transfers once overflowed its row),
and the fast path's M/M/1, run in a process with Numba's bounds check on (``NUMBA_BOUNDSCHECK=1``).

Since kernels/indices.py a negative index in a kernel is not wrapped (Numba's meaning) but read
as it is, outside the array; under the bounds check it raises IndexError, as an index past the
end does. The whole suite passes under that setting (benchmarks/README.md, session 25); this test
keeps the three kernels a run uses (``run_one``, ``run_one_units``, ``fast_one``) checked in CI
on the models most likely to find a slip. ~30 s: each kernel is compiled once more, with checks."""
import os
import subprocess
import sys
import textwrap

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))

SCRIPT = textwrap.dedent("""
    import sys
    sys.path.insert(0, {here!r})
    import numpy as np
    from mcio import Model, simulate
    from mcio.scenarios import build_scenario
    from oracle_models import CLOSED_DEMANDS_MS
    from units_tables import two_closed_workloads

    ds = simulate(build_scenario("ficon-channel", {{"population": 80}}), ios=20_000, replications=2, seed=1)
    assert ds.response_ms.values.min() > 0.0

    m, T = two_closed_workloads(CLOSED_DEMANDS_MS["ha"], CLOSED_DEMANDS_MS["be"])
    ds = simulate(m, ios=20_000, replications=2, seed=8, tables=T)
    assert ds.workload_response_ms.values.min() > 0.0

    mm1 = Model.from_dict({{"workload": {{"type": "open", "rate_iops": 900.0}},
                           "io": [{{"kb": 0.0, "miss_ratio": 1.0}}], "devices": {{"count": 1}},
                           "channels": {{"mp_us_per_io_ccw": 0.0}},
                           "control_unit": {{"backend_service_ms": {{"dist": "exponential", "mean": 1.0}}}}}})
    ds = simulate(mm1, ios=200_000, replications=2, seed=3)
    assert abs(ds.response_ms.values.mean() - 10.0) < 2.0
    print("in bounds")
""")


@pytest.mark.slow
def test_the_kernels_stay_inside_their_arrays_under_numbas_bounds_check(tmp_path):
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(tmp_path / "cache"),
               NUMBA_NUM_THREADS="2")
    r = subprocess.run([sys.executable, "-c", SCRIPT.format(here=HERE)], env=env,
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0 and "in bounds" in r.stdout, r.stdout[-2000:] + r.stderr[-4000:]
