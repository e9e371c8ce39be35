"""Ctrl-C during a sweep: a flag the kernels poll, a counter they advance, one clean way out.

Python delivers SIGINT as a KeyboardInterrupt raised at whatever bytecode the main thread runs
next: inside a weakref callback (a ThreadPoolExecutor's ``weakref_cb``, an h5py object's
finaliser, tqdm's monitor) it is printed as "Exception ignored in ..." and lost, and the sweep goes
on; while a Numba kernel runs it waits until the kernel returns. :func:`handling` replaces the
handler for the duration of a sweep by one that only sets :func:`flag` (never raises), so no
Ctrl-C is lost; the sweep checks :func:`requested` between points and the kernels poll
``flag()[0]`` between batches of I/Os. A second Ctrl-C raises KeyboardInterrupt at once (for a
stage that polls nothing).

:func:`counter` is the within-point progress: kernels add the I/Os they have completed to
``counter()[0]`` (relaxed: a progress figure, not a result), the sweep reads and resets it.
"""
from __future__ import annotations

import contextlib
import os
import signal
import threading

import numpy as np

_FLAG = np.zeros(1, dtype=np.int64)      # 1: stop requested (kernels poll element 0)
_COUNTER = np.zeros(1, dtype=np.int64)   # I/Os completed in the running point (kernels add)
_PRESSES = [0]


class SweepInterrupted(KeyboardInterrupt):
    """A sweep stopped by Ctrl-C (or :func:`request`) after saving every finished point.

    A KeyboardInterrupt, so code that does not know it stops as for any Ctrl-C; ``saved`` and
    ``total`` count points; the CLI prints ``str(e)`` and exits 130 (128 + SIGINT)."""

    exit_code = 130

    def __init__(self, saved: int, total: int, out=None):
        self.saved, self.total, self.out = saved, total, out
        hint = "; resume with --resume" if out is not None else " (no output file: nothing kept)"
        super().__init__(f"interrupted: {saved} of {total} points saved{hint}")

    def __str__(self):
        return self.args[0]


def flag() -> np.ndarray:
    """The shared stop flag: an int64 array of one element (0 run, 1 stop), for the kernels."""
    return _FLAG


def counter() -> np.ndarray:
    """The shared within-point progress counter: int64[1], I/Os completed so far."""
    return _COUNTER


def requested() -> bool:
    return bool(_FLAG[0])


def request() -> None:
    """Ask the running sweep to stop (what Ctrl-C does; also usable from another thread)."""
    _FLAG[0] = 1


def clear() -> None:
    _FLAG[0] = 0
    _COUNTER[0] = 0
    _PRESSES[0] = 0


NOTICE = b"\nmcio: Ctrl-C: stopping after the running point, keeping every finished one (Ctrl-C again: abandon it)\n"


def _on_sigint(signum, frame):
    _PRESSES[0] += 1
    _FLAG[0] = 1
    if _PRESSES[0] >= 2:  # asked twice: whatever runs now (not polling the flag) is abandoned
        raise KeyboardInterrupt
    try:
        os.write(2, NOTICE)  # a raw write: no Python-level lock a handler could deadlock on
    except OSError:
        pass


@contextlib.contextmanager
def handling():
    """Within the block, SIGINT sets :func:`flag` instead of raising (main thread only; elsewhere
    the flag still works through :func:`request`). The flag is cleared on entry and on exit."""
    clear()
    installed = False
    old = None
    if threading.current_thread() is threading.main_thread():
        try:
            old = signal.signal(signal.SIGINT, _on_sigint)
            installed = True
        except (ValueError, OSError):  # embedded interpreters without signal support
            installed = False
    try:
        yield _FLAG
    finally:
        if installed:
            signal.signal(signal.SIGINT, old if old is not None else signal.default_int_handler)
        clear()


__all__ = ["SweepInterrupted", "flag", "counter", "requested", "request", "clear", "handling"]
