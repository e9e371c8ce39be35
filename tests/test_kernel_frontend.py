"""kernels/frontend.py: Numba's front end made cheaper for mcio's kernels, with Numba's own
results: a call's type remembered (with its implementation key), the post-typing rewrites
skipped only where none applies (the same machine code), globals typed as Numba types them, an
instruction's variables listed as Numba lists them."""
import re

import numba
import numpy as np
import pytest

from mcio.kernels import dispatch

needs_tested_numba = pytest.mark.skipif(
    dispatch.njit is dispatch._plain,
    reason=f"Numba {numba.__version__} is not {dispatch.TESTED_NUMBA}: dispatch.py is Numba's plain njit")

if dispatch.njit is not dispatch._plain:
    from mcio.kernels import frontend


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

    before = len(frontend._call_types)
    first = dispatch.njit(nogil=True)(body)
    assert first(2).sum() == 24
    assert len(frontend._call_types) > before            # remembered while a kernel compiled
    args = next(sig.args for (fnty, *_), (sig, _) in frontend._call_types.items()
                if getattr(fnty, "typing_key", None) is np.full
                and sig.return_type == numba.types.Array(numba.uint16, 3, "C"))
    into_callers = _full_impl_key(args)
    assert into_callers.__doc__ == "compiled into its callers only"    # (dispatch._no_executable)
    # a user's own njit of the same call puts Numba's implementation (machine code) in its place
    assert numba.njit(nogil=True)(body)(2).sum() == 24
    users = _full_impl_key(args)
    assert users is not into_callers and users.__doc__ != into_callers.__doc__
    # another kernel with the same call: the remembered type, and its own implementation key back
    known = set(frontend._call_types)
    again = dispatch.njit(nogil=True, boundscheck=False)(body)
    assert again(3).sum() == 36
    assert _full_impl_key(args) is into_callers
    new = [k for k in frontend._call_types if k not in known]
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
    numbas = frontend.NopythonRewrites.run_pass

    def counting(self, state):
        ran.append(state.func_id.func_name)
        return numbas(self, state)

    monkeypatch.setattr(frontend.NopythonRewrites, "run_pass", counting)
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
    monkeypatch.setattr(frontend, "_nothing_to_rewrite", lambda state: False)
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
    frontend.compile_depth[0] += 1          # (as while a kernel compiles)
    try:
        for val in (np.empty, min, np.float64, 3, 2.5, (1, 2.0), np.zeros(3), dispatch.njit()(_listed)):
            assert frontend._resolve_value_type(ctx, val) == frontend._numba_resolve_value_type(ctx, val)
        with pytest.raises(ValueError, match="Cannot determine Numba type") as mine:
            frontend._resolve_value_type(ctx, _OPAQUE)
        with pytest.raises(ValueError) as numbas:
            frontend._numba_resolve_value_type(ctx, _OPAQUE)
        assert str(mine.value) == str(numbas.value)
    finally:
        frontend.compile_depth[0] -= 1
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
                    assert inst._rec_list_vars(v) == frontend._numba_rec_list_vars(inst, v)
                    seen += 1
                assert inst.list_vars() == frontend._numba_rec_list_vars(inst, inst.__dict__)
    assert seen > 100
    # containers nested, leaves of every kind, a subclass of tuple
    from collections import namedtuple
    loc = ir.Loc("f.py", 1)
    a, b = ir.Var(None, "a", loc), ir.Var(None, "b", loc)
    pair = namedtuple("pair", "x y")
    nested = {"k": [a, (1, "s", {"b": b}), pair(a, 2.0)], "l": None, "at": loc}
    inst = ir.Del("a", loc)
    assert inst._rec_list_vars(nested) == frontend._numba_rec_list_vars(inst, nested) == [a, b, a]
