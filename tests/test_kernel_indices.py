"""kernels/indices.py: array indices in mcio's kernels are used without Numba's negative-index
wraparound; everywhere else (a user's own Numba function, a constant index) Numba's meaning of a
negative index stays; and Numba's bounds check turns a negative index in a kernel into
IndexError, the audit the test suite passes under (``NUMBA_BOUNDSCHECK=1``)."""
import types

import numba
import numpy as np
import pytest

from mcio.kernels import dispatch

needs_tested_numba = pytest.mark.skipif(
    dispatch.njit is dispatch._plain,
    reason=f"Numba {numba.__version__} is not {dispatch.TESTED_NUMBA}: Numba's own indexing")


def _get(a, i):
    return a[i]


def _last(a):
    return a[-1]


def _in_module(fn, module: str, **jit):
    """``fn``'s code as a function of module ``module`` (what Numba mangles into its LLVM name),
    compiled by Numba's own njit."""
    g = {"__name__": module}
    f = types.FunctionType(fn.__code__, g, fn.__name__)
    return numba.njit(**jit)(f)


def _llvm(kernel) -> str:
    return kernel.inspect_llvm(kernel.signatures[0])


@needs_tested_numba
def test_the_llvm_names_of_mcio_kernels_are_told_from_others():
    from mcio.kernels import indices
    from mcio.kernels.winner import winner_new
    winner_new(4)
    name = winner_new.overloads[winner_new.signatures[0]].fndesc.mangled_name
    assert indices.is_kernel(name), name
    user = _in_module(_get, "mymodel.kernels")
    user(np.arange(3.0), 1)
    assert not indices.is_kernel(user.overloads[user.signatures[0]].fndesc.mangled_name)
    # another copy of the package (benchmarks/ab_kernels.py's mcio_ref) keeps its own indexing
    assert not indices.is_kernel("_ZN8mcio_ref7kernels6stages7enqueueB2v1E")
    assert not indices.is_kernel("_ZN5numba2np8arrayobj12ol_np_emptyB2v1E")


@needs_tested_numba
def test_a_kernel_indexes_without_the_wraparound_and_a_user_function_with_it():
    a = np.arange(5.0)
    kernel = _in_module(_get, "mcio.kernels.probe")
    user = _in_module(_get, "mymodel.probe")
    assert kernel(a, 3) == 3.0 and user(a, 3) == 3.0
    assert user(a, -1) == 4.0                          # Numba's meaning, outside mcio's kernels
    # the wraparound is a compare with 0 and a select; the kernel has neither
    assert "select" in _llvm(user) and "icmp slt" in _llvm(user)
    assert "select" not in _llvm(kernel) and "icmp slt" not in _llvm(kernel)


@needs_tested_numba
def test_a_constant_negative_index_in_a_kernel_keeps_its_meaning():
    assert _in_module(_last, "mcio.kernels.probe2")(np.arange(5.0)) == 4.0


@needs_tested_numba
def test_the_bounds_check_catches_a_negative_index_in_a_kernel():
    a = np.arange(5.0)
    kernel = _in_module(_get, "mcio.kernels.probe3", boundscheck=True)
    user = _in_module(_get, "mymodel.probe3", boundscheck=True)
    assert kernel(a, 4) == 4.0
    with pytest.raises(IndexError):
        kernel(a, -1)                                  # not wrapped: out of bounds, and caught
    assert user(a, -1) == 4.0                          # wrapped first, then in bounds
    with pytest.raises(IndexError):
        kernel(a, 5)
