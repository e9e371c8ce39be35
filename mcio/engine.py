"""Packs a model into kernel arrays, runs replications in parallel, returns a labelled Dataset.

``simulate`` is the one entry point. Validation and unit conversion happen here (kernels trust
their inputs); kernels run in ms and KB; outputs are labelled in RMF's vocabulary.
"""
from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone

import numba
import numpy as np
import xarray as xr
from scipy import stats

from . import __version__
from .errors import McioError
from .kernels import layout as L
from .kernels.histogram import HIST_BUCKETS, hist_quantiles
from .model import Dist, Model
from .model.dist import KIND_CODE
from .warmup import MSER_BATCHES, mser_warmup_ios

QUANTILES = (0.5, 0.9, 0.95, 0.99)
OPEN_SLOTS = 1 << 16          # I/Os an open model may hold before it is called unstable
UNSTABLE_IOS = 20_000         # I/Os simulated for a point known to be over capacity


# ---------------------------------------------------------------------------- random streams


def stream_states(seed: int, point: int, replications: int) -> np.ndarray:
    """xoshiro256** states, one per replication, keyed by (seed, point, replication)."""
    out = np.empty((replications, 4), dtype=np.uint64)
    for r in range(replications):
        st = np.random.SeedSequence(entropy=int(seed), spawn_key=(int(point), r)).generate_state(4, np.uint64)
        if not st.any():      # the all-zero state is xoshiro's only fixed point
            st[0] = 1
        out[r] = st
    return out


# ---------------------------------------------------------------------------- packing


def _dist_row(d: Dist, ev: list, ec: list) -> list:
    kind = KIND_CODE[d.kind]
    row = [float(kind), d.mean, d.scv, 0.0, 0.0]
    if d.kind == "gamma":
        row[3] = 1.0 / d.scv
        row[4] = d.mean * d.scv
    elif d.kind == "lognormal":
        sigma2 = math.log1p(d.scv)
        row[3] = math.log(d.mean) - sigma2 / 2 if d.mean > 0 else -math.inf
        row[4] = math.sqrt(sigma2)
    elif d.kind == "empirical":
        w = np.asarray(d.weights, float)
        row[3] = float(len(ev))
        row[4] = float(len(d.values))
        ev.extend(d.values)
        ec.extend((np.cumsum(w) / w.sum()).tolist())
        ec[-1] = 1.0
    return row


def _alias_table(p: np.ndarray):
    """Walker's alias method: O(1) device choice under any skew."""
    n = len(p)
    prob = p * n
    alias = np.arange(n, dtype=np.int64)
    small = [i for i in range(n) if prob[i] < 1.0]
    large = [i for i in range(n) if prob[i] >= 1.0]
    while small and large:
        s, l = small.pop(), large.pop()
        alias[s] = l
        prob[l] -= 1.0 - prob[s]
        (small if prob[l] < 1.0 else large).append(l)
    for i in small + large:
        prob[i] = 1.0
    return prob.astype(np.float64), alias


@dataclass
class Packed:
    """Everything a kernel needs, as arrays (see mcio/kernels/layout.py)."""

    fp: np.ndarray
    ip: np.ndarray
    dp: np.ndarray
    ev: np.ndarray
    ec: np.ndarray
    cls_cum: np.ndarray
    cls_kb: np.ndarray
    cls_miss: np.ndarray
    cls_mp: np.ndarray
    cls_proto: np.ndarray
    al_prob: np.ndarray
    al_idx: np.ndarray
    dev_grp: np.ndarray
    bound_dev: np.ndarray
    grp_ptr: np.ndarray
    grp_ch: np.ndarray
    chg_ptr: np.ndarray
    chg: np.ndarray
    trace: np.ndarray


def pack(model: Model, ios: int, warmup: int) -> Packed:
    """Convert a validated model into kernel arrays (ms, KB, KB/ms)."""
    w, d, c, cu = model.workload, model.devices, model.channels, model.control_unit
    is_open = w["type"] == "open"
    ev: list = []
    ec: list = []
    rows = [None] * L.N_DIST
    arr = Dist("deterministic", 1.0)
    if is_open:
        mean_gap = 1000.0 / w["rate_iops"]   # (a trace replaces the rate; see below)
        scv = w["arrival_scv"]
        arr = Dist("deterministic", mean_gap) if scv == 0 else (
            Dist("exponential", mean_gap, 1.0) if scv == 1 else Dist("gamma", mean_gap, scv))
    rows[L.D_INTERARRIVAL] = _dist_row(arr, ev, ec)
    rows[L.D_THINK] = _dist_row(w["think_ms"], ev, ec)
    rows[L.D_HA] = _dist_row(cu["ha_service_us"].scaled(1e-3), ev, ec)
    rows[L.D_BACKEND] = _dist_row(cu["backend_service_ms"], ev, ec)
    mp_shape = Dist("deterministic", 1.0) if c["mp_scv"] == 0 else Dist("gamma", 1.0, c["mp_scv"])
    rows[L.D_MP_SHAPE] = _dist_row(mp_shape, ev, ec)
    dp = np.array(rows, dtype=np.float64)

    shares = model.class_shares()
    n_cls = len(model.io)
    cls_mp = np.zeros((n_cls, 2))
    cls_proto = np.zeros((n_cls, 2))
    for k, cl in enumerate(model.io):
        for m, mode in enumerate(("ccw", "zhpf")):
            cls_mp[k, m] = (c[f"mp_us_per_io_{mode}"] + c[f"mp_us_per_command_{mode}"] * cl["records"]
                            + c[f"mp_us_per_kb_{mode}"] * cl["kb"]) / 1000.0
        # connect-time work per command (channel protocol + control unit), per I/O in z/HPF
        cls_proto[k, 0] = (c["protocol_us_per_command_ccw"] + cu["cu_us_per_command_ccw"]) * cl["records"] / 1000.0
        cls_proto[k, 1] = (c["protocol_us_per_io_zhpf"] + (c["protocol_us_per_command_zhpf"]
                                                           + cu["cu_us_per_command_zhpf"]) * cl["records"]) / 1000.0

    weights = model.device_weights()
    al_prob, al_idx = _alias_table(weights.copy())
    n_dev = d["count"]
    n_ch = c["count"]
    # path groups: distinct channel sets; each device belongs to one
    if d["paths"] is None:
        groups = [tuple(range(n_ch))]
        dev_grp = np.zeros(n_dev, np.int64)
    else:
        per_dev = d["paths"] if len(d["paths"]) == n_dev else d["paths"] * n_dev
        groups, dev_grp = [], np.empty(n_dev, np.int64)
        index: dict = {}
        for i, p in enumerate(per_dev):
            key = tuple(p)
            if key not in index:
                index[key] = len(groups)
                groups.append(key)
            dev_grp[i] = index[key]
    grp_ptr = np.cumsum([0] + [len(g) for g in groups]).astype(np.int64)
    grp_ch = np.array([ch for g in groups for ch in g], np.int64)
    ch_groups = [[gi for gi, g in enumerate(groups) if ch in g] for ch in range(n_ch)]
    chg_ptr = np.cumsum([0] + [len(x) for x in ch_groups]).astype(np.int64)
    chg = np.array([gi for x in ch_groups for gi in x] or [0], np.int64)

    slots = OPEN_SLOTS if is_open else w["population"]
    bind = (not is_open) and w["binding"] == "device"
    used = np.flatnonzero(weights > 0)
    bound_dev = np.resize(used, slots).astype(np.int64) if bind else np.zeros(1, np.int64)
    # a trace of arrival times is replayed as its gaps, cyclically, from a random start per replication
    trace = np.diff(w["arrival_trace_ms"]) if w["arrival_trace_ms"] else np.ones(1)

    ip = np.zeros(L.N_IP, np.int64)
    ip[L.IP_OPEN] = int(is_open)
    ip[L.IP_SLOTS] = slots
    ip[L.IP_DEVICES] = n_dev
    ip[L.IP_EXPOSURES] = 1 + d["aliases"]
    ip[L.IP_CHANNELS] = n_ch
    ip[L.IP_OE_CAP] = c["max_open_exchanges"]
    ip[L.IP_SELECTION] = 0 if c["selection"] == "rotate" else 1
    ip[L.IP_HA_SERVERS] = cu["ha_servers"]
    ip[L.IP_BE_SERVERS] = cu["backend_servers"]
    ip[L.IP_WARMUP] = warmup
    ip[L.IP_MEASURE] = ios
    ip[L.IP_BIND] = int(bind)
    ip[L.IP_CLASSES] = n_cls
    ip[L.IP_TRACE] = int(is_open and w["arrival_trace_ms"] is not None)
    ip[L.IP_GROUPS] = len(groups)
    ip[L.IP_HYPERPAV] = int(d["alias_mode"] == "hyperpav")
    fp = np.zeros(L.N_FP)
    fp[L.FP_MP_START_FRACTION] = c["mp_start_fraction"]
    fp[L.FP_LINK_KB_PER_MS] = c["link_mb_s"]         # 1 MB/s = 1 KB/ms
    fp[L.FP_ZHPF_SHARE] = c["zhpf_share"]
    return Packed(fp, ip, dp, np.asarray(ev or [0.0], float), np.asarray(ec or [1.0], float),
                  np.cumsum(shares), np.array([cl["kb"] for cl in model.io], float),
                  np.array([cl["miss_ratio"] for cl in model.io], float), cls_mp, cls_proto,
                  al_prob, al_idx, dev_grp, bound_dev, grp_ptr, grp_ch, chg_ptr, chg, trace)


def fast_path_applies(model: Model) -> bool:
    """True when the model reduces exactly to one FIFO G/G/c queue (see kernels/fastpath.py).

    One device under an open load: with no aliases only one I/O is ever past IOSQ, so nothing
    downstream can queue. With c exposures, every downstream station must also be uncontended:
    no MP work, enough host adapters, back-end servers and exchanges, and no shared transfer.
    """
    w, d, c, cu = model.workload, model.devices, model.channels, model.control_unit
    if w["type"] != "open" or d["count"] != 1:
        return False
    n = 1 + d["aliases"]
    if n == 1:
        return True
    dem = model.mean_demands_ms()
    return (dem["mp"] == 0 and dem["link"] == 0
            and (cu["ha_servers"] >= n or dem["ha"] == 0)
            and (cu["backend_servers"] >= n or dem["backend"] == 0)
            and c["max_open_exchanges"] * c["count"] >= n)


# ---------------------------------------------------------------------------- running


def _check_run_args(ios, replications, warmup, seed, point):
    for name, v, lo in (("ios", ios, 1), ("replications", replications, 2), ("point", point, 0)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
            raise McioError(name, v, f"must be an integer >= {lo}")
    if warmup is not None and (isinstance(warmup, bool) or not isinstance(warmup, (int, np.integer)) or warmup < 0):
        raise McioError("warmup", warmup, "must be an integer >= 0 (I/Os discarded per replication) or omitted")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise McioError("seed", seed, "must be an integer >= 0")


def run_kernels(model: Model, ios: int, replications: int, seed: int, warmup: int, point: int,
                fast_path: bool):
    """Run the replications on up to ``numba.get_num_threads()`` threads; return the raw
    accumulators (acc, chs, devs, hist, bat), stacked by replication.

    The kernels release the GIL, so a plain thread pool runs them in parallel. Each replication
    writes its own, separately allocated arrays: rows of one shared array would put two
    threads' hot counters on one cache line. The result cannot depend on the thread count:
    replication r always uses stream r and its own outputs.
    """
    from .kernels.blockrng import LANES, make_streams
    from .kernels.fastpath import fast_one
    from .kernels.iopath import run_one
    pk = pack(model, ios, warmup)
    R = replications
    C = model.channels["count"]
    D = model.devices["count"]
    states = stream_states(seed, point, R)
    outs = [(np.zeros(L.N_ACC), np.zeros((C, L.N_CH)), np.zeros((D, L.N_DEV)),
             np.zeros(HIST_BUCKETS, np.int64), np.zeros(MSER_BATCHES)) for _ in range(R)]

    def one(r: int) -> None:
        st = states[r].copy()
        # the replication's substreams: eight vector lanes and a scalar state per row of draws
        lanes = np.empty((L.N_ROWS, 4, LANES), np.uint64)
        scal = np.empty((L.N_ROWS, 4), np.uint64)
        make_streams(st, lanes, scal)
        if fast_path:
            fast_one(pk.fp, pk.ip, pk.dp, pk.ev, pk.ec, pk.cls_cum, pk.cls_kb, pk.cls_miss,
                     pk.cls_mp, pk.cls_proto, pk.trace, st, lanes, scal, *outs[r])
        else:
            run_one(pk.fp, pk.ip, pk.dp, pk.ev, pk.ec, pk.cls_cum, pk.cls_kb, pk.cls_miss,
                    pk.cls_mp, pk.cls_proto, pk.al_prob, pk.al_idx, pk.dev_grp, pk.bound_dev,
                    pk.grp_ptr, pk.grp_ch, pk.chg_ptr, pk.chg, pk.trace, st, lanes, scal, *outs[r])

    workers = max(1, min(R, numba.get_num_threads()))
    if workers == 1:
        for r in range(R):
            one(r)
    else:
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="mcio") as pool:
            list(pool.map(one, range(R)))
    return tuple(np.stack([o[i] for o in outs]) for i in range(5))


def simulate(model: Model, ios: int = 200_000, replications: int = 4, seed: int = 0,
             warmup: int | None = None, point: int = 0, allow_unstable: bool = False,
             per_device: bool = False, fast_path: str | bool = "auto") -> xr.Dataset:
    """Simulate ``replications`` independent runs of ``ios`` measured I/Os each.

    ``warmup`` I/Os per replication are discarded first (default: ios // 10, at least 1,000).
    ``point`` keys the random streams of a sweep point. An open model at or over capacity
    raises McioError unless ``allow_unstable`` (then it is simulated, flagged and stopped
    early). ``fast_path``: "auto" uses the G/G/c recursion where the model reduces to it.
    Returns a Dataset in RMF's vocabulary (DESIGN.md §4); times in ms.
    """
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
    if fast_path == "auto":
        use_fast = fast_path_applies(model)
    elif fast_path is True:
        if not fast_path_applies(model):
            raise McioError("fast_path", True, "this model does not reduce to one FIFO queue; use 'auto' or False")
        use_fast = True
    elif fast_path is False:
        use_fast = False
    else:
        raise McioError("fast_path", fast_path, "must be 'auto', True or False")
    acc, chs, devs, hist, bat = run_kernels(model, ios, replications, seed, warmup, point, use_fast)
    if over_capacity:
        acc[:, L.A_UNSTABLE] = 1.0
    mser = mser_warmup_ios(bat, warmup + ios, warmup + acc[:, L.A_N])
    # adequate if MSER asks for no more than the warm-up used, to one batch's resolution
    adequate = bool((mser <= warmup + (warmup + ios) // MSER_BATCHES + 1).all())
    ds = assemble(model, acc, chs, devs, hist, per_device, extra={
        "warmup_mser_ios": _var(mser, ("replication",), "1",
                                "warm-up MSER recommends (I/Os, on 64 batch means; -1: too short)"),
        "warmup_adequate": _var(np.int8(adequate), (), "1",
                                "1 if the fixed warm-up covers what MSER recommends in every replication")})
    ds.attrs.update({
        "unstable_reason": (f"open load over capacity: {station} utilisation {util:.3f} >= 1" if over_capacity
                            else "queue outgrew the model's I/O pool" if int(ds.unstable) else ""),
        "title": "mcio simulation",
        "mcio_version": __version__, "numba_version": numba.__version__,
        "numpy_version": np.__version__, "seed": int(seed), "point": int(point),
        "ios": int(ios), "warmup_ios": int(warmup), "replications": int(replications),
        "warmup_rule": f"fixed: first {warmup} completions of each replication discarded",
        "engine": "fast-path G/G/c" if use_fast else "event",
        "device_busy_definition": "device_busy: RMF, (disconnect + connect) / interval; "
                                  "device_busy_zvm: z/VM, (pend + disconnect + connect) / interval",
        "model_toml": model.to_toml(),
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    })
    return ds


# ---------------------------------------------------------------------------- results


def ci95_halfwidth(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Student-t 95 % half-width of the mean of ``x`` along ``axis`` (replications)."""
    n = x.shape[axis]
    return stats.t.ppf(0.975, n - 1) * np.std(x, axis=axis, ddof=1) / math.sqrt(n)


def _var(data, dims, units, long_name):
    return xr.Variable(dims, data, attrs={"units": units, "long_name": long_name})


def assemble(model: Model, acc, chs, devs, hist, per_device: bool, extra: dict | None = None) -> xr.Dataset:
    """Turn raw accumulators into the labelled results Dataset."""
    R, C = chs.shape[0], chs.shape[1]
    n = np.maximum(acc[:, L.A_N], 1.0)
    T = np.maximum(acc[:, L.A_TIME_MS], 1e-300)
    unstable = bool(acc[:, L.A_UNSTABLE].any())
    v = {}
    names = {"response": "response time (IOSQ + pend + disconnect + connect)",
             "iosq": "IOSQ time (queued for the device)", "pend": "pend time (incl. CMR)",
             "cmr": "command response (CMR) delay", "disconnect": "disconnect time",
             "connect": "connect time"}
    sums = [L.A_SUM_RESP, L.A_SUM_IOSQ, L.A_SUM_PEND, L.A_SUM_CMR, L.A_SUM_DISC, L.A_SUM_CONN]
    for comp, k in zip(L.COMPONENTS, sums):
        mean = acc[:, k] / n
        v[f"{comp}_ms"] = _var(mean, ("replication",), "ms", "mean " + names[comp])
        v[f"{comp}_ci95_ms"] = _var(ci95_halfwidth(mean), (), "ms",
                                    f"95% CI half-width of mean {comp} over replications")
    sq = acc[:, L.A_SQ_RESP] / n - (acc[:, L.A_SUM_RESP] / n) ** 2
    v["response_std_ms"] = _var(np.sqrt(np.maximum(sq, 0.0)), ("replication",), "ms",
                                "standard deviation of response time")
    thr = acc[:, L.A_N] / T * 1000.0
    v["throughput_iops"] = _var(thr, ("replication",), "s-1", "I/O rate (SSCH/s)")
    v["throughput_ci95_iops"] = _var(ci95_halfwidth(thr), (), "s-1", "95% CI half-width of the I/O rate")
    total_hist = hist.sum(axis=0)
    v["response_quantile_ms"] = _var(hist_quantiles(total_hist, QUANTILES), ("quantile",), "ms",
                                     "response-time quantile (all replications merged)")
    per_rep = np.array([hist_quantiles(h, QUANTILES) for h in hist])
    v["response_quantile_rep_ms"] = _var(per_rep, ("replication", "quantile"), "ms",
                                         "response-time quantile per replication")
    v["response_quantile_ci95_ms"] = _var(ci95_halfwidth(per_rep, axis=0), ("quantile",), "ms",
                                          "95% CI half-width of the quantile over replications")
    v["in_system_mean"] = _var(acc[:, L.A_AREA_SYS] / T, ("replication",), "1",
                               "time-average number of I/Os in the system")
    v["iosq_queue_mean"] = _var(acc[:, L.A_AREA_IOSQ] / T, ("replication",), "1",
                                "time-average number of I/Os queued for devices (IOSQ)")
    v["mp_queue_mean"] = _var(acc[:, L.A_AREA_MPQ] / T, ("replication",), "1",
                              "time-average number of I/Os waiting for the channel MP (start work)")
    v["cu_ha_busy"] = _var(acc[:, L.A_AREA_HA] / T / model.control_unit["ha_servers"], ("replication",), "1",
                           "control-unit host-adapter utilisation")
    v["backend_busy"] = _var(acc[:, L.A_AREA_BE] / T / model.control_unit["backend_servers"], ("replication",),
                             "1", "back-end utilisation")
    v["device_busy"] = _var(acc[:, L.A_DEV_BUSY_MS] / T / model.devices["count"], ("replication",), "1",
                            "device busy, RMF definition: (disconnect + connect) / interval, mean over devices")
    v["device_busy_zvm"] = _var(acc[:, L.A_DEV_BUSY_ZVM_MS] / T / model.devices["count"], ("replication",), "1",
                                "device busy, z/VM definition: (pend + disconnect + connect) / interval, mean over devices")
    v["ios_measured"] = _var(acc[:, L.A_N], ("replication",), "1", "I/Os measured (after warm-up)")
    v["sim_time_s"] = _var(T / 1000.0, ("replication",), "s", "simulated measurement interval")
    Tc = T[:, None]
    v["channel_busy"] = _var(chs[:, :, L.C_MP_BUSY_MS] / Tc, ("replication", "channel"), "1",
                             "channel (MP) busy fraction, RMF channel utilisation")
    v["link_busy"] = _var(chs[:, :, L.C_LINK_BUSY_MS] / Tc, ("replication", "channel"), "1",
                          "link (bus) busy fraction")
    v["open_exchanges_mean"] = _var(chs[:, :, L.C_AREA_OE] / Tc, ("replication", "channel"), "1",
                                    "time-average open exchanges")
    v["open_exchanges_max"] = _var(chs[:, :, L.C_OE_MAX], ("replication", "channel"), "1",
                                   "peak open exchanges")
    v["deferred_iops"] = _var(chs[:, :, L.C_DEFERRED] / Tc * 1000.0, ("replication", "channel"), "s-1",
                              "I/Os deferred for lack of an open exchange, per second")
    v["channel_ssch_iops"] = _var(chs[:, :, L.C_SSCH] / Tc * 1000.0, ("replication", "channel"), "s-1",
                                  "I/O rate (SSCH/s) per channel")
    v["channel_mb_s"] = _var(chs[:, :, L.C_KB] / Tc, ("replication", "channel"), "MB s-1",
                             "data rate per channel (1 MB = 1000 KB)")
    if per_device:
        Td = T[:, None]
        v["device_ssch_iops"] = _var(devs[:, :, L.V_SSCH] / Td * 1000.0, ("replication", "device"), "s-1",
                                     "I/O rate (SSCH/s) per device")
        v["device_busy_by_device"] = _var(devs[:, :, L.V_BUSY_MS] / Td, ("replication", "device"), "1",
                                          "device busy per device, RMF definition")
    v["unstable"] = _var(np.int8(unstable), (), "1",
                         "1 if the open load outgrew the model (run stopped early), else 0")
    v.update(extra or {})          # one Dataset constructor: each later assignment is a merge
    coords = {"replication": np.arange(R), "channel": np.arange(C), "quantile": np.array(QUANTILES)}
    if per_device:
        coords["device"] = np.arange(model.devices["count"])
    ds = xr.Dataset(v, coords=coords)
    ds["quantile"].attrs.update(units="1", long_name="probability of the response-time quantile")
    ds["replication"].attrs.update(units="1", long_name="independent replication")
    ds["channel"].attrs.update(units="1", long_name="channel (CHPID) index")
    if per_device:
        ds["device"].attrs.update(units="1", long_name="device index")
    return ds
