"""The figures a base model needs and the data do not state, calibrated from what they do state,
interval by interval, then combined over the chosen intervals with their uncertainty.

Every figure is an :class:`Estimate`: its value, its kind (``measured``: read from a report;
``derived``: a stated formula of measured figures; ``fitted``: the model's inverse at the
measured figures (here: a queue's wait removed); ``assumed``: a choice the data cannot make,
listed in :data:`UNKNOWNS`), how it was obtained and its value in each interval. Over several
intervals the value is the mean of the per-interval values and the standard error their
spread / sqrt(n) (the figures are constant over a day, the intervals independent samples of
them); :func:`covariance` gives their joint covariance. One interval: no standard error (NaN).

The calibrations (the model's own physics, docs/design.md section 2.2):

- **MP work per I/O, per channel generation** (command mode; z/HPF = command mode /
  :data:`ZHPF_OVER_CCW`, the catalogue's Express4 ratio): a channel's MP busy = its operations x
  the mean work, so work_ccw = sum busy / sum ops / ((1 - z) + z / ratio), z the zHPF share of
  the operations. Assumes no MP work per KB or per command and no wake-up work (the data cannot
  separate them from the work per I/O).
- **Host-adapter work per I/O (CMR service), per LCU**: CMR = the host adapter's M/M/c wait +
  its service, solved for the service at the LCU's rate and :data:`HA_SERVERS` (assumed).
  Without CMR: pend - the MP's start work (mp_start_fraction x work per I/O; derived, as an
  upper bound: pend's waits are in it).
- **Back-end service per disconnected I/O, per LCU**: disconnect = misses per I/O x (the back
  end's M/M/c wait + its service), misses per I/O = read share x (1 - read hit ratio) + write
  share x (1 - write hit ratio), from the cache report. Without hit ratios only the product is
  identified: the service is fixed at the largest mean disconnect of the chosen intervals
  (assumed; then every I/O that disconnects takes it) and the miss ratio derived from it.
- **Transfer size per LCU**: the path group's MB/s (channel report, reads + writes) / its rate,
  split over the LCUs sharing the group in proportion to their connect times less the MP's end
  work ((1 - mp_start_fraction) x work per I/O, which the model counts in connect). Without MB/s: the
  size is assumed (:data:`ASSUMED_KB`) and the channels' link rate derived from the connect time.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..analytic.queues import mmc

#: z/HPF MP work = command mode / this (mcio.model.hardware: IBM's Express4 ratio)
ZHPF_OVER_CCW = 2.2
#: servers assumed where the data state none
HA_SERVERS = 16
BACKEND_SERVERS = 16
#: MP work share done at the start, in pend (assumed: as the ficon-channel calibration)
MP_START_FRACTION = 0.5
#: transfer size assumed where no data rate is stated, KB
ASSUMED_KB = 4.0

#: what the data of RMF / SMF / z/VM monitors cannot identify, and the value the base takes
UNKNOWNS = {
    "ha_servers": f"host-adapter servers per LCU: assumed {HA_SERVERS} (only queueing at high load shows them)",
    "backend_servers": f"back-end servers per LCU: assumed {BACKEND_SERVERS}",
    "service shapes": "host-adapter and back-end service distributions: assumed exponential",
    "mp_start_fraction": f"MP work share in pend: assumed {MP_START_FRACTION}",
    "mp_us_per_kb / per command / wake-up": "MP work beyond the per-I/O figure: assumed 0",
    "zhpf/ccw MP ratio": f"z/HPF MP work = command mode / {ZHPF_OVER_CCW} (catalogue ratio, not measured)",
    "fabric": "directors, ISLs, feature cards and port limits: not in the data; channels direct attached",
    "LPARs": "which LPAR's I/O goes where: one workload per LCU (rate, mix and size of the LCU's I/O)",
    "skew": "within an LCU, devices' rates as a hotset (the busiest tenth's share, derived); no zipf",
}


@dataclass
class Estimate:
    """One figure of the base model with its provenance (module docstring)."""

    value: float
    kind: str                      # measured / derived / fitted / assumed
    how: str
    per_interval: list = field(default_factory=list)
    #: one interval only: the relative standard error its sample size gives (the I/Os, or misses,
    #: it counted, service times assumed exponential); NaN if not known
    sampling_rel: float = float("nan")

    def _n(self) -> int:
        return int(np.isfinite(np.asarray(self.per_interval, float)).sum()) if self.per_interval else 0

    @property
    def stderr(self) -> float:
        """Over several intervals their spread / sqrt(n); one interval: its sampling error."""
        x = np.asarray([v for v in self.per_interval if np.isfinite(v)], float)
        if len(x) > 1:
            return float(np.std(x, ddof=1) / np.sqrt(len(x)))
        return float(abs(self.value) * self.sampling_rel) if len(x) == 1 else float("nan")

    @property
    def stderr_source(self) -> str:
        if self._n() > 1:
            return "standard error over the intervals"
        return "sampling standard error of the one interval (exponential service assumed)"

    def ci95(self) -> float:
        from scipy.stats import t
        n = self._n()
        q = t.ppf(0.975, n - 1) if n > 1 else 1.959964
        return float(q * self.stderr) if n >= 1 else float("nan")


def _combine(vals, kind, how, rel=None) -> Estimate:
    """The mean of the per-interval values; ``rel``: their relative sampling errors (one interval)."""
    v = np.asarray(vals, float)
    ok = v[np.isfinite(v)]
    r = float("nan")
    if rel is not None and len(ok) == 1:
        r = float(np.asarray(rel, float)[np.isfinite(v)][0])
    return Estimate(float(ok.mean()) if len(ok) else float("nan"), kind, how, [float(x) for x in v], r)


def _rel(n) -> float:
    """1 / sqrt(n), NaN for no count."""
    return float(1.0 / np.sqrt(n)) if np.isfinite(n) and n > 0 else float("nan")


def service_from_response(resp_ms: float, rate_per_s: float, servers: int) -> float:
    """The M/M/c service mean whose response (wait + service) at ``rate_per_s`` is ``resp_ms``."""
    if not np.isfinite(resp_ms) or resp_ms <= 0:
        return float("nan")
    lam = rate_per_s / 1000.0                   # per ms
    lo, hi = 0.0, resp_ms
    if lam * hi / servers >= 1.0:
        hi = 0.999999 * servers / lam
    for _ in range(80):
        s = 0.5 * (lo + hi)
        if s <= 0:
            break
        r = mmc(lam, s, servers).mean_response if lam > 0 else s
        lo, hi = (s, hi) if r < resp_ms else (lo, s)
    return 0.5 * (lo + hi)


def mp_work(obs, intervals, gen_of: dict) -> dict:
    """generation -> Estimate of the command-mode MP work per I/O (us), per interval."""
    out = {}
    ch = obs.channel
    if not len(ch):
        return out
    gens = sorted(set(gen_of.values()))
    for g in gens:
        vals, rel = [], []
        for t in intervals:
            if t not in ch.index.get_level_values(0):
                vals.append(float("nan"))
                rel.append(float("nan"))
                continue
            c = ch.loc[t]
            c = c[[gen_of.get(k) == g for k in c.index]]
            ops, busy = c["ops_per_s"].sum(), c["busy"].sum()
            zh = c["zhpf_ops_per_s"].sum() if c["zhpf_ops_per_s"].notna().any() else 0.0
            z = zh / ops if ops > 0 else 0.0
            vals.append(busy / ops * 1e6 / ((1 - z) + z / ZHPF_OVER_CCW) if ops > 0 and np.isfinite(busy) else float("nan"))
            rel.append(_rel(ops * float(obs.totals.loc[t, "interval_s"])))
        out[g] = _combine(vals, "fitted", "channel MP busy / operations (UTILIZATION TOTAL, FICON + zHPF OPS RATE), "
                                         f"command mode with z/HPF at 1/{ZHPF_OVER_CCW}", rel)
    return out


def zhpf_share(obs, intervals) -> Estimate:
    ch = obs.channel
    vals = []
    for t in intervals:
        if len(ch) and t in ch.index.get_level_values(0) and ch.loc[t]["zhpf_ops_per_s"].notna().any():
            c = ch.loc[t]
            vals.append(float(c["zhpf_ops_per_s"].sum() / c["ops_per_s"].sum()))
        else:
            vals.append(float("nan"))
    if not np.isfinite(vals).any():
        return Estimate(0.0, "assumed", "no zHPF operation counts in the data: command mode", [])
    return _combine(vals, "measured", "zHPF OPS RATE / (FICON + zHPF OPS RATE), all channels")


def lcu_figures(obs, intervals, mp_start_us: dict, ha_servers: int = HA_SERVERS,
                be_servers: int = BACKEND_SERVERS) -> dict:
    """lcu -> {name: Estimate}: rate, write_share, miss_ratio, write_miss_ratio, ha_service_us,
    backend_service_ms, hot_share. ``mp_start_us``: lcu -> the MP start work in its pend (us),
    used only where no CMR is measured."""
    L = obs.lcu
    out = {}
    lcus = sorted(set(L.index.get_level_values(1)))
    for lc in lcus:
        rows = [L.loc[(t, lc)] if (t, lc) in L.index else None for t in intervals]
        f = {}
        rate = [r["ssch_per_s"] if r is not None else 0.0 for r in rows]
        n_io = [r["ssch_per_s"] * r["interval_s"] if r is not None else np.nan for r in rows]
        f["rate_iops"] = _combine(rate, "measured", "sum of the LCU's devices' DEVICE ACTIVITY RATE")
        rs = [r["read_share"] if r is not None else np.nan for r in rows]
        if np.isfinite(rs).any():
            f["write_share"] = _combine([1 - x for x in rs], "measured", "1 - READ / I/O RATE (cache report)")
        else:
            f["write_share"] = Estimate(0.0, "assumed", "no read/write split in the data: all reads", [])
        rh = [r["read_hit_ratio"] if r is not None else np.nan for r in rows]
        wh = [r["write_hit_ratio"] if r is not None else np.nan for r in rows]
        have_hits = np.isfinite(rh).any()
        cmr = [r["cmr_ms"] if r is not None else np.nan for r in rows]
        if np.isfinite(cmr).any():
            ha = [service_from_response(c, x, ha_servers) * 1000.0 for c, x in zip(cmr, rate)]
            src = ("AVG CMR DLY of the LCU's paths (I/O queuing report; the device report states none)"
                   if any(r is not None and r.get("cmr_from") == "paths" for r in rows) else "AVG CMR DLY")
            f["ha_service_us"] = _combine(ha, "fitted", f"{src} less the host adapter's M/M/{ha_servers} wait",
                                          [_rel(n) for n in n_io])
        else:
            pend = [r["pend_ms"] if r is not None else np.nan for r in rows]
            ha = [max(p * 1000.0 - mp_start_us.get(lc, 0.0), 1.0) for p in pend]
            f["ha_service_us"] = _combine(ha, "derived", "AVG PEND TIME less the MP's start work (no CMR in the data: "
                                                         "an upper bound, pend's waits are in it)")
        disc = [r["disc_ms"] if r is not None else np.nan for r in rows]
        if have_hits:
            ws = [1 - x if np.isfinite(x) else 0.0 for x in rs]
            f["miss_ratio"] = _combine([1 - x for x in rh], "measured", "1 - READ HIT RATIO (cache report)")
            wm = [1 - x if np.isfinite(x) else 0.0 for x in wh]
            f["write_miss_ratio"] = _combine(wm, "measured", "1 - WRITE HIT RATIO (cache report)")
            be, rel = [], []
            for d, x, w, h, m2, n in zip(disc, rate, ws, rh, wm, n_io):
                miss = (1 - w) * (1 - h) + w * m2
                be.append(service_from_response(d / miss, x * miss, be_servers) if miss > 0 else np.nan)
                # the misses' service times, and the miss count's binomial error
                rel.append(np.sqrt(_rel(n * miss) ** 2 + (1 - miss) / (n * miss)) if miss > 0 and n > 0 else np.nan)
            f["backend_service_ms"] = _combine(be, "fitted", "AVG DISC TIME / misses per I/O, less the back end's "
                                                             f"M/M/{be_servers} wait", rel)
        else:
            top = float(np.nanmax(disc)) if np.isfinite(disc).any() else 0.0
            s = max(top, 0.01)
            f["backend_service_ms"] = Estimate(s, "assumed", "no hit ratios in the data: the largest mean disconnect "
                                                             "of the chosen intervals (only miss ratio x service is identified)",
                                               [])
            f["miss_ratio"] = _combine([d / s if np.isfinite(d) else np.nan for d in disc], "derived",
                                       "AVG DISC TIME / the assumed back-end service")
            f["write_miss_ratio"] = Estimate(0.0, "assumed", "no write hit ratio: DASD fast write", [])
        hot = [r["hot10_share"] if r is not None else np.nan for r in rows]
        f["hot_share"] = _combine(hot, "derived", "share of the LCU's I/O on its busiest tenth of devices")
        f["devices"] = Estimate(float(len(obs.devices.get(lc, []))), "measured", "devices seen in the device report", [])
        f["conn_ms"] = _combine([r["conn_ms"] if r is not None else np.nan for r in rows], "measured", "AVG CONN TIME")
        out[lc] = f
    return out


def sizes(obs, intervals, lcu_f: dict, paths: dict, conn_fixed_ms: dict | None = None) -> dict:
    """lcu -> Estimate of KB per I/O: the path group's MB/s / rate, split over the group's LCUs by
    the part of their connect time that moves data: connect less ``conn_fixed_ms[lcu]`` (the MP's
    end work, in connect in the model)."""
    conn_fixed_ms = conn_fixed_ms or {}
    ch = obs.channel
    out = {}
    groups: dict = {}
    for lc, p in paths.items():
        groups.setdefault(tuple(sorted(p)), []).append(lc)
    have_mb = len(ch) and ch["read_mb_s"].notna().any()
    for key, lcs in groups.items():
        per = {lc: [] for lc in lcs}
        for t in intervals:
            if not have_mb or t not in ch.index.get_level_values(0):
                for lc in lcs:
                    per[lc].append(np.nan)
                continue
            c = ch.loc[t]
            c = c[c.index.isin(key)]
            mb = float(np.nansum(c["read_mb_s"]) + np.nansum(c["write_mb_s"]))
            L = obs.lcu
            w = {lc: (L.loc[(t, lc), "ssch_per_s"], max(L.loc[(t, lc), "conn_ms"] - conn_fixed_ms.get(lc, 0.0), 0.0))
                 if (t, lc) in L.index else (0.0, np.nan) for lc in lcs}
            denom = sum(r * cn for r, cn in w.values() if np.isfinite(cn))
            for lc in lcs:
                r, cn = w[lc]
                per[lc].append(mb * 1000.0 * cn / denom if denom > 0 and np.isfinite(cn) else np.nan)
        for lc in lcs:
            if np.isfinite(per[lc]).any():
                out[lc] = _combine(per[lc], "derived", "path group's READ + WRITE MB/s / its I/O rate, split over its LCUs "
                                                       "by connect time less the MP's end work")
            else:
                out[lc] = Estimate(ASSUMED_KB, "assumed", "no data rate in the data", [])
    return out


def covariance(estimates: dict) -> tuple[list, np.ndarray]:
    """(names, covariance of the means) of the estimates with per-interval values, from their joint
    spread over the intervals (NaN where fewer than two intervals)."""
    names = [k for k, e in estimates.items() if len(e.per_interval) > 1 and np.isfinite(e.per_interval).all()]
    if not names:
        return [], np.zeros((0, 0))
    X = np.array([estimates[k].per_interval for k in names], float)
    n = X.shape[1]
    return names, np.atleast_2d(np.cov(X, ddof=1)) / n


__all__ = ["Estimate", "UNKNOWNS", "ZHPF_OVER_CCW", "HA_SERVERS", "BACKEND_SERVERS", "MP_START_FRACTION",
           "ASSUMED_KB", "service_from_response", "mp_work", "zhpf_share", "lcu_figures", "sizes", "covariance"]
