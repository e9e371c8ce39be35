"""Ctrl-C during a sweep: a flag the kernels poll, a counter they advance, one clean way out.

Python delivers SIGINT as a KeyboardInterrupt raised at whatever bytecode the main thread runs
next: inside a weakref callback (a ThreadPoolExecutor's ``weakref_cb``, an h5py object's
finaliser, tqdm's monitor) it is printed as "Exception ignored in ..." and lost, and the sweep goes
on; while a Numba kernel runs it waits until the kernel returns. :func:`handling` replaces the
handler for the duration of a sweep by one that only sets :func:`flag` (never raises), so no
Ctrl-C is lost; the sweep checks :func:`requested` between points and the kernels poll
``flag()[0]`` between batches of I/Os (every block of 256 on the fast path, every 2,048
completions on the event engine: a stop within milliseconds at any run size). The point they cut short has
fewer I/Os measured than asked: the sweep drops it (it is recomputed on --resume). A second Ctrl-C raises KeyboardInterrupt at once (for a
stage that polls nothing).

:func:`counter` is the within-point progress: each running replication adds the I/Os it has
completed (warm-up included) to its own slot, ``counter()[slot * SLOT_STRIDE]`` (one cache line
per slot: no sharing between threads, no lost counts; the slot from :func:`progress_slot`); the
sweep reads ``counter().sum()`` and resets it. A progress figure, not a result.

Outside a sweep, :func:`polling` (what ``engine.run_kernels`` runs the kernels under) makes Ctrl-C
stop the kernels too: it sets the flag, the kernels return early, and KeyboardInterrupt is raised
once they have.

A process started with SIGINT ignored (a background job of a shell without job control, ``nohup``,
a service manager's choice) keeps it ignored: none of these blocks installs a handler then, as
Python itself installs none (a shell ignores it in background jobs so that the terminal's Ctrl-C
reaches only the foreground). :func:`request` still stops a sweep or a run.
"""
from __future__ import annotations

import contextlib
import os
import queue
import signal
import threading

import numpy as np

PROGRESS_SLOTS = 64     # replications that can count at once without sharing a slot
SLOT_STRIDE = 8         # int64s per slot: 64 bytes, one cache line
_FLAG = np.zeros(1, dtype=np.int64)      # 1: stop requested (kernels poll element 0)
_COUNTER = np.zeros(PROGRESS_SLOTS * SLOT_STRIDE, dtype=np.int64)   # I/Os completed, by slot
_FREE_SLOTS = queue.SimpleQueue()
for _k in range(PROGRESS_SLOTS):
    _FREE_SLOTS.put(_k)
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


class Interrupted(KeyboardInterrupt):
    """Ctrl-C after a command wrote part of its work: the one line says what was kept."""

    exit_code = 130

    def __init__(self, kept: str):
        super().__init__(f"interrupted: {kept}")

    def __str__(self):
        return self.args[0]


def flag() -> np.ndarray:
    """The shared stop flag: an int64 array of one element (0 run, 1 stop), for the kernels."""
    return _FLAG


def counter() -> np.ndarray:
    """The shared within-point progress counter: int64[PROGRESS_SLOTS * SLOT_STRIDE]; its sum is
    the I/Os completed so far in the running point (each replication adds to its own slot)."""
    return _COUNTER


@contextlib.contextmanager
def progress_slot():
    """A one-element view of :func:`counter`, this replication's own slot while the block runs
    (a kernel adds its completed I/Os to element 0). More replications at once than
    PROGRESS_SLOTS wait for a slot: only as many run at once as there are threads."""
    k = _FREE_SLOTS.get()
    try:
        yield _COUNTER[k * SLOT_STRIDE:k * SLOT_STRIDE + 1]
    finally:
        _FREE_SLOTS.put(k)


def requested() -> bool:
    return bool(_FLAG[0])


def request() -> None:
    """Ask the running sweep to stop (what Ctrl-C does; also usable from another thread)."""
    _FLAG[0] = 1


def clear() -> None:
    _FLAG[0] = 0
    _COUNTER[:] = 0
    _PRESSES[0] = 0


def _ignored() -> bool:
    """SIGINT is ignored in this process (SIG_IGN): leave it so."""
    return signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def _on_sigint(signum, frame):
    # (silent: the sweep stops within a second and then says in one line what it kept)
    _PRESSES[0] += 1
    _FLAG[0] = 1
    if _PRESSES[0] >= 2:  # asked twice: whatever runs now (not polling the flag) is abandoned
        raise KeyboardInterrupt


@contextlib.contextmanager
def handling():
    """Within the block, SIGINT sets :func:`flag` instead of raising (main thread only; elsewhere
    the flag still works through :func:`request`; SIGINT ignored stays ignored). The flag is
    cleared on entry and on exit."""
    clear()
    installed = False
    old = None
    if threading.current_thread() is threading.main_thread() and not _ignored():
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


def _on_sigint_run(signum, frame):
    _PRESSES[0] += 1
    _FLAG[0] = 1
    if _PRESSES[0] >= 2:
        raise KeyboardInterrupt


@contextlib.contextmanager
def deferred():
    """Within the block (main thread), SIGINT is held and delivered to the handler it would have
    reached once the block ends: for a Numba compile, where a KeyboardInterrupt raised inside one
    of llvmlite's ctypes callbacks (its object cache's) is "ignored" and leaves LLVM's state
    broken, and the process then dies of a segmentation fault instead of stopping cleanly.
    Nested blocks pass what they held to the enclosing one. Elsewhere (another thread, no
    signal support, SIGINT ignored) a no-op."""
    if threading.current_thread() is not threading.main_thread() or _ignored():
        yield
        return
    held = []
    try:
        old = signal.signal(signal.SIGINT, lambda signum, frame: held.append(frame))
    except (ValueError, OSError):
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old if old is not None else signal.default_int_handler)
        for frame in held:        # each press, as it would have been delivered
            if old is signal.SIG_DFL:
                os.kill(os.getpid(), signal.SIGINT)
            elif callable(old):
                old(signal.SIGINT, frame)


#: Set while kernels run (inside :func:`polling`): the GIL is free then, so a sweep's background
#: saving (:class:`mcio.store.Saver`) waits for it rather than compete with this process's own
#: Python work for the GIL (which slows both). A scheduling hint, never a result.
KERNELS_RUNNING = threading.Event()


@contextlib.contextmanager
def polling():
    """:func:`_polling`, with :data:`KERNELS_RUNNING` set within the block."""
    with _polling() as f:
        KERNELS_RUNNING.set()
        try:
            yield f
        finally:
            KERNELS_RUNNING.clear()


@contextlib.contextmanager
def _polling():
    """Ctrl-C stops the kernels run within the block: under a sweep's :func:`handling`, nothing
    changes (the sweep decides what a stopped point means). Otherwise, in the main thread, SIGINT
    only sets :func:`flag` while the block runs (the kernels poll it and return early with what
    they have), and on leaving the block a stop request raises KeyboardInterrupt: a run cut short
    is not a result. Off the main thread, or with SIGINT ignored, only :func:`request` stops the
    kernels."""
    if (threading.current_thread() is not threading.main_thread() or _ignored()
            or signal.getsignal(signal.SIGINT) is _on_sigint):
        yield _FLAG
        return
    try:
        old = signal.signal(signal.SIGINT, _on_sigint_run)
    except (ValueError, OSError):
        yield _FLAG
        return
    _FLAG[0] = 0
    _PRESSES[0] = 0
    try:
        yield _FLAG
    finally:
        signal.signal(signal.SIGINT, old if old is not None else signal.default_int_handler)
        stopped = bool(_FLAG[0])
        _FLAG[0] = 0
        _PRESSES[0] = 0
    if stopped:
        raise KeyboardInterrupt


class _Watcher:
    """The process's one SIGINT watcher: a pipe whose write end :func:`watching` makes the
    C-level handler's wake-up fd, and a daemon thread that reads it and sets :func:`flag` while
    a block is armed. Made on first use and kept: a thread started and joined per run cost a
    small sweep point ~0.25 ms of its ~1.5 (benchmarks/README.md, session 29). Remade in a forked
    child (whose copy has the pipe but no thread)."""

    def __init__(self):
        self.r, self.w = os.pipe()
        os.set_blocking(self.w, False)
        self.armed = False
        self.pid = os.getpid()
        threading.Thread(target=self._watch, name="mcio-sigint", daemon=True).start()

    def _watch(self):
        while True:
            try:
                got = os.read(self.r, 64)
            except OSError:
                return
            if not got:
                return
            # a byte read after the block ended is left to Python's own handler, which the
            # main thread runs once the kernel has returned (it sets the flag as well)
            if self.armed and signal.SIGINT in got:
                _FLAG[0] = 1


_WATCHER: list = [None]


def _watcher() -> _Watcher:
    w = _WATCHER[0]
    if w is None or w.pid != os.getpid():
        w = _WATCHER[0] = _Watcher()
    return w


@contextlib.contextmanager
def watching():
    """For a kernel run in the main thread itself: while it runs, Python's own handler cannot
    (it waits for the kernel to return), so the C-level one's wake-up byte (signal.set_wakeup_fd)
    reaches a watcher thread (:class:`_Watcher`, one per process), which sets :func:`flag` at
    once. Yields True if watching (main thread, no other wake-up fd in use, e.g. an asyncio
    loop's), else False: the caller then runs its kernels off the main thread instead."""
    if threading.current_thread() is not threading.main_thread():
        yield False
        return
    watcher = _watcher()
    try:
        old = signal.set_wakeup_fd(watcher.w, warn_on_full_buffer=False)
    except (ValueError, OSError):
        old = None
    if old is None or old != -1:
        if old is not None:
            signal.set_wakeup_fd(old)
        yield False
        return
    watcher.armed = True
    try:
        yield True
    finally:
        watcher.armed = False
        signal.set_wakeup_fd(-1)


__all__ = ["SweepInterrupted", "KERNELS_RUNNING", "deferred", "watching", "flag", "counter", "progress_slot", "requested", "request", "clear", "handling",
           "polling", "PROGRESS_SLOTS", "SLOT_STRIDE"]
