"""Arrays made inside compiled kernels without compiling NumPy's own implementations.

``np.empty``, ``np.zeros`` and ``np.full`` are Numba overloads: each (shape type, dtype) pair a
kernel uses is a specialisation of its own, compiled and optimised before its caller (with
``np.zeros`` three: itself, its ``np.empty`` and its zero fill), and ``ndarray.view`` compiles a
compatibility check. The main job's first run compiled 21 such specialisations (issue 29: a cold
``mcio run`` compiles every specialisation it reaches; 9 more were ``int()``, ``min()`` and
``max()``, which the kernels now write as conversions and conditional expressions). These intrinsics emit the same code in
the caller itself: Numba's own allocation (``_empty_nd_impl``: the runtime's aligned memory, C
order), then a memset or a fill loop. The arrays are the ones NumPy's functions return.

``shape`` is an integer or a tuple of integers; ``dtype`` a NumPy scalar class (``np.float64``,
``np.int64``, ``np.bool_``, ...), always given: the default ``float`` of NumPy's functions is not
taken, so that every call says what it makes. For kernels compiled with reference counting
(``JIT``), as NumPy's functions need.
"""
from numba import types
from numba.core import cgutils
from numba.core.imputils import impl_ret_borrowed, impl_ret_new_ref
from numba.extending import intrinsic
from numba.np.arrayobj import _empty_nd_impl, make_array, populate_array, store_item


def _array_type(shape, dtype):
    """The C-order array type for an integer or a tuple of integers and a NumPy scalar class,
    or None when the arguments are not that."""
    if isinstance(shape, types.Integer):
        ndim = 1
    elif isinstance(shape, types.BaseTuple) and all(isinstance(s, types.Integer) for s in shape):
        ndim = len(shape)
    else:
        return None
    if not isinstance(dtype, types.NumberClass):
        return None
    return types.Array(dtype.instance_type, ndim, "C")


def _allocate(context, builder, arrtype, shape_type, shape):
    """A new array of ``arrtype`` (its struct), of the lowered ``shape``."""
    intp = types.intp
    if isinstance(shape_type, types.Integer):
        dims = [context.cast(builder, shape, shape_type, intp)]
    else:
        dims = [context.cast(builder, builder.extract_value(shape, k), shape_type[k], intp)
                for k in range(len(shape_type))]
    return _empty_nd_impl(context, builder, arrtype, dims)


def _new_array(shape, dtype, zero):
    """The signature and code of ``empty`` (zero False) or ``zeros`` (True), or None."""
    arrtype = _array_type(shape, dtype)
    if arrtype is None:
        return None

    def codegen(context, builder, signature, args):
        ary = _allocate(context, builder, arrtype, signature.args[0], args[0])
        if zero:
            cgutils.memset(builder, ary.data, builder.mul(ary.itemsize, ary.nitems), 0)
        return impl_ret_new_ref(context, builder, arrtype, ary._getvalue())
    return arrtype(shape, dtype), codegen


@intrinsic
def empty(typingctx, shape, dtype):
    """np.empty(shape, dtype): uninitialised."""
    return _new_array(shape, dtype, False)


@intrinsic
def zeros(typingctx, shape, dtype):
    """np.zeros(shape, dtype): every byte zero (0, 0.0, False)."""
    return _new_array(shape, dtype, True)


@intrinsic
def full(typingctx, shape, value, dtype):
    """np.full(shape, value, dtype): every element ``value``, converted to ``dtype``."""
    arrtype = _array_type(shape, dtype)
    if arrtype is None or not isinstance(value, (types.Number, types.Boolean)):
        return None

    def codegen(context, builder, signature, args):
        ary = _allocate(context, builder, arrtype, signature.args[0], args[0])
        v = context.cast(builder, args[1], signature.args[1], arrtype.dtype)
        with cgutils.for_range(builder, ary.nitems) as loop:
            store_item(context, builder, arrtype, v, builder.gep(ary.data, [loop.index]))
        return impl_ret_new_ref(context, builder, arrtype, ary._getvalue())
    return arrtype(shape, value, dtype), codegen


@intrinsic
def int64_view(typingctx, a):
    """a.view(np.int64) for a C-order float64 array: the same memory, read as int64."""
    if not (isinstance(a, types.Array) and a.dtype == types.float64 and a.layout == "C"):
        return None
    viewtype = a.copy(dtype=types.int64)

    def codegen(context, builder, signature, args):
        src = make_array(a)(context, builder, args[0])
        out = make_array(viewtype)(context, builder)
        data_t = context.get_data_type(types.int64).as_pointer()
        populate_array(out, data=builder.bitcast(src.data, data_t), shape=src.shape,
                       strides=src.strides, itemsize=src.itemsize, meminfo=src.meminfo,
                       parent=src.parent)
        return impl_ret_borrowed(context, builder, viewtype, out._getvalue())
    return viewtype(a), codegen


__all__ = ["empty", "zeros", "full", "int64_view"]
