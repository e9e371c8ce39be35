"""A base model from measured data: the configuration (channels, LCUs with their devices and path
groups, one control unit and one workload per LCU) with every figure's provenance, as a model dict
:class:`BaseModel` (runnable: ``Model.from_dict(base.config)``) and as a commented TOML spec
(:meth:`BaseModel.to_toml`).

What comes from where (docs/base.md has the table): channels and their generation from the
channel report; path groups from the I/O queuing report; devices from the device report; rates,
sizes, read/write and hit ratios per LCU from the device, channel and cache reports; MP work,
host-adapter and back-end service calibrated (:mod:`.derive`). A figure the data cannot give is
assumed and listed in :attr:`BaseModel.unknowns`.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import McioError
from . import derive as D
from .observe import NO_LCU, Observed

#: channels assumed where the data name none (a z/VM monitor's DASD screen)
ASSUMED_CHANNELS = 4
#: the generation assumed for a channel whose generation the data do not state
ASSUMED_GENERATION = "4"


@dataclass
class BaseModel:
    """The configuration (a model dict), each figure's provenance, and what was assumed."""

    config: dict
    notes: dict                                   # dotted path -> comment
    estimates: dict                               # name -> derive.Estimate
    intervals: list
    workload_lcu: dict                            # workload name -> LCU
    unknowns: dict
    sources: list
    command: str = ""
    covariance: tuple = field(default_factory=lambda: ([], np.zeros((0, 0))))

    def model(self):
        from ..model import Model
        return Model.from_dict(copy.deepcopy(self.config), where="base model")

    def to_toml(self) -> str:
        from .spec import format_base
        return format_base(self)


def _gen_name(text) -> str | None:
    from ..model.hardware import generation
    if not isinstance(text, str) or not text.strip():
        return None
    try:
        return generation(text).name
    except McioError:
        return None


def _speed_gbps(text) -> float | None:
    """The link rate of RMF's SPEED column ('16G', '8', '4 GB'), Gbit/s; None if not stated."""
    import re
    m = re.match(r"\s*(\d+(?:\.\d+)?)\s*G?", str(text or "").upper())
    return float(m.group(1)) if m and str(text).strip() else None


def channel_generation(g_text, speed_text) -> tuple[str | None, str]:
    """(catalogue generation, how) of a channel from what the channel report prints: the G column
    if it names a catalogue generation whose link rate agrees with SPEED; else the first (oldest)
    generation of the catalogue at the SPEED link rate (the others at that rate are named: the
    base's MP work is fitted, not taken from the catalogue, so the choice only sets the link
    rate and the open-exchange limit, equal at one rate); else (None, why)."""
    from ..model.hardware import CATALOGUE
    sp = _speed_gbps(speed_text)
    g = _gen_name(g_text)
    if g and (sp is None or CATALOGUE[g].link_gbps.value == sp):
        return g, (f"measured: the channel report's G {g_text!r}" + (f", SPEED {speed_text!r}" if sp else ""))
    at = [k for k, v in CATALOGUE.items() if v.link_gbps.value == sp] if sp else []
    if at:
        alt = f" (also at that rate: {', '.join(at[1:])})" if len(at) > 1 else ""
        return at[0], f"derived: SPEED {speed_text!r} = {sp:g} Gbit/s links, the catalogue's first generation at that rate{alt}"
    why = ("no channel report" if not (g_text or speed_text) else
           f"G {g_text!r}, SPEED {speed_text!r}: neither names a catalogue generation")
    return None, why


def _iv(intervals) -> str:
    ts = [pd.Timestamp(t) for t in intervals]
    if len(ts) == 1:
        return f"interval {ts[0]:%Y-%m-%d %H:%M:%S}"
    return f"{len(ts)} intervals {min(ts):%Y-%m-%d %H:%M} to {max(ts):%Y-%m-%d %H:%M}"


def _fmt(e: D.Estimate, unit: str, intervals) -> str:
    se = e.stderr
    s = f"{e.kind}: {e.how}"
    if np.isfinite(se):
        s += f"; +/- {se:.3g}{unit} ({e.stderr_source})"
    if e.kind != "assumed":
        s += f"; {_iv(intervals)}"
    return s


def _sig(x: float, n: int = 5) -> float:
    return float(f"{x:.{n}g}") if np.isfinite(x) else x


def build(obs: Observed, intervals, *, ha_servers: int = D.HA_SERVERS, be_servers: int = D.BACKEND_SERVERS,
          command: str = "") -> BaseModel:
    """The base model of ``obs`` at ``intervals`` (module docstring)."""
    iv = _iv(intervals)
    notes: dict = {}
    est: dict = {}
    unknowns = dict(D.UNKNOWNS)
    lcus = sorted(set(obs.lcu.index.get_level_values(1)))
    # ---- channels and path groups
    paths = {lc: list(obs.paths.get(lc, [])) for lc in lcus}
    # the channels of the path groups; without any path group: the FICON channels of the channel
    # report (at most 8: one path group), else assumed ones. A channel of the report that no LCU
    # uses (CTC, FCP, OSA, another box's) is left out: a topology refuses an unused channel.
    in_paths = list(dict.fromkeys(c for p in paths.values() for c in p))
    ficon = []
    if len(obs.channel):
        typ = obs.channel.groupby(level=1)["chpid_type"].first()
        ficon = [c for c, t in typ.items() if isinstance(t, str) and t.upper().startswith("FC") and t.upper() != "FCP"]
    assumed_paths = False
    if in_paths:
        ch_names = in_paths
    elif ficon:
        ch_names = ficon[:8]
        unknowns["paths"] = (f"no I/O queuing (path) data: every LCU's path group assumed to be the channel report's "
                             f"first {len(ch_names)} FICON channels")
    else:
        assumed_paths = True
        ch_names = [f"CH{k}" for k in range(ASSUMED_CHANNELS)]
        unknowns["channels"] = (f"no channel or path data: {ASSUMED_CHANNELS} channels assumed, the path group of "
                                "every LCU; their link rate derived from connect time at an assumed size")
    for lc in lcus:
        if not paths[lc]:
            paths[lc] = list(ch_names[:8])
            if in_paths:
                unknowns[f"paths of {lc}"] = f"LCU {lc} has no path group in the data: {', '.join(paths[lc])} assumed"
        if len(paths[lc]) > 8:
            raise McioError("INPUT", f"LCU {lc}", f"has {len(paths[lc])} paths; a path group holds at most 8")
    ch_names = list(dict.fromkeys(c for p in paths.values() for c in p))
    gen_how = {}
    if len(obs.channel):
        for chp, g in obs.channel.groupby(level=1):
            txt = [str(g[k].iloc[0]) if k in g and isinstance(g[k].iloc[0], str) else "" for k in ("generation", "speed")]
            gen_how[chp] = channel_generation(*txt)
    gen_of = {c: (gen_how.get(c, (None, ""))[0] or "?") for c in ch_names}
    mp = D.mp_work(obs, intervals, gen_of)
    zs = D.zhpf_share(obs, intervals)
    est["channels.zhpf_share"] = zs
    if zs.kind == "assumed":
        unknowns["zhpf_share"] = ("no FICON / zHPF operation counts (no channel report, or an SMF 73 without extended channel "
                                  "path data): command mode assumed, so the MP work per I/O fitted is the mean over the "
                                  "unknown mix of modes, and a z/HPF what-if on this base has no measured basis")
        for g, e in mp.items():
            e.how += " (no zHPF counts: the mix of modes' mean work, command mode not separable)"
    # ---- the LCUs' figures (the MP start work first: it is in pend where no CMR is measured)
    from ..model.hardware import channel_parameters
    mp_ccw = {}
    for g in set(gen_of.values()):
        if g in mp and np.isfinite(mp[g].value):
            mp_ccw[g] = mp[g]
        else:
            base = ASSUMED_GENERATION if g == "?" else g
            v = channel_parameters(base)["mp_us_per_io_ccw"].value
            mp_ccw[g] = D.Estimate(v, "assumed", f"no channel busy in the data: the catalogue's generation {base}", [])
    z = zs.value if np.isfinite(zs.value) else 0.0
    mp_start = {}
    for lc in lcus:
        w = [mp_ccw[gen_of[c]].value * ((1 - z) + z / D.ZHPF_OVER_CCW) for c in paths[lc]]
        mp_start[lc] = D.MP_START_FRACTION * float(np.mean(w))
    lf = D.lcu_figures(obs, intervals, mp_start, ha_servers, be_servers)
    end_ms = {lc: mp_start[lc] / D.MP_START_FRACTION * (1 - D.MP_START_FRACTION) / 1000.0 for lc in lcus}
    kb = D.sizes(obs, intervals, lf, paths, end_ms)
    # ---- channels
    chans = []
    no_mb = not (len(obs.channel) and obs.channel["read_mb_s"].notna().any())
    for c in ch_names:
        g = gen_of[c]
        d = {"name": c}
        e = mp_ccw[g]
        if g != "?":
            d["generation"] = g
            notes[f"channel.{c}.generation"] = gen_how[c][1]
        else:
            d["generation"] = ASSUMED_GENERATION
            notes[f"channel.{c}.generation"] = (f"assumed: the data state no generation ({gen_how.get(c, (None, 'no channel report'))[1] or 'no channel report'})"
                                                "; the catalogue's figures for open exchanges")
            unknowns["channel generation"] = (f"the data state no channel generation or link speed (RMF's G / SPEED, SMF 73's "
                                              f"SMF73GEN / SMF73SPD absent): generation {ASSUMED_GENERATION} assumed")
        d["mp_us_per_io_ccw"] = _sig(e.value)
        notes[f"channel.{c}.mp_us_per_io_ccw"] = _fmt(e, " us", intervals) + (f" (generation {g})" if g != "?" else "")
        d["mp_us_per_io_zhpf"] = _sig(e.value / D.ZHPF_OVER_CCW)
        notes[f"channel.{c}.mp_us_per_io_zhpf"] = f"derived: command mode / {D.ZHPF_OVER_CCW} (assumed catalogue ratio)"
        est[f"channel_generation.{g}.mp_us_per_io_ccw"] = e
        if no_mb and (assumed_paths or g == "?"):
            # connect = the MP's end work + the transfer: the link rate that moves the assumed
            # size in what is left (rate-weighted over the LCUs that use the channel)
            users = [lc for lc in lcus if c in paths[lc] and np.isfinite(lf[lc]["conn_ms"].value)]
            w = np.array([max(lf[lc]["rate_iops"].value, 0.0) for lc in users])
            if users and w.sum() > 0:
                conn = float(np.average([lf[lc]["conn_ms"].value for lc in users], weights=w))
                end = float(np.average([end_ms[lc] for lc in users], weights=w))
                xfer = max(conn - end, 0.1 * conn, 1e-4)
                d["link_mb_s"] = _sig(max(D.ASSUMED_KB / xfer, 0.01))
                notes[f"channel.{c}.link_mb_s"] = (f"derived: {D.ASSUMED_KB:g} KB (assumed size) / (AVG CONN TIME of its "
                                                   f"LCUs {conn:.4g} ms less the MP's end work {end:.4g} ms"
                                                   + (", floored at a tenth of connect" if xfer > conn - end else "")
                                                   + f"); {iv}")
        chans.append(d)
    # ---- control units (one per LCU), LCUs, workloads
    cus, wls, wl_lcu = [], [], {}
    for lc in lcus:
        f = lf[lc]
        name = f"CU{lc}"
        ha = f["ha_service_us"]
        be = f["backend_service_ms"]
        cus.append({"name": name, "ha_servers": ha_servers,
                    "ha_service_us": {"dist": "exponential", "mean": _sig(max(ha.value, 0.01))},
                    "backend_servers": be_servers,
                    "backend_service_ms": {"dist": "exponential", "mean": _sig(max(be.value, 1e-4))},
                    "lcu": [{"name": lc, "devices": int(f["devices"].value), "channels": paths[lc]}]})
        notes[f"cu.{name}.ha_servers"] = "assumed (see unknowns)"
        notes[f"cu.{name}.backend_servers"] = "assumed (see unknowns)"
        notes[f"cu.{name}.ha_service_us"] = _fmt(ha, " us", intervals)
        notes[f"cu.{name}.backend_service_ms"] = _fmt(be, " ms", intervals)
        notes[f"lcu.{lc}.devices"] = "measured: devices in the device report" + ("" if lc != NO_LCU else " (no LCU stated: one LCU)")
        notes[f"lcu.{lc}.channels"] = ("measured: the I/O queuing report's paths" if obs.paths.get(lc) else
                                       "assumed: no path group in the data (see unknowns)")
        est[f"lcu.{lc}.ha_service_us"] = ha
        est[f"lcu.{lc}.backend_service_ms"] = be
        wname = f"W{lc}"
        wl_lcu[wname] = lc
        rate = f["rate_iops"]
        io = {"name": "io", "kb": _sig(max(kb[lc].value, 0.001), 4),
              "write_share": _sig(min(max(f["write_share"].value, 0.0), 1.0), 4),
              "miss_ratio": _sig(min(max(f["miss_ratio"].value, 0.0), 1.0), 4),
              "write_miss_ratio": _sig(min(max(f["write_miss_ratio"].value, 0.0), 1.0), 4)}
        w = {"name": wname, "rate_iops": _sig(max(rate.value, 1e-3)), "lcus": [lc]}
        hot = f["hot_share"].value
        if np.isfinite(hot) and hot > 0.11 and f["devices"].value >= 10:
            w.update(skew="hotset", hot_fraction=0.1, hot_share=_sig(min(hot, 0.999), 4))
            notes[f"workload.{wname}.hot_share"] = _fmt(f["hot_share"], "", intervals)
        w["io"] = [io]
        wls.append(w)
        notes[f"workload.{wname}.rate_iops"] = _fmt(rate, " SSCH/s", intervals)
        for k, src in (("kb", kb[lc]), ("write_share", f["write_share"]), ("miss_ratio", f["miss_ratio"]),
                       ("write_miss_ratio", f["write_miss_ratio"])):
            notes[f"workload.{wname}.io.{k}"] = _fmt(src, "", intervals)
        est[f"lcu.{lc}.kb"] = kb[lc]
        est[f"lcu.{lc}.rate_iops"] = rate
    aliases, alias_mode = _aliases(obs, intervals, lcus, cus, notes, unknowns)
    notes["channels.zhpf_share"] = _fmt(zs, "", intervals)
    config = {
        "channels": {"zhpf_share": _sig(min(max(z, 0.0), 1.0), 4), "mp_start_fraction": D.MP_START_FRACTION},
        "devices": {"aliases": aliases, **({"alias_mode": alias_mode} if alias_mode != "static" else {})},
        "workload": {"arrival_scv": 1.0},
        "topology": {"load_scale": 1.0, "channel": chans, "control_unit": cus, "workload": wls},
    }
    if no_mb:
        unknowns["sizes"] = (f"no channel data rates (READ/WRITE MB/s: no channel report, or SMF 73 paths without CPMF "
                             f"group 2 words): transfer size {D.ASSUMED_KB:g} KB assumed per I/O")
    notes["channels.mp_start_fraction"] = "assumed (see unknowns)"
    notes["workload.arrival_scv"] = "assumed: Poisson arrivals"
    notes["topology.load_scale"] = "1 = the measured load; the what-if axis (1.4 = +40 %)"
    names, cov = D.covariance(est)
    return BaseModel(config, notes, est, list(intervals), wl_lcu, unknowns, list(obs.sources), command, (names, cov))


def _aliases(obs, intervals, lcus, cus, notes, unknowns) -> tuple[int, str]:
    """``devices.aliases`` and ``devices.alias_mode`` (the engine has one alias count for every
    device). Where the device report prints PAV, per LCU: static, exposures - 1 per device;
    HyperPAV, a pool of at least HPAV MAX, or of the mean aliases in use over the LCU's devices
    (both lower bounds); the largest over the LCUs is taken (stated when they differ). Without a
    PAV column, the IOSQ rule: 3 when the measured IOSQ is ~0, else 0 (assumed)."""
    iosq = obs.lcu.loc[[t for t in obs.lcu.index if t[0] in set(intervals)], "iosq_ms"]
    pav = not (iosq.notna().any() and float(iosq.max()) > 0.1)
    rule = 3 if pav else 0
    rule_txt = "3 (the measured IOSQ is ~0)" if pav else "0 (the measured IOSQ is above 0.1 ms)"
    stated = {lc: v for lc, v in (obs.pav or {}).items() if lc in lcus}
    if not stated:
        notes["devices.aliases"] = f"assumed: PAV aliases {rule_txt}"
        unknowns["aliases"] = "PAV aliases per device (no PAV column in the data): " + notes["devices.aliases"]
        return rule, "static"
    ndev = {cu["lcu"][0]["name"]: cu["lcu"][0]["devices"] for cu in cus}
    per, how = {}, {}
    for lc, (expo, h, hmax) in stated.items():
        if h:
            in_use = (expo - 1.0) * ndev[lc]
            per[lc] = int(max(np.ceil(in_use - 1e-9), hmax if np.isfinite(hmax) else 0, 1))
            how[lc] = (f"HyperPAV pool >= HPAV MAX {hmax:g}" if np.isfinite(hmax) and hmax >= in_use else
                       f"HyperPAV pool >= the aliases in use (PAV {expo:.2f}H x {ndev[lc]} devices)")
        else:
            per[lc] = int(max(round(expo) - 1, 0))
            how[lc] = f"PAV {expo:g} exposures = base + {per[lc]}"
    hyper = any(v[1] for v in stated.values())
    modes = {v[1] for v in stated.values()}
    aliases = max(per.values())
    text = "; ".join(f"LCU {lc}: {how[lc]}" for lc in sorted(per))
    notes["devices.aliases"] = ("measured" + (" (lower bound)" if hyper else "") + f": the device report's PAV column ({text})"
                                + ("; the largest taken (the engine has one alias count)" if len(set(per.values())) > 1 else ""))
    if hyper:
        unknowns["aliases"] = ("HyperPAV pool size: the device report prints aliases in use, HPAV MAX the most in use; the "
                               "pool is at least that (taken)")
    if len(set(per.values())) > 1:
        unknowns["aliases per LCU"] = f"LCUs state different PAV ({text}): one count for every device, the largest taken"
    if len(modes) > 1 or len(stated) < len(lcus):
        unknowns["alias mode"] = ("LCUs with HyperPAV, static or no PAV column mixed: the model has one alias mode "
                                  f"({'hyperpav' if hyper else 'static'} taken); LCUs without a PAV column: {rule_txt} would be assumed")
    return aliases, ("hyperpav" if hyper else "static")


__all__ = ["BaseModel", "build", "channel_generation", "ASSUMED_CHANNELS", "ASSUMED_GENERATION"]
