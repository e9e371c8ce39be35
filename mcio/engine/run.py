"""Runs replications in parallel and returns a labelled Dataset: ``simulate``, the one entry point.

Outputs are labelled in RMF's vocabulary.
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait
from datetime import datetime, timezone
from typing import TYPE_CHECKING

import numba
import numpy as np

if TYPE_CHECKING:   # (xarray only for the annotation: `mcio run` may not need it)
    import xarray as xr

from .. import interrupt
from .._version import __version__
from ..errors import McioError
from ..kernels import stats as S
from ..kernels.histogram import HIST_BUCKETS
from ..model import Model
from ..part import Part
from ..warmup import MSER_BATCHES, judge_warmup
from . import physics
from . import results_links
from .limits import RUN_BOUNDS
from .pack import pack, stream_states
from .tables import tables_of
from .results_units import extra_vars
from .results import FLAG_MEANINGS, _var, assemble, flag_var

UNSTABLE_IOS = 20_000         # I/Os simulated for a point known to be over capacity


def fast_path_applies(model: Model) -> bool:
    """True when the model reduces exactly to one FIFO G/G/c queue (see kernels/fastpath.py).

    One device under an open load: with no aliases only one I/O is ever past IOSQ, so nothing
    downstream can queue. With c exposures, every downstream station must also be uncontended:
    no MP work, enough host adapters, back-end servers and exchanges, and no shared transfer.
    Never for a positional device (devices.geometry 3390 / 3380).
    """
    if getattr(model, "topology", None) is not None:
        return False     # a configuration's channels, links and units differ: the event engine's
    w, d, c, cu = model.workload, model.devices, model.channels, model.control_unit
    if w["type"] != "open" or d["count"] != 1:
        return False
    # the fast path's MP is a fixed work per I/O in one queue: no wake-up work, no work order
    if c["mp_wake_us"] > 0 or c["mp_order"] != "end_first":
        return False
    if d["geometry"] != "emulated":
        return False     # a positional device's service is planned by the seam, which it does not call
    n = 1 + d["aliases"]
    if n == 1:
        return True
    dem = model.mean_demands_ms()
    return (dem["mp"] == 0 and dem["link"] == 0
            and (cu["ha_servers"] >= n or dem["ha"] == 0)
            and (cu["backend_servers"] >= n or dem["backend"] == 0)
            and c["max_open_exchanges"] * c["count"] >= n)


# ---------------------------------------------------------------------------- running


def _simple_kinds_only(dp: np.ndarray) -> bool:
    """Whether every distribution row of ``dp`` (float64[rows, 5], column 0 the kind code,
    kernels/dists.py) is deterministic, exponential, gamma or uniform: then no draw needs the
    lognormal/empirical sampler or the empirical tables."""
    from ..kernels.dists import DETERMINISTIC, EXPONENTIAL, GAMMA, UNIFORM
    simple = {DETERMINISTIC, EXPONENTIAL, GAMMA, UNIFORM}
    return all(kind in simple for kind in dp[:, 0].tolist())   # (np.isin: ~25 us for a dozen rows)


def _check_run_args(ios, replications, warmup, seed, point):
    """Refuse a run size outside :data:`.limits.RUN_BOUNDS` (as a sweep spec's [run] is)."""
    for name, v in (("ios", ios), ("replications", replications), ("seed", seed), ("point", point)):
        lo, hi = RUN_BOUNDS.get(name, (0, 2**63 - 1))
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v <= hi:
            raise McioError(name, v, f"must be an integer in [{lo}, {hi}]")
    lo, hi = RUN_BOUNDS["warmup"]
    if warmup is not None and (isinstance(warmup, bool) or not isinstance(warmup, (int, np.integer))
                               or not lo <= warmup <= hi):
        raise McioError("warmup", warmup, f"must be an integer in [{lo}, {hi}] (I/Os discarded per "
                                          "replication) or omitted")


#: A point whose replications come to fewer I/Os than this (warm-up included; fast path, event
#: engine) runs them in the calling thread whatever the thread count: sharing them with the pool
#: costs ~0.1 ms of wall a point (waking a pool thread and then the caller: a 2-vCPU KVM host),
#: about what a second thread saves on kernels of ~0.2 ms (benchmarks/README.md, session 29).
#: The results are the same either way: replication r always uses stream r and its own outputs.
POOL_MIN_IOS = {True: 40_000, False: 1_000}

_POOL: list = [None, 0, 0]      # (executor, threads, pid)
_POOL_LOCK = threading.Lock()


def kernel_pool(threads: int) -> ThreadPoolExecutor:
    """The process's pool of ``threads`` kernel threads, kept between runs: a pool made per run
    cost a tenth of a fast-path sweep point (starting and joining its threads).
    Remade when the thread count changes or in a forked child (whose copy has no threads)."""
    with _POOL_LOCK:
        pool, n, pid = _POOL
        if pool is None or n != threads or pid != os.getpid():
            if pool is not None and pid == os.getpid():
                pool.shutdown(wait=False)   # (its queued work, if any, still runs)
            pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="mcio")
            _POOL[:] = [pool, threads, os.getpid()]
        return pool


def run_kernels(model: Model, ios: int, replications: int, seed: int, warmup: int, point: int,
                fast_path: bool, tables=None, links: bool = False, with_units: bool = False,
                overloaded: bool | None = None):
    """Run the replications on up to ``numba.get_num_threads()`` threads; return the raw
    accumulators (acc, chs, devs, hist, bat), stacked by replication; with ``links``, also
    (lns, cards): per link and per card (kernels/transfer.py, kernels/cards.py); then with
    ``with_units``, one more: the control units' and workloads' (sts, wls, whist, dvs), each
    stacked by replication (engine/units.py). ``overloaded``: whether an open load is at or
    over a station's capacity, if the caller knows (None: from ``model.open_bottleneck()``).

    The kernels release the GIL, so this thread and a plain thread pool (:func:`kernel_pool`)
    run them in parallel, each taking the next replication. Each replication writes its own,
    separately allocated arrays: rows of one shared array would put two threads' hot counters
    on one cache line. The result cannot depend on the thread count: replication r always uses
    stream r and its own outputs. A point smaller than :data:`POOL_MIN_IOS` runs in this thread
    alone (the pool would cost it more than it saves), its replications writing rows of the
    stacked arrays returned (no stacking afterwards).

    Control: every kernel gets ``mcio.interrupt.flag()`` (int64[1], polled: non-zero stops it
    early with fewer I/Os measured than asked) and its replication's progress slot of
    ``mcio.interrupt.counter()`` (an int64[1] view it adds completed I/Os to, warm-up
    included). The kernels run in this thread too unless it is the main thread and SIGINT
    cannot be watched (``interrupt.watching()``: another wake-up fd in use); then in worker
    threads only. Under ``interrupt.polling()``: outside a sweep,
    Ctrl-C stops them within milliseconds and raises KeyboardInterrupt here; in a sweep, the
    sweep decides (a point cut short is not saved).
    """
    from ..kernels.blockrng import LANES, make_streams
    from ..kernels.fastpath import fast_one
    from ..kernels import layout as L
    from ..kernels.cards import N_CARD
    from ..kernels.iopath import run_one, run_one_units
    from ..kernels.transfer import N_LN
    pk = pack(model, ios, warmup, tables, fast_path=fast_path)
    R = replications
    t = pk.tables       # (None on the fast path: the single-path model's sizes)
    C = t.n_channels if t is not None else model.channels["count"]
    D = len(t.dev_lcu) if t is not None else model.devices["count"]
    states = stream_states(seed, point, R)
    threads = numba.get_num_threads()
    workers = max(1, min(R, threads)) if R * (ios + warmup) >= POOL_MIN_IOS[bool(fast_path)] else 1
    if workers == 1:    # one thread: each replication a row of one array (no other thread's counters beside it)
        stacked = (np.zeros((R, S.N_ACC)), np.zeros((R, C, S.N_CH)), np.zeros((R, D, S.N_DEV)),
                   np.zeros((R, HIST_BUCKETS), np.int64), np.zeros((R, MSER_BATCHES)))
        outs = [tuple(a[r] for a in stacked) for r in range(R)]
    else:
        outs = [(np.zeros(S.N_ACC), np.zeros((C, S.N_CH)), np.zeros((D, S.N_DEV)),
                 np.zeros(HIST_BUCKETS, np.int64), np.zeros(MSER_BATCHES)) for _ in range(R)]
    u_outs = [() if fast_path else pk.unit_outputs() for _ in range(R)]
    n_rows = len(pk.row_keys)       # layout.N_ROWS, and a configuration's own rows (engine/units.py)
    Lk, K = (len(t.ln_kb_per_ms), len(t.card_start_ms)) if t is not None else (0, 0)
    # (no rows unless asked: the kernel keeps no per-link figures then)
    louts = [(np.zeros((Lk if links else 0, N_LN)), np.zeros((K, N_CARD))) for _ in range(R)]

    stop = interrupt.flag()
    # an open load over capacity: the fast path measures the interval its completions took
    if overloaded is None and fast_path:
        overloaded = model.open_bottleneck()[1] >= 1.0
    overloaded = bool(fast_path and overloaded)

    kernel = run_one_units if pk.ip[L.IP_WORKLOADS] else run_one
    # the event kernel without the lognormal/empirical sampler when no distribution row needs
    # it (blockrng.fill_row: its tables None, that code compiled out; ~0.4 s of a first compile).
    # Not for run_one_units: the tests run both kinds of model through it at several signatures,
    # each would compile twice.
    simple = not fast_path and kernel is run_one and _simple_kinds_only(pk.dp)
    ev, ec = (None, None) if simple else (pk.ev, pk.ec)
    def one(r: int) -> None:
        if stop[0]:
            return  # stopped before this replication began: its outputs stay zero (0 measured)
        st = states[r].copy()
        # the replication's substreams: eight vector lanes and a scalar state per row of draws
        # (keyed by each row's stable name: layout.ROW_NAMES)
        lanes = np.empty((n_rows, 4, LANES), np.uint64)
        scal = np.empty((n_rows, 4), np.uint64)
        make_streams(st, pk.row_keys, lanes, scal)
        with interrupt.progress_slot() as done:
            if fast_path:
                fast_one(pk.fp, pk.ip, pk.dp, pk.ev, pk.ec, pk.cls_cum, pk.cls_kb, pk.cls_miss,
                         pk.cls_mp, pk.cls_proto, pk.trace, st, lanes, scal, *outs[r], stop, done,
                         overloaded)
            else:
                kernel(pk.fp, pk.ip, pk.dp, ev, ec, pk.cls_cum, pk.cls_kb, pk.cls_miss,
                        pk.cls_mp, pk.cls_proto, pk.al_prob, pk.al_idx, pk.dev_grp, pk.bound_dev,
                        pk.grp_ptr, pk.grp_ch, pk.chg_ptr, pk.chg, pk.trace, pk.lk, pk.un, st, lanes,
                        scal, *outs[r][:3], *louts[r], *u_outs[r], *outs[r][3:], stop, done)

    taken = iter(range(R))      # (shared: each thread takes the next replication; atomic under the GIL)

    def drain() -> None:
        for r in taken:
            one(r)

    with interrupt.polling(), interrupt.watching() as watched:
        # this thread takes part (one pool thread fewer to wake: ~0.1 ms a point), unless it is
        # the main thread and Ctrl-C could not reach its kernels (another wake-up fd in use)
        here = watched or threading.current_thread() is not threading.main_thread()
        helpers = workers - 1 if here else workers
        futures = [kernel_pool(threads).submit(drain) for _ in range(helpers)]
        try:
            if here:
                drain()
            for f in futures:
                f.result()
        finally:
            wait(futures)   # every replication has returned (a stopped one within ms)
    res = stacked if workers == 1 else tuple(np.stack([o[i] for o in outs]) for i in range(5))
    if links:
        res += tuple(np.stack([o[i] for o in louts]) for i in range(2))
    if with_units:        # (never with the fast path: it takes the single path only)
        res += (tuple(np.stack([o[i] for o in u_outs]) for i in range(4)),)
    return res


def simulate(model: Model, ios: int = 200_000, replications: int = 4, seed: int = 0,
             warmup: int | None = None, point: int = 0, allow_unstable: bool = False,
             per_device: bool = False, fast_path: str | bool = "auto", tables=None) -> xr.Dataset:
    """Simulate ``replications`` independent runs of ``ios`` measured I/Os each.

    ``warmup`` I/Os per replication are discarded first (default: ios // 10, at least 1,000).
    ``point`` keys the random streams of a sweep point. An open model at or over capacity
    raises McioError unless ``allow_unstable`` (then it is simulated, flagged and stopped
    early). ``fast_path``: "auto" uses the G/G/c recursion where the model reduces to it.
    ``tables``: the configuration as tables (:mod:`mcio.engine.tables`; None: the model's own).
    Returns a Dataset in RMF's vocabulary (docs/design.md §4); times in ms.
    """
    return simulate_part(model, ios, replications, seed, warmup, point, allow_unstable, per_device,
                         fast_path, tables=tables).to_dataset()


def simulate_part(model: Model, ios: int = 200_000, replications: int = 4, seed: int = 0,
                  warmup: int | None = None, point: int = 0, allow_unstable: bool = False,
                  per_device: bool = False, fast_path: str | bool = "auto", describe: bool = True,
                  coords: dict | None = None, tables=None) -> Part:
    """:func:`simulate`'s results as a :class:`mcio.part.Part` (plain arrays, the same variables,
    attributes and order), for callers that need no Dataset per point (a sweep stacks them).
    ``describe=False`` leaves out the ``model_toml`` attribute (~0.3-0.7 ms a call, as much as a
    small point's kernels): a sweep's file records its spec and base model instead, from which
    every point's model follows. ``coords``: a sweep point's coordinates, name -> (value, attrs),
    0-d coordinate variables after the engine's own (in the Part's one buffer, so that a part
    record takes it whole)."""
    if not isinstance(model, Model):
        raise McioError("model", type(model).__name__, "must be an mcio.Model")
    _check_run_args(ios, replications, warmup, seed, point)
    if warmup is None:
        warmup = max(1000, ios // 10)
    if not allow_unstable:
        model.check_open_capacity()
    # An open load over a station's capacity can only grow its queue: flag it and stop early
    # (a short run, enough to show the growth) instead of simulating all ``ios``.
    station, util, _ = model.open_bottleneck()
    over_capacity = util >= 1.0
    if over_capacity:
        ios = min(ios, UNSTABLE_IOS)
        warmup = min(warmup, ios)
    # a configuration's own control units and workloads (tables_of: a topology's, else legacy)
    units = not tables.legacy if tables is not None else getattr(model, "topology", None) is not None
    if fast_path == "auto":
        use_fast = not units and fast_path_applies(model)
    elif fast_path is True:
        if units or not fast_path_applies(model):
            raise McioError("fast_path", True, "this model does not reduce to one FIFO queue; use 'auto' or False")
        use_fast = True
    elif fast_path is False:
        use_fast = False
    else:
        raise McioError("fast_path", fast_path, "must be 'auto', True or False")
    if tables is None and not use_fast:     # (the fast path needs no tables: pack)
        tables = tables_of(model)
    out = run_kernels(model, ios, replications, seed, warmup, point, use_fast, tables, links=units,
                      with_units=units, overloaded=over_capacity)
    acc, chs, devs, hist, bat = out[:5]
    # the event engine stopped at an event of infinite time (kernels/iopath.py)
    stalled = not use_fast and bool((acc[:, S.A_UNSTABLE] == S.A_STALLED).any())
    if over_capacity:
        acc[:, S.A_UNSTABLE] = 1.0
    cut = interrupt.requested() and bool((acc[:, S.A_N] < ios).any())   # stopped (in a sweep)
    # short only if MSER cuts past the warm-up in most replications and the cut moves the mean
    # beyond its noise (mcio/warmup.py: a false-alarm rate measured by benchmarks/warmup_false_alarms.py)
    mser, short = judge_warmup(bat, warmup, ios, warmup + acc[:, S.A_N])
    adequate = not short
    extra = {
        "warmup_mser_ios": _var(mser, ("replication",), "1",
                                "warm-up MSER recommends (I/Os, on 64 batch means; -1: too short)"),
        "warmup_adequate": flag_var(adequate, "1 unless MSER cuts past the fixed warm-up in most "
                                              "replications and that cut moves the mean beyond its noise", FLAG_MEANINGS["warmup_adequate"])}
    if units:     # the control units', LCUs', workloads', links' and cards' figures (legacy Datasets stay as they are)
        extra.update(extra_vars(tables, *out[7], acc[:, S.A_TIME_MS]))
        extra.update(results_links.extra_vars(tables, out[5], out[6], acc[:, S.A_TIME_MS], chs[:, :, S.C_SSCH]))
    # a run too short for a steady state: flagged, with the bound it breaks (mcio/engine/physics.py)
    # (the bounds are the single-path model's: not checked for a configuration's own tables)
    short = "" if over_capacity or cut or units or acc[:, S.A_UNSTABLE].any() else physics.too_short(model, ios)
    if short:
        acc[:, S.A_UNSTABLE] = 1.0
    part = assemble(model, acc, chs, devs, hist, per_device, extra=extra, coords=coords)
    if not short and not cut and not units and not int(part.data("unstable")):
        short = physics.violation(model, part)
        if short:
            acc[:, S.A_UNSTABLE] = 1.0
            part = assemble(model, acc, chs, devs, hist, per_device, extra=extra, coords=coords)
    part.attrs.update({
        "unstable_reason": (f"open load over capacity: {station} utilisation {util:.3f} >= 1" if over_capacity
                            else short if short
                            else "stalled: a service time without end (past the largest double, ms)"
                            if stalled
                            else "queue outgrew the model's I/O pool" if int(part.data("unstable")) else ""),
        "title": "mcio simulation",
        "mcio_version": __version__, "numba_version": numba.__version__,
        "numpy_version": np.__version__, "seed": int(seed), "point": int(point),
        "ios": int(ios), "warmup_ios": int(warmup), "replications": int(replications),
        "warmup_rule": f"fixed: first {warmup} completions of each replication discarded",
        "engine": "fast-path G/G/c" if use_fast else "event",
        "device_busy_definition": "device_busy: RMF, (disconnect + connect) / interval; "
                                  "device_busy_zvm: z/VM, (pend + disconnect + connect) / interval",
        **({"model_toml": model.to_toml()} if describe else {}),
        **({"interrupted": 1} if cut else {}),  # cut short by a stop request: not a result
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    })
    part.point = int(point)
    return part


