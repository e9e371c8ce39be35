"""kernels/dispatch.py: a kernel called from Python is Numba's own dispatcher; a kernel calling
another compiles the callee into its own code (the callee's dispatcher has no machine code and
refuses a Python call with a TypeError, not a crash)."""
import gc

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
