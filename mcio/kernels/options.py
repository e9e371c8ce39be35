"""The one place Numba options live.

``cache=True`` writes compiled kernels beside the sources so a second process (CI's next test
module, the CLI) does not recompile (the kernels Python calls: one called from another kernel is
compiled into its caller's code, kernels/dispatch.py); ``nogil`` lets Dask or threads run kernels
side by side.
No ``fastmath``: it would let LLVM reorder sums and break bit-identical results.
"""
JIT = dict(nogil=True, cache=True)
# Leaf kernels that allocate nothing: compiled without reference counting (Numba's own ``_nrt``
# flag), which is what lets LLVM inline them without atomic increments at every call.
JIT_LEAF = dict(JIT, _nrt=False)
# Replications run on a Python thread pool over these GIL-free kernels (mcio/engine/run.py), not with
# ``prange``: no threading-layer limits on concurrent callers (Dask workers, user threads), and
# no parallel-accelerator compile pass.
# Loops meant to vectorise: NumPy's error model drops the ZeroDivisionError check a division
# carries, a branch that stops LLVM's loop vectoriser (a division by zero gives inf, as in C);
# "contract" lets a * b + c be one fused multiply-add (one rounding instead of two). It reorders
# nothing, so results stay the same on any thread count; no other fast-math flag is set.
JIT_VEC = dict(JIT_LEAF, error_model="numpy", fastmath={"contract"})
# The event engine's stages (kernels/stages.py): leaf kernels LLVM must inline into the event
# loop (Numba's ``forceinline`` flag: LLVM's alwaysinline). Not Numba's own ``inline="always"``:
# that inlines Numba IR, where every array argument and tuple element becomes a new reference
# with an NRT_incref/NRT_decref call pair at each use (measured: the FICON path 2.7x slower).
# Compiled without reference counting (``_nrt=False``) and inlined by LLVM, a stage costs what
# its code costs, tuples of state arrays included (their fields are scalar-replaced).
JIT_STAGE = dict(JIT_LEAF, forceinline=True)
# A leaf kernel that stays a call in its callers (LLVM never inlines it: a block's refill, once per
# block of draws): kernels/dispatch.py links its body only into the kernel called from Python,
# not into every other kernel between (where it would be optimised again each time).
JIT_CALL = dict(JIT_LEAF, forceinline=False, as_call=True)
# Every kernel is compiled through ``njit`` (kernels/dispatch.py): Numba's, except that a kernel
# called from another kernel is compiled into its callers' code only.
from .dispatch import njit  # noqa: E402,F401
