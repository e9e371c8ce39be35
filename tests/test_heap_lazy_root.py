"""The event heap (kernels/heap.py) against Python's heapq: pop-then-push and the lazy root
(take, put, settle) hand out the same events in the same order, ties in time broken by code."""
import heapq

import numpy as np
import pytest

from mcio.kernels.heap import heap_pop, heap_push, heap_put, heap_settle, heap_take


def _script(seed, steps=20000, cap=48):
    """A random sequence of operations: ('put', time, code) or ('next',); times on a coarse
    grid so that ties in time are common."""
    rng = np.random.default_rng(seed)
    n = 0
    ops = []
    for _ in range(steps):
        if n < cap and (n == 0 or rng.random() < 0.5):
            ops.append(("put", float(rng.integers(0, 40)), int(rng.integers(0, 10**6))))
            n += 1
        else:
            ops.append(("next",))
            n -= 1
    return ops


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("lazy", [False, True])
def test_heap_hands_out_events_in_key_order(seed, lazy):
    t = np.zeros(49)
    c = np.zeros(49, np.int64)
    size = np.zeros(2, np.int64)
    ref = []
    got, want = [], []
    for op in _script(seed):
        if op[0] == "put":
            (heap_put if lazy else heap_push)(t, c, size, op[1], op[2])
            heapq.heappush(ref, (op[1], op[2]))
        else:
            if lazy:
                heap_settle(t, c, size)
            got.append((t[0], int(c[0])))
            want.append(heapq.heappop(ref))
            (heap_take if lazy else heap_pop)(t, c, size)
    assert got == want
    assert len(got) > 5000
