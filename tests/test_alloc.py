"""kernels/alloc.py: arrays made inside kernels by intrinsics are NumPy's arrays (shape, dtype,
values, C order, their own memory), and making them compiles none of NumPy's overloads."""
import gc

import numba
import numpy as np
import pytest
from numba.core import event

from mcio.kernels import alloc


@numba.njit(cache=False)
def _dirty(n, m):
    """Memory just freed, full of non-zero bytes, for the next allocations to reuse."""
    for _ in range(4):
        a = alloc.empty((m + 1) * n * 8 + 64, np.int64)
        for i in range(a.shape[0]):
            a[i] = -1


@numba.njit(cache=False)
def _make(n, m, v):
    _dirty(n, m)
    return (alloc.zeros(n, np.float64), alloc.zeros((n, m), np.int64), alloc.zeros(n, np.bool_),
            alloc.full(n, v, np.float64), alloc.full((n, m), -1, np.int64),
            alloc.full(n, np.inf, np.float64), alloc.full((m, n, 2), 7, np.uint64),
            alloc.empty((n, m), np.float64), alloc.empty(n, np.int64))


@pytest.mark.parametrize("n, m", [(0, 3), (1, 1), (5, 3), (257, 2)])
def test_arrays_are_numpys(n, m):
    got = _make(n, m, 2.5)
    want = (np.zeros(n), np.zeros((n, m), np.int64), np.zeros(n, np.bool_), np.full(n, 2.5),
            np.full((n, m), -1, np.int64), np.full(n, np.inf), np.full((m, n, 2), 7, np.uint64),
            np.empty((n, m)), np.empty(n, np.int64))
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == w.dtype and g.shape == w.shape, k
        assert g.flags.c_contiguous and g.flags.writeable, k
        if k < 7:                                   # empty's contents are whatever was there
            np.testing.assert_array_equal(g, w, err_msg=str(k))
    # each its own memory
    a, b = got[0], got[3]
    if n:
        a[0] = 9.0
        assert b[0] == 2.5 and not np.shares_memory(a, b)


@numba.njit(cache=False)
def _view_of_new(n):
    a = alloc.full((n, 2), 1.5, np.float64)
    return alloc.int64_view(a)                      # the only reference left is the view's


@numba.njit(cache=False)
def _view(a):
    return alloc.int64_view(a)


def test_int64_view_is_the_same_memory():
    a = np.array([[1.5, -0.0], [np.inf, 2.0 ** -1074]])
    v = _view(a)
    np.testing.assert_array_equal(v, a.view(np.int64))
    assert v.shape == a.shape and v.strides == a.strides and np.shares_memory(a, v)
    v[1, 0] = 0
    assert a[1, 0] == 0.0
    # the view keeps its memory alive once the array it viewed is gone
    w = _view_of_new(3)
    gc.collect()
    np.testing.assert_array_equal(w, np.full((3, 2), 1.5).view(np.int64))


def test_makes_no_numpy_specialisations():
    names = []

    class Listener(event.Listener):
        def on_start(self, ev):
            names.append(ev.data["dispatcher"].py_func.__qualname__)

        def on_end(self, ev):
            pass

    @numba.njit(cache=False)
    def fresh(n):
        a = alloc.zeros((n, 3), np.float64)
        b = alloc.full(n, -1, np.int64)
        c = alloc.empty(n, np.bool_)
        d = alloc.int64_view(a)
        return a[n - 1, 2] + b[n - 1] + c.shape[0] + d[0, 0]

    listener = Listener()
    event.register("numba:compile", listener)
    try:
        assert fresh(4) == 0.0 - 1 + 4 + 0
    finally:
        event.unregister("numba:compile", listener)
    # the function itself, and at most Numba's allocator (compiled once a process)
    assert names[0] == "test_makes_no_numpy_specialisations.<locals>.fresh"
    assert all("_ol_array_allocate" in x for x in names[1:]), names


@pytest.mark.parametrize("call", [
    lambda: numba.njit(cache=False)(lambda n: alloc.zeros(n, float))(3),           # not a NumPy class
    lambda: numba.njit(cache=False)(lambda n: alloc.zeros(n))(3),                  # no dtype
    lambda: numba.njit(cache=False)(lambda n: alloc.full(n, np.float64))(3),
    lambda: numba.njit(cache=False)(lambda x: alloc.zeros(x, np.float64))(1.5),    # shape not integer
    lambda: numba.njit(cache=False)(lambda a: alloc.int64_view(a))(np.zeros(3, np.int32)),
    lambda: numba.njit(cache=False)(lambda a: alloc.int64_view(a[::2]))(np.zeros(4)),
])
def test_refuses_what_it_does_not_make(call):
    with pytest.raises((numba.core.errors.TypingError, TypeError)):
        call()
