"""Doubles as their bit patterns, inside compiled kernels (LLVM bitcasts: no memory round trip).

A non-negative double's IEEE-754 bit pattern, read as an integer, orders as the double does
(+0.0 lowest, +INF above every finite value), which the histogram's buckets and the winner
trees' comparisons use.
"""
from llvmlite import ir
from numba import types
from numba.extending import intrinsic


@intrinsic
def float_bits(typingctx, x):
    """The IEEE-754 bit pattern of a float64, as an int64."""
    if not isinstance(x, types.Float) or x.bitwidth != 64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))
    return types.int64(types.float64), codegen


@intrinsic
def bits_float(typingctx, x):
    """The float64 whose IEEE-754 bit pattern is the int64 ``x``."""
    if not isinstance(x, types.Integer) or x.bitwidth != 64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return types.float64(x), codegen


@intrinsic
def pair_before(typingctx, a_hi, a_lo, b_hi, b_lo):
    """Whether (a_hi, a_lo) < (b_hi, b_lo) in order of a_hi, then a_lo, each as an unsigned
    64-bit integer (int64 arguments): one 128-bit compare, which x86-64 does in a compare and a
    subtract-with-borrow, where two compares, an equality and their logic take ~7 instructions.
    With a_hi, b_hi the bit patterns of non-negative doubles (``float_bits``) and a_lo, b_lo >= 0:
    (time, key) order, as ``a_t < b_t or (a_t == b_t and a_k < b_k)``."""
    if not all(isinstance(a, types.Integer) and a.bitwidth == 64 for a in (a_hi, a_lo, b_hi, b_lo)):
        return None

    def codegen(context, builder, signature, args):
        i128 = ir.IntType(128)

        def pack(hi, lo):
            wide = builder.shl(builder.zext(hi, i128), ir.Constant(i128, 64))
            return builder.or_(wide, builder.zext(lo, i128))
        return builder.icmp_unsigned("<", pack(args[0], args[1]), pack(args[2], args[3]))
    return types.boolean(a_hi, a_lo, b_hi, b_lo), codegen
