"""Ctrl-C held while a kernel compiles (mcio.interrupt.deferred, used by dispatch's kernel
compile): a KeyboardInterrupt raised inside one of llvmlite's ctypes callbacks is "ignored" and
can leave LLVM broken (CI saw `mcio isfc plan` die of SIGSEGV, exit -11, instead of 130). The
press is delivered, unchanged, once the block ends."""
import os
import signal

import numba
import numpy as np
import pytest

from mcio import interrupt
from mcio.kernels import dispatch


def _press():
    os.kill(os.getpid(), signal.SIGINT)   # the handler runs at the next bytecode of this thread


def test_a_press_inside_is_held_and_raised_at_the_end():
    reached = []
    with pytest.raises(KeyboardInterrupt):
        with interrupt.deferred():
            _press()
            reached.append("after the press")
    assert reached == ["after the press"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_no_press_no_interrupt_and_the_handler_is_restored():
    def mine(signum, frame):
        raise AssertionError("not called")
    old = signal.signal(signal.SIGINT, mine)
    try:
        with interrupt.deferred():
            pass
        assert signal.getsignal(signal.SIGINT) is mine
    finally:
        signal.signal(signal.SIGINT, old)


def test_each_press_reaches_the_handler_it_would_have_reached():
    calls = []
    old = signal.signal(signal.SIGINT, lambda s, f: calls.append(s))
    try:
        with interrupt.deferred():
            with interrupt.deferred():      # nested: the inner block hands its presses outward
                _press()
                _press()
                assert calls == []
            assert calls == []
        assert calls == [signal.SIGINT, signal.SIGINT]
    finally:
        signal.signal(signal.SIGINT, old)


@pytest.mark.skipif(dispatch.njit is dispatch._plain, reason="another Numba: plain njit")
def test_a_kernel_compile_holds_ctrl_c_until_it_has_finished(monkeypatch):
    from numba.core.dispatcher import Dispatcher
    numba_compile = Dispatcher.compile
    inside = []

    def compile_pressed(self, sig):
        _press()
        inside.append("pressed, not raised")
        return numba_compile(self, sig)

    monkeypatch.setattr(Dispatcher, "compile", compile_pressed)

    @dispatch.njit()
    def twice(x):
        return 2.0 * x

    with pytest.raises(KeyboardInterrupt):
        twice(np.float64(1.5))
    assert inside == ["pressed, not raised"]
    monkeypatch.setattr(Dispatcher, "compile", numba_compile)
    assert twice(np.float64(1.5)) == 3.0          # compiled whole before the interrupt
    assert len(twice.overloads) == 1


def test_numbas_own_njit_holds_ctrl_c_too(monkeypatch):
    """dispatch's decorator on another Numba (``_plain``: Numba's own njit) compiles with Ctrl-C
    held as well."""
    kernel = dispatch._plain(cache=False)(lambda x: x + 1.0)
    numba_compile = type(kernel).compile
    inside = []

    def compile_pressed(self, sig):
        _press()
        inside.append("pressed, not raised")
        return numba_compile(self, sig)

    monkeypatch.setattr(type(kernel), "compile", compile_pressed)
    with pytest.raises(KeyboardInterrupt):
        kernel(np.float64(1.0))
    assert inside == ["pressed, not raised"]
    monkeypatch.setattr(type(kernel), "compile", numba_compile)
    assert kernel(np.float64(1.0)) == 2.0
