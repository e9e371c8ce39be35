"""Ctrl-C during a sweep: every finished point is kept (the one running when Ctrl-C came is cut
short by the kernels and dropped: it is recomputed on --resume), the sweep ends with ``interrupted: N of M points saved; resume with
--resume`` and exit 130, no Ctrl-C is swallowed, and --resume recomputes only what is missing."""
import importlib
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from mcio import interrupt
from mcio.store import open_results, parts_dir, stored_points
from mcio.sweep import SweepInterrupted, sweep
from sweep_specs import MM1_RATES, cli_env, write

HERE = Path(__file__).parent
points_mod = importlib.import_module("mcio.batch.points")  # where the engine call _simulate lives (tests substitute it)
run_mod = importlib.import_module("mcio.batch.run")

SPEC = MM1_RATES.replace('[200.0, 500.0, 700.0]', '{start = 100, stop = 800, num = 8}') \
                .replace("ios = 40000", "ios = 2000").replace("warmup = 4000", "warmup = 300")
MANY = MM1_RATES.replace('[200.0, 500.0, 700.0]', '{start = 100, stop = 800, num = 300}') \
                .replace("ios = 40000", "ios = 300").replace("warmup = 4000", "warmup = 100") \
                .replace("replications = 4", "replications = 2")


def _child(tmp_path, spec_text, sleep_s, name):
    spec = write(tmp_path, spec_text, name + ".toml")
    out = tmp_path / (name + ".h5")
    err = tmp_path / (name + ".err")
    f = open(err, "w")
    proc = subprocess.Popen([sys.executable, str(HERE / "sweep_sigint_child.py"), str(sleep_s), str(spec), str(out)],
                            env=cli_env(), stdout=subprocess.DEVNULL, stderr=f)
    return proc, spec, out, err, f


def _wait_exit(proc, hang_guard_s=120):
    """The child's exit code after a SIGINT; still running after ``hang_guard_s``: hung (a hang
    guard, not a speed check)."""
    try:
        return proc.wait(timeout=hang_guard_s)
    except subprocess.TimeoutExpired:
        pytest.fail(f"hung: the sweep still running {hang_guard_s} s after SIGINT")


def _wait_for(err, text, proc, limit_s=240):
    deadline = time.monotonic() + limit_s
    while text not in err.read_text() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert text in err.read_text(), err.read_text()


def test_sigint_keeps_finished_points_says_so_and_exits_130(tmp_path, monkeypatch):
    proc, spec, out, err, f = _child(tmp_path, SPEC, 0.5, "slow")
    try:
        _wait_for(err, "point 2 done", proc)
        time.sleep(0.1)                     # inside point 2 (0-based): it sleeps 0.5 s, then is cut
        proc.send_signal(signal.SIGINT)
        rc = _wait_exit(proc)
    finally:
        proc.kill()
        f.close()
    text = err.read_text()
    saved = stored_points(out)
    assert rc == 130, text
    assert f"mcio: interrupted: {len(saved)} of 8 points saved; resume with --resume" in text, text
    assert saved == list(range(len(saved))) and len(saved) >= 2, (saved, text)   # the running point dropped
    assert "Traceback" not in text and "Exception ignored" not in text, text
    assert len(saved) < 8, saved            # stopped: the remaining points were not run
    assert not out.exists()

    computed = []
    real = points_mod._simulate

    def spy(model, **kw):
        computed.append(kw["point"])
        return real(model, **kw)

    monkeypatch.setattr(points_mod, "_simulate", spy)
    ds = sweep(spec, out=out, resume=True)
    assert sorted(computed) == sorted(set(range(8)) - set(saved))
    assert out.exists() and not parts_dir(out).exists()
    assert np.isfinite(open_results(out)["response_ms"]).all() and ds.sizes["rate_iops"] == 8


@pytest.mark.parametrize("attempt", range(3))
def test_no_ctrl_c_is_swallowed_among_many_short_points(tmp_path, attempt):
    """Before: about 1 Ctrl-C in 5 was lost in a weakref callback and the sweep went on."""
    proc, spec, out, err, f = _child(tmp_path, MANY, 0.0, f"many{attempt}")
    try:
        _wait_for(err, f"point {3 + 7 * attempt} done", proc)
        proc.send_signal(signal.SIGINT)
        rc = _wait_exit(proc)
    finally:
        proc.kill()
        f.close()
    text = err.read_text()
    assert rc == 130 and "sweep completed" not in text, text
    assert "Exception ignored" not in text and "Traceback" not in text, text
    assert f"interrupted: {len(stored_points(out))} of 300 points saved" in text


def test_request_from_python_stops_the_running_point_and_keeps_the_finished(tmp_path, monkeypatch):
    out = tmp_path / "r.h5"
    real = points_mod._simulate

    def ask_in_point_1(model, **kw):
        if kw["point"] == 1:
            interrupt.request()            # as the SIGINT handler does: the kernels stop at once
        return real(model, **kw)

    monkeypatch.setattr(points_mod, "_simulate", ask_in_point_1)
    with pytest.raises(SweepInterrupted) as e:
        sweep(SPEC, out=out)
    assert str(e.value) == "interrupted: 1 of 8 points saved; resume with --resume"
    assert (e.value.saved, e.value.total, e.value.exit_code) == (1, 8, 130)
    assert stored_points(out) == [0]   # point 1, cut short, is not saved
    assert not interrupt.requested()      # cleared on the way out
    with pytest.raises(SweepInterrupted, match="no output file"):
        sweep(SPEC)


def test_a_point_the_kernels_cut_short_is_not_saved(tmp_path, monkeypatch):
    """When the kernels honour the flag mid-point they return fewer I/Os than asked: discarded."""
    out = tmp_path / "c.h5"
    real = points_mod._simulate

    def cut_in_point_2(model, **kw):
        ds = real(model, **kw).to_dataset()   # (the sweep takes a Dataset from a substitute)
        if kw["point"] == 2:
            interrupt.request()
            ds["ios_measured"] = ds["ios_measured"] // 2
        return ds

    monkeypatch.setattr(points_mod, "_simulate", cut_in_point_2)
    with pytest.raises(SweepInterrupted, match="interrupted: 2 of 8 points saved"):
        sweep(SPEC, out=out)
    assert stored_points(out) == [0, 1]


def test_handler_sets_the_flag_and_a_second_press_raises():
    before = signal.getsignal(signal.SIGINT)   # (SIG_IGN where the suite runs as a background job)
    with interrupt.handling() as flag:
        assert flag is interrupt.flag() and flag.dtype == np.int64 and flag.shape == (1,)
        signal.raise_signal(signal.SIGINT)
        assert interrupt.requested()
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)
    assert not interrupt.requested()
    assert signal.getsignal(signal.SIGINT) is before   # the handler there before, restored


def test_progress_within_a_point_from_the_shared_counter(monkeypatch):
    """The kernels add completed I/Os to interrupt.counter(); the sweep reports them between
    per-point calls, and a point's own call then reports only the rest."""
    calls = []
    real = points_mod._simulate
    monkeypatch.setattr(run_mod._Progress, "TICK_S", 0.02)

    def counting(model, **kw):
        ds = real(model, **kw)
        time.sleep(0.1)                     # the ticker reads the kernels' counts before the point ends
        return ds

    monkeypatch.setattr(points_mod, "_simulate", counting)
    sweep(SPEC.replace("num = 8", "num = 2"), progress=lambda *a: calls.append(a))
    assert sum(c[2] for c in calls) == 2 * 4 * (2000 + 300)   # 2 points x 4 replications, warm-up included
    within = [c for c in calls[1:] if c[0] == calls[0][0] and c[2]]
    assert within and all(c[2] > 0 for c in within)
    assert sum(c[2] for c in within) > 2300, within   # more than one replication's worth within points
    assert [c[0] for c in calls] == sorted(c[0] for c in calls)
