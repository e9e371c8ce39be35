"""A point too small for the kernel pool to pay runs its replications in the calling thread
(mcio.engine.run.POOL_MIN_IOS), with the same results as on the pool."""
import numba
import numpy as np
import pytest

import mcio.engine.run as run_mod
from mcio import simulate
from oracle_models import ficon_like, single_server_open


@pytest.fixture
def two_threads():
    before = numba.get_num_threads()
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    yield
    numba.set_num_threads(before)


def _no_pool(threads):
    raise AssertionError("a small point was handed to the kernel pool")


@pytest.mark.parametrize("fast", [True, False])
def test_a_small_point_runs_in_this_thread_with_the_pools_results(two_threads, monkeypatch, fast):
    m = single_server_open(500.0, {"dist": "exponential", "mean": 1.0}) if fast else ficon_like(population=8, channels=2)
    ios, R = 200, 3
    assert R * (ios + 100) < run_mod.POOL_MIN_IOS[fast]
    monkeypatch.setattr(run_mod, "POOL_MIN_IOS", {True: 0, False: 0})     # every point on the pool
    pooled = simulate(m, ios=ios, replications=R, warmup=100, seed=5)
    monkeypatch.undo()
    monkeypatch.setattr(run_mod, "kernel_pool", _no_pool)
    inline = simulate(m, ios=ios, replications=R, warmup=100, seed=5)
    assert pooled.attrs["engine"] == inline.attrs["engine"] == ("fast-path G/G/c" if fast else "event")
    for name in pooled.data_vars:
        np.testing.assert_array_equal(pooled[name].values, inline[name].values, err_msg=name)


def test_a_large_point_uses_the_pool_and_this_thread(two_threads, monkeypatch):
    """The calling thread takes replications too (one pool thread fewer to wake), each once."""
    import threading
    from mcio.kernels import iopath
    if numba.get_num_threads() < 2:
        pytest.skip("one thread: the pool is never used")
    used, ran = [], []
    real_pool, real_kernel = run_mod.kernel_pool, iopath.run_one
    monkeypatch.setattr(run_mod, "kernel_pool", lambda threads: used.append(threads) or real_pool(threads))

    def kernel(*args):
        ran.append(threading.current_thread() is threading.main_thread())
        return real_kernel(*args)
    monkeypatch.setattr(iopath, "run_one", kernel)
    simulate(ficon_like(population=8, channels=2), ios=2_000, replications=4, warmup=100, seed=5)
    assert used and len(ran) == 4 and any(ran)
