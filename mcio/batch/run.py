"""The run loop of a sweep: every point not yet done is computed (in this process, in point order,
or on a Dask cluster, a task each or, short points, several a task: :mod:`mcio.batch.cluster`), stored in the points log as it
completes (:class:`mcio.store.PartStore`), reported to a progress callback, then assembled and
written as the final file. Points are assembled by index, never by completion order, so the
results are the same in-process or on any cluster. Ctrl-C ends in
:class:`mcio.interrupt.SweepInterrupted` with every finished point saved.
"""
from __future__ import annotations

import functools
import threading
import tomllib
import warnings
from contextlib import closing
from typing import Callable

from .. import gcscope, interrupt
from ..kernelcache import cache_errors
from ..errors import McioError, McioWarning
from .collect import Collected
from .estimates import warn_if_long
from .points import PointCut, ios_simulated, point_part
from .spec import SweepSpec, load_spec, parse_spec


class _Progress:
    """The caller's ``progress(done, total, ios)``, also fed within a point from the kernels'
    shared counter (:func:`mcio.interrupt.counter`) by a ticker thread; a point's last call reports
    only the I/Os not already reported."""

    TICK_S = 0.5

    def __init__(self, fn, total: int, tick: bool):
        self.fn, self.total, self.done, self.partial = fn, total, 0, 0
        self.lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None
        if fn is not None and tick:
            self._thread = threading.Thread(target=self._run, name="mcio-progress", daemon=True)

    def start(self, done: int) -> None:
        self.done = done
        interrupt.counter()[:] = 0  # reset here and after each point: the next point counts from 0
        if self.fn:
            self.fn(done, self.total, 0)
        if self._thread is not None:
            self._thread.start()

    def _run(self):
        ctr = interrupt.counter()
        while not self._stop.wait(self.TICK_S):
            with self.lock:
                c = int(ctr.sum())  # (one slot, or one per replication if the kernels want no sharing)
                if c > self.partial:
                    delta, self.partial = c - self.partial, c
                    try:
                        self.fn(self.done, self.total, delta)
                    except Exception:  # noqa: BLE001 - a failing display must not stop the sweep
                        return

    def point_done(self, done: int, ios: int) -> None:
        with self.lock:
            delta, self.partial = max(0, ios - self.partial), 0
            interrupt.counter()[:] = 0
            self.done = done
        if self.fn:
            self.fn(done, self.total, delta)

    def close(self):
        self._stop.set()
        if self._thread is not None and self._thread.is_alive():
            self._thread.join(timeout=2)


@cache_errors
def sweep(spec_or_path, out=None, resume: bool = False, progress: Callable | None = None, dask=None,
          worker_threads: int | None = None):
    """Run every point of a sweep spec and return the assembled :class:`xarray.Dataset`.

    ``out``: an HDF5 path. Finished points are kept in ``OUT.parts/`` as they complete; the final
    file appears (atomically) only when every point is done, then the parts go. ``OUT.lock`` keeps
    a second sweep off the same output. ``resume=True`` continues an interrupted sweep into the
    same ``out`` without recomputing finished points; every part is checked first and a damaged
    one recomputed (a McioWarning says which and why).
    ``progress(done, total, ios)`` is called once before the first new point (``ios = 0``), after
    each point with the I/Os it simulated, and, when the kernels report it, within a point with
    ``done`` unchanged and the I/Os completed since the last call.

    Ctrl-C (SIGINT) stops the sweep after saving every finished point: :class:`SweepInterrupted`
    (a KeyboardInterrupt) saying ``interrupted: N of M points saved; resume with --resume``. A run
    estimated beyond this machine's memory is refused (McioError); beyond a few minutes, a
    McioWarning gives the estimate first.

    ``dask``: run the points on a Dask cluster instead of in this process: a scheduler address
    (``"tcp://host:8786"``), ``"local"`` or ``"local:N"`` (a LocalCluster of N single-thread worker
    processes, closed on return) or a ``distributed.Client``. Results are identical to the
    in-process run (see :mod:`mcio.batch.cluster`). ``worker_threads``: Numba threads per point on a
    worker (default: the cores divided among the workers of ``"local:N"``, else the workers' own).
    """
    from .. import store

    spec = load_spec(spec_or_path)
    total = spec.n_points
    if dask is not None:  # a bad address or a missing package fails before anything is written
        from .cluster import import_distributed, parse_address
        if isinstance(dask, str):
            parse_address(dask)
        import_distributed(dask)
    warn_if_long(spec)
    if out is None:
        return _run_points(spec, None, {}, progress, dask, worker_threads)
    out = store.check_writable(out)
    with store.OutputLock(out):
        if resume and out.exists() and not store.parts_dir(out).exists():
            ds = store.open_results(out)
            if not spec.same_as(ds.attrs.get("spec_toml", "")):
                raise McioError("--resume", str(out), "holds a finished sweep of a different spec; "
                                                      "choose another output or drop --resume to overwrite it")
            if progress:
                progress(total, total, 0)
            return ds
        run = store.PartStore(out, spec.text, resume=resume, same_spec=spec.same_as)
        reps = {"replication": int(spec.run["replications"])}   # (every point of this spec has these)
        good, bad = run.validate(total, spec.coords, expected=lambda p: reps) if resume else ({}, {})
        if bad:
            shown = "; ".join(f"{k if isinstance(k, str) else f'point {k}'}: {v}" for k, v in list(bad.items())[:10])
            more = f" (and {len(bad) - 10} more)" if len(bad) > 10 else ""
            n_re = sum(1 for k in bad if not isinstance(k, str))
            warnings.warn(McioWarning(f"--resume: {len(bad)} damaged record(s) in {str(run.log)!r}"
                                      f"{f', {n_re} point(s) recomputed' if n_re else ''}: {shown}{more}"),
                          stacklevel=2)
        return _run_points(spec, run, {p: functools.partial(run.read, p, rec) for p, rec in good.items()},
                           progress, dask, worker_threads)


@gcscope.older_objects_frozen()
def _run_points(spec, run, good: dict, progress, dask, worker_threads):
    """Compute the points not in ``good`` ({point: a function reading its resumed Part}; emptied
    here), storing each in ``run`` (a PartStore) if given, then assemble (and with ``run`` write
    the final file). Ctrl-C ends in SweepInterrupted. Finished points are held stacked
    (:class:`Collected`), not as Parts."""
    from .. import store
    total = spec.n_points
    done = Collected(spec)
    while good:   # (one at a time: each resumed Part goes once it is copied)
        p, read = good.popitem()
        done.add(p, read())
    todo = (p for p in range(total) if p not in done)
    prog = _Progress(progress, total, tick=dask is None)
    computed = 0
    stopped = False
    try:
        with interrupt.handling():
            prog.start(len(done))
            try:
                with closing(_compute(spec, todo, dask, worker_threads, store=run)) as results:
                    for p, part, ios in results:  # a Dask cluster is shut down (if started here) on leaving
                        done.add(p, part)
                        del part
                        computed += 1
                        prog.point_done(len(done), ios)
                        if interrupt.requested():
                            stopped = True
                            break
            except (KeyboardInterrupt, PointCut):
                stopped = True
            if stopped:
                raise interrupt.SweepInterrupted(len(done), total, run.out if run is not None else None)
    except BaseException:
        prog.close()
        if run is not None:
            if done:
                run.close()
            else:
                run.remove()  # nothing finished (e.g. no scheduler there): leave nothing behind
        raise
    prog.close()
    ds = done.dataset()
    del done
    if run is not None:
        try:
            store.write_results(ds, run.out, chunk_dims=spec.dims)
        except BaseException:
            run.close()   # (e.g. disk full: every point stays in the log; --resume writes the file)
            raise
        run.remove()
    return ds


def _compute(spec: SweepSpec, points, dask=None, worker_threads=None, store=None):
    """Yield ``(point, Part, I/Os simulated)`` for ``points``, each stored in ``store`` (a
    PartStore) first if given: in point order in-process, in completion order on Dask."""
    if dask is None:
        for p in points:
            part = point_part(spec, p)
            if store is not None:
                store.write(p, part, part.coords)
            yield p, part, ios_simulated(part)
        return
    from ..store import PartError, read_sent
    from .cluster import Cluster

    points = list(points)
    if not points:
        return
    layouts: dict = {}      # the layouts the workers sent so far (each stored once)
    with Cluster(dask, worker_threads) as cluster, \
            closing(cluster.run(spec, points, points_task, per_task=_per_task(spec, len(points), cluster))) as results:
        for p, data, ios in results:
            try:
                data, part = read_sent(data, p, layouts)
            except PartError as e:  # a worker that sent something else
                raise McioError("part", f"point {p}", f"the Dask worker's result is not a part ({e})") from None
            if store is not None:
                store.write_bytes(p, data)  # the worker's record, byte for byte: no re-encoding here
            yield p, part, ios


def _per_task(spec: SweepSpec, n: int, cluster) -> int:
    """Points per Dask task for ``n`` points of ``spec`` (:func:`~mcio.batch.cluster.points_per_task`),
    from the estimated time of a point on one of the worker's threads (its start-up left out)."""
    from .cluster import points_per_task
    from .estimates import estimate
    est = estimate(spec, threads=1, points=1, startup_s=0.0)
    return points_per_task(n, est.seconds, cluster.workers())


_RUN_LOCK = threading.Lock()  # one point at a time per worker process (Numba's workqueue layer is not thread-safe)


@functools.lru_cache(maxsize=4)
def _spec_of(text: str) -> SweepSpec:
    return parse_spec(tomllib.loads(text), text=text)


def _set_threads(threads: int | None) -> None:
    """This worker's Numba threads for a task (None: as they are), within what Numba started."""
    if threads is not None:
        import numba
        numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))


def point_task(spec_text: str, p: int, threads: int | None = None) -> tuple[bytes, int]:
    """Simulate point ``p`` of the sweep whose TOML is ``spec_text`` (a Dask task, on a worker):
    the content of its part file and the I/Os simulated. ``threads``: Numba threads for this task
    (results do not depend on it). A bad input raises McioError, which pickles back to the client."""
    from ..store import part_bytes, spec_hash

    with _RUN_LOCK:
        _set_threads(threads)
        spec = _spec_of(spec_text)
        part = point_part(spec, p)
    return part_bytes(part, spec_hash(spec_text), p, part.coords), ios_simulated(part)


def points_task(spec_text: str, points: list[int], threads: int | None = None) -> list[tuple[bytes, int]]:
    """(A Dask task, on a worker.) :func:`point_task` for each of ``points`` (consecutive points
    of one sweep), each part a format-2 record, with its layout record before the first that uses
    it (a sweep's points share one or a few: the client then reads each point's few hundred bytes
    of header, not the ~10 KB table of its variables, :func:`mcio.store.read_sent`)."""
    from ..store import encode_part, spec_hash

    out, layouts = [], set()
    with _RUN_LOCK:
        _set_threads(threads)
        spec, sha = _spec_of(spec_text), spec_hash(spec_text)
        for p in points:
            part = point_part(spec, p)
            data, lid = encode_part(part, sha, p, part.coords, layouts)
            if lid is not None:
                layouts.add(lid)
            out.append((data, ios_simulated(part)))
    return out
