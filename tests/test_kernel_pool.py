"""The kernel thread pool is one per process, kept between runs, remade for another thread count
or in a forked child (whose copy of the pool has no threads: using it would hang)."""
import multiprocessing as mp
import os

import pytest

from mcio.engine.run import kernel_pool

HANG_GUARD_S = 60   # a pool that has not answered by then hangs (as a forked copy without threads would)


def test_the_pool_is_kept_between_runs_and_remade_for_another_thread_count():
    a = kernel_pool(2)
    assert kernel_pool(2) is a
    b = kernel_pool(3)
    assert b is not a and b.submit(lambda: 7).result(timeout=HANG_GUARD_S) == 7
    assert kernel_pool(2) is not a          # (the 3-thread pool was made in between)


def _child(q):
    q.put(kernel_pool(2).submit(os.getpid).result(timeout=HANG_GUARD_S) == os.getpid())


@pytest.mark.skipif("fork" not in mp.get_all_start_methods(), reason="no fork on this platform")
def test_a_forked_child_gets_a_working_pool():
    kernel_pool(2).submit(int).result(timeout=HANG_GUARD_S)    # the parent's pool has threads
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_child, args=(q,))
    p.start()
    p.join(HANG_GUARD_S)
    assert p.exitcode is not None, "hung: the forked child's pool never ran its task"
    assert p.exitcode == 0 and q.get(timeout=HANG_GUARD_S) is True
