"""Sweep points on a Dask cluster, for sweeps that outgrow one machine.

Each point is one task, :func:`point_task` ``(spec text, point index)``: a pure function (the
random stream is keyed by seed, point and replication, not by worker or order) that returns the
content of the point's part file as bytes. The client writes the part files as results arrive, so
the workers need no shared file system, and resume, atomic parts and the atomic final file work
exactly as in-process. Points are assembled by index, never by completion order: the same seed
gives the same results in-process or on any cluster.

``dask`` is a scheduler address (``tcp://host:8786``), ``"local"`` / ``"local:N"`` (a
LocalCluster of N worker processes with one thread each, started and stopped here; default N: the
cores this process may use), or a ``distributed.Client`` (or Cluster) that the caller owns.
The scheduler and the workers need this version of mcio installed (the scheduler unpickles
the task graph). Run remote workers with one thread each
(``dask worker ADDRESS --nthreads 1``): a task uses the worker's Numba threads over replications,
and a worker runs one point at a time whatever its thread count.

Needs the optional dependency ``dask[distributed]``: ``pip install 'mcio[dask]'``.
"""
from __future__ import annotations

import contextlib
import functools
import os
import threading
import tomllib
import uuid
from typing import Iterable, Iterator

from .errors import McioError

FIELD = "--dask"
CONNECT_TIMEOUT_S = 20
_RUN_LOCK = threading.Lock()  # one point at a time per worker process (Numba's workqueue layer is not thread-safe)


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
        return "local", int(n)
    return "address", None


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
                with _sigint_deferred():
                    cluster = self._own(distributed.LocalCluster(
                        n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
                        dashboard_address=None, silence_logs=logging.ERROR, preload=[IGNORE_SIGINT]))
                self.client = self._own(distributed.Client(cluster))
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

    def run(self, spec, points: Iterable[int]) -> Iterator[tuple[int, bytes, int]]:
        """Submit one task per point and yield ``(point, part-file bytes, I/Os simulated)`` in
        completion order. Closing the generator (or an exception in the caller) cancels what is left."""
        distributed = import_distributed(self.dask)

        points = list(points)
        if not points:
            return
        token = uuid.uuid4().hex[:12]  # fresh keys per run: a resubmitted key could inherit a cancellation
        futures = {}
        for p in points:
            f = self.client.submit(point_task, spec.text, p, self.worker_threads,
                                   key=f"mcio-point-{token}-{p:06d}", pure=False, priority=-p)
            futures[f] = p
        pending = set(futures)
        try:
            for f in distributed.as_completed(list(futures)):
                p = futures[f]
                data, ios = _result(f, p, self.dask)
                pending.discard(f)
                f.release()
                yield p, data, ios
        finally:
            if pending:
                try:
                    self.client.cancel(list(pending))
                except Exception:  # noqa: BLE001 - the cluster may already be gone
                    pass


def _result(f, p: int, dask):
    try:
        return f.result()
    except PointError as e:
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
    unpickles the task graph, the workers the task, both by reference to mcio.distributed."""
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


class PointError(Exception):
    """A McioError raised on a worker, in a form that pickles (McioError takes three arguments)."""

    def __init__(self, field, value, allowed):
        super().__init__(field, value, allowed)
        self.field, self.value, self.allowed = field, value, allowed

    def __str__(self):
        return f"{self.field} = {self.value!r}: {self.allowed}"


@functools.lru_cache(maxsize=4)
def _spec(text: str):
    from .sweep import parse_spec
    return parse_spec(tomllib.loads(text), text=text)


def point_task(spec_text: str, p: int, threads: int | None = None) -> tuple[bytes, int]:
    """Simulate point ``p`` of the sweep whose TOML is ``spec_text`` (on a worker): the content of its
    part file (:func:`mcio.store.part_bytes`) and the I/Os simulated. ``threads``: Numba threads
    for this task (results do not depend on it)."""
    from .store import part_bytes, spec_hash
    from .sweep import _ios_simulated, run_point

    with _RUN_LOCK:
        try:
            if threads is not None:
                import numba
                numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
            spec = _spec(spec_text)
            ds = run_point(spec, p)
        except McioError as e:
            raise PointError(e.field, e.value, e.allowed) from None
    return part_bytes(ds, spec_hash(spec_text), p, spec.coords(p)), _ios_simulated(ds)


__all__ = ["Cluster", "point_task", "import_distributed", "parse_address", "PointError"]
