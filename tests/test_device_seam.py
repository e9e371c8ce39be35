"""The device-service seam (kernels/stages.device_service) is the one place a device mechanism
goes: a copy of the package whose seam gives every I/O a 0.5 ms device-side disconnect and a
0.3 ms least connect time (as positional DASD would: seek + latency, then a transfer paced by the
media) must simulate exactly that, through the stages that carry the plan out (EV_DEVICE,
EV_PACE), with no other edit: disconnect 0.5 ms and connect 0.3 ms for every I/O, and the IOSQ of
the M/D/1 queue they make (Pollaczek-Khinchine)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

_CHILD = """
import sys
sys.path.insert(0, sys.argv[1] + "/tests")
import mcio
assert mcio.__file__.startswith(sys.argv[1]), mcio.__file__
from mcio import Model, simulate
from mcio.analytic import md1
from oracle_models import tolerance_se
m = Model.from_dict({"workload": {"type": "open", "rate_iops": 1000.0},
                     "io": [{"kb": 0.0, "miss_ratio": 0.0}], "devices": {"count": 1},
                     "channels": {"mp_us_per_io_ccw": 0.0, "protocol_us_per_command_ccw": 0.0},
                     "control_unit": {"ha_service_us": 0.0}})
ds = simulate(m, ios=40_000, replications=8, seed=5, fast_path=False)
for comp, want in (("disconnect", 0.5), ("connect", 0.3), ("pend", 0.0)):
    got = ds[comp + "_ms"].values
    assert abs(got - want).max() < 1e-9, (comp, got)
wq = md1(1.0, 0.8).mean_wait
got = float(ds.iosq_ms.mean())
assert abs(got - wq) < 4.5 * tolerance_se(ds, "iosq"), (got, wq)
print("ok", got, wq)
"""


@pytest.mark.slow                    # copies the package and recompiles its kernels
def test_a_mechanism_in_the_seam_is_carried_out(tmp_path):
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "mcio", tree / "mcio", ignore=shutil.ignore_patterns("__pycache__"))
    (tree / "tests").mkdir()
    shutil.copy(ROOT / "tests" / "oracle_models.py", tree / "tests" / "oracle_models.py")
    stages = tree / "mcio" / "kernels" / "stages.py"
    src = stages.read_text()
    new = src.replace("    sf[x, SF_DEV_DISC_MS] = 0.0\n", "    sf[x, SF_DEV_DISC_MS] = 0.5\n", 1)
    new = new.replace("    sf[x, SF_CONN_MIN_MS] = 0.0\n", "    sf[x, SF_CONN_MIN_MS] = 0.3\n", 1)
    assert new.count("SF_DEV_DISC_MS] = 0.5") == 1 and new.count("SF_CONN_MIN_MS] = 0.3") == 1, \
        "device_service changed shape"
    stages.write_text(new)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(tree)
    r = subprocess.run([sys.executable, "-c", _CHILD, str(tree)], env=env, cwd=tree,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.startswith("ok")
