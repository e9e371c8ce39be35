"""xoshiro256** random streams; one stream per (seed, point, replication), state = uint64[4].

Seeded on the host from numpy's SeedSequence (see ``mcio.engine.stream_states``), so streams never
depend on threads. Uniforms are open on both ends: (0, 1).

With ``ZIGGURAT`` set, exponential and normal variates come from 256-layer ziggurats (Marsaglia
and Tsang 2000, laid out as in NumPy's generator): one 64-bit draw, a table look-up, a multiply and
a compare return a variate ~99 % of the time; only the wedges and the tail call ``exp``/``log``.
Otherwise they are -log(U) and Box-Muller (the original streams). Gamma is Marsaglia and Tsang's
method with its squeeze (the ``log`` is taken ~3 % of the time; the squeeze only skips work, it
accepts exactly the same draws).

Inlining matters more than arithmetic here: a call Numba does not inline costs ~7 ns (arrays are
passed member by member), more than a whole exponential. The small samplers are therefore
``inline="always"`` (inlined by Numba itself); the rare ziggurat paths and gamma stay out of line
so the kernels' code, and their compile time, stay small.
"""
import math

import numba as nb
import numpy as np

from .options import JIT

_TWO53 = 1.0 / 9007199254740992.0

#: Ziggurat exponential and normal variates (faster: fast path +18 %, event path +20 % measured)
#: instead of -log(U) and Box-Muller. Either is exact in distribution; they give different
#: streams, so results change within their confidence intervals (not bit for bit). After changing
#: this, delete mcio/kernels/__pycache__/*.nbi and *.nbc: Numba's cache does not notice that a
#: callee in another module changed.
ZIGGURAT = False


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


# ---------------------------------------------------------------------------- the generator


@nb.njit(**JIT, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@nb.njit(**JIT)
def next_u64(s):
    """Advance state ``s`` (uint64[4]) and return the next 64-bit output."""
    s0 = s[0]
    s1 = s[1]
    s2 = s[2]
    s3 = s[3]
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    s[0] = s0
    s[1] = s1
    s[2] = s2
    s[3] = s3
    return result


@nb.njit(**JIT)
def uniform(s):
    """A uniform double in the open interval (0, 1)."""
    return (float(next_u64(s) >> np.uint64(11)) + 0.5) * _TWO53


# ---------------------------------------------------------------------------- exponential


@nb.njit(**JIT)
def _std_exponential_slow(s, idx, x):
    """The ziggurat's rare cases: the tail (layer 0) or a wedge; else draw again."""
    while True:
        if idx == 0:
            return _ZE_R - math.log(uniform(s))             # memoryless tail beyond r
        if (_FE[idx - 1] - _FE[idx]) * uniform(s) + _FE[idx] < math.exp(-x):
            return x
        ri = next_u64(s) >> np.uint64(3)
        idx = int(ri & np.uint64(0xFF))
        ri >>= np.uint64(8)
        x = float(ri) * _WE[idx]
        if ri < _KE[idx]:
            return x


@nb.njit(**JIT, inline="always")
def std_exponential(s):
    """A standard exponential variate (mean 1) by the ziggurat."""
    ri = next_u64(s) >> np.uint64(3)
    idx = int(ri & np.uint64(0xFF))
    ri >>= np.uint64(8)
    x = float(ri) * _WE[idx]
    if ri < _KE[idx]:
        return x                                             # ~98.9 % of draws
    return _std_exponential_slow(s, idx, x)


@nb.njit(**JIT, inline="always")
def _exponential_zig(s, mean):
    return mean * std_exponential(s)


@nb.njit(**JIT, inline="always")
def _exponential_log(s, mean):
    return -mean * math.log(uniform(s))


# ---------------------------------------------------------------------------- normal


@nb.njit(**JIT)
def _normal_slow(s, idx, x, rabs):
    """The ziggurat's rare cases: the tail beyond r (Marsaglia's method) or a wedge."""
    if idx == 0:
        while True:
            xx = -_ZN_INV_R * math.log(uniform(s))
            yy = -math.log(uniform(s))
            if yy + yy > xx * xx:
                return -(_ZN_R + xx) if (rabs >> np.uint64(8)) & np.uint64(1) else _ZN_R + xx
    if (_FN[idx - 1] - _FN[idx]) * uniform(s) + _FN[idx] < math.exp(-0.5 * x * x):
        return x
    return np.nan                                            # rejected: the caller draws again


@nb.njit(**JIT, inline="always")
def _normal_zig(s):
    """A standard normal variate by the ziggurat."""
    while True:
        r = next_u64(s)
        idx = int(r & np.uint64(0xFF))
        r >>= np.uint64(8)
        rabs = (r >> np.uint64(1)) & np.uint64(0x000FFFFFFFFFFFFF)
        x = float(rabs) * _WN[idx]
        if r & np.uint64(1):
            x = -x
        if rabs < _KN[idx]:
            return x                                         # ~99.3 % of draws
        x = _normal_slow(s, idx, x, rabs)
        if x == x:
            return x


@nb.njit(**JIT, inline="always")
def _normal_box_muller(s):
    """Standard normal by the Box-Muller transform (one of the pair is used)."""
    u1 = uniform(s)
    u2 = uniform(s)
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


# The public samplers: see ZIGGURAT at the top of this module.
exponential = _exponential_zig if ZIGGURAT else _exponential_log
normal = _normal_zig if ZIGGURAT else _normal_box_muller


# ---------------------------------------------------------------------------- gamma


@nb.njit(**JIT)
def gamma(s, shape, scale):
    """Gamma(shape, scale) by Marsaglia and Tsang; shape < 1 by the U^(1/shape) boost.

    Shape 1 is the exponential. The squeeze ``u < 1 - 0.0331 x^4`` accepts most draws without a
    logarithm.
    """
    if ZIGGURAT and shape == 1.0:
        return scale * std_exponential(s)
    boost = 1.0
    if shape < 1.0:
        boost = uniform(s) ** (1.0 / shape)
        shape += 1.0
    d = shape - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        x = normal(s)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = uniform(s)
        x2 = x * x
        if u < 1.0 - 0.0331 * x2 * x2:
            return d * v * scale * boost
        if math.log(u) < 0.5 * x2 + d - d * v + d * math.log(v):
            return d * v * scale * boost
