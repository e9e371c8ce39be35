"""The kernels' control arrays: both engines stop within one poll of a stop request at any run
size (counted in I/Os, not seconds: POLL_IOS completions per replication at most), Ctrl-C of
``mcio sweep`` and ``mcio run`` included; progress moves within a point; and an overloaded open
point measures the same throughput (and busy <= 1) on both engines."""
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from mcio import Model, interrupt, simulate
from mcio.kernels.iopath import POLL_IOS
from mcio.sweep import SweepInterrupted, sweep
from sweep_specs import MM1_RATES, cli_env, write

HERE = Path(__file__).parent

HUGE = 10**11     # I/Os per replication: hours of run, were nothing to stop it
HANG_GUARD_S = 120   # a child that has not exited this long after SIGINT has hung (not a speed check)

#: one long point on each engine: M/M/1 (fast path) and a closed FICON-like load (event engine)
FAST_SPEC = MM1_RATES.replace('[200.0, 500.0, 700.0]', '[500.0, 600.0]') \
                     .replace("ios = 40000", f"ios = {HUGE}").replace("warmup = 4000", "warmup = 1000") \
                     .replace("replications = 4", "replications = 2")
EVENT_SPEC = """\
title = "long closed point"

[model.workload]
type = "closed"
population = 8

[[model.io]]
kb = 4.0
miss_ratio = 0.5

[model.devices]
count = 4

[model.channels]
count = 1
mp_us_per_io_ccw = 80.0

[model.control_unit]
ha_service_us = 50.0
backend_service_ms = 1.5

[sweep]
"workload.population" = [8, 16]

[run]
replications = 2
ios = %d
warmup = 1000
seed = 1
""" % HUGE


def _mm1(rate):
    return Model.from_dict({"workload": {"type": "open", "rate_iops": rate},
                            "io": [{"kb": 0.0, "miss_ratio": 1.0}], "devices": {"count": 1},
                            "channels": {"mp_us_per_io_ccw": 0.0},
                            "control_unit": {"backend_service_ms": {"dist": "exponential", "mean": 1.0}}})


def _closed():
    from mcio.sweep import parse_spec
    import tomllib
    return parse_spec(tomllib.loads(EVENT_SPEC)).point_model(0)


def _stop_mid_run(after_s: float) -> dict:
    """Start a thread that, ``after_s`` once the kernels have completed I/Os (the progress
    counter moved: loading the kernels is over), requests a stop and then notes the I/Os
    completed so far (``counter()``, which the kernels advance at each poll): the I/Os completed
    after the request are the final count less that note."""
    seen = {"noted": threading.Event()}
    start = int(interrupt.counter().sum())

    def stop():
        interrupt.KERNELS_RUNNING.wait()
        while int(interrupt.counter().sum()) == start:
            time.sleep(0.01)
        time.sleep(after_s)
        interrupt.request()
        seen["ios_at_request"] = int(interrupt.counter().sum())
        seen["noted"].set()

    threading.Thread(target=stop, daemon=True).start()
    return seen


def _ios_after_request(seen: dict) -> int:
    # (the run can return before this thread, descheduled between its request and its note, has
    # noted the count: wait for the note)
    assert seen["noted"].wait(timeout=60), "the stop was never requested"
    return int(interrupt.counter().sum()) - seen["ios_at_request"]


@pytest.mark.parametrize("fast", [True, False])
def test_stop_request_cuts_a_huge_run_within_one_poll_with_fewer_ios_measured(fast):
    model = _mm1(500.0) if fast else _closed()
    with interrupt.handling():          # as in a sweep: the run returns, cut, instead of raising
        seen = _stop_mid_run(1.0)
        ds = simulate(model, ios=HUGE, replications=2, warmup=1_000, fast_path=fast)
        assert interrupt.requested()
        after = _ios_after_request(seen)
    # each running replication finishes at most the poll interval it was in (a fast-path block
    # of 256 I/Os is shorter): a stop "at once" whatever the machine's speed
    assert 0 <= after <= 2 * POLL_IOS, after
    assert ds.attrs["interrupted"] == 1
    n = ds["ios_measured"].values
    # (on one thread the replications run in turn: the second one may never have started)
    assert (n < HUGE).all() and n.max() > 0, n


def test_a_stop_outside_a_sweep_raises_keyboardinterrupt_and_leaves_no_flag():
    model = _mm1(500.0)
    seen = _stop_mid_run(0.5)
    with pytest.raises(KeyboardInterrupt):
        simulate(model, ios=HUGE, replications=2, fast_path=True)
    assert 0 <= _ios_after_request(seen) <= 2 * POLL_IOS, _ios_after_request(seen)
    assert not interrupt.requested()
    ds = simulate(model, ios=2_000, replications=2, warmup=100, fast_path=True)   # the next run is whole
    assert (ds["ios_measured"].values == 2_000).all() and "interrupted" not in ds.attrs


@pytest.mark.parametrize("fast", [True, False])
def test_progress_moves_within_one_long_point(tmp_path, fast):
    """The progress callback gets within-point counts (done unchanged, I/Os > 0) that add up to
    more and more I/Os; it stops the sweep itself after a few, which then saves nothing."""
    spec = write(tmp_path, FAST_SPEC if fast else EVENT_SPEC)
    within = []

    def progress(done, total, ios):
        if done == 0 and ios > 0:
            within.append(ios)
            if len(within) == 3:
                interrupt.request()

    with pytest.raises(SweepInterrupted, match="interrupted: 0 of 2 points saved; resume with --resume"):
        sweep(spec, out=tmp_path / "o.h5", progress=progress)
    assert len(within) >= 3, within
    total = np.cumsum(within)
    assert (np.diff(total) > 0).all() and total[2] > 10_000, within


def _sigint_after(args, tmp_path, name, wait_s=3.0):
    """Run ``mcio ARGS`` (tests/cli_sigint_child.py), send SIGINT ``wait_s`` after its kernels
    started; return (exit code, stderr and stdout). A child still running HANG_GUARD_S after the
    SIGINT has hung: the test fails saying so."""
    err = tmp_path / (name + ".err")
    with open(err, "w") as f:
        proc = subprocess.Popen([sys.executable, str(HERE / "cli_sigint_child.py")] + args,
                                env=cli_env(NUMBA_NUM_THREADS="2"),    # --threads 2 valid whatever the parent has
                                stdout=subprocess.PIPE, stderr=f, text=True)
        try:
            deadline = time.monotonic() + 120
            while "kernels running" not in err.read_text() and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.02)
            assert "kernels running" in err.read_text(), err.read_text()
            time.sleep(wait_s)
            proc.send_signal(signal.SIGINT)
            try:
                out, _ = proc.communicate(timeout=HANG_GUARD_S)
            except subprocess.TimeoutExpired:
                pytest.fail(f"hung: mcio {' '.join(args)} still running {HANG_GUARD_S} s after SIGINT")
        finally:
            proc.kill()
    return proc.returncode, err.read_text() + (out or "")


@pytest.mark.parametrize("fast", [True, False])
def test_ctrl_c_stops_mcio_sweep_of_a_huge_point_at_once_with_exit_130(tmp_path, fast):
    simulate(_mm1(500.0) if fast else _closed(), ios=2_000, replications=2, warmup=100,
             fast_path=fast)             # the kernels compiled and cached: the child only loads them
    spec = write(tmp_path, FAST_SPEC if fast else EVENT_SPEC)
    out = tmp_path / "o.h5"
    rc, text = _sigint_after(["sweep", str(spec), "-o", str(out)], tmp_path, "sweep")
    assert rc == 130, text
    assert "mcio: interrupted: 0 of 2 points saved; resume with --resume" in text, text
    assert "Traceback" not in text, text


@pytest.mark.parametrize("threads", [2, 1])   # 1: the kernels run in the main thread itself
def test_ctrl_c_stops_mcio_run_of_a_huge_point_at_once(tmp_path, threads):
    simulate(_closed(), ios=2_000, replications=2, warmup=100, fast_path=False)
    spec = write(tmp_path, EVENT_SPEC)
    rc, text = _sigint_after(["run", str(spec), "--threads", str(threads)], tmp_path, "run")
    assert rc == 130, text
    assert "mcio: interrupted: the run was stopped before it finished" in text, text
    assert "Traceback" not in text, text


def test_overloaded_open_point_same_throughput_on_both_engines_and_busy_at_most_1():
    """M/M/1 at rho 1.4 (1,400/s on a 1,000/s server): the server is never idle once the queue
    has built, so both engines measure ~1,000/s and busy 1; the fast path used to report the
    arrival rate and busy 1.4."""
    model = _mm1(1400.0)
    got = {fast: simulate(model, ios=20_000, replications=4, allow_unstable=True, fast_path=fast)
           for fast in (True, False)}
    for fast, ds in got.items():
        assert int(ds["unstable"]) == 1
        for name in ("device_busy", "device_busy_zvm", "backend_busy"):
            assert (ds[name].values <= 1 + 1e-9).all(), (fast, name, ds[name].values)
        assert (ds["device_busy"].values > 0.97).all(), (fast, ds["device_busy"].values)
        thr = ds["throughput_iops"].values.mean()
        assert 950 < thr < 1050, (fast, thr)
    a, b = (got[f]["throughput_iops"].values.mean() for f in (True, False))
    assert abs(a / b - 1) < 0.04, (a, b)
