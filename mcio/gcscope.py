"""The garbage collector during a sweep: objects older than the sweep are left out of its full
collections.

A process that has loaded the kernels tracks ~200,000 objects (Numba's, LLVM's, the modules'),
none of them garbage a sweep makes. CPython's full (oldest-generation) collection walks them all;
the first sweep of a process (``mcio sweep``), which loads the kernels, sets off several, and a
later one now and then (their cost: benchmarks/README.md, "store"). ``gc.freeze()`` moves the objects alive at the start to the permanent generation,
which collections skip, in O(1); ``gc.unfreeze()`` at the end gives them back to the oldest
generation, so nothing is lost: garbage among them is found by the next full collection after
the sweep. Objects made during the sweep (its points, their garbage) are collected as always.
"""
from __future__ import annotations

import contextlib
import gc
import threading

_LOCK = threading.Lock()
_DEPTH = [0]   # sweeps running in this process (threads): the last one out unfreezes


@contextlib.contextmanager
def older_objects_frozen():
    """Within: the objects tracked at entry are skipped by the collector. Does nothing when
    something else has frozen objects (``gc.get_freeze_count() > 0`` at entry with no sweep of
    ours running): their freeze is theirs to undo."""
    with _LOCK:
        mine = _DEPTH[0] > 0 or gc.get_freeze_count() == 0
        if mine:
            if _DEPTH[0] == 0:
                gc.freeze()
            _DEPTH[0] += 1
    try:
        yield
    finally:
        if mine:
            with _LOCK:
                _DEPTH[0] -= 1
                if _DEPTH[0] == 0:
                    gc.unfreeze()
