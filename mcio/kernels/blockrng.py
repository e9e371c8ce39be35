"""Random variates in blocks, eight streams at a time in SIMD registers.

The fast path needs two or three variates per I/O and little else, so one scalar draw at a time
(~3-5 ns) is most of its cost. Here eight xoshiro256** lanes advance together as one <8 x i64>
vector (written as LLVM IR: Numba's loop vectoriser does not vectorise the scalar generator).
Uniforms are converted in the same vector loop (~0.6 ns a variate on an AVX2 EPYC, znver3).
Exponentials are the ziggurat of ``rng`` (its tables and its test) on the lanes' raw outputs, one
scalar table look-up, multiply and compare a variate, the rare rejected draws (~2 %) by its slow
path from the row's scalar state: ~1.85 ns a variate there, against ~2.3 for -log(U) through
``log_positive`` (fdlibm's polynomial made branch-free, so that LLVM vectorises it; it is then
bound by its own chain of ~70 cycles a vector, which the out-of-order window overlaps only two or
three deep: interleaving two vectors, fusing it with the generator, two passes and a cheaper
exponent conversion did not help, all measured). AVX2's gathers do not pay on Zen 3 (the table
loop with vpgatherqpd / vpgatherqq: 2.9 ns a variate). Measured on M/M/1 at rho 0.9 (the hand
loop of benchmarks/fastpath_ceiling.py and mcio in one run): the ziggurat took the fast path from
0.76-0.78 to 0.84-0.89 of the hand loop.

Every row of draws (each distribution of ``dp``, and the uniforms for an I/O's class, mode,
miss and device: ``layout.ROW_NAMES``) has its own substreams: eight lanes and a scalar state.
They are keyed by the row's stable name, never by its index: the row's state is SplitMix64-derived
from (the replication's stream state, a 64-bit hash of the name: ``row_key``), and its lanes and
scalar state are that state jumped 1 .. LANES + 1 times by xoshiro256**'s jump polynomial (2^128
draws a jump, so a row's substreams never overlap; by table look-up, kernels/jump.py). The
replication's state is keyed by (seed, point, replication) (``mcio.engine.stream_states``), so
every draw is keyed by (seed, point, replication, row name), never by thread, and adding,
removing or reordering rows leaves every other row's draws bit-identical. A row's k-th draw is the same whatever the other rows do, so
two runs that differ in one parameter see the same random numbers everywhere else (common random
numbers: smoother calibration objectives, sharper comparisons of configurations). An
exponential row's scalar state serves only its ziggurat's rare cases, in the order of its block.

Uniforms here are (k + 1) / 2^53, k = 0 .. 2^53 - 1: in (0, 1], so -log(U) is finite and >= 0.
"""
import functools
import hashlib

import numba as nb
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from .dists import DETERMINISTIC, EXPONENTIAL, GAMMA, UNIFORM, sample_st
from .bits import bits_float, float_bits
from .jump import jump
from .layout import N_DIST, N_ROWS
from .options import JIT_CALL, JIT_LEAF, JIT_STAGE, JIT_VEC, njit
from .rng import _KE, _WE, _std_exponential_slow_st, fill_gamma_st

LANES = 8
_TWO53 = 1.0 / 9007199254740992.0
_LOW52 = (1 << 52) - 1
_EXP52 = 0x4330000000000000             # bit pattern of 2^52
_TWO52_M1 = 4503599627370495.0         # 2^52 - 1


def _xoshiro_codegen(context, builder, sig, args, raw):
    """The loop of ``_xoshiro_fill`` (raw False: uniforms) and ``_xoshiro_raw`` (raw True)."""
    st = context.make_array(sig.args[0])(context, builder, args[0])
    ou = context.make_array(sig.args[1])(context, builder, args[1])
    n = args[2]
    i64 = ir.IntType(64)
    v64 = ir.VectorType(i64, LANES)
    vd = ir.VectorType(ir.DoubleType(), LANES)
    sp = builder.bitcast(st.data, v64.as_pointer())
    op = builder.bitcast(ou.data, (v64 if raw else vd).as_pointer())

    def splat(v, ty=v64):
        return ir.Constant(ty, [v] * LANES)

    def rotl(x, k):
        return builder.or_(builder.shl(x, splat(k)), builder.lshr(x, splat(64 - k)))

    init = [builder.load(builder.gep(sp, [ir.Constant(i64, k)]), align=8) for k in range(4)]
    pre = builder.block
    loop = builder.append_basic_block("xo.loop")
    done = builder.append_basic_block("xo.done")
    builder.cbranch(builder.icmp_signed(">", n, ir.Constant(i64, 0)), loop, done)
    builder.position_at_end(loop)
    idx = builder.phi(i64)
    s0, s1, s2, s3 = phis = [builder.phi(v64) for _ in range(4)]
    r = builder.mul(rotl(builder.mul(s1, splat(5)), 7), splat(9))
    t = builder.shl(s1, splat(17))
    n2 = builder.xor(s2, s0)
    n3 = builder.xor(s3, s1)
    n1 = builder.xor(s1, n2)
    n0 = builder.xor(s0, n3)
    n2 = builder.xor(n2, t)
    n3 = rotl(n3, 45)
    if raw:
        builder.store(r, builder.gep(op, [idx]), align=8)
    else:
        # k + 1 as a double, k = r >> 11 < 2^53, without sitofp (AVX2 has no vector int64 ->
        # double: LLVM makes it eight scalar conversions). Each step is exact, so the uniform
        # is bit-for-bit (k + 1) / 2^53: the low 52 bits under 2^52's exponent give 2^52 + lo,
        # minus (2^52 - 1) gives lo + 1; bit 52 adds 0 or 2^52.
        k = builder.lshr(r, splat(11))
        lo = builder.or_(builder.and_(k, splat(_LOW52)), splat(_EXP52))
        lo1 = builder.fsub(builder.bitcast(lo, vd), splat(_TWO52_M1, vd))
        hi = builder.and_(builder.sub(splat(0), builder.lshr(k, splat(52))), splat(_EXP52))
        u = builder.fmul(builder.fadd(lo1, builder.bitcast(hi, vd)), splat(_TWO53, vd))
        builder.store(u, builder.gep(op, [idx]), align=8)
    nxt = builder.add(idx, ir.Constant(i64, 1))
    new = (n0, n1, n2, n3)
    for p, a, b in zip(phis, init, new):
        p.add_incoming(a, pre)
        p.add_incoming(b, loop)
    idx.add_incoming(ir.Constant(i64, 0), pre)
    idx.add_incoming(nxt, loop)
    builder.cbranch(builder.icmp_signed("<", nxt, n), loop, done)
    builder.position_at_end(done)
    final = [builder.phi(v64) for _ in range(4)]      # phis first: LLVM wants them grouped
    for k, f in enumerate(final):
        f.add_incoming(init[k], pre)
        f.add_incoming(new[k], loop)
        builder.store(f, builder.gep(sp, [ir.Constant(i64, k)]), align=8)
    return context.get_dummy_value()


@intrinsic
def _xoshiro_fill(typingctx, lanes, out, nvec):
    """Advance ``lanes`` (uint64[4, LANES], C order: word-major) ``nvec`` times as one vector and
    write the 8 * nvec uniforms (k + 1) / 2^53 to ``out`` (lane l of step i at out[8 i + l])."""
    def codegen(context, builder, sig, args):
        return _xoshiro_codegen(context, builder, sig, args, False)
    return types.void(lanes, out, types.int64), codegen


@intrinsic
def _xoshiro_raw(typingctx, lanes, out, nvec):
    """As ``_xoshiro_fill``, but the 8 * nvec raw 64-bit outputs, each stored as the bit pattern
    of a double of ``out`` (float64; read back with ``_bits``)."""
    def codegen(context, builder, sig, args):
        return _xoshiro_codegen(context, builder, sig, args, True)
    return types.void(lanes, out, types.int64), codegen


# fdlibm's e_log.c polynomial (|error| < 1 ulp), without its branches so that LLVM vectorises it
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_LG1, _LG2, _LG3 = 6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01
_LG4, _LG5, _LG6 = 2.222219843214978396e-01, 1.818357216161805012e-01, 1.531383769920937332e-01
_LG7 = 1.479819860511658591e-01
_FRAC = 0x000FFFFFFFFFFFFF
_SQRT2_FRAC = 0x6A09E667F3BCD          # fraction bits of sqrt(2)


@nb.njit(**JIT_LEAF, inline="always")
def log_positive(x):
    """Natural log of a positive normal double (no checks), to within 1 ulp."""
    b = float_bits(x)
    f_bits = b & _FRAC
    big = f_bits >= _SQRT2_FRAC            # mantissa >= sqrt(2): use m / 2 and exponent + 1
    m = bits_float(f_bits | (0x3FE0000000000000 if big else 0x3FF0000000000000))
    k = float((b >> 52) - (1022 if big else 1023))
    f = m - 1.0
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    r = z * (_LG1 + w * (_LG3 + w * (_LG5 + w * _LG7))) + w * (_LG2 + w * (_LG4 + w * _LG6))
    hfsq = 0.5 * f * f
    return k * _LN2_HI - ((hfsq - (s * (hfsq + r) + k * _LN2_LO)) - f)


@functools.lru_cache(maxsize=4096)     # (a pack per sweep point hashes the same dozen names)
def row_key(name: str) -> int:
    """The stable 64-bit key of a row of draws: the first 8 bytes (little-endian) of the
    BLAKE2b-64 digest of its UTF-8 name. Host side; the same on every platform and Python."""
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "little")


def row_keys(names) -> np.ndarray:
    """uint64[len(names)]: ``row_key`` of each name, in the order given (the kernels' rows)."""
    return np.array([row_key(n) for n in names], dtype=np.uint64)


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(**JIT_LEAF)
def _splitmix(z):
    """One SplitMix64 step (Steele, Lea and Flood 2014): (new z, output)."""
    z = z + _GOLDEN
    x = z
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z, x ^ (x >> np.uint64(31))


@njit(**JIT_LEAF)
def row_state(s, key):
    """The state (four uint64) of the row keyed ``key`` (uint64) of stream ``s`` (uint64[4], not
    advanced): SplitMix64 absorbs the key, then each word of ``s`` (z = output of step(z ^ w));
    the row's four words are the next four SplitMix64 outputs. Depends on (s, key) only."""
    z, _ = _splitmix(key)
    for w in range(4):
        _, z = _splitmix(z ^ s[w])
    z, a = _splitmix(z)
    z, b = _splitmix(z)
    z, c = _splitmix(z)
    z, d = _splitmix(z)
    if (a | b | c | d) == np.uint64(0):      # xoshiro's one fixed point (never in practice)
        a = np.uint64(1)
    return a, b, c, d


@njit(**JIT_LEAF)
def make_streams(s, keys, lanes, scal):
    """Substreams of stream ``s`` (uint64[4], not advanced), one set per row keyed
    ``keys[r]`` (uint64[R], ``row_keys(layout.ROW_NAMES)``): row r's eight lanes ``lanes[r]``
    (uint64[R, 4, LANES]) are ``row_state(s, keys[r])`` jumped 1 .. LANES times, its scalar state
    ``scal[r]`` (uint64[R, 4]) jumped LANES + 1 times. Row r depends on (s, keys[r]) only."""
    for r in range(keys.shape[0]):
        a, b, c, d = row_state(s, keys[r])
        for lane in range(LANES + 1):
            a, b, c, d = jump(a, b, c, d)
            if lane < LANES:
                lanes[r, 0, lane] = a
                lanes[r, 1, lane] = b
                lanes[r, 2, lane] = c
                lanes[r, 3, lane] = d
            else:
                scal[r, 0] = a
                scal[r, 1] = b
                scal[r, 2] = c
                scal[r, 3] = d


@njit(**JIT_VEC)
def fill_uniform(lanes, out, n):
    """out[:n] = uniforms in (0, 1] from one row's lanes (uint64[4, LANES]); ``n`` a multiple
    of LANES."""
    _xoshiro_fill(lanes, out, n // LANES)


_CHUNK = 256                            # fill_exponential's draws per pass (its stack scratch)


@intrinsic
def _stack_u64(typingctx):
    """A uint64[_CHUNK] scratch array on the stack of the function it is inlined into (an
    alloca in its entry block): for kernels compiled without reference counting, which cannot
    allocate."""
    arrty = types.Array(types.uint64, 1, "C")

    def codegen(context, builder, signature, args):
        from numba.core import cgutils
        from numba.np.arrayobj import populate_array
        ptr = cgutils.alloca_once(builder, ir.IntType(64), size=_CHUNK)
        ary = context.make_array(arrty)(context, builder)
        intp = context.get_value_type(types.intp)
        populate_array(ary, data=ptr, shape=[ir.Constant(intp, _CHUNK)],
                       strides=[ir.Constant(intp, 8)], itemsize=ir.Constant(intp, 8),
                       meminfo=None)
        return ary._getvalue()
    return arrty(), codegen


@njit(**dict(JIT_LEAF, forceinline=False))
def _exponential_fixups(scal, out, raw, places, nrej, mean):
    """out[places[q]] for q < nrej, in order: the draws the ziggurat rejected (raw outputs
    raw[places[q]]), each by rng's slow path for its layer and point from the row's scalar
    state ``scal`` (uint64[4], advanced), times ``mean``. Never inlined (forceinline=False set
    explicitly): the rare path stays out of the block's loop."""
    a = scal[0]
    b = scal[1]
    c = scal[2]
    d = scal[3]
    for q in range(nrej):
        j = places[q]
        ri = raw[j] >> np.uint64(3)
        idx = ri & np.uint64(0xFF)  # uint64: an index LLVM needs no sign test for
        x = float(np.int64(ri >> np.uint64(8))) * _WE[idx]
        x, a, b, c, d = _std_exponential_slow_st(a, b, c, d, idx, x)
        out[j] = x * mean
    scal[0] = a
    scal[1] = b
    scal[2] = c
    scal[3] = d


@njit(**JIT_LEAF)
def fill_exponential(lanes, scal, out, n, mean):
    """out[:n] = exponential variates of the given mean from one row's lanes (uint64[4, LANES])
    and scalar state (uint64[4]); ``n`` a multiple of LANES. The ziggurat of ``rng`` (its tables
    and its test, ``_std_exponential_zig_st``) on the lanes' raw outputs (on the stack, _CHUNK at
    a time): a table look-up, a multiply and a compare a variate, without branches; the rejected
    ones (~2.2 %: layer 1, the wedges, the tail) are listed, then replaced by rng's slow path
    from the row's scalar state, in the block's order (``_exponential_fixups``). Exact in
    distribution, as the scalar ziggurat is."""
    raw = _stack_u64()
    places = _stack_u64()
    for c0 in range(0, n, _CHUNK):
        w = out[c0:(c0 + _CHUNK if c0 + _CHUNK < n else n)]
        _xoshiro_raw(lanes, raw, w.shape[0] // LANES)
        nrej = np.int64(0)       # not a literal 0: the call below would compile once for it
        for j in range(w.shape[0]):
            ri = raw[j] >> np.uint64(3)
            idx = ri & np.uint64(0xFF)
            ri >>= np.uint64(8)
            w[j] = float(np.int64(ri)) * _WE[idx] * mean
            # listed at every draw, kept by advancing the count: no branch, and a loop LLVM
            # does not vectorise (vectorised, the table look-ups became scalar loads and
            # inserts and int64 -> double eight scalar conversions: slower; AVX2's gathers,
            # written as IR, were slower still on Zen 3: 2.9 ns a variate against 2.2)
            places[nrej] = j
            nrej += 1 if ri >= _KE[idx] else 0
        if nrej:
            _exponential_fixups(scal, w, raw, places, nrej, mean)


@njit(**JIT_VEC)
def fill_uniform_between(lanes, out, n, low, width):
    """out[:n] = uniform variates on (low, low + width] from one row's lanes; ``n`` a multiple
    of LANES."""
    _xoshiro_fill(lanes, out, n // LANES)
    for i in range(n):
        out[i] = low + width * out[i]


@njit(**JIT_LEAF)
def fill_row(lanes, scal, dp, row, ev, ec, out, n):
    """out[:n] = the next n draws of row ``row``, from that row's own substreams: distribution
    row ``row`` of ``dp`` (see ``dists``) for row < N_DIST or row >= N_ROWS (a configuration's
    own rows: ``layout.CU_ROW_NAMES``), else uniforms in (0, 1]. Exponentials
    and uniforms come from the row's vector lanes, constants are filled, gamma and the other kinds
    are drawn from the row's scalar state (gamma in one loop: its constants once per block).
    ``ev``, ``ec`` float64[:] the empirical tables, or None when no row of ``dp`` is lognormal or
    empirical (the sampler of those kinds is then compiled out, and such a row would be left
    unfilled)."""
    if N_DIST <= row < N_ROWS:
        fill_uniform(lanes[row], out, n)
        return
    kind = dp[row, 0]
    if kind == EXPONENTIAL:
        fill_exponential(lanes[row], scal[row], out, n, dp[row, 1])
    elif kind == DETERMINISTIC:
        v = dp[row, 1]
        for i in range(n):
            out[i] = v
    elif kind == UNIFORM:
        fill_uniform_between(lanes[row], out, n, dp[row, 3], dp[row, 4])
    elif kind == GAMMA:
        fill_gamma_st(scal[row], out, n, dp[row, 3], dp[row, 4])
    elif ev is not None:
        # (lognormal, empirical: ev, ec are None when no row of dp is of these kinds,
        # mcio.engine.run: then this branch and the sampler are compiled out)
        a = scal[row, 0]
        b = scal[row, 1]
        c = scal[row, 2]
        d = scal[row, 3]
        for i in range(n):
            out[i], a, b, c, d = sample_st(a, b, c, d, dp, row, ev, ec)
        scal[row, 0] = a
        scal[row, 1] = b
        scal[row, 2] = c
        scal[row, 3] = d


# fill_row once more, never inlined (forceinline=False set explicitly: Numba lets a callee that
# leaves it unset inherit its caller's, and next_from is always inlined): one refill per block
# of draws is a call, instead of fill_row's whole body at every place a row is drawn.
_refill = njit(**JIT_CALL)(fill_row.py_func)


@njit(**JIT_STAGE)
def next_from(vb, vpos, row, lanes, scal, dp, ev, ec):
    """The next draw of row ``row``. Always inlined (LLVM's alwaysinline): as a call it would
    pass its six arrays as ~40 fields, ~20 ns a draw; inlined it is a load, a compare and a
    store, and only the refill (``fill_row``, once per block) is a call.

    ``vb[row]`` holds a block of the row's draws (``fill_row``), ``vpos[row]`` the next unused
    one; an exhausted block is refilled. Start with ``vpos[:] = vb.shape[1]`` (all empty).
    """
    p = vpos[row]
    if p == vb.shape[1]:
        _refill(lanes, scal, dp, row, ev, ec, vb[row], vb.shape[1])
        p = 0
    vpos[row] = p + 1
    return vb[row, p]
