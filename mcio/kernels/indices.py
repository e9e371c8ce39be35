"""Array indices in mcio's kernels are never negative: compiled without Numba's wraparound.

Numba gives every array index of a signed integer type Python's meaning of a negative index
(``numba.np.arrayobj.fix_integer_index``: ``i < 0 ? i + n : i``), a compare, an add and a select
per index, and the dimension's length kept live for it. mcio's kernels index their state by slot,
device, channel, row and bucket numbers that are never negative (the kernels trust their inputs,
docs/design.md §3), so here, in a function of mcio's kernels, a non-constant signed index is used
as it is. That is ~16 % of the event path's instructions: the main job at N = 26, 1,834.7 -> 1,535.4
per I/O (benchmarks/README.md, "Issue 29: session 25"). The code is otherwise the same, and so
are the results, to the bit, for every index that is not negative.

What stays as Numba has it: a constant index (a literal ``-1`` still means the last element), every
function that is not in an ``mcio.kernels`` module (a user's own ``numba.njit``, Numba's built-in
implementations such as ``np.empty``), and everything on another Numba (``dispatch.TESTED_NUMBA``).

A negative index in a kernel would now read or write outside the array. Numba's bounds check
finds it: with ``NUMBA_BOUNDSCHECK=1`` (Numba's own setting; kernels leave ``boundscheck`` unset) a
negative index in a kernel raises IndexError, where Numba would have wrapped it. The test suite
passes under it (benchmarks/README.md, session 25), and tests/test_kernel_indices.py checks both
halves of that.
"""
import re

from llvmlite import ir
from numba.core import types
from numba.np import arrayobj

#: an LLVM function of one of this package's kernels: Numba mangles a function's module into its
#: name (``mcio.kernels.stages.enqueue`` -> ``_ZN4mcio7kernels6stages7enqueue...``). The package's
#: own name: a copy imported under another (benchmarks/ab_kernels.py's ``mcio_ref``) compiles
#: its kernels as that tree's own indices.py says, or with Numba's wraparound if it has none.
_PACKAGE = __name__.split(".")[0]
_KERNEL = re.compile(rf"_ZN{len(_PACKAGE)}{re.escape(_PACKAGE)}7kernels")

_numba_fix_integer_index = arrayobj.fix_integer_index     # (Numba's, or another copy's)


def is_kernel(llvm_name: str) -> bool:
    """Whether the LLVM function ``llvm_name`` is one of this package's kernels."""
    return _KERNEL.match(llvm_name) is not None


def _fix_integer_index(context, builder, idxty, idx, size):
    """Numba's ``fix_integer_index``, without the wraparound in mcio's kernels."""
    if (idxty.signed and not isinstance(idxty, types.Literal) and not isinstance(idx, ir.Constant)
            and is_kernel(builder.function.name)):
        return context.cast(builder, idx, idxty, types.intp)
    return _numba_fix_integer_index(context, builder, idxty, idx, size)


def install() -> None:
    """Put :func:`_fix_integer_index` in the place of Numba's (process-wide; it defers to the
    function it replaced outside this package's kernels)."""
    arrayobj.fix_integer_index = _fix_integer_index
