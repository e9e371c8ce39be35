"""Same seed, same bits on any thread count; different seeds differ; memory flat in the I/O count."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mcio import simulate
from oracle_models import ficon_like

HERE = Path(__file__).parent


def _run(args, threads):
    env = dict(os.environ, NUMBA_NUM_THREADS=str(threads), PYTHONPATH=os.pathsep.join([str(HERE), str(HERE.parent)]))
    out = subprocess.run([sys.executable, str(HERE / "engine_run_helper.py"), *args], env=env,
                         capture_output=True, text=True, check=True, timeout=600)
    return out.stdout.strip().splitlines()[-1]


@pytest.mark.slow                    # two fresh interpreters, each loading the kernels
def test_same_seed_bit_identical_on_one_and_two_threads():
    one = _run(["digest", "42"], threads=1)
    two = _run(["digest", "42"], threads=2)
    assert one == two


def test_different_seeds_and_points_differ_same_seed_repeats():
    m = ficon_like(population=10, channels=1)
    a = simulate(m, ios=5_000, replications=2, seed=1)
    b = simulate(m, ios=5_000, replications=2, seed=2)
    c = simulate(m, ios=5_000, replications=2, seed=1, point=1)
    again = simulate(m, ios=5_000, replications=2, seed=1)
    assert not np.array_equal(a.response_ms.values, b.response_ms.values)
    assert not np.array_equal(a.response_ms.values, c.response_ms.values)
    assert np.array_equal(a.response_ms.values, again.response_ms.values)
    # replications are distinct streams
    assert a.response_ms.values[0] != a.response_ms.values[1]


@pytest.mark.slow                    # two fresh interpreters, one running 2,000,000 I/Os
def test_peak_memory_does_not_grow_with_ios():
    """100x more I/Os: a per-I/O float64 array would add >= 16 MB; allow 4 MB of noise."""
    small = int(_run(["rss", "20000"], threads=2))
    large = int(_run(["rss", "2000000"], threads=2))
    assert large - small < 4 * 1024, (small, large)
