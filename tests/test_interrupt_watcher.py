"""The SIGINT watcher that stops a kernel run in the main thread (mcio.interrupt.watching): one
thread for the process, armed only while a block runs."""
import os
import signal
import threading
import time

import pytest

from mcio import interrupt


@pytest.fixture
def quiet_sigint():
    """SIGINT reaches a Python handler that does nothing: only the watcher can set the flag."""
    old = signal.signal(signal.SIGINT, lambda signum, frame: None)
    interrupt.clear()
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
        interrupt.clear()


def _flag_within(seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if interrupt.requested():
            return True
        time.sleep(0.001)
    return False


def test_a_block_sets_the_flag_on_sigint_through_the_watcher(quiet_sigint):
    with interrupt.watching() as watched:
        assert watched
        os.kill(os.getpid(), signal.SIGINT)
        assert _flag_within(2.0)


def test_outside_a_block_sigint_leaves_the_flag_alone(quiet_sigint):
    with interrupt.watching() as watched:
        assert watched
    os.kill(os.getpid(), signal.SIGINT)
    assert not _flag_within(0.2)
    assert signal.set_wakeup_fd(-1) == -1      # the block gave the wake-up fd back


def test_blocks_share_one_thread_and_one_pipe(quiet_sigint):
    with interrupt.watching():
        pass
    first = interrupt._WATCHER[0]
    before = threading.active_count()
    for _ in range(50):
        with interrupt.watching() as watched:
            assert watched
    assert interrupt._WATCHER[0] is first and threading.active_count() == before
    watchers = [t for t in threading.enumerate() if t.name == "mcio-sigint"]
    assert len(watchers) == 1 and watchers[0].is_alive()


def test_another_wakeup_fd_in_use_is_left_as_it_was(quiet_sigint):
    r, w = os.pipe()
    os.set_blocking(w, False)
    try:
        signal.set_wakeup_fd(w)
        with interrupt.watching() as watched:
            assert not watched
        assert signal.set_wakeup_fd(-1) == w
    finally:
        os.close(r)
        os.close(w)


def test_off_the_main_thread_nothing_is_watched():
    got = []
    t = threading.Thread(target=lambda: got.append(interrupt.watching().__enter__()))
    t.start()
    t.join()
    assert got == [False]
