"""Sweeps on a Dask cluster: the file is identical to the in-process run's, a partial Dask run resumes
without recomputing finished points, and without the optional dependency ``--dask`` is one error line.

Kept small (2 cores): one LocalCluster of two single-thread worker processes for the module; the
in-process reference run comes first, so the workers load the kernels from Numba's on-disk cache."""
import importlib
import sys

import numpy as np
import pytest
import xarray as xr
from click.testing import CliRunner

from mcio.cli import main
from mcio.errors import McioError
from mcio.store import PartStore, open_results, parts_dir, stored_points
from mcio.sweep import sweep
from sweep_specs import FICON_GRID, write

sweep_mod = importlib.import_module("mcio.sweep")
points_mod = importlib.import_module("mcio.batch.points")
run_mod = importlib.import_module("mcio.batch.run")
dist_mod = importlib.import_module("mcio.batch.cluster")

# 4 points (population x channel count, so the channel padding of assemble is exercised too)
SPEC = FICON_GRID.replace('"workload.population" = [2, 8, 32]', '"workload.population" = [2, 8]') \
                 .replace("ios = 3000", "ios = 2000").replace("warmup = 500", "warmup = 300")
TIME_ATTRS = ("date_created", "history")


def assert_same_results(a, b):
    """All variables (values, dtypes, attrs) and the global attrs but the timestamps."""
    a, b = a.copy(), b.copy()
    for k in TIME_ATTRS:
        assert a.attrs.pop(k) and b.attrs.pop(k)
    xr.testing.assert_identical(a, b)
    for name in a.variables:
        assert a[name].dtype == b[name].dtype, name


# ---- without a cluster (these run first) -----------------------------------------------------


@pytest.mark.parametrize("bad", ["local:0", "local:two", ""])
def test_bad_local_address(bad, tmp_path):
    r = CliRunner().invoke(main, ["sweep", str(write(tmp_path, SPEC)), "-o", str(tmp_path / "x.h5"), "--dask", bad])
    assert r.exit_code == 2 and r.stderr.startswith("mcio: error: --dask = "), r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_without_distributed_dask_is_one_error_line(tmp_path, monkeypatch):
    """Runs with or without the optional dependency: its import is made to fail here (before this
    module's cluster starts, so no background thread of it can trip over the hidden package)."""
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` raises ImportError
    spec = write(tmp_path, SPEC)
    out = tmp_path / "x.h5"
    monkeypatch.setattr(points_mod, "_simulate", lambda *a, **k: pytest.fail("simulated"))
    r = CliRunner().invoke(main, ["sweep", str(spec), "-o", str(out), "--dask", "local:1"])
    assert r.exit_code == 2
    assert r.stderr.splitlines() == ["mcio: error: --dask = 'local:1': needs the missing package 'distributed': "
                                     "pip install 'mcio[dask]' (dask[distributed])"], r.stderr
    with pytest.raises(McioError, match="needs the missing package 'distributed'"):
        sweep(spec, out=out, dask="tcp://127.0.0.1:8786")
    assert not out.exists() and not parts_dir(out).exists()


def test_local_workers_beyond_the_machine_are_one_error_line(tmp_path, monkeypatch):
    top, why = dist_mod.max_local_workers()
    assert 1 <= top <= dist_mod.usable_cores() and "core" in why
    monkeypatch.setattr(points_mod, "_simulate", lambda *a, **k: pytest.fail("simulated"))
    out = tmp_path / "x.h5"
    r = CliRunner().invoke(main, ["sweep", str(write(tmp_path, SPEC)), "-o", str(out), "--dask", f"local:{top + 1}"])
    assert r.exit_code == 2, r.stderr
    assert r.stderr.splitlines() == [f"mcio: error: --dask = 'local:{top + 1}': at most {top} local worker process(es) "
                                     f"on this machine ({why}); for more, run workers on other machines: "
                                     "dask worker ADDRESS"], r.stderr
    assert not out.exists() and not parts_dir(out).exists()
    # memory bounds it too: ~250 MiB a worker
    monkeypatch.setattr(dist_mod, "_machine_bytes", lambda: (400 << 20) + 3 * (250 << 20) + 1)
    monkeypatch.setattr(dist_mod, "usable_cores", lambda: 64)
    assert dist_mod.max_local_workers()[0] == 3


def _intrude(addr: str, tmp_path, cert=None) -> bool:
    """Whether a peer at ``addr`` (tls://host:port) answers a connection as Dask would: plain
    TCP (``cert`` "tcp"), TLS without a certificate (None) or with ``cert`` (a Security whose
    certificate the peer presents). Raw sockets: a failed distributed.Client can deadlock in
    its own finaliser."""
    import socket
    import ssl
    host, port = addr.split("://", 1)[1].rsplit(":", 1)
    raw = socket.create_connection((host, int(port)), timeout=5)
    try:
        if cert == "tcp":
            raw.sendall(b"\x00" * 64)      # not a TLS handshake
            try:
                return bool(raw.recv(1))
            except OSError:
                return False
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
        if cert is not None:
            (tmp_path / "c.pem").write_text(cert.tls_client_cert)
            (tmp_path / "k.pem").write_text(cert.tls_client_key)
            ctx.load_cert_chain(tmp_path / "c.pem", tmp_path / "k.pem")
        try:
            with ctx.wrap_socket(raw, server_hostname=host) as tls:
                tls.sendall(b"\x00" * 64)   # (TLS 1.3: a rejected certificate shows at the first read)
                return bool(tls.recv(1))
        except (ssl.SSLError, OSError):
            return False
    finally:
        raw.close()


def test_the_local_cluster_admits_no_one_without_its_certificate(tmp_path):
    """`--dask local:N` listens on TLS with a certificate authority of its own: another user of the
    machine can reach the port but not talk to the scheduler (without TLS, with TLS but no
    certificate, or with a certificate of their own), so cannot submit work."""
    distributed = pytest.importorskip("distributed")
    with dist_mod.Cluster("local:1") as c:
        addr = c.client.scheduler.address
        assert addr.startswith("tls://127.0.0.1:"), addr
        assert c.client.submit(int, "7", pure=False).result(timeout=60) == 7   # its owner can
        assert _intrude(addr, tmp_path, c.client.security)   # the check itself: its own certificate is answered
        assert not _intrude(addr, tmp_path, "tcp")
        assert not _intrude(addr, tmp_path, None)
        assert not _intrude(addr, tmp_path, distributed.Security.temporary())


# ---- on a LocalCluster ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The in-process run (it also fills Numba's on-disk cache for the workers)."""
    d = tmp_path_factory.mktemp("ref")
    spec = write(d, SPEC)
    out = d / "ref.h5"
    sweep(spec, out=out)
    return spec, open_results(out)


@pytest.fixture(scope="module")
def client(reference):
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def _parts(out):
    """The points stored so far (the checkpoint is one append-only log, not a file per point)."""
    return sorted(stored_points(out))


def _log(out):
    log = parts_dir(out) / "points.log"
    return log.read_bytes() if log.exists() else b""


def test_dask_file_is_identical_to_the_in_process_one(reference, client, tmp_path):
    spec, ref = reference
    out = tmp_path / "dask.h5"
    calls = []
    ds = sweep(spec, out=out, dask=client, progress=lambda *a: calls.append(a))
    back = open_results(out)
    assert_same_results(back, ref)
    xr.testing.assert_identical(ds, back)
    assert not parts_dir(out).exists()
    # progress: once before, then once per point, counting up, with the I/Os each point simulated
    assert [c[:2] for c in calls] == [(i, 4) for i in range(5)]
    assert calls[0][2] == 0 and all(c[2] == 2 * (2000 + 300) for c in calls[1:])
    assert client.status == "running"  # a Client the caller passed stays the caller's
    # no output file: the Dataset alone, assembled by point index
    assert_same_results(sweep(spec, dask=client).assign_attrs(date_created="x", history="x"),
                        ref.assign_attrs(date_created="y", history="y"))


def test_partial_dask_run_resumes_without_recomputing_finished_points(reference, client, tmp_path, monkeypatch):
    spec, ref = reference
    out = tmp_path / "partial.h5"

    class Stop(Exception):
        pass

    def stop_after_two(done, total, ios):
        if done == 2:
            raise Stop

    with pytest.raises(Stop):
        sweep(spec, out=out, dask=client, progress=stop_after_two)
    finished = set(_parts(out))
    assert len(finished) == 2 and not out.exists()
    stamps = _log(out)  # the records of the finished points: never rewritten by the resume

    submitted, written = [], []
    real_run, real_write = dist_mod.Cluster.run, PartStore.write_bytes

    def run_spy(self, spec_, points, task, **kw):
        points = list(points)
        submitted.extend(points)
        return real_run(self, spec_, points, task, **kw)

    def write_spy(self, p, data):
        written.append(p)
        assert _log(out)[:len(stamps)] == stamps
        return real_write(self, p, data)

    monkeypatch.setattr(dist_mod.Cluster, "run", run_spy)
    monkeypatch.setattr(PartStore, "write_bytes", write_spy)
    monkeypatch.setattr(points_mod, "_simulate", lambda *a, **k: pytest.fail("simulated in-process"))
    with pytest.raises(McioError, match="--resume"):
        sweep(spec, out=out, dask=client)  # leftovers are not silently thrown away
    sweep(spec, out=out, resume=True, dask=client)
    todo = sorted(set(range(4)) - finished)
    assert sorted(submitted) == todo and sorted(written) == todo
    assert_same_results(open_results(out), ref)
    assert not parts_dir(out).exists()


def test_cli_dask_scheduler_address(reference, client, tmp_path):
    spec, ref = reference
    out = tmp_path / "cli.h5"
    r = CliRunner().invoke(main, ["sweep", str(spec), "-o", str(out), "--dask", client.scheduler.address,
                                  "--threads", "1"])
    assert r.exit_code == 0, r.output + r.stderr
    assert "on Dask tcp://" in r.stderr and "4/4" in r.stderr  # the summary and the progress bar
    assert_same_results(open_results(out), ref)
    assert client.status == "running"


def test_unreachable_scheduler_is_one_error_line_and_leaves_nothing(tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr(dist_mod, "CONNECT_TIMEOUT_S", 1)
    spec = write(tmp_path, SPEC)
    out = tmp_path / "x.h5"
    r = CliRunner().invoke(main, ["sweep", str(spec), "-o", str(out), "--dask", "tcp://127.0.0.1:9"])
    assert r.exit_code == 2
    lines = r.stderr.strip().splitlines()
    assert lines[-1].startswith("mcio: error: --dask = 'tcp://127.0.0.1:9': cannot connect"), r.stderr
    assert not out.exists() and not parts_dir(out).exists()


def test_results_do_not_depend_on_completion_order(reference, monkeypatch):
    """Points arriving in reverse order (as from a cluster) still land at their own index."""
    spec, ref = reference
    from mcio.store import netcdf_bytes

    def reversed_compute(spec_, points, dask=None, worker_threads=None, store=None):
        from mcio.store import dataset_from_bytes
        for p in reversed(list(points)):
            data = netcdf_bytes(sweep_mod.run_point(spec_, p))
            if store is not None:
                store.write_bytes(p, data)
            yield p, dataset_from_bytes(data), 0

    monkeypatch.setattr(run_mod, "_compute", reversed_compute)
    ds = sweep(spec)
    assert_same_results(ds.assign_attrs(date_created="x", history="x"), ref.assign_attrs(date_created="y", history="y"))
    assert np.isfinite(ds["response_ms"]).all()


def test_variant_sweep_on_dask_is_the_in_process_one(client, tmp_path):
    from sweep_specs import VARIANT_GRID
    spec = write(tmp_path, VARIANT_GRID.replace("ios = 3000", "ios = 1500"))
    ref = sweep(spec, out=tmp_path / "ref.h5")
    out = tmp_path / "dask.h5"
    sweep(spec, out=out, dask=client)
    back = open_results(out)
    assert list(back.variant.values) == ["ccw", "fast_mp", "fast_mp_again"]
    assert_same_results(back, open_results(tmp_path / "ref.h5"))
    np.testing.assert_array_equal(back.response_ms.values, ref.response_ms.values)


SMALL = ('title = "small points"\nscenario = "mm1-demo"\n[sweep]\n'
         '"workload.rate_iops" = {start = 100, stop = 800, num = 40}\n'
         '[run]\nreplications = 2\nios = 200\nwarmup = 100\nseed = 5\n')


def test_short_points_go_several_to_a_task_and_the_file_is_the_in_process_one(client, tmp_path, monkeypatch):
    spec = write(tmp_path, SMALL)
    ref = sweep(spec, out=tmp_path / "ref.h5")
    keys, real_submit = [], type(client).submit

    def submit_spy(self, *a, **k):
        keys.append(k["key"])
        return real_submit(self, *a, **k)

    monkeypatch.setattr(type(client), "submit", submit_spy)
    calls = []
    out = tmp_path / "dask.h5"
    ds = sweep(spec, out=out, dask=client, progress=lambda *a: calls.append(a))
    assert keys and all(k.startswith("mcio-points-") for k in keys), keys   # 40 points, a few tasks
    assert len(keys) == -(-40 // dist_mod.points_per_task(40, 1e-3, 2)) <= 40 // 2
    assert [c[:2] for c in calls] == [(i, 40) for i in range(41)]          # progress: still per point
    assert_same_results(open_results(out), open_results(tmp_path / "ref.h5"))
    np.testing.assert_array_equal(ds.response_ms.values, ref.response_ms.values)


def test_points_per_task():
    P = dist_mod.points_per_task
    assert P(6000, 0.001, 2) == 500                 # ~TASK_S a task
    assert P(40, 0.001, 2) == 5                     # every worker gets IN_FLIGHT_PER_WORKER tasks
    assert P(4, 0.005, 2) == 1 and P(100, 2.0, 2) == 1 and P(1, 0.0, 1) == 1
    assert P(10 ** 6, 1e-4, 4) == 5000 and P(10 ** 6, 1e-4, 64) == 3907   # (a tail of 4 tasks a worker)


class _Spec:
    text = "x"


def _failing_task(spec_text, points, threads):
    if 5 in points:
        raise McioError("workload.rate_iops", 5, "fails here")
    return [(p.to_bytes(2, "little"), 10 * p) for p in points]


def test_a_failing_point_in_a_task_of_several_is_named_as_if_alone(client):
    import cloudpickle
    cloudpickle.register_pickle_by_value(sys.modules[__name__])   # (the workers need not import this test)
    try:
        got = []
        with pytest.raises(McioError) as ei:
            for p, data, ios in dist_mod.Cluster(client).run(_Spec(), range(8), _failing_task, per_task=4):
                assert data == p.to_bytes(2, "little") and ios == 10 * p
                got.append(p)
        assert str(ei.value) == "workload.rate_iops = 5: fails here (sweep point 5, on a Dask worker)"
        assert 5 not in got
        # the tasks in flight at most IN_FLIGHT_PER_WORKER per worker, results one per point
        seen, submitted, real_submit = [], [], client.submit
        cl = dist_mod.Cluster(client)
        cl.client = type("Spy", (), {"submit": lambda self, *a, **k: submitted.append(k["key"]) or real_submit(*a, **k),
                                     "cancel": client.cancel, "get_events": client.get_events,
                                     "scheduler_info": client.scheduler_info})()
        for p, data, ios in cl.run(_Spec(), [q for q in range(30) if q != 5], _failing_task, per_task=1):
            seen.append(p)
            assert len(submitted) - len(seen) <= dist_mod.IN_FLIGHT_PER_WORKER * cl.workers() - 1
        assert sorted(seen) == [q for q in range(30) if q != 5] and len(submitted) == 29
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
        _wait_until_idle(client)   # (the tasks cancelled after the error leave the scheduler)


def test_the_tasks_in_flight_follow_the_workers_the_scheduler_has(client, monkeypatch):
    """A worker count that grows mid-sweep (workers joining) widens the window of tasks in
    flight: IN_FLIGHT_PER_WORKER per worker, the count asked at most every WORKERS_CHECK_S."""
    import cloudpickle
    monkeypatch.setattr(dist_mod, "WORKERS_CHECK_S", 0.0)
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    try:
        counts = iter([1] * 3 + [3] * 1000)     # the scheduler's answers: one worker, then three
        submitted, seen, widest = [], [], [0]
        real_submit = client.submit
        cl = dist_mod.Cluster(client)
        cl.client = type("Spy", (), {"submit": lambda self, *a, **k: submitted.append(k["key"]) or real_submit(*a, **k),
                                     "cancel": client.cancel, "get_events": client.get_events,
                                     "scheduler_info": lambda self, **k: {"n_workers": next(counts)}})()
        for p, data, ios in cl.run(_Spec(), [q for q in range(40) if q != 5], _failing_task, per_task=1):
            seen.append(p)
            widest[0] = max(widest[0], len(submitted) - len(seen) + 1)
        assert sorted(seen) == [q for q in range(40) if q != 5]
        assert widest[0] == 3 * dist_mod.IN_FLIGHT_PER_WORKER, widest
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
        _wait_until_idle(client)


def _wait_until_idle(client, timeout_s: float = 60):
    import time
    deadline = time.monotonic() + timeout_s
    while any(client.processing().values()) and time.monotonic() < deadline:
        time.sleep(0.05)


def _hold_the_point_lock():
    """(Run on one worker by client.run.) Take the worker's one-point-at-a-time lock and keep it:
    every point given to this worker then waits, until the worker is killed."""
    from mcio.batch import run
    run._RUN_LOCK.acquire()


def test_a_lost_worker_is_reported_with_the_points_run_again_and_results_are_unchanged(client, tmp_path):
    """(Last in the module: it kills one of the fixture's workers; its nanny starts another.)
    No timing race: the worker killed cannot finish a point (its point lock is held), so a point
    it was given is certainly still its own when it dies and must run again elsewhere; the kill
    comes as soon as the scheduler shows it holding one."""
    import os
    import signal
    import threading
    import time
    from mcio.errors import McioWarning
    spec = write(tmp_path, SPEC.replace('"workload.population" = [2, 8]', '"workload.population" = [2, 4, 8, 16]'))
    ref = sweep(spec, out=tmp_path / "ref.h5")
    victim = sorted(client.scheduler_info()["workers"])[0]
    _wait_until_idle(client)
    earlier = {k for ks in client.processing().values() for k in ks}   # (another test's, if any)
    pid = client.run(os.getpid, workers=[victim])[victim]
    client.run(_hold_the_point_lock, workers=[victim])
    killed = {}

    def kill_when_it_holds_a_point():
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            keys = [k for k in client.processing().get(victim, ())
                    if str(k).startswith("mcio-point-") and k not in earlier]
            if keys:
                killed.update(points=sorted(int(str(k)[-6:]) for k in keys))
                os.kill(pid, signal.SIGKILL)
                return
            time.sleep(0.02)

    watcher = threading.Thread(target=kill_when_it_holds_a_point, daemon=True)
    watcher.start()
    out = tmp_path / "lost.h5"
    with pytest.warns(McioWarning, match="Dask: 1 worker") as rec:
        sweep(spec, out=out, dask=client)
    watcher.join(5)
    assert killed, "the scheduler never gave the victim a point"
    text = " ".join(str(w.message) for w in rec if issubclass(w.category, McioWarning))
    said = text.split(f"{victim}: point(s) ", 1)[1].split(" run again elsewhere", 1)[0]
    reported = [int(x) for x in said.split(", ")]
    # every point it held when killed (it could finish none) is reported as run again; what it
    # was given after the snapshot, before it died, too (and nothing it never held: points are
    # named from the scheduler's own record of the removed worker)
    n_points = 4 * 2                # (4 populations x 2 channel counts)
    assert set(killed["points"]) <= set(reported) <= set(range(n_points)), (reported, killed)
    assert "results unchanged" in text
    assert_same_results(open_results(out), open_results(tmp_path / "ref.h5"))
    np.testing.assert_array_equal(open_results(out).response_ms.values, ref.response_ms.values)
