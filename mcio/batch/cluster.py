"""Sweep points on a Dask cluster, for sweeps that outgrow one machine.

Each Dask task is :func:`mcio.batch.run.points_task` ``(spec text, point indices)``: a pure
function of them (the random stream is keyed by seed, point and replication, not by worker or
order) that returns each point's part record as bytes. A task runs one point or, where points are
short, several consecutive ones (:func:`points_per_task`: each task ~:data:`TASK_S`), so that the
scheduler's cost per task does not dominate a sweep of many small points. (This module knows nothing of sweeps:
:meth:`Cluster.run` is given the task, so the imports stay acyclic.) The client writes the part files as results arrive, so
the workers need no shared file system, and resume, atomic parts and the atomic final file work
exactly as in-process. Points are assembled by index, never by completion order: the same seed
gives the same results in-process or on any cluster.

``dask`` is a scheduler address (``tcp://host:8786``), ``"local"`` / ``"local:N"`` (a
LocalCluster of N worker processes with one thread each, started and stopped here; default N: the
cores this process may use; at most :func:`max_local_workers`), or a ``distributed.Client`` (or
Cluster) that the caller owns.

The local cluster listens on 127.0.0.1 over TLS with a certificate authority made for it alone and
kept in this process's memory (``distributed.Security.temporary()``; the workers get it from their
nanny, not over the network): a Dask scheduler runs whatever a client submits, so without
this any other user of the machine could connect to its port and run code as this user. Every
peer must present a certificate that authority signed.

A damaged Numba cache on a worker is named as on the client (:func:`guarded`: the cache
directories, on that worker's machine, the command that clears them, the worker).
A worker lost mid-sweep (killed, out of memory) is reported once the points are in (a
McioWarning naming it and the points the scheduler ran again elsewhere); the results do not
change, since a point is a pure function of the spec and its index.
The scheduler and the workers need this version of mcio installed (the scheduler unpickles
the task graph). Run remote workers with one thread each
(``dask worker ADDRESS --nthreads 1``): a task uses the worker's Numba threads over replications,
and a worker runs one point at a time whatever its thread count.

Needs the optional dependency ``dask[distributed]``: ``pip install 'mcio[dask]'``.
"""
from __future__ import annotations

import collections
import contextlib
import difflib
import os
import threading
import time
import uuid
from typing import Callable, Iterable, Iterator

from ..errors import McioError

FIELD = "--dask"
CONNECT_TIMEOUT_S = 20
#: Memory a local worker process takes (the interpreter, NumPy, Numba with the kernels loaded,
#: one point's state): what bounds ``local:N`` by the machine's memory.
WORKER_BYTES = 250 << 20
CLIENT_BYTES = 400 << 20   # this process (the client), set aside before counting workers


def import_distributed(dask=None):
    """The ``distributed`` module, or McioError naming the missing package."""
    try:
        import distributed
    except ImportError as e:
        missing = getattr(e, "name", None) or "distributed"
        raise McioError(FIELD, _shown(dask), f"needs the missing package {missing!r}: "
                                             "pip install 'mcio[dask]' (dask[distributed])") from None
    return distributed


def _shown(dask) -> str:
    return dask if isinstance(dask, str) else type(dask).__name__


def parse_address(dask) -> tuple[str, int | None]:
    """``("local", N)`` for ``"local"`` / ``"local:N"`` (N None: all usable cores), else
    ``("address", None)``. Raises McioError on an empty or malformed value."""
    if not isinstance(dask, str) or not dask.strip():
        raise McioError(FIELD, dask, "must be a scheduler address (tcp://host:8786), 'local' or 'local:N', "
                                     "or a distributed.Client")
    s = dask.strip()
    if s == "local":
        return "local", None
    if s.startswith("local:"):
        n = s[len("local:"):]
        if not n.isdigit() or int(n) < 1:
            raise McioError(FIELD, dask, "local:N needs a whole number of worker processes N >= 1")
        top, why = max_local_workers()
        if int(n) > top:
            raise McioError(FIELD, dask, f"at most {top} local worker process(es) on this machine ({why}); "
                                         "for more, run workers on other machines: dask worker ADDRESS")
        return "local", int(n)
    host = s.split("://", 1)[-1].rsplit(":", 1)[0].strip("[]")
    head = s.split(":", 1)[0]
    if "://" not in s and head != "local" and difflib.get_close_matches(head, ["local"], n=1, cutoff=0.6):
        raise McioError(FIELD, dask, "did you mean 'local' or 'local:N'? (a scheduler address looks like "
                                     "tcp://host:8786)")
    if host and not _resolves(host):
        raise McioError(FIELD, dask, f"host {host!r} does not resolve; give a scheduler address (tcp://host:8786), "
                                     "'local' or 'local:N'")
    return "address", None


def _resolves(host: str) -> bool:
    """Whether ``host`` names a reachable address family at all (checked before Dask spends its
    connect timeout on it)."""
    import socket
    try:
        socket.getaddrinfo(host, None)
        return True
    except (socket.gaierror, UnicodeError, OSError):
        return False


def max_local_workers() -> tuple[int, str]:
    """(the most local worker processes this machine runs usefully, why): one per usable core,
    and no more than its memory holds at :data:`WORKER_BYTES` each (this process's own share, the
    estimates' base, set aside)."""
    cores = usable_cores()
    mem = _machine_bytes()
    by_mem = max(1, (mem - CLIENT_BYTES) // WORKER_BYTES) if mem else cores
    why = f"{cores} usable core(s)" + (f", {mem / 2**30:.1f} GiB memory at ~{WORKER_BYTES >> 20} MiB a worker"
                                       if mem else "")
    return int(min(cores, by_mem)), why


def _machine_bytes() -> int | None:
    """The memory this process may use: Dask's own figure (the machine's, or its cgroup's limit)
    where ``distributed`` is installed, else the machine's physical memory; None if unknown."""
    try:
        from distributed.system import MEMORY_LIMIT
        return int(MEMORY_LIMIT)
    except ImportError:
        pass
    try:
        return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def usable_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


# A worker preload (the text of a script): local workers ignore SIGINT. Ctrl-C reaches the whole
# process group; this process alone should handle it, by cancelling the tasks and closing the
# cluster, instead of every worker printing its own traceback.
IGNORE_SIGINT = """\
import signal, threading
if threading.current_thread() is threading.main_thread():
    signal.signal(signal.SIGINT, signal.SIG_IGN)
"""


@contextlib.contextmanager
def _sigint_deferred():
    """SIGINT blocked here while local workers start, then delivered (as KeyboardInterrupt) once the
    cluster is up: a Ctrl-C in between cannot leave a half-started cluster that fails to close.
    (Workers still importing when it comes print their own KeyboardInterrupt; from the preload on
    they ignore it.)"""
    import signal
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _private_security(distributed):
    """TLS with a certificate authority made for this cluster alone (in memory): only peers holding
    its certificate can connect. Needs the ``cryptography`` package (a dependency of mcio[dask])."""
    try:
        return distributed.Security.temporary()
    except ImportError as e:
        raise McioError(FIELD, "local", f"needs the missing package {getattr(e, 'name', None) or 'cryptography'!r} "
                                        "to secure the local cluster: pip install 'mcio[dask]'") from None


class Cluster:
    """A client for ``dask`` as a context manager: closes only what it started."""

    def __init__(self, dask, worker_threads: int | None = None):
        self.dask = dask
        self.client = None
        self._owned = []
        self.worker_threads = worker_threads
        if worker_threads is not None and (isinstance(worker_threads, bool) or not isinstance(worker_threads, int)
                                           or worker_threads < 1):
            raise McioError("--threads", worker_threads, "must be an integer >= 1")
        distributed = import_distributed(dask)
        if isinstance(dask, distributed.Client):
            self.client = dask
            return
        if isinstance(dask, distributed.deploy.Cluster):
            self.client = self._own(distributed.Client(dask))
            return
        kind, n = parse_address(dask)
        if kind == "local":
            n = n or usable_cores()
            if self.worker_threads is None:
                self.worker_threads = max(1, usable_cores() // n)
            import logging
            try:
                security = _private_security(distributed)
                with _sigint_deferred():
                    cluster = self._own(distributed.LocalCluster(
                        n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
                        protocol="tls://", security=security,
                        dashboard_address=None, silence_logs=logging.ERROR, preload=[IGNORE_SIGINT]))
                self.client = self._own(distributed.Client(cluster, security=security))
            except BaseException:
                self.close()
                raise
            return
        try:
            self.client = self._own(distributed.Client(dask.strip(), timeout=CONNECT_TIMEOUT_S))
        except (OSError, TimeoutError, ValueError) as e:
            msg = " ".join(str(e).split()) or type(e).__name__
            raise McioError(FIELD, dask, f"cannot connect to a Dask scheduler there ({msg})") from None

    def _own(self, obj):
        self._owned.append(obj)
        return obj

    def close(self):
        while self._owned:
            obj = self._owned.pop()  # the client before its cluster
            try:
                obj.close()
            except Exception:  # noqa: BLE001 - shutting down: nothing left to save
                pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def workers(self) -> int:
        """Workers the scheduler has now (at least 1: a scheduler's workers may still be joining)."""
        try:
            try:    # (the count alone, not every worker's record: distributed >= 2025)
                info = self.client.scheduler_info(n_workers=0)
            except TypeError:
                info = self.client.scheduler_info()
            n = info.get("n_workers")
            return max(1, int(n) if isinstance(n, int) else len(info.get("workers", {})))
        except Exception:  # noqa: BLE001 - a hint for how many tasks to keep in flight
            return 1

    def run(self, spec, points: Iterable[int], task: Callable, per_task: int = 1
            ) -> Iterator[tuple[int, bytes, int]]:
        """Run ``task(spec.text, points, threads)`` (a list of ``per_task`` consecutive points, one
        Dask task; :func:`points_per_task`), which returns ``[(part-file bytes, I/Os simulated)]``,
        one per point, and yield ``(point, bytes, I/Os)`` in completion order. At most
        :data:`IN_FLIGHT_PER_WORKER` tasks per worker are submitted at a time, so a sweep of a
        million points does not hold a million futures. A task of several points that fails is
        run again one point a task, so the error names its point as a one-point task does.
        Closing the generator (or an exception in the caller) cancels what is left. ``task``
        must be importable by reference on the workers."""
        distributed = import_distributed(self.dask)

        points = list(points)
        if not points:
            return
        k = max(1, int(per_task))
        queue = collections.deque(points[i:i + k] for i in range(0, len(points), k))
        token = uuid.uuid4().hex[:12]  # fresh keys per run: a resubmitted key could inherit a cancellation
        running: dict = {}      # future -> its points
        by_key: dict = {}       # task key -> its points (for lost_workers)
        done = distributed.as_completed()
        window = [0, 0.0]       # tasks in flight at most; when to ask the scheduler again

        def submit(chunk: list[int]) -> None:
            key = f"mcio-point-{token}-{chunk[0]:06d}" if len(chunk) == 1 else \
                f"mcio-points-{token}-{chunk[0]:06d}-{chunk[-1]:06d}"
            f = self.client.submit(guarded, task, spec.text, chunk, self.worker_threads, key=key, pure=False,
                                   priority=-chunk[0])
            running[f] = chunk
            by_key[f.key] = chunk
            done.add(f)

        def refill() -> None:
            if queue and time.monotonic() >= window[1]:   # (workers may join or leave mid-sweep)
                window[:] = [IN_FLIGHT_PER_WORKER * self.workers(), time.monotonic() + WORKERS_CHECK_S]
            while queue and len(running) < window[0]:
                submit(queue.popleft())

        try:
            refill()
            for f in done:
                chunk = running.pop(f)
                if len(chunk) > 1 and f.status == "error":
                    f.release()
                    for p in chunk:     # one point a task: the failing one raises as it alone would
                        submit([p])
                    continue
                got = _result(f, chunk[0], self.dask)
                f.release()
                if len(got) != len(chunk):
                    raise McioError(FIELD, _shown(self.dask), f"a Dask task returned {len(got)} results for "
                                                              f"{len(chunk)} points (a bug)")
                for p, (data, ios) in zip(chunk, got):
                    yield p, data, ios
                refill()
        finally:
            if running:
                try:
                    self.client.cancel(list(running))
                except Exception:  # noqa: BLE001 - the cluster may already be gone
                    pass
        lost = lost_workers(self.client, by_key)
        if lost:
            import warnings
            from ..errors import McioWarning
            said = "; ".join(f"{w}: point(s) {', '.join(map(str, ps)) or 'none'} run again elsewhere"
                             for w, ps in lost.items())
            warnings.warn(McioWarning(f"Dask: {len(lost)} worker(s) lost during the sweep ({said}); results "
                                      "unchanged (a point is a pure function of the spec and its index)"),
                          stacklevel=2)


#: How long a Dask task should run: the points of a sweep whose points are short go several to a
#: task, so that the scheduler's cost per task (~3-4 ms of wall time per point on a local cluster
#: of two workers, measured: benchmarks/README.md) is a small part of each.
TASK_S = 0.5
#: Tasks submitted and not yet finished, per worker: enough that a worker never waits for the
#: client between two tasks, few enough that the client and the scheduler hold a bounded number.
IN_FLIGHT_PER_WORKER = 4
#: How often (seconds) a running sweep asks the scheduler how many workers it has
WORKERS_CHECK_S = 1.0


def points_per_task(n_points: int, point_s: float, workers: int) -> int:
    """Points a task runs (``n_points`` to run, ``point_s`` seconds each, estimated, on
    ``workers`` workers): as many as fill :data:`TASK_S`, but no more than leave every worker
    :data:`IN_FLIGHT_PER_WORKER` tasks (a short tail, an even share); at least 1."""
    by_time = int(TASK_S / point_s) if point_s > 0 else n_points
    by_share = -(-n_points // (IN_FLIGHT_PER_WORKER * max(1, workers)))
    return max(1, min(by_time, by_share))


def lost_workers(client, by_key: dict) -> dict[str, list[int]]:
    """{worker address: sorted points of ``by_key`` (task key -> its points) that were running on it or
    whose results it held} for every worker the scheduler removed while those tasks existed, from
    its ``remove-worker`` events. Empty if none, or if the scheduler cannot be asked."""
    try:
        events = client.get_events("all")
    except Exception:  # noqa: BLE001 - a report, not a result: never fail the sweep for it
        return {}
    out: dict[str, set] = {}
    for _, msg in events or ():
        if not isinstance(msg, dict) or msg.get("action") != "remove-worker":
            continue
        keys = set(msg.get("processing-tasks") or ()) | set(msg.get("lost-computed-tasks") or ())
        points = {p for k in keys if k in by_key for p in by_key[k]}
        if points:
            out.setdefault(str(msg.get("worker", "?")), set()).update(points)
    return {w: sorted(ps) for w, ps in out.items()}


def guarded(task: Callable, *args):
    """``task(*args)`` on a Dask worker, where a damaged Numba cache of compiled kernels (the
    worker's own, on its machine) is recognised as on a client (:mod:`mcio.kernelcache`: only the
    worker's traceback shows it) and raised as a :class:`~mcio.kernelcache.DamagedCache` naming
    the worker; it pickles back to the client. Every other exception unchanged."""
    try:
        return task(*args)
    except Exception as e:  # noqa: BLE001 - only re-raised as another type when recognised
        from ..kernelcache import DamagedCache, as_damaged_cache
        d = as_damaged_cache(e)
        if d is None:
            raise
        raise DamagedCache(d.dirs, f"{d.text} (on the Dask worker {_worker_address()})") from None


def _worker_address() -> str:
    try:
        from distributed import get_worker
        return str(get_worker().address)
    except Exception:  # noqa: BLE001 - not on a worker (a test, a local call): no address to give
        return "?"


def _result(f, p: int, dask):
    from ..kernelcache import DamagedCache
    try:
        return f.result()
    except DamagedCache as e:  # the worker's own cache: its directories are on the worker's machine
        raise DamagedCache(e.dirs, f"{e.text}, running sweep point {p}") from None
    except McioError as e:  # raised on the worker, pickled back (McioError pickles)
        raise McioError(e.field, e.value, f"{e.allowed} (sweep point {p}, on a Dask worker)") from None
    except Exception as e:
        if type(e).__name__ == "KilledWorker":  # the scheduler gave up after the point's workers died
            raise McioError(FIELD, _shown(dask), f"Dask workers died running sweep point {p} ({e}); the "
                                                 "finished points are kept: run again with --resume") from None
        if _lacks_mcio(e):
            raise McioError(FIELD, _shown(dask), "the Dask scheduler or workers cannot import mcio: install this "
                                                 "mcio on the scheduler and every worker") from None
        raise


def _lacks_mcio(e: BaseException | None) -> bool:
    """Whether ``e`` (or what caused it) is a failed import of mcio on the cluster: the scheduler
    unpickles the task graph, the workers the task, both by reference to mcio.batch.run."""
    seen = set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, ModuleNotFoundError) and ((e.name or "").split(".")[0] == "mcio"
                                                   or "No module named 'mcio" in str(e)):
            return True
        if "No module named 'mcio" in str(e):
            return True
        e = e.__cause__ or e.__context__
    return False


__all__ = ["Cluster", "guarded", "import_distributed", "lost_workers", "max_local_workers", "parse_address",
           "points_per_task",
           "usable_cores"]
