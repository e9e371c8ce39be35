"""How a kernel is compiled: ``njit``, Numba's decorator, with each kernel compiled twice over
for its two kinds of caller, each only when called.

Called from Python (the engine, tests): Numba's own dispatcher, options as given, machine code
cached. Called from another kernel (a stage from the event loop, a leaf from a stage): a second
dispatcher of the same function, compiled only into its callers' code. Numba by default compiles
every callee as a program of its own, to be called from Python too: a CPython wrapper (the
arguments' unboxing), a C wrapper, LLVM's module passes, machine code, a cache entry; then LLVM
inlines the callee's IR into its caller and optimises it again there, so the callee's wrappers,
machine code and cache entry are never used. Here a callee keeps what its callers use: its
optimised LLVM module (its callees linked in and inlined, as before: the caller's code is the
same) and nothing else. Where it went: benchmarks/README.md, "Issue 29: compiling (session 14)".

The second dispatcher is what Numba's typing sees of a kernel (``_numba_type_``, the attribute
``numba.typeof`` reads), so the kernels' sources call each other by their plain names. Called
from Python it raises TypeError (it has no machine code).

More of Numba's costs, changed process-wide but only in speed (same code, same results;
benchmarks/README.md, "Issue 29: compiling, third pass (session 16)" and "fourth pass (session
18)"):

- A kernel called from Python compiles with Python's gc thresholds raised (``_no_full_gc``: no
  full collection; restored after, also on error): full collections walked every compiler object
  alive, ~1 s of a cold ``mcio run``.
- Numba's compiler flags (``TargetConfig``) compare and hash without building all their options'
  values each time (the same results as Numba's ``__eq__``/``__hash__``): the overload
  implementations' cache compares them ~70,000 times in a cold ``mcio run``.
- Numba's built-in implementations (``@overload``: ``np.zeros``, ``min``, ...) are cached by the
  4 settings their compile inherits from the caller's flags, not all its flags (run_one and its
  callees shared none before), and, while a kernel called from Python compiles, compiled into
  their callers only, as mcio's own callees (no machine code: a cold ``mcio run`` makes machine
  code for 4 functions, run_one, make_streams, hist_quantiles_into, normalise_rows). A user's own
  ``numba.njit`` compiled outside gets Numba's own implementations (cached apart).
- Numba's front end (``mcio.kernels.frontend``): a call's type remembered while kernels compile,
  globals typed without a dropped error message, the post-typing rewrites skipped where none can
  match (this module's pipelines use its pass), an IR instruction's variables listed cheaply.

One change to the code compiled, in mcio's kernels only: array indices are used without Numba's
negative-index wraparound (``mcio.kernels.indices``; the kernels never index with a negative
number), ~16 % of the event path's instructions.

All of this touches Numba's internals: only on the Numba it was written and tested against (0.68:
``numba.core.codegen.JITCodeLibrary``, the lowering pass's ``get_executable``,
``TargetConfig``, ``_OverloadFunctionTemplate._get_impl``/``_get_jit_decorator``,
and frontend.py's; ``TESTED_NUMBA``). With another, ``njit`` is Numba's own and Numba is left unchanged.
"""
from __future__ import annotations

import contextlib
import gc

import numba

from mcio import interrupt

try:
    from numba import _dynfunc
    from numba.core import compiler, types
    from numba.core.codegen import JITCodeLibrary
    from numba.core.compiler_lock import global_compiler_lock, require_global_compiler_lock
    from numba.core.compiler_machinery import LoweringPass, register_pass
    from numba.core.registry import CPUDispatcher
    from numba.core.targetconfig import ConfigStack, TargetConfig
    from numba.core.typing.templates import _OverloadFunctionTemplate
    from numba.core.typed_passes import AnnotateTypes, NopythonRewrites

    from . import frontend, indices
except ImportError:        # (another Numba: its own njit below)
    CPUDispatcher = None


# Python's collector while a kernel called from Python compiles (its callees and Numba's helpers
# with it): young collections less often, no full one. A full collection walks every object the
# process holds, and a compile makes hundreds of thousands (IR, types, LLVM wrappers) that live
# until it ends: 12 full collections, ~1 s of a cold `mcio run`'s ~11 s CPU. The garbage they
# would have freed early is freed after the compile (peak memory ~315 -> ~330 MB).
COMPILE_GC_THRESHOLD = (5000, 10, 1 << 30)


@contextlib.contextmanager
def _no_full_gc():
    """Python's gc thresholds set to :data:`COMPILE_GC_THRESHOLD` for the block, then restored
    (also on an exception). The caller holds Numba's compiler lock (the thresholds are global to
    the process, one compile at a time changes them)."""
    before = gc.get_threshold()
    gc.set_threshold(*COMPILE_GC_THRESHOLD)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _plain(**options):
    """Numba's own ``njit(**options)`` (``as_call`` dropped), each compile with Ctrl-C held
    (:func:`mcio.interrupt.deferred`): the kernels' decorator on a Numba this module's changes
    were not written for."""
    options.pop("as_call", None)

    def wrap(fn):
        kernel = numba.njit(**options)(fn)
        if not hasattr(kernel, "compile"):     # (NUMBA_DISABLE_JIT: the function itself)
            return kernel

        def compile(sig):
            with interrupt.deferred():
                return type(kernel).compile(kernel, sig)
        kernel.compile = compile
        return kernel
    return wrap


# Only on the Numba it was written and tested against: these are Numba's internals, and another
# release could keep their names but change what they do (then: Numba's own njit, slower to compile).
TESTED_NUMBA = ("0.68.",)

if (CPUDispatcher is None or not hasattr(JITCodeLibrary, "_optimize_final_module")
        or not numba.__version__.startswith(TESTED_NUMBA)):
    njit = _plain
else:
    # Numba's compiler flags (``TargetConfig``: ``Flags``) compared and hashed without building
    # the dict of all their options each time. Numba's overload implementations are cached by
    # (context, argument types, flags) (``templates._get_impl``): ~33,000 look-ups for a cold
    # `mcio run`, each hashing the flags and comparing them with 2 stored ones, each of which
    # built every option's value through its property (22 of them): ~4 million property calls.
    # Same results: the hash is Numba's own (computed from the option names only, so one value
    # per class: their values are not all hashable), computed once per class; the comparison is
    # of the options set, and when those differ, of the options set over the class's defaults,
    # which is what ``values()`` gives.
    _numba_flags_eq = TargetConfig.__eq__
    _numba_flags_hash = TargetConfig.__hash__
    _flags_hash = {}        # class -> Numba's hash of its instances
    _flags_defaults = {}    # class -> {option: its default}

    def _fast_flags_hash(self):
        cls = type(self)
        h = _flags_hash.get(cls)
        if h is None:
            h = _flags_hash[cls] = hash(tuple(sorted(cls.options)))
        return h

    def _fast_flags_eq(self, other):
        if not isinstance(other, TargetConfig):
            return NotImplemented
        cls = type(self)
        if type(other) is not cls:
            return _numba_flags_eq(self, other)
        if self._values == other._values:
            return True
        defaults = _flags_defaults.get(cls)
        if defaults is None:
            defaults = _flags_defaults[cls] = {k: o.default for k, o in cls.options.items()}
        mine, theirs = dict(defaults), dict(defaults)
        mine.update(self._values)
        theirs.update(other._values)
        if len(mine) != len(defaults) or len(theirs) != len(defaults):
            return _numba_flags_eq(self, other)      # (a value that is not an option's)
        return mine == theirs

    TargetConfig.__eq__ = _fast_flags_eq
    TargetConfig.__hash__ = _fast_flags_hash

    class _CallersLibrary(JITCodeLibrary):
        """A kernel's code for its callers only: finalising it links its callees in and optimises
        the module (what its callers link and inline), but adds it to no execution engine: no
        machine code, no symbols.

        A callee compiled ``as_call`` (never inlined: a call in its callers) is linked into no
        other callee's module, only declared there: its body (and all it calls) would be optimised
        again in every module that links it, to no use. Its library is passed up instead
        (``deferred``) to the first library that is not a callee's (a kernel as Python calls it),
        whose module gets its body once."""

        as_call = False

        def finalize(self):
            require_global_compiler_lock()
            self._raise_if_finalized()
            self.deferred = []
            seen = set()
            for library in self._linking_libraries:      # (as CPUCodeLibrary.finalize)
                if library in seen:
                    continue
                seen.add(library)
                self._reload_init.update(library._reload_init)
                if isinstance(library, _CallersLibrary):
                    library._ensure_finalized()
                    self.deferred += [d for d in library.deferred if d not in self.deferred]
                    if library.as_call:
                        if library not in self.deferred:
                            self.deferred.append(library)
                        continue
                    module = JITCodeLibrary._get_module_for_linking(library)
                else:
                    module = library._get_module_for_linking()
                self._final_module.link_in(module, preserve=True)
            self._optimize_final_module()
            self._finalized = True

        def _get_module_for_linking(self):
            """Its module for a kernel called from Python: with the deferred bodies."""
            if getattr(self, "_full_module", None) is None:
                module = JITCodeLibrary._get_module_for_linking(self)
                if self.deferred:
                    module = module.clone()
                    for library in self.deferred:
                        module.link_in(JITCodeLibrary._get_module_for_linking(library),
                                       preserve=True)
                self._full_module = module
            return self._full_module

        def get_pointer_to_function(self, name):
            return 0

    @register_pass(mutates_CFG=False, analysis_only=True)
    class _UseCallersLibrary(LoweringPass):
        """Before lowering: the function's code goes into a :class:`_CallersLibrary`."""
        _name = "mcio_callers_library"

        def __init__(self):
            LoweringPass.__init__(self)

        def run_pass(self, state):
            if state.library is None:
                state.library = _CallersLibrary(state.targetctx.codegen(),
                                                state.func_id.func_qualname)
                state.library.as_call = state.pipeline.as_call
            return False

    def _no_executable(library, fndesc, env):
        """The lowering pass's ``get_executable`` for a callee: a function object that only keys
        the callee's implementation for its callers (Numba's own for ``no_cpython_wrapper``, as
        with a null address), without machine code or the environment's address."""
        return _dynfunc.make_function(fndesc.lookup_module(), fndesc.qualname.split(".")[-1],
                                      "compiled into its callers only", 0, env, (library,))

    class _Pipeline(compiler.Compiler):
        """Numba's pipeline with ``frontend.Rewrites`` for Numba's ``NopythonRewrites``."""

        def define_pipelines(self):
            pms = super().define_pipelines()
            for pm in pms:
                pm.passes = [(frontend.Rewrites, d) if p is NopythonRewrites else (p, d)
                             for p, d in pm.passes]
                pm.finalize()
            return pms

    class _IntoCallers(_Pipeline):
        """Numba's pipeline (:class:`_Pipeline`), the function's code in a
        :class:`_CallersLibrary`."""
        as_call = False

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            # (the pipeline's own copy of the target context: Numba's subtarget for these flags)
            self.state.targetctx.get_executable = _no_executable

        def define_pipelines(self):
            pms = super().define_pipelines()
            for pm in pms:
                pm.add_pass_after(_UseCallersLibrary, AnnotateTypes)
                pm.finalize()
            return pms

    class _IntoCallersAsCall(_IntoCallers):
        as_call = True

    class _Callee(CPUDispatcher):
        """A kernel as other kernels call it (no machine code of its own: not from Python)."""

        def __call__(self, *args, **kwargs):
            raise TypeError(f"{self.py_func.__qualname__}: this dispatcher is compiled into other "
                            "kernels only; call the kernel itself")

    class _Kernel(CPUDispatcher):
        """A kernel as Python calls it (Numba's dispatcher, its constructor's arguments: pickled
        and rebuilt as Numba's are); other kernels call its :class:`_Callee`, made at the first
        typing of a kernel that calls it. Its compile runs under :func:`_no_full_gc`, with Ctrl-C
        held until it ends (:func:`mcio.interrupt.deferred`: a KeyboardInterrupt inside llvmlite's
        callbacks can crash the process)."""

        _callee_pipeline = _IntoCallers

        def __init__(self, py_func, locals=None, targetoptions=None, *args, **kwargs):
            if not args:
                kwargs.setdefault("pipeline_class", _Pipeline)
            super().__init__(py_func, locals, targetoptions, *args, **kwargs)
            self._callee = None

        def compile(self, sig):
            with interrupt.deferred(), global_compiler_lock, _no_full_gc():
                _mcio_compiles[0] += 1
                try:
                    return super().compile(sig)
                finally:
                    _mcio_compiles[0] -= 1

        @property
        def _numba_type_(self):
            if self._callee is None:
                options = dict(self.targetoptions, no_cpython_wrapper=True, no_cfunc_wrapper=True)
                self._callee = _Callee(py_func=self.py_func, locals=dict(self.locals),
                                       targetoptions=options, pipeline_class=self._callee_pipeline)
            return types.Dispatcher(self._callee)

    class _CallKernel(_Kernel):
        """A kernel never inlined into another (``as_call``)."""
        _callee_pipeline = _IntoCallersAsCall

    # Numba's built-in implementations (``@overload``: np.zeros, np.full, min, ...): each is a
    # dispatcher of its own, made per (argument types, caller's flags) and compiled with its own
    # options plus the 4 settings CPUTargetOptions.finalize inherits from the flags on Numba's
    # ConfigStack (the caller's): nrt, fastmath, error_model, forceinline.
    # - Cached by those 4 settings, not by all the caller's flags: keyed by all of them, a kernel
    #   called from Python (wrappers, no forceinline) and the kernels compiled into it compiled the
    #   same implementation each for itself.
    # - While a kernel called from Python compiles (``_Kernel.compile``: the kernels under it and
    #   what they use), an implementation made then is compiled into its callers only, as mcio's
    #   own callees are (:class:`_Callee`, :class:`_IntoCallers`): no machine code of its own, it
    #   is only ever linked into its callers. Made outside (a user's own ``numba.njit``), Numba's
    #   own; the two kinds are cached apart.
    # Only for CPU ``Flags`` on the stack and Numba's CPU ``jit`` (another target's flags may pass
    # on other settings, another jit decorator other options): those keep Numba's way.
    from numba.core.compiler import Flags as _Flags
    from numba.core.decorators import jit as _numba_jit

    _mcio_compiles = frontend.compile_depth       # depth of _Kernel.compile
    _impl_key_flags = frontend.impl_key_flags

    # the options of an overload's implementation that _into_callers_jit passes on as they are
    _IMPL_OPTIONS = frozenset(("nopython", "no_cpython_wrapper", "no_cfunc_wrapper", "nogil",
                               "fastmath", "error_model", "boundscheck", "forceinline", "_nrt",
                               "no_rewrites"))

    def _get_impl(self, args, kws):
        """Numba's ``_OverloadFunctionTemplate._get_impl``, keyed by :func:`_impl_key_flags`."""
        flags = _impl_key_flags(ConfigStack.top_or_none())
        cache_key = self.context, tuple(args), tuple(kws.items()), flags
        try:
            impl, args = self._impl_cache[cache_key]
            return impl, args
        except KeyError:
            pass
        impl, args = self._build_impl(cache_key, args, kws)
        return impl, args

    def _into_callers_jit(**options):
        """Numba's ``jit(**options)`` for an overload's implementation, compiled into its callers
        only (a :class:`_Callee`); Numba's own for options it does not know."""
        if not options.keys() <= _IMPL_OPTIONS:
            return _numba_jit(**options)
        targetoptions = dict(options, nopython=True, boundscheck=options.get("boundscheck"),
                             no_cpython_wrapper=True, no_cfunc_wrapper=True)

        def wrap(fn):
            return _Callee(py_func=fn, locals={}, targetoptions=dict(targetoptions),
                           pipeline_class=_IntoCallers)
        return wrap

    def _get_jit_decorator(self):
        """Numba's ``_OverloadFunctionTemplate._get_jit_decorator``; while a kernel called from
        Python compiles, :func:`_into_callers_jit` for Numba's CPU ``jit``."""
        jitter = _numba_get_jit_decorator(self)
        if (jitter is _numba_jit and _mcio_compiles[0] > 0
                and type(ConfigStack.top_or_none()) is _Flags):
            return _into_callers_jit
        return jitter

    _numba_get_impl = _OverloadFunctionTemplate._get_impl
    _numba_get_jit_decorator = _OverloadFunctionTemplate._get_jit_decorator
    _OverloadFunctionTemplate._get_impl = _get_impl
    _OverloadFunctionTemplate._get_jit_decorator = _get_jit_decorator
    frontend.install()
    indices.install()

    def njit(**options):
        """``numba.njit(**options)`` for a kernel (see the module's docstring); ``cache`` applies
        to the kernel as Python calls it; ``as_call=True``: never inlined into another kernel
        (:class:`_CallersLibrary`)."""
        cache = options.pop("cache", False)
        kind = _CallKernel if options.pop("as_call", False) else _Kernel
        options = dict(options, nopython=True, boundscheck=None, no_cfunc_wrapper=True)

        def wrap(fn):
            if numba.config.DISABLE_JIT:
                return fn
            kernel = kind(fn, {}, options)
            if cache:
                kernel.enable_caching()
            return kernel
        return wrap
