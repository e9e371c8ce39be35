"""Saving work off the main thread (mcio.store.Saver): it runs only while the kernels run (the GIL
is free then), in order; a failure in it is raised in the sweep's own thread as the sweep's error
(the one-line McioError policy, or a bug), with the finished points kept and no partial file; a
sweep with an output imports h5py there while its first points run."""
import threading
import time

import pytest

from mcio import interrupt, store
from mcio.errors import McioError
from mcio.store import parts_dir, stored_points
from mcio.store import tmp_path as final_tmp
from mcio.sweep import sweep
from sweep_specs import MM1_RATES, write

SPEC = MM1_RATES   # 3 points of ~10 ms of kernels each: the saver's task starts in the first


def test_tasks_wait_for_the_gate_and_run_in_order():
    gate = threading.Event()
    ran = []
    s = store.Saver(gate)
    s.submit(lambda: ran.append(("a", gate.is_set(), threading.current_thread().name)))
    s.submit(lambda: ran.append(("b", gate.is_set(), threading.current_thread().name)))
    time.sleep(0.2)
    assert ran == []          # the gate is shut: nothing runs
    gate.set()
    deadline = time.monotonic() + 10
    while len(ran) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    s.close()
    assert ran == [("a", True, "mcio-saver"), ("b", True, "mcio-saver")]
    assert s.cpu_s >= 0.0


def test_close_does_not_wait_for_a_gate_never_opened_and_drops_what_did_not_start():
    ran = []
    s = store.Saver(threading.Event())
    s.submit(ran.append, 1)
    t = time.monotonic()
    s.close()
    assert time.monotonic() - t < 2 and ran == []


def test_a_failure_in_a_task_is_raised_by_close_in_the_callers_thread():
    gate = threading.Event()
    gate.set()
    s = store.Saver(gate)
    err = McioError("output", "x.h5", "cannot be written (No space left on device)")
    started = threading.Event()

    def fail():
        started.set()
        raise err

    s.submit(fail)
    assert started.wait(10)
    with pytest.raises(McioError) as e:
        s.close()
    assert e.value is err
    started.clear()
    s2 = store.Saver(gate)
    s2.submit(fail)
    assert started.wait(10)
    s2.close(raise_error=False)   # a caller already raising another failure: this one does not mask it


def test_a_sweep_imports_h5py_in_the_background_while_kernels_run(tmp_path, monkeypatch):
    seen = []
    monkeypatch.setattr(store, "h5py_loaded", lambda: False)
    monkeypatch.setattr(store, "prefetch_h5py",
                        lambda: seen.append((threading.current_thread().name, interrupt.KERNELS_RUNNING.is_set())))
    out = tmp_path / "o.h5"
    sweep(write(tmp_path, SPEC), out=out)
    assert seen == [("mcio-saver", True)]
    assert out.exists() and not parts_dir(out).exists()
    assert not interrupt.KERNELS_RUNNING.is_set()   # cleared once the kernels return


def test_a_failure_in_the_background_ends_the_sweep_with_it_and_keeps_the_points(tmp_path, monkeypatch):
    def full():
        raise McioError("output", str(tmp_path / "o.h5"), "cannot be written (No space left on device)")

    monkeypatch.setattr(store, "h5py_loaded", lambda: False)
    monkeypatch.setattr(store, "prefetch_h5py", full)
    out = tmp_path / "o.h5"
    with pytest.raises(McioError, match="No space left"):
        sweep(write(tmp_path, SPEC), out=out)
    assert sorted(stored_points(out)) == [0, 1, 2]     # every finished point kept: --resume finishes it
    assert not out.exists() and not final_tmp(out).exists()
    monkeypatch.setattr(store, "prefetch_h5py", lambda: None)
    sweep(write(tmp_path, SPEC), out=out, resume=True)
    assert out.exists() and not parts_dir(out).exists()
