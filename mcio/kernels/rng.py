"""xoshiro256** random streams; one stream per (seed, point, replication), state = uint64[4].

Seeded on the host from numpy's SeedSequence (see ``mcio.engine.stream_states``), so streams never
depend on threads. Uniforms are open on both ends: (0, 1).
"""
import math

import numba as nb
import numpy as np

from .options import JIT

_TWO53 = 1.0 / 9007199254740992.0


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


@nb.njit(**JIT)
def exponential(s, mean):
    return -mean * math.log(uniform(s))


@nb.njit(**JIT)
def normal(s):
    """Standard normal by the Box-Muller transform (one of the pair is used)."""
    u1 = uniform(s)
    u2 = uniform(s)
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


@nb.njit(**JIT)
def gamma(s, shape, scale):
    """Gamma(shape, scale) by Marsaglia and Tsang; shape < 1 by the U^(1/shape) boost."""
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
        if math.log(u) < 0.5 * x * x + d - d * v + d * math.log(v):
            return d * v * scale * boost
