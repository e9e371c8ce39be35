"""The event queues (kernels/heap.py) against Python's heapq: the binary heap popped then pushed,
its lazy root (take, put, settle), and the engine's queue (a binary heap in its arrays up to
HEAP_MAX events, else the calendar queue) hand out the same events in the same order, ties in
time broken by code."""
import heapq

import numpy as np
import pytest

from mcio.kernels.heap import (HEAP_MAX, Q_NB, bheap_put, bheap_settle, bheap_take, heap_new, heap_pop, heap_push,
                               heap_put, heap_settle, heap_take)


def _script(seed, steps=20000, cap=48, grid=40, inf_share=0.0):
    """A random sequence of operations: ('put', time, code) or ('next',); times on a coarse
    grid so that ties in time are common (each put at least the last time taken, as in a
    simulation, for the calendar queue); a share of them infinite."""
    rng = np.random.default_rng(seed)
    n = 0
    ops = []
    for _ in range(steps):
        if n < cap and (n == 0 or rng.random() < 0.5):
            tm = float(rng.integers(0, grid)) if rng.random() >= inf_share else np.inf
            ops.append(("put", tm, int(rng.integers(0, 10**6))))
            n += 1
        else:
            ops.append(("next",))
            n -= 1
    return ops


def _replay(ops, put, nxt):
    """Run ``ops``; ``put(t, c)``, ``nxt()`` -> (t, c) taken; times are offsets from the last
    finite time taken. Returns (got, want)."""
    ref = []
    got, want = [], []
    now = 0.0
    for op in ops:
        if op[0] == "put":
            put(now + op[1], op[2])
            heapq.heappush(ref, (now + op[1], op[2]))
        else:
            got.append(nxt())
            want.append(heapq.heappop(ref))
            if want[-1][0] < np.inf:
                now = want[-1][0]
    return got, want


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("lazy", [False, True])
def test_heap_hands_out_events_in_key_order(seed, lazy):
    t = np.zeros(49)
    c = np.zeros(49, np.int64)
    size = np.zeros(2, np.int64)

    def nxt():
        if lazy:
            bheap_settle(t, c, size)
        out = (t[0], int(c[0]))
        (bheap_take if lazy else heap_pop)(t, c, size)
        return out
    got, want = _replay(_script(seed), lambda tm, cd: (bheap_put if lazy else heap_push)(t, c, size, tm, cd), nxt)
    assert got == want
    assert len(got) > 5000


@pytest.mark.parametrize("seed,cap,grid,inf_share", [(1, 48, 40, 0.0), (2, 48, 3, 0.0), (3, 2000, 40, 0.0),
                                                     (4, 300, 1000, 0.02)])
def test_calendar_queue_hands_out_events_in_key_order(seed, cap, grid, inf_share):
    """Many ties (grid 3), thousands pending (the buckets grow and the width is re-estimated),
    infinite times (found by the direct search): always heapq's order."""
    ops = _script(seed, steps=20000, cap=cap, grid=grid, inf_share=inf_share)
    got, want, nbs = _engine_queue_order(cap, ops)
    assert got == want
    assert len(got) > 5000
    if cap == 2000:
        assert max(nbs) > 16           # it grew


def _engine_queue_order(cap, ops):
    """``ops`` replayed on ``heap_new(cap)``: (got, want, the number of buckets at every take)."""
    h_t, h_c, h_n = heap_new(cap)
    nbs = []

    def nxt():
        nbs.append(int(h_n[Q_NB]))
        heap_settle(h_t, h_c, h_n)
        out = (h_t[0], int(h_c[0]))
        heap_take(h_t, h_c, h_n)
        return out
    got, want = _replay(ops, lambda tm, cd: heap_put(h_t, h_c, h_n, tm, cd), nxt)
    return got, want, nbs


@pytest.mark.parametrize("cap", [5, HEAP_MAX, HEAP_MAX + 1])
@pytest.mark.parametrize("seed,grid,inf_share", [(5, 3, 0.0), (6, 40, 0.0), (7, 10, 0.1)])
def test_small_queue_is_a_binary_heap_in_key_order(cap, seed, grid, inf_share):
    """A queue for at most HEAP_MAX events is a binary heap (no buckets), one for more the
    calendar queue; both hand out heapq's order, with many ties in time (grid 3) and infinite
    times, full to capacity: the engine's results do not depend on which the queue is."""
    ops = _script(seed, steps=20000, cap=cap, grid=grid, inf_share=inf_share)
    got, want, nbs = _engine_queue_order(cap, ops)
    assert got == want
    assert len(got) > 5000
    if cap <= HEAP_MAX:
        assert set(nbs) == {0}          # no buckets: the binary heap
    else:
        assert min(nbs) >= 16           # the calendar queue


def test_small_queue_drains_and_refills():
    """Emptied to nothing and refilled (a closed model's every customer thinking at once):
    the binary heap's root is right after every take, the last one included."""
    h_t, h_c, h_n = heap_new(HEAP_MAX)
    for r in range(3):
        codes = list(range(HEAP_MAX))[::-1] if r % 2 else list(range(HEAP_MAX))
        for cd in codes:
            heap_put(h_t, h_c, h_n, 10.0 * r + (cd % 4), cd)
        out = []
        while h_n[0] > 0:
            heap_settle(h_t, h_c, h_n)
            out.append((h_t[0], int(h_c[0])))
            heap_take(h_t, h_c, h_n)
        assert out == sorted((10.0 * r + (cd % 4), cd) for cd in codes)
