"""The one place Numba options live.

``cache=True`` writes compiled kernels beside the sources so a second process (CI's next test
module, the CLI) does not recompile; ``nogil`` lets Dask or threads run kernels side by side.
No ``fastmath``: it would let LLVM reorder sums and break bit-identical results.
"""
JIT = dict(nogil=True, cache=True)
JIT_PARALLEL = dict(nogil=True, cache=True, parallel=True)
