"""xoshiro256**'s jump (the state 2^128 draws ahead) by table look-up.

The generator's step is linear over GF(2) (xors, a shift, a rotation), so the jump, a sum of
steps chosen by the published jump polynomial (Blackman and Vigna), is a linear map of the 256
state bits: jump(s) = the xor, over the bits of s that are set, of jump(that bit alone). The
table holds those sums four bits at a time (64 nibbles x 16 values x 4 words: 32 KB, built here
at import from the polynomial in ~2 ms), so a jump is 64 look-ups instead of 256 steps: a sweep
point's streams (``blockrng.make_streams``, 108 jumps a replication) cost ~7 instead of ~29 us.
The results are the polynomial's, bit for bit (tests/test_blockrng.py checks against a
pure-Python jump).
"""
import numpy as np

from .options import JIT_LEAF, njit

# xoshiro256**'s jump polynomial: the state 2^128 draws ahead (Blackman and Vigna)
JUMP_POLY = (0x180EC6D33CFD0ABA, 0xD5A61266F0C9392C, 0xA9582618E03FC9AA, 0x39ABDC4529B1661C)


def _step(a, b, c, d):
    """One xoshiro256** state step on uint64 arrays: ``rng._next_st``'s state update, in numpy
    here so that building the table at import compiles nothing (the output is not needed)."""
    t = b << np.uint64(17)
    c = c ^ a
    d = d ^ b
    b = b ^ c
    a = a ^ d
    c = c ^ t
    d = (d << np.uint64(45)) | (d >> np.uint64(19))
    return a, b, c, d


def jump_of_bits() -> np.ndarray:
    """uint64[256, 4]: row i is the jump of the state whose only set bit is bit i % 64 of word
    i // 64 (all 256 such states stepped together)."""
    unit = np.zeros((4, 256), np.uint64)
    for i in range(256):
        unit[i // 64, i] = np.uint64(1) << np.uint64(i % 64)
    a, b, c, d = unit
    acc = np.zeros((4, 256), np.uint64)
    for word in JUMP_POLY:
        for bit in range(64):
            if (word >> bit) & 1:
                acc[0] ^= a
                acc[1] ^= b
                acc[2] ^= c
                acc[3] ^= d
            a, b, c, d = _step(a, b, c, d)
    return acc.T.copy()


def nibble_table(rows: np.ndarray) -> np.ndarray:
    """uint64[64, 16, 4]: entry [j, v] is the xor of ``rows[4 j + k]`` over the bits k of v."""
    by_nibble = rows.reshape(64, 4, 4)
    out = np.zeros((64, 16, 4), np.uint64)
    for v in range(16):
        for k in range(4):
            if (v >> k) & 1:
                out[:, v] ^= by_nibble[:, k]
    return out


_NIBBLES = nibble_table(jump_of_bits())


@njit(**JIT_LEAF)
def jump(a, b, c, d):
    """The xoshiro256** state (four uint64) 2^128 draws after (a, b, c, d)."""
    t0 = t1 = t2 = t3 = np.uint64(0)
    s = (a, b, c, d)
    for w in range(4):
        x = s[w]
        for n in range(16):
            row = _NIBBLES[16 * w + n, (x >> np.uint64(4 * n)) & np.uint64(15)]
            t0 ^= row[0]
            t1 ^= row[1]
            t2 ^= row[2]
            t3 ^= row[3]
    return t0, t1, t2, t3
