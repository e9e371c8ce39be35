"""Saving work run beside the kernels."""
from __future__ import annotations

import queue
import sys
import threading
import time
from typing import Callable


class Saver:
    """Saving work run off the main thread while the kernels run (``gate``, by default
    :data:`mcio.interrupt.KERNELS_RUNNING`, is set): the kernels release the GIL, so then a
    thread of Python and HDF5 work costs the sweep at most a share of a core, where beside the
    main thread's own Python work (between kernels) it would hold up both.

    Tasks run in order, each once the gate is open. :meth:`close` stops taking tasks (those not
    started are dropped: every task is work the main thread would otherwise do itself, so it
    must check what was done), waits for the running one and raises its exception, if any, in
    the caller's thread: a failure is never lost in the background."""

    def __init__(self, gate: threading.Event | None = None):
        if gate is None:
            from ..interrupt import KERNELS_RUNNING as gate
        self._gate = gate
        self._tasks = queue.SimpleQueue()
        self._stopped = threading.Event()
        self._error = None
        self.cpu_s = 0.0   # CPU time its tasks took (benchmarks/saving.py counts it as saving)
        self._thread = threading.Thread(target=self._run, name="mcio-saver", daemon=True)
        self._thread.start()

    def submit(self, fn: Callable, *args) -> None:
        self._tasks.put((fn, args))

    def _run(self) -> None:
        while True:
            task = self._tasks.get()
            if task is None:
                return
            while not self._gate.wait(0.05):  # (a timeout: close() must not wait for a gate never opened)
                if self._stopped.is_set():
                    return
            if self._stopped.is_set():
                return
            t = time.thread_time()
            try:
                task[0](*task[1])
            except BaseException as e:  # noqa: BLE001 - handed to the main thread by close()
                self._error = e
                return
            finally:
                self.cpu_s += time.thread_time() - t

    def close(self, raise_error: bool = True) -> None:
        """Stop; wait for the running task; raise its exception here if it failed (unless
        ``raise_error`` is false: the caller is raising another already)."""
        self._stopped.set()
        self._tasks.put(None)
        self._thread.join()
        err, self._error = self._error, None
        if err is not None and raise_error:
            raise err


def h5py_loaded() -> bool:
    return "h5py" in sys.modules


def prefetch_h5py() -> None:
    """Import h5py (~50-110 ms on this machine the first time: paid by every ``mcio sweep -o``,
    by nothing in memory), so that the final file does not wait for it."""
    import h5py  # noqa: F401
