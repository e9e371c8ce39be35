"""kernels/dispatch.py: a kernel called from Python is Numba's own dispatcher; a kernel calling
another compiles the callee into its own code (the callee's dispatcher has no machine code and
refuses a Python call with a TypeError, not a crash)."""
import gc
import re

import numba
import numpy as np
import pytest
from numba.core.registry import CPUDispatcher

from mcio.kernels import dispatch
from mcio.kernels.options import JIT_CALL, JIT_LEAF, JIT_STAGE


@dispatch.njit(**dict(JIT_LEAF, cache=False))
def _leaf(a, i):
    return a[i] * 2.0


@dispatch.njit(**dict(JIT_CALL, cache=False))
def _call(a, i):
    return a[i] - 0.5


@dispatch.njit(**dict(JIT_STAGE, cache=False))
def _stage(a, i):
    return _leaf(a, i) + 1.0 + _call(a, i)


@dispatch.njit(nogil=True)
def _top(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += _stage(a, i)
    return s


def test_callers_and_python_calls_agree():
    a = np.arange(5.0)
    assert _top(a) == sum(3.0 * x + 0.5 for x in a)
    assert _leaf(a, 3) == 6.0 and _stage(a, 3) == 9.5 and _call(a, 3) == 2.5      # each also callable from Python


@pytest.mark.skipif(dispatch.njit is dispatch._plain, reason="another Numba: plain njit")
def test_callee_is_compiled_into_callers_only():
    a = np.arange(5.0)
    _top(a)
    callee = _stage._callee
    assert callee is not None and len(callee.overloads) == 1
    (cres,) = callee.overloads.values()
    assert isinstance(cres.library, dispatch._CallersLibrary)
    with pytest.raises(TypeError, match="compiled into other kernels only"):
        callee(a, 0)
    # the as_call kernel: declared in the stage's module, its body passed up to _top's
    (call,) = _call._callee.overloads.values()
    assert cres.library.deferred == [call.library]
    assert "_call" not in "".join(f.name for f in cres.library._final_module.functions
                                  if not f.is_declaration)


needs_tested_numba = pytest.mark.skipif(
    dispatch.njit is dispatch._plain,
    reason=f"Numba {numba.__version__} is not {dispatch.TESTED_NUMBA}: dispatch.py is Numba's plain njit")


@needs_tested_numba
def test_gc_thresholds_raised_while_compiling_and_restored():
    seen = []

    def callback(phase, info):
        if phase == "start":
            seen.append(gc.get_threshold())

    @dispatch.njit(nogil=True)
    def work(n):
        a = np.zeros(n)
        for i in range(n):
            a[i] = i * 0.5
        return a.sum()

    before = gc.get_threshold()
    gc.callbacks.append(callback)
    try:
        gc.collect()             # (a collection outside the compile: the thresholds as before)
        for i in range(20000):   # (garbage in cycles, so that the compile's collections run)
            c = [None]
            c[0] = c
        assert work(4) == 3.0
    finally:
        gc.callbacks.remove(callback)
    assert gc.get_threshold() == before
    assert seen[0] == before and dispatch.COMPILE_GC_THRESHOLD in seen[1:]


@needs_tested_numba
def test_gc_thresholds_restored_after_a_failed_compile(monkeypatch):
    during = []

    def failing(self, sig):
        during.append(gc.get_threshold())
        raise RuntimeError("compile failed")

    monkeypatch.setattr(CPUDispatcher, "compile", failing)

    @dispatch.njit(nogil=True)
    def work(n):
        return n + 1

    before = gc.get_threshold()
    with pytest.raises(RuntimeError, match="compile failed"):
        work(1)
    assert during == [dispatch.COMPILE_GC_THRESHOLD]
    assert gc.get_threshold() == before
    monkeypatch.undo()

    @dispatch.njit(nogil=True)
    def untypable(n):
        return n + "x"

    with pytest.raises(numba.core.errors.TypingError):
        untypable(1)
    assert gc.get_threshold() == before


def _flag_variants():
    from numba.core.compiler import DEFAULT_FLAGS, Flags
    from numba.core.cpu import CPUTargetOptions
    from numba.core.targetconfig import ConfigStack
    out = [Flags(), DEFAULT_FLAGS, DEFAULT_FLAGS.copy()]
    f = Flags()
    f.nrt = False                       # set, to its default
    out.append(f)
    f = Flags()
    f.nrt = True
    f.discard("nrt")                    # set, then unset
    out.append(f)
    for name, value in [("nrt", True), ("error_model", "numpy"), ("fastmath", {"contract"}),
                        ("fastmath", set()), ("inline", "always"), ("forceinline", True),
                        ("no_cpython_wrapper", True), ("boundscheck", False)]:
        f = DEFAULT_FLAGS.copy()
        setattr(f, name, value)
        out.append(f)
    for options in [dict(nopython=True, nogil=True), dict(nopython=True, _nrt=False),
                    dict(nopython=True, error_model="numpy", fastmath={"contract"}),
                    dict(nopython=True, forceinline=True, no_cpython_wrapper=True)]:
        f = Flags()
        CPUTargetOptions.parse_as_flags(f, dict(options))   # (as a dispatcher makes its flags)
        out.append(f)
    with ConfigStack().enter(out[-1]):
        f = Flags()
        f.inherit_if_not_set("nrt")
        f.inherit_if_not_set("fastmath")
        out.append(f)
    return out


@needs_tested_numba
def test_flags_equality_and_hash_are_numbas():
    variants = _flag_variants()
    assert dispatch.TargetConfig.__eq__ is dispatch._fast_flags_eq
    for a in variants:
        assert hash(a) == dispatch._numba_flags_hash(a)
        for b in variants:
            assert (a == b) == dispatch._numba_flags_eq(a, b) == (a.values() == b.values())
            assert (a != b) == (not dispatch._numba_flags_eq(a, b))
            if a == b:
                assert hash(a) == hash(b)
        assert a.__eq__(object()) is NotImplemented
    # some pairs equal, some not (the comparison is exercised both ways)
    assert sum(a == b for a in variants for b in variants) > len(variants)
    assert any(a != b for a in variants for b in variants)


class _Compiles(numba.core.event.Listener):
    """The functions compiled (``numba:compile`` events) while it is installed."""

    def __init__(self):
        self.names = []

    def on_start(self, event):
        self.names.append(event.data["dispatcher"].py_func.__module__ + ":"
                          + event.data["dispatcher"].py_func.__qualname__)

    def on_end(self, event):
        pass

    def __enter__(self):
        numba.core.event.register("numba:compile", self)
        return self

    def __exit__(self, *exc):
        numba.core.event.unregister("numba:compile", self)


@needs_tested_numba
def test_builtin_implementations_shared_across_callers_flags():
    # (np.full of a 3-d int16 shape with an int8 fill: a signature nothing else compiles)
    def make(**options):
        @dispatch.njit(**options)
        def full(n):
            return np.full((n, 2, 3), np.int8(7), np.int16)
        return full

    plain, nogil, wrapperless = make(), make(nogil=True), make(nogil=True, boundscheck=False)
    with _Compiles() as first:
        assert plain(2).sum() == 84
    with _Compiles() as second:
        assert nogil(2).sum() == 84 and wrapperless(2).sum() == 84
    assert any(n.startswith("numba.") for n in first.names)
    assert not any(n.startswith("numba.") for n in second.names), second.names
    # settings a built-in's compile takes from its caller: its own implementation
    vec = make(error_model="numpy")
    with _Compiles() as third:
        assert vec(2).sum() == 84
    assert any(n.startswith("numba.") for n in third.names)


@needs_tested_numba
def test_builtins_into_callers_under_a_kernel_and_machine_code_under_a_users_njit():
    seen = []

    class Listener(numba.core.event.Listener):
        def on_start(self, event):
            d = event.data["dispatcher"]
            if d.py_func.__module__.startswith("numba."):
                seen.append(d)

        def on_end(self, event):
            pass

    def body(n):
        # (np.full of a 3-d int32 shape with an int8 fill: a signature nothing else compiles)
        return np.full((n, 3, 2), np.int8(5), np.int32)

    kernel = dispatch.njit(nogil=True)(body)
    users = numba.njit(nogil=True)(body)
    listener = Listener()
    numba.core.event.register("numba:compile", listener)
    try:
        assert kernel(2).sum() == 60
        under_kernel = list(seen)
        del seen[:]
        assert users(2).sum() == 60
        under_users = list(seen)
    finally:
        numba.core.event.unregister("numba:compile", listener)
    assert under_kernel and under_users
    for d in under_kernel:           # compiled into the kernel only
        assert isinstance(d, dispatch._Callee)
        assert all(isinstance(c.library, dispatch._CallersLibrary) for c in d.overloads.values())
    for d in under_users:            # Numba's own: machine code
        assert type(d) is CPUDispatcher
        for c in d.overloads.values():
            assert not isinstance(c.library, dispatch._CallersLibrary)
            assert c.library.get_pointer_to_function(c.fndesc.llvm_func_name) != 0
    assert dispatch._mcio_compiles == [0]
    # a user's function compiled after the kernel, using what the kernel's implementations use
    assert numba.njit(lambda n: np.full((n, 3, 2), np.int8(5), np.int32).sum())(3) == 90


def _full_impl_key(args):
    """The implementation key Numba's lowering would read for ``np.full`` at ``args``."""
    from numba.core.registry import cpu_target
    fnty = cpu_target.typing_context.resolve_value_type(np.full)
    return fnty._impl_keys[args]


@needs_tested_numba
def test_a_repeated_call_type_is_remembered_with_its_implementation_key():
    # (np.full of a 3-d uint16 shape with an int8 fill: a signature nothing else compiles)
    def body(n):
        return np.full((n, 2, 2), np.int8(3), np.uint16)

    before = len(dispatch._call_types)
    first = dispatch.njit(nogil=True)(body)
    assert first(2).sum() == 24
    assert len(dispatch._call_types) > before            # remembered while a kernel compiled
    args = next(sig.args for (fnty, *_), (sig, _) in dispatch._call_types.items()
                if getattr(fnty, "typing_key", None) is np.full
                and sig.return_type == numba.types.Array(numba.uint16, 3, "C"))
    into_callers = _full_impl_key(args)
    assert into_callers.__doc__ == "compiled into its callers only"    # (dispatch._no_executable)
    # a user's own njit of the same call puts Numba's implementation (machine code) in its place
    assert numba.njit(nogil=True)(body)(2).sum() == 24
    users = _full_impl_key(args)
    assert users is not into_callers and users.__doc__ != into_callers.__doc__
    # another kernel with the same call: the remembered type, and its own implementation key back
    known = set(dispatch._call_types)
    again = dispatch.njit(nogil=True, boundscheck=False)(body)
    assert again(3).sum() == 36
    assert _full_impl_key(args) is into_callers
    new = [k for k in dispatch._call_types if k not in known]
    assert not [k for k in new if getattr(k[0], "typing_key", None) is np.full]


@needs_tested_numba
def test_a_call_that_fails_to_type_fails_each_time():
    def body(n):
        return np.full((n, 2), "x", np.float64)

    for _ in range(2):
        with pytest.raises(numba.core.errors.TypingError):
            dispatch.njit(nogil=True)(body)(2)


def _asm(kernel):
    (cres,) = kernel.overloads.values()
    return re.sub(r"\d+", "N", cres.library.get_asm_str())


def _branchy(a, out):
    # several back edges to one loop head (the continues) and a nested loop: what
    # canonicalising the CFG changes
    s = 0.0
    for i in range(a.shape[0]):
        if a[i] < 0.0:
            continue
        for j in range(i):
            if a[j] > a[i]:
                break
            s += a[j]
        if s > 100.0:
            continue
        out[i] = s
    return s


def _arrays(a, b):
    return a * 2.0 + np.sqrt(b)


def _listed(x):
    return np.array([1.0, x, 3.0])


@needs_tested_numba
def test_post_typing_rewrites_skipped_only_where_none_applies(monkeypatch):
    ran = []
    numbas = dispatch.NopythonRewrites.run_pass

    def counting(self, state):
        ran.append(state.func_id.func_name)
        return numbas(self, state)

    monkeypatch.setattr(dispatch.NopythonRewrites, "run_pass", counting)
    a = np.linspace(-1.0, 3.0, 9)
    out = np.zeros(9)
    dispatch.njit(nogil=True)(_branchy)(a, out)
    assert "_branchy" not in ran
    b = np.arange(9.0)
    assert np.array_equal(dispatch.njit(nogil=True)(_arrays)(a, b), a * 2.0 + np.sqrt(b))
    assert "_arrays" in ran                   # an array expression: Numba's rewrites ran
    assert np.array_equal(dispatch.njit(nogil=True)(_listed)(2.0), [1.0, 2.0, 3.0])
    assert "_listed" in ran                   # np.array of a list display: they ran


@needs_tested_numba
def test_skipping_the_rewrites_leaves_the_same_machine_code(monkeypatch):
    skipped = dispatch.njit(nogil=True)(_branchy)
    a = np.linspace(-1.0, 3.0, 9)
    out1, out2 = np.zeros(9), np.zeros(9)
    s1 = skipped(a, out1)
    monkeypatch.setattr(dispatch, "_nothing_to_rewrite", lambda state: False)
    rewritten = dispatch.njit(nogil=True)(_branchy)
    s2 = rewritten(a, out2)
    assert s1 == s2 and np.array_equal(out1, out2)
    assert _asm(skipped) == _asm(rewritten)


class _Opaque:
    pass


_OPAQUE = _Opaque()


def _uses_opaque(n):
    return n if _OPAQUE is None else n + 1


@needs_tested_numba
def test_globals_typed_as_numba_types_them_and_an_untypable_one_gets_numbas_error():
    from numba.core.registry import cpu_target
    ctx = cpu_target.typing_context
    dispatch._mcio_compiles[0] += 1          # (as while a kernel compiles)
    try:
        for val in (np.empty, min, np.float64, 3, 2.5, (1, 2.0), np.zeros(3), dispatch.njit()(_listed)):
            assert dispatch._resolve_value_type(ctx, val) == dispatch._numba_resolve_value_type(ctx, val)
        with pytest.raises(ValueError, match="Cannot determine Numba type") as mine:
            dispatch._resolve_value_type(ctx, _OPAQUE)
        with pytest.raises(ValueError) as numbas:
            dispatch._numba_resolve_value_type(ctx, _OPAQUE)
        assert str(mine.value) == str(numbas.value)
    finally:
        dispatch._mcio_compiles[0] -= 1
    with pytest.raises(numba.core.errors.TypingError, match="Cannot determine Numba type"):
        dispatch.njit(nogil=True)(_uses_opaque)(1)


@needs_tested_numba
def test_an_instructions_variables_listed_as_numba_lists_them():
    from numba.core import compiler, ir
    seen = 0
    for fn in (_branchy, _arrays, _listed, _uses_opaque):
        func_ir = compiler.run_frontend(fn)
        for block in func_ir.blocks.values():
            for inst in block.body:
                values = [inst, inst.__dict__] + ([inst.value] if isinstance(inst, ir.Assign) else [])
                for v in values:
                    assert inst._rec_list_vars(v) == dispatch._numba_rec_list_vars(inst, v)
                    seen += 1
                assert inst.list_vars() == dispatch._numba_rec_list_vars(inst, inst.__dict__)
    assert seen > 100
    # containers nested, leaves of every kind, a subclass of tuple
    from collections import namedtuple
    loc = ir.Loc("f.py", 1)
    a, b = ir.Var(None, "a", loc), ir.Var(None, "b", loc)
    pair = namedtuple("pair", "x y")
    nested = {"k": [a, (1, "s", {"b": b}), pair(a, 2.0)], "l": None, "at": loc}
    inst = ir.Del("a", loc)
    assert inst._rec_list_vars(nested) == dispatch._numba_rec_list_vars(inst, nested) == [a, b, a]
