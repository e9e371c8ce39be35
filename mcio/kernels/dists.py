"""Sampling the duration distributions of ``mcio.model.Dist`` inside kernels.

A distribution is one row of a float64 table ``dp``: (kind, mean, scv, a, b) where for gamma
a = shape, b = scale; for lognormal a = mu, b = sigma; for empirical a = offset, b = length into
the flat tables ``ev`` (values) and ``ec`` (cumulative weights, last = 1); for uniform a = low,
b = width (high - low). Kind codes follow
``mcio.model.dist.KINDS``.

``sample_st`` draws one value on a stream state held in four scalars. It is kept small enough for
LLVM to inline: the exponential and the constant are drawn in place, every other kind goes to
one out-of-line function that takes only scalars (the stream state by value, and for the
empirical tables their addresses). A call with arrays would cost LLVM's inliner ~5 per array
field (4 arrays = 28 fields) and push it out of line, which costs ~10 ns a draw. The kernels
take exponentials and uniforms in blocks instead (``blockrng``); this serves the other kinds.
"""
import math

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from .options import JIT_LEAF, njit
from .rng import _gamma_st, _normal_st, _std_exponential_st, _uniform_st

DETERMINISTIC, EXPONENTIAL, GAMMA, LOGNORMAL, EMPIRICAL, UNIFORM = 0, 1, 2, 3, 4, 5


@intrinsic
def _addr(typingctx, arr):
    """The address of a C-contiguous float64 array's data, as an int64."""
    if not (isinstance(arr, types.Array) and arr.dtype == types.float64):
        return None

    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, args[0])
        return builder.ptrtoint(ary.data, ir.IntType(64))
    return types.int64(arr), codegen


@intrinsic
def _load(typingctx, addr, idx):
    """The float64 at ``addr + 8 * idx`` (``addr`` from ``_addr``; the array outlives the call)."""
    def codegen(context, builder, sig, args):
        ptr = builder.inttoptr(args[0], ir.PointerType(ir.DoubleType()))
        return builder.load(builder.gep(ptr, [args[1]]))
    return types.float64(types.int64, types.int64), codegen


@njit(**JIT_LEAF)
def _other_st(a, b, c, d, kind, p, q, ev_addr, ec_addr):
    """Gamma (p = shape, q = scale), lognormal (p = mu, q = sigma), uniform (p = low,
    q = width) or empirical (p = offset, q = length) on the state (a, b, c, d): (value, a, b, c, d)."""
    if kind == GAMMA:
        return _gamma_st(a, b, c, d, p, q)
    if kind == LOGNORMAL:
        x, a, b, c, d = _normal_st(a, b, c, d)
        return math.exp(p + q * x), a, b, c, d
    if kind == UNIFORM:
        u, a, b, c, d = _uniform_st(a, b, c, d)
        return p + q * u, a, b, c, d
    # empirical: inverse CDF by binary search over the cumulative weights
    off = int(p)
    u, a, b, c, d = _uniform_st(a, b, c, d)
    lo = 0
    hi = int(q) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if _load(ec_addr, off + mid) < u:
            lo = mid + 1
        else:
            hi = mid
    return _load(ev_addr, off + lo), a, b, c, d


@njit(**JIT_LEAF)
def sample_st(a, b, c, d, dp, i, ev, ec):
    """One draw of distribution row ``i`` of ``dp`` on the stream state (a, b, c, d), in the
    row's unit: returns (value, a, b, c, d)."""
    kind = dp[i, 0]
    if kind == EXPONENTIAL:
        x, a, b, c, d = _std_exponential_st(a, b, c, d)
        return dp[i, 1] * x, a, b, c, d
    if kind == DETERMINISTIC:
        return dp[i, 1], a, b, c, d
    return _other_st(a, b, c, d, int(kind), dp[i, 3], dp[i, 4], _addr(ev), _addr(ec))
