"""Numba's front end (typing, its IR passes) made cheaper where mcio's kernels meet it: the
same code compiled, the same results, less of Numba's Python repeated for nothing. Numba 0.68's
internals only: ``mcio.kernels.dispatch`` uses this module and calls :func:`install` on the Numba
it was tested against (``TESTED_NUMBA``), never on another.

- :func:`impl_key_flags`: what of a caller's compiler flags Numba's built-in implementations
  (``@overload``) inherit, and whether a kernel called from Python is compiling
  (:data:`compile_depth`): the key dispatch.py caches those implementations by, and the one a
  call's type is remembered by here.
- A call's type, remembered while kernels compile (:func:`_get_call_type`).
- A global's type, without the error message Numba formats first and drops
  (:func:`_resolve_value_type`).
- Numba's post-typing rewrites, skipped where none can match (:class:`Rewrites`, a pass
  dispatch.py's pipelines use in place of ``NopythonRewrites``).
- An IR instruction's variables, listed without a call per leaf (:func:`_rec_list_vars`).

What each saved: benchmarks/README.md, "Issue 29: compiling, fourth pass (session 18)".
"""
from numba.core import ir as numba_ir, types
from numba.core.compiler import Flags
from numba.core.compiler_machinery import register_pass
from numba.core.rewrites import rewrite_registry
from numba.core.target_extension import get_local_target
from numba.core.targetconfig import ConfigStack
from numba.core.typed_passes import NopythonRewrites
from numba.core.typing.context import BaseContext
from numba.core.typing.typeof import Purpose, _TypeofContext, typeof_impl
from numba.np.ufunc.array_exprs import _is_ufunc

#: depth of dispatch._Kernel.compile (a kernel called from Python compiling; under Numba's
#: compiler lock)
compile_depth = [0]


def impl_key_flags(flags):
    """What of the caller's ``flags`` an overload's compile sees, and whether it is compiled
    into its callers only (Numba's key: ``flags``)."""
    if type(flags) is not Flags:
        return flags
    return (flags.nrt, frozenset(flags.fastmath.flags), flags.error_model, flags.forceinline,
            compile_depth[0] > 0)


# A function's call typed once per (argument types, what an implementation's compile sees of
# the caller's flags) while kernels compile: Numba's ``BaseFunction.get_call_type`` tries the
# function's templates in order each time (``+`` on two floats goes through dozens that fail,
# each failure formatting its message), ~6,700 times in a cold ``mcio run`` for ~840 distinct
# calls. A repeat gets the signature found the first time, and the implementation key Numba
# stored with it (``_impl_keys``, which its lowering reads) is put back: Numba keys that by the
# argument types only, so a call typed since under other flags may have replaced it.
_numba_get_call_type = types.BaseFunction.get_call_type
_call_types = {}     # (function type, context, target, args, kws, flags' key) -> (sig, impl key)


def _get_call_type(self, context, args, kws):
    """Numba's ``BaseFunction.get_call_type``, remembered while a kernel compiles."""
    if compile_depth[0] == 0:
        return _numba_get_call_type(self, context, args, kws)
    key = (self, context, get_local_target(context), tuple(args), tuple(kws.items()),
           impl_key_flags(ConfigStack.top_or_none()))
    try:
        hit = _call_types.get(key)
    except TypeError:      # (an argument type that cannot be hashed: Numba's way)
        return _numba_get_call_type(self, context, args, kws)
    if hit is not None:
        self._impl_keys[hit[0].args] = hit[1]
        return hit[0]
    sig = _numba_get_call_type(self, context, args, kws)
    _call_types[key] = (sig, self._impl_keys[sig.args])
    return sig


# A global's type while kernels compile: Numba's ``resolve_value_type`` first asks ``typeof``,
# which for a function such as ``np.empty`` or ``min`` formats (and colours) a "Cannot
# determine Numba type" message and raises it, then finds the type among the registered
# globals: ~6,800 messages made and dropped in a cold ``mcio run``. Here the same two steps
# without the message; anything else (no type, or ``typeof`` raising) goes Numba's way.
_numba_resolve_value_type = BaseContext.resolve_value_type
_AS_CONSTANT = _TypeofContext(Purpose.constant)


def _resolve_value_type(self, val):
    """Numba's ``BaseContext.resolve_value_type``, without the unused message (above)."""
    if compile_depth[0] > 0:
        try:
            ty = typeof_impl(val, _AS_CONSTANT)
        except ValueError:
            ty = None
        else:
            if ty is None and not isinstance(val, types.ExternalFunction):
                ty = self._get_global_type(val)
        if ty is not None:
            return ty
    return _numba_resolve_value_type(self, val)


# The variables an IR instruction uses (``Inst.list_vars``), which Numba's analyses ask for
# every instruction again and again (liveness, SSA, dels: ~1 million calls of its recursive
# helper in a cold ``mcio run``): the same list, in the same order, without a call and a new
# list for each leaf (a location, a name, a constant).
_numba_rec_list_vars = numba_ir.Inst._rec_list_vars
_Var, _Inst = numba_ir.Var, numba_ir.Inst
_CONTAINERS = (_Var, _Inst, list, tuple, dict)


def _collect_vars(val, out):
    """Append the variables in ``val`` to ``out``, as Numba's ``Inst._rec_list_vars`` (the same
    tests in its order; a leaf inside a container costs no call)."""
    if isinstance(val, _Var):
        out.append(val)
        return
    if isinstance(val, _Inst):
        out.extend(val.list_vars())
        return
    if isinstance(val, dict):
        val = val.values()
    elif not isinstance(val, (list, tuple)):
        return
    for v in val:
        if type(v) is _Var:
            out.append(v)
        elif isinstance(v, _CONTAINERS):
            _collect_vars(v, out)


def _rec_list_vars(self, val):
    """Numba's ``Inst._rec_list_vars``: the variables in ``val`` (above)."""
    out = []
    _collect_vars(val, out)
    return out


# Numba's post-typing rewrites (``NopythonRewrites``) first insert a ``del`` for every variable
# (a liveness analysis of the whole function), then look for array expressions to fuse,
# string-literal subscripts and arrays of constant lists, then strip the dels again, in every
# kernel, which have almost none of these. The rewrites Numba 0.68 registers for that step
# (the last when ``inline_closurecall`` is first imported):
_AFTER_TYPING = frozenset(("RewriteStringLiteralGetitems", "RewriteStringLiteralSetitems",
                           "RewriteArrayExprs", "RewriteArrayOfConsts"))


def _nothing_to_rewrite(state):
    """True when no after-typing rewrite can match the typed IR: no assignment to an array of
    a unary or binary operation or of a ufunc's call (``RewriteArrayExprs``), no subscript by
    a string literal (``RewriteStringLiteral*``), no list display (``RewriteArrayOfConsts``:
    ``np.array`` of one); a superset of their ``match`` tests."""
    if not {c.__name__ for c in rewrite_registry.rewrites["after-inference"]} <= _AFTER_TYPING:
        return False        # (rewrites registered by another library: Numba's way)
    typemap = state.typemap
    for block in state.func_ir.blocks.values():
        for inst in block.body:
            if isinstance(inst, numba_ir.Assign):
                e = inst.value
                if not isinstance(e, numba_ir.Expr):
                    continue
                if e.op == "build_list":
                    return False
                if e.op == "getitem" and isinstance(typemap.get(e.index.name), types.StringLiteral):
                    return False
                if not isinstance(typemap.get(inst.target.name), types.Array):
                    continue
                if e.op in ("unary", "binop", "inplace_binop"):
                    return False
                f = typemap.get(e.func.name) if e.op == "call" else None
                if isinstance(f, types.Function) and _is_ufunc(f.typing_key):
                    return False
            elif isinstance(inst, numba_ir.SetItem):
                if isinstance(typemap.get(inst.index.name), types.StringLiteral):
                    return False
    return True


@register_pass(mutates_CFG=True, analysis_only=False)
class Rewrites(NopythonRewrites):
    """Numba's post-typing rewrites, skipped where none can apply (:func:`_nothing_to_rewrite`:
    the IR is then as Numba's pass leaves it; the legalisation pass before lowering puts in the
    dels lowering needs)."""
    _name = "mcio_nopython_rewrites"

    def run_pass(self, state):
        if _nothing_to_rewrite(state):
            return False
        return NopythonRewrites.run_pass(self, state)


def install() -> None:
    """Put the functions above in the place of Numba's (once; process-wide: each defers to
    Numba's own outside a kernel's compile or wherever it could differ)."""
    types.BaseFunction.get_call_type = _get_call_type
    BaseContext.resolve_value_type = _resolve_value_type
    numba_ir.Inst._rec_list_vars = _rec_list_vars
