"""Stream keys that never move: adding a row of draws leaves every existing model bit-identical.

A copy of the package gets a new distribution row (first, so every index shifts) and a new
uniform row (between class and mode), as a new mechanism would add them; golden models that
between them run both engines and every existing row are simulated with that copy in a new
process and must equal the stored golden outputs bit for bit. (The rows' substreams are keyed by
name: tests/test_blockrng.py checks the keying itself.)
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from golden_models import GOLDEN

ROOT = Path(__file__).resolve().parents[1]
CASES = ("mm1_fast", "mmc_fast_gamma", "trace_event", "closed_think_classes", "hyperpav_hotset",
         "zhpf_mix")

_CHILD = """
import sys
import numpy as np
sys.path.insert(0, sys.argv[1] + "/tests")
import mcio, mcio.kernels.layout as L
assert mcio.__file__.startswith(sys.argv[1]), mcio.__file__
assert L.ROW_NAMES[0] == "test.unused_row" and "test.unused_uniform" in L.ROW_NAMES
from golden_models import run_case
out = {}
for name in sys.argv[3:]:
    for v, a in run_case(name).items():
        out[name + "/" + v] = a
np.savez(sys.argv[2], **out)
"""


@pytest.mark.slow                    # copies the package and recompiles its kernels
def test_an_added_row_leaves_existing_models_bit_identical(tmp_path):
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "mcio", tree / "mcio", ignore=shutil.ignore_patterns("__pycache__"))
    (tree / "tests").mkdir()
    shutil.copy(ROOT / "tests" / "golden_models.py", tree / "tests" / "golden_models.py")
    layout = tree / "mcio" / "kernels" / "layout.py"
    src = layout.read_text()
    new = src.replace('DIST_ROWS = ("arrival",', 'DIST_ROWS = ("test.unused_row", "arrival",', 1)
    new = new.replace('UNIFORM_ROWS = ("class", "mode",', 'UNIFORM_ROWS = ("class", "test.unused_uniform", "mode",', 1)
    assert new.count("test.unused") == 2, "layout.py no longer declares its rows as this test expects"
    layout.write_text(new)
    out = tmp_path / "out.npz"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(tree)
    r = subprocess.run([sys.executable, "-c", _CHILD, str(tree), str(out), *CASES], env=env,
                       cwd=tree, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with np.load(GOLDEN) as want, np.load(out) as got:
        assert sorted(got.files) == sorted(k for k in want.files if k.split("/")[0] in CASES)
        for k in got.files:
            assert np.array_equal(got[k], want[k], equal_nan=want[k].dtype.kind == "f"), k
