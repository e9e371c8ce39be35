"""A process started with SIGINT ignored (a background job of a shell without job control,
``nohup``) keeps it ignored: mcio.interrupt installs no handler then, as Python installs none, and
a SIGINT sent to the process changes nothing; :func:`mcio.interrupt.request` still reaches the
kernels."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mcio import interrupt, simulate
from sweep_specs import cli_env, write
from test_kernel_control import EVENT_SPEC, _closed

HERE = Path(__file__).parent
#: a closed point of a few seconds on two threads (~4 x 10^6 I/Os at ~0.2-0.5 us each)
SHORT_SPEC = EVENT_SPEC.replace("ios = %d" % 10**11, "ios = 2000000")


@pytest.fixture
def sigint_ignored():
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


@pytest.mark.parametrize("block", [interrupt.handling, interrupt.polling, interrupt.deferred])
def test_no_handler_is_installed_over_an_ignored_sigint(sigint_ignored, block):
    with block():
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def test_a_press_inside_the_kernels_block_is_ignored(sigint_ignored):
    with interrupt.polling() as flag:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.01)                     # (a handler would have run by now)
        assert flag[0] == 0


def test_a_request_still_reaches_the_kernels_with_sigint_ignored(sigint_ignored):
    """As off the main thread: the flag the kernels poll is set (a run stopped so is flagged
    cut by the engine, not raised here)."""
    try:
        with interrupt.polling() as flag:
            interrupt.request()
            assert flag[0] == 1
    finally:
        interrupt.clear()


def test_mcio_run_started_with_sigint_ignored_runs_to_its_end_through_a_sigint(tmp_path):
    simulate(_closed(), ios=2_000, replications=2, warmup=100, fast_path=False)   # kernels cached
    spec = write(tmp_path, SHORT_SPEC)
    err = tmp_path / "run.err"
    with open(err, "w") as f:
        proc = subprocess.Popen([sys.executable, str(HERE / "cli_sigint_child.py"), "run", str(spec),
                                 "--threads", "2"],
                                env=cli_env(NUMBA_NUM_THREADS="2"), stdout=subprocess.PIPE, stderr=f,
                                text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
        try:
            deadline = time.monotonic() + 120
            while ("kernels running" not in err.read_text() and proc.poll() is None
                   and time.monotonic() < deadline):
                time.sleep(0.02)
            assert "kernels running" in err.read_text(), err.read_text()
            proc.send_signal(signal.SIGINT)
            out, _ = proc.communicate(timeout=300)
        finally:
            proc.kill()
    text = err.read_text() + out
    assert proc.returncode == 0, text
    assert "interrupted" not in text, text
    assert "SSCH/s" in out or "response" in out, text
