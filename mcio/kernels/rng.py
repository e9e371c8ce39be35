"""xoshiro256** random streams; one stream per (seed, point, replication), state = uint64[4].

Seeded on the host from numpy's SeedSequence (see ``mcio.engine.stream_states``), so streams never
depend on threads. Uniforms are open on both ends: (0, 1). The kernels take most of their variates
in blocks from ``blockrng`` (eight SIMD lanes jumped from this stream); the samplers here serve the
other distribution kinds and everything drawn one at a time.

With ``ZIGGURAT`` set, exponential and normal variates come from 256-layer ziggurats (Marsaglia
and Tsang 2000, laid out as in NumPy's generator): one 64-bit draw, a table look-up, a multiply and
a compare return a variate ~99 % of the time; only the wedges and the tail call ``exp``/``log``.
Otherwise they are -log(U) and Box-Muller (the original streams). Gamma is Marsaglia and Tsang's
method with its squeeze (the ``log`` is taken ~3 % of the time; the squeeze only skips work, it
accepts exactly the same draws).

Calls cost more than arithmetic here: a draw is ~1-5 ns, a call LLVM does not inline ~10 ns
(Numba passes each array as 7 fields), and reference counting ~5-10 ns per array (atomic
NRT_incref/NRT_decref, a cache line the threads fight over; Numba's own ``inline="always"`` adds
them at every call site). So the public samplers are small functions compiled without reference
counting (``JIT_LEAF``) that LLVM inlines, and everything out of line (the ziggurats' rare paths,
gamma, the normal) takes the four state words by value and returns them:
``_xxx_st(a, b, c, d, ...) -> (value, a, b, c, d)``.
"""
import math

import numba as nb
import numpy as np

from .options import JIT, JIT_LEAF, JIT_STAGE, njit

#: Options for leaf kernels that allocate nothing: compiled without Numba's reference counting.
#: With it, a function that has branches and array arguments keeps an atomic NRT_incref and
#: NRT_decref per array (out-of-line calls) on every call even after LLVM inlines it: that alone
#: halved the fast path's speed. (``_nrt`` is Numba's own flag for code that needs no runtime.)

_TWO53 = 1.0 / 9007199254740992.0

#: Ziggurat exponential and normal variates instead of -log(U) and Box-Muller: measured +20 % on
#: the fast path (M/M/1: 37 -> 45 M I/O/s per core), +5-15 % on the event path, gamma 1.5x.
#: Both are exact in distribution (tests/test_distributions.py checks each sampler by KS); the
#: streams differ, so switching moves results within their confidence intervals, not bit for bit.
#: (mcio/kernels/__init__.py clears Numba's cache when any kernel source changes.)
ZIGGURAT = True


# ---------------------------------------------------------------------------- ziggurat tables


def _exp_tables(n=256, r=7.69711747013104972, v=3.949659822581572e-3, bits=53):
    """Ziggurat for the standard exponential: layer 0 is the base strip with the tail."""
    m = float(2 ** bits)
    k = np.zeros(n, np.uint64)
    w = np.zeros(n)
    f = np.zeros(n)
    de = te = r
    q = v / math.exp(-de)
    k[0] = np.uint64((de / q) * m)
    k[1] = 0
    w[0] = q / m
    w[n - 1] = de / m
    f[0] = 1.0
    f[n - 1] = math.exp(-de)
    for i in range(n - 2, 0, -1):
        de = -math.log(v / de + math.exp(-de))
        k[i + 1] = np.uint64((de / te) * m)
        te = de
        f[i] = math.exp(-de)
        w[i] = de / m
    return k, w, f, r


def _normal_tables(n=256, r=3.6541528853610088, v=4.92867323399e-3, bits=52):
    """Ziggurat for the half normal (density exp(-x^2/2), unnormalised)."""
    m = float(2 ** bits)
    k = np.zeros(n, np.uint64)
    w = np.zeros(n)
    f = np.zeros(n)
    dn = tn = r
    q = v / math.exp(-0.5 * dn * dn)
    k[0] = np.uint64((dn / q) * m)
    k[1] = 0
    w[0] = q / m
    w[n - 1] = dn / m
    f[0] = 1.0
    f[n - 1] = math.exp(-0.5 * dn * dn)
    for i in range(n - 2, 0, -1):
        dn = math.sqrt(-2.0 * math.log(v / dn + math.exp(-0.5 * dn * dn)))
        k[i + 1] = np.uint64((dn / tn) * m)
        tn = dn
        f[i] = math.exp(-0.5 * dn * dn)
        w[i] = dn / m
    return k, w, f, r


# Module-level arrays are frozen into the compiled code as constants (and into Numba's cache).
_KE, _WE, _FE, _ZE_R = _exp_tables()
_KN, _WN, _FN, _ZN_R = _normal_tables()
_ZN_INV_R = 1.0 / _ZN_R

# The exponential ziggurat's layers i = 1 .. 255 as intervals of x: layer i's rejected points
# (its wedge) have x in [_XIN_E[i], _XOUT_E[i]) and exp(-x) between _FE[i] and _FE[i - 1]. The
# outer edge is _WE[i] * 2^53 exactly (the table holds it over a power of two); layer 1 starts at
# 0 (_FE[0] = 1).
_XOUT_E = _WE * 2.0 ** 53
_XIN_E = np.concatenate(([0.0, 0.0], _XOUT_E[1:-1]))
_INV_WIDTH_E = np.concatenate(([0.0], 1.0 / (_XOUT_E[1:] - _XIN_E[1:])))
# The wedge test's bounds are widened by this much of themselves: ~10^7 times the rounding of
# the bounds and libm's error in exp (1 ulp), so a bound decides only where exp would agree.
_WEDGE_MARGIN = 2.0 ** -30


# ---------------------------------------------------------------------------- the generator


@nb.njit(**JIT, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(**JIT_LEAF)
def _next_st(s0, s1, s2, s3):
    """xoshiro256** on a state held in four scalars: (output, s0, s1, s2, s3)."""
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    return result, s0, s1, s2, s3


@njit(**JIT_LEAF)
def next_u64(s):
    """Advance state ``s`` (uint64[4]) and return the next 64-bit output."""
    r, s[0], s[1], s[2], s[3] = _next_st(s[0], s[1], s[2], s[3])
    return r


# Every conversion of a draw to a double goes through int64: the values are < 2^63, so the result
# is the same, but int64 -> double is one instruction where uint64 -> double is a branchy sequence.


@njit(**JIT_LEAF)
def _uniform_st(a, b, c, d):
    r, a, b, c, d = _next_st(a, b, c, d)
    return (float(np.int64(r >> np.uint64(11))) + 0.5) * _TWO53, a, b, c, d


uniform_st = _uniform_st      # public: a uniform on a state held in scalars, (u, a, b, c, d)


@njit(**JIT_LEAF)
def uniform(s):
    """A uniform double in the open interval (0, 1)."""
    return (float(np.int64(next_u64(s) >> np.uint64(11))) + 0.5) * _TWO53


# ---------------------------------------------------------------------------- exponential


@nb.njit(**JIT_LEAF, inline="always")
def _exp_wedge_bounds(idx, x):
    """(below, above): bounds of exp(-x) for x in layer ``idx``'s wedge (1 <= idx <= 255; x in
    [_XIN_E[idx], _XOUT_E[idx])). exp(-x) is convex, so it lies above its tangents at the layer's
    two edges and below its chord across the layer; each bound is moved out by _WEDGE_MARGIN of
    itself, so that it holds for libm's exp too, whatever the rounding. (This and
    ``_below_exp_wedge`` are inlined by Numba, as ``_rotl``: no compile of their own.)"""
    xin = _XIN_E[idx]
    f_in = _FE[idx - 1]
    f_out = _FE[idx]
    t_out = f_out * (1.0 + (_XOUT_E[idx] - x))
    t_in = f_in * (1.0 - (x - xin))
    tangent = t_in if t_in > t_out else t_out       # max(t_out, t_in), as Python's max
    below = tangent * (1.0 - _WEDGE_MARGIN)
    above = (f_in + (f_out - f_in) * ((x - xin) * _INV_WIDTH_E[idx])) * (1.0 + _WEDGE_MARGIN)
    return below, above


@nb.njit(**JIT_LEAF, inline="always")
def _below_exp_wedge(idx, x, y):
    """``y < math.exp(-x)``, the same answer, for a point of layer ``idx``'s wedge (x as in
    ``_exp_wedge_bounds``, y between _FE[idx] and _FE[idx - 1]): a y under the lower bound or at
    or over the upper one is decided by it, and exp is called only for a y in the narrow band
    between (~0.4 % of wedge tests: tests/test_exponential_wedge.py). The wedge test is the
    ziggurat's rare case (~2 % of exponential draws); without its exp a block of exponentials
    takes ~7 % less time (benchmarks/README.md, session 28)."""
    below, above = _exp_wedge_bounds(idx, x)
    if y < below:
        return True
    if y >= above:
        return False
    return y < math.exp(-x)


@njit(**JIT_LEAF)
def _std_exponential_slow_st(a, b, c, d, idx, x):
    """The ziggurat's rare cases: the tail (layer 0) or a wedge; else draw again."""
    while True:
        if idx == 0:
            u, a, b, c, d = _uniform_st(a, b, c, d)
            return _ZE_R - math.log(u), a, b, c, d             # memoryless tail beyond r
        u, a, b, c, d = _uniform_st(a, b, c, d)
        if _below_exp_wedge(idx, x, (_FE[idx - 1] - _FE[idx]) * u + _FE[idx]):
            return x, a, b, c, d
        r, a, b, c, d = _next_st(a, b, c, d)
        ri = r >> np.uint64(3)
        idx = ri & np.uint64(0xFF)  # uint64: an index LLVM needs no sign test for
        ri >>= np.uint64(8)
        x = float(np.int64(ri)) * _WE[idx]
        if ri < _KE[idx]:
            return x, a, b, c, d


@njit(**JIT_LEAF)
def _std_exponential_zig_st(a, b, c, d):
    r, a, b, c, d = _next_st(a, b, c, d)
    ri = r >> np.uint64(3)
    idx = ri & np.uint64(0xFF)  # uint64: an index LLVM needs no sign test for
    ri >>= np.uint64(8)
    x = float(np.int64(ri)) * _WE[idx]
    if ri < _KE[idx]:
        return x, a, b, c, d                                   # ~97.8 % of draws
    return _std_exponential_slow_st(a, b, c, d, idx, x)


@njit(**JIT_LEAF)
def _std_exponential_log_st(a, b, c, d):
    u, a, b, c, d = _uniform_st(a, b, c, d)
    return -math.log(u), a, b, c, d


# ---------------------------------------------------------------------------- normal


@njit(**JIT_LEAF)
def _normal_zig_layer(r):
    """A 64-bit draw's ziggurat layer, |x| bits and x: (idx, rabs, x)."""
    idx = r & np.uint64(0xFF)
    r >>= np.uint64(8)
    rabs = (r >> np.uint64(1)) & np.uint64(0x000FFFFFFFFFFFFF)
    x = float(np.int64(rabs)) * _WN[idx]
    if r & np.uint64(1):
        x = -x
    return idx, rabs, x


@njit(**JIT_LEAF)
def _normal_zig_slow_st(a, b, c, d, idx, rabs, x):
    """The normal ziggurat's rare cases (~0.7 %): the tail (layer 0) or a wedge; else draw
    again, as the loop of ``_normal_zig_st`` would."""
    while True:
        if idx == 0:                                           # the tail beyond r (Marsaglia)
            while True:
                u, a, b, c, d = _uniform_st(a, b, c, d)
                xx = -_ZN_INV_R * math.log(u)
                u, a, b, c, d = _uniform_st(a, b, c, d)
                yy = -math.log(u)
                if yy + yy > xx * xx:
                    x = _ZN_R + xx
                    if (rabs >> np.uint64(8)) & np.uint64(1):
                        x = -x
                    return x, a, b, c, d
        u, a, b, c, d = _uniform_st(a, b, c, d)
        if (_FN[idx - 1] - _FN[idx]) * u + _FN[idx] < math.exp(-0.5 * x * x):
            return x, a, b, c, d
        r, a, b, c, d = _next_st(a, b, c, d)
        idx, rabs, x = _normal_zig_layer(r)
        if rabs < _KN[idx]:
            return x, a, b, c, d


@njit(**JIT_LEAF)
def _normal_zig_st(a, b, c, d):
    """A standard normal variate by the ziggurat: the common case here (small enough to
    inline), the rest out of line."""
    r, a, b, c, d = _next_st(a, b, c, d)
    idx, rabs, x = _normal_zig_layer(r)
    if rabs < _KN[idx]:
        return x, a, b, c, d                                   # ~99.3 % of draws
    return _normal_zig_slow_st(a, b, c, d, idx, rabs, x)


@njit(**JIT_LEAF)
def _normal_box_muller_st(a, b, c, d):
    """Standard normal by the Box-Muller transform (one of the pair is used)."""
    u1, a, b, c, d = _uniform_st(a, b, c, d)
    u2, a, b, c, d = _uniform_st(a, b, c, d)
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2), a, b, c, d


# The samplers in use: see ZIGGURAT at the top of this module.
_normal_st = _normal_zig_st if ZIGGURAT else _normal_box_muller_st
_std_exponential_st = _std_exponential_zig_st if ZIGGURAT else _std_exponential_log_st


# ---------------------------------------------------------------------------- gamma


@njit(**JIT_LEAF)
def _gamma_consts(shape):
    """Marsaglia and Tsang's constants for Gamma(shape): (d, c, 1 / shape or 0 when no boost)."""
    inv = 0.0
    if shape < 1.0:
        inv = 1.0 / shape
        shape += 1.0
    dd = shape - 1.0 / 3.0
    return dd, 1.0 / math.sqrt(9.0 * dd), inv


@njit(**JIT_STAGE)
def _gamma_core_st(a, b, c, d, dd, cc, inv, scale):
    """One Gamma draw by Marsaglia and Tsang from its constants (``_gamma_consts``); ``inv`` > 0:
    shape < 1, boosted by U^(1/shape). The squeeze ``u < 1 - 0.0331 x^4`` accepts most draws
    without a logarithm (it accepts exactly the draws the full test would). Always inlined
    (``JIT_STAGE``): left to LLVM, ``fill_gamma_st``'s loop called it, and the call (its five
    results returned through memory) cost ~4 of a draw's ~31 ns (shape 1 / 11.383, the main
    job's MP work: benchmarks/README.md, session 23)."""
    boost = 1.0
    if inv > 0.0:
        u, a, b, c, d = _uniform_st(a, b, c, d)
        boost = u ** inv
    while True:
        x, a, b, c, d = _normal_st(a, b, c, d)
        v = 1.0 + cc * x
        if v <= 0.0:
            continue
        v = v * v * v
        u, a, b, c, d = _uniform_st(a, b, c, d)
        x2 = x * x
        if u < 1.0 - 0.0331 * x2 * x2:
            return dd * v * scale * boost, a, b, c, d
        if math.log(u) < 0.5 * x2 + dd - dd * v + dd * math.log(v):
            return dd * v * scale * boost, a, b, c, d


@njit(**JIT_LEAF)
def _gamma_st(a, b, c, d, shape, scale):
    """Gamma(shape, scale) by Marsaglia and Tsang; shape < 1 by the U^(1/shape) boost. With the
    ziggurat, shape 1 is drawn as an exponential."""
    if ZIGGURAT and shape == 1.0:
        x, a, b, c, d = _std_exponential_st(a, b, c, d)
        return scale * x, a, b, c, d
    dd, cc, inv = _gamma_consts(shape)
    return _gamma_core_st(a, b, c, d, dd, cc, inv, scale)


@njit(**JIT_LEAF)
def fill_gamma_st(st, out, n, shape, scale):
    """out[:n] = the next n Gamma(shape, scale) draws on the scalar state st (uint64[4], updated):
    the same draws as n calls of ``_gamma_st``, the constants computed once."""
    a = st[0]
    b = st[1]
    c = st[2]
    d = st[3]
    if ZIGGURAT and shape == 1.0:
        for i in range(n):
            x, a, b, c, d = _std_exponential_st(a, b, c, d)
            out[i] = scale * x
    else:
        dd, cc, inv = _gamma_consts(shape)
        for i in range(n):
            out[i], a, b, c, d = _gamma_core_st(a, b, c, d, dd, cc, inv, scale)
    st[0] = a
    st[1] = b
    st[2] = c
    st[3] = d
