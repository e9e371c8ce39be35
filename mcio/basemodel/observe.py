"""What a base model is built from: a :class:`~mcio.measured.table.Measured` condensed to one row
per interval x LCU, interval x channel and interval, and the choice of intervals
(``--intervals peak-iops | peak-mbs | all | FROM-TO``).

Per interval and LCU (:attr:`Observed.lcu`): the I/O rate (SSCH/s, the sum of its devices'), the
rate-weighted means of its devices' response, IOSQ, CMR, pend, disconnect and connect (ms, as RMF's
LCU summary weighs them), the devices seen, the share of its I/O on its busiest tenth of devices,
the sum of their % DEV UTIL, and from the cache report the read share and the read
and write hit ratios (its device rows summed over the LCU's devices, else the subsystem row whose
SSID is the LCU); where no device states CMR, the I/O queuing report's per-path AVG CMR DLY
(weighted by CHPID TAKEN; ``cmr_from`` = 'paths'). Per LCU (:attr:`Observed.pav`): the PAV
exposures the device report prints and HPAV MAX. A device row without an LCU (a z/VM monitor states none) goes to LCU
:data:`NO_LCU`.

Per interval and channel (:attr:`Observed.channel`): MP busy (fraction; UTILIZATION TOTAL, else
PART), operations (FICON + zHPF, else the I/O queuing report's CHPID TAKEN), zHPF operations,
read and write MB/s (TOTAL, else PART), bus busy (fraction), type and generation as printed.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import McioError
from ..measured.table import Measured

#: the LCU of device rows that state none
NO_LCU = "NOLCU"

#: what ``--intervals`` takes
INTERVAL_CHOICES = ("peak-iops", "peak-mbs", "all", "FROM-TO")


@dataclass
class Observed:
    """A Measured condensed for the base model (module docstring)."""

    lcu: pd.DataFrame          # index (interval, lcu)
    channel: pd.DataFrame      # index (interval, chpid)
    totals: pd.DataFrame       # index interval
    paths: dict                # lcu -> [chpid, ...] (the I/O queuing report's path group)
    devices: dict              # lcu -> sorted device numbers seen
    sources: list
    #: lcu -> (mean PAV exposures per device as printed, HyperPAV?, HPAV MAX or NaN), where stated
    pav: dict = None

    @property
    def intervals(self) -> list:
        return list(self.totals.index)


_COMP = ("resp_ms", "iosq_ms", "cmr_ms", "pend_ms", "disc_ms", "conn_ms")


def _weighted(dev: pd.DataFrame, keys: list) -> pd.DataFrame:
    """Per group of ``keys``: the rate (sum) and the rate-weighted mean of each component, over
    the rows that state it (vectorised: a month of RMF has millions of device rows)."""
    r = dev["ssch_per_s"].fillna(0.0)
    parts = {"ssch_per_s": r}
    for c in _COMP:
        ok = dev[c].notna() & (r > 0)
        parts[c + "_rx"] = (dev[c] * r).where(ok, 0.0)
        parts[c + "_w"] = r.where(ok, 0.0)
    g = pd.DataFrame(parts).join(dev[keys]).groupby(keys, sort=True).sum()
    out = pd.DataFrame({"ssch_per_s": g["ssch_per_s"]})
    for c in _COMP:
        out[c] = (g[c + "_rx"] / g[c + "_w"]).where(g[c + "_w"] > 0)
    return out


def _per_lcu(dev: pd.DataFrame, cache: pd.DataFrame) -> pd.DataFrame:
    """One row per (interval, lcu): see the module docstring."""
    out = _weighted(dev, ["interval", "lcu"])
    grp = dev.groupby(["interval", "lcu"], sort=True)
    out["interval_s"] = grp["interval_s"].first()
    out["devices"] = grp["devnum"].nunique()

    def hot(r):
        top = np.sort(r.fillna(0.0).to_numpy())[::-1]
        n_hot = max(1, int(round(0.1 * len(top))))
        return float(top[:n_hot].sum() / top.sum()) if top.sum() > 0 else float("nan")
    out["hot10_share"] = grp["ssch_per_s"].apply(hot)
    util = grp["dev_util_pct"]
    out["dev_util_sum_pct"] = util.sum(min_count=1)
    c = _cache_per_lcu(dev, cache)
    if c is not None:
        out = out.join(c, how="left")
    else:
        out["read_share"] = out["read_hit_ratio"] = out["write_hit_ratio"] = np.nan
    # no cache report for an LCU: the device report's read share, if stated
    if dev["read_share"].notna().any():
        d = dev.assign(_rs=dev["read_share"] * dev["ssch_per_s"], _w=dev["ssch_per_s"].where(dev["read_share"].notna(), 0))
        g = d.groupby(["interval", "lcu"])[["_rs", "_w"]].sum()
        out["read_share"] = out["read_share"].fillna((g["_rs"] / g["_w"]).where(g["_w"] > 0))
    return out.sort_index()


def _cache_per_lcu(dev: pd.DataFrame, cache: pd.DataFrame):
    """(interval, lcu) -> read share, read and write hit ratios from the cache report: its device
    rows (DEV NUM stated: RMF's device overview, SMF 74.5's device sections) summed over each
    LCU's devices (the device report maps device to LCU), else its subsystem rows whose SSID is an
    LCU of the device report. None if neither."""
    if not len(cache):
        return None
    io = cache["io_per_s"].where(cache["io_per_s"].notna(), cache["read_per_s"] + cache["write_per_s"])
    byd = cache[(cache["devnum"] != "") & cache["read_per_s"].notna()]
    if len(byd):
        lcu_of = dev.drop_duplicates(["interval", "devnum"]).set_index(["interval", "devnum"])["lcu"]
        k = pd.MultiIndex.from_arrays([byd["interval"], byd["devnum"]])
        lc = lcu_of.reindex(k).to_numpy()
        ok = pd.notna(lc)
        if ok.any():
            b = byd[ok]
            rd, wr = b["read_per_s"], b["write_per_s"].fillna(0.0)
            g = pd.DataFrame({"interval": b["interval"].to_numpy(), "lcu": lc[ok],
                              "io": (rd + wr).to_numpy(), "rd": rd.to_numpy(),
                              "rh": (rd * b["read_hit_ratio"]).to_numpy(), "wr": wr.to_numpy(),
                              "wh": (wr * b["write_hit_ratio"]).to_numpy(),
                              "wr_ok": wr.where(b["write_hit_ratio"].notna(), 0.0).to_numpy()}
                             ).groupby(["interval", "lcu"]).sum()
            return pd.DataFrame({"read_share": g["rd"] / g["io"].where(g["io"] > 0),
                                 "read_hit_ratio": g["rh"] / g["rd"].where(g["rd"] > 0),
                                 "write_hit_ratio": g["wh"] / g["wr_ok"].where(g["wr_ok"] > 0)})
    c = cache[cache["devnum"] == ""].assign(_io=io)
    if not len(c):
        return None
    c = c.drop_duplicates(["interval", "ssid"]).set_index(["interval", "ssid"])
    c.index = c.index.set_names(["interval", "lcu"])
    return pd.DataFrame({"read_share": c["read_per_s"] / c["_io"].where(c["_io"] > 0),
                         "read_hit_ratio": c["read_hit_ratio"], "write_hit_ratio": c["write_hit_ratio"]})


def _cmr_from_paths(out: pd.DataFrame, path: pd.DataFrame) -> None:
    """Where the device report states no CMR (z/VM; SMF 74.1 of sections without SMF74CMR): the I/O queuing report's
    AVG CMR DLY of the LCU's paths, weighted by CHPID TAKEN (in place)."""
    if not len(path) or not path["cmr_ms"].notna().any():
        return
    p = path[path["cmr_ms"].notna() & (path["taken_per_s"] > 0)]
    g = p.assign(_x=p["cmr_ms"] * p["taken_per_s"]).groupby(["interval", "lcu"])[["_x", "taken_per_s"]].sum()
    cmr = (g["_x"] / g["taken_per_s"]).reindex(out.index)
    out["cmr_from"] = np.where(out["cmr_ms"].isna() & cmr.notna(), "paths", "devices")
    out["cmr_ms"] = out["cmr_ms"].fillna(cmr)


_CH_COLS = ["busy", "ops_per_s", "zhpf_ops_per_s", "read_mb_s", "write_mb_s", "bus", "chpid_type", "generation"]


def _per_channel(ch: pd.DataFrame, path: pd.DataFrame) -> pd.DataFrame:
    """One row per (interval, chpid): see the module docstring."""
    if not len(ch):
        return pd.DataFrame(columns=_CH_COLS, index=pd.MultiIndex.from_tuples([], names=["interval", "chpid"]))
    c = ch.drop_duplicates(["interval", "chpid"]).set_index(["interval", "chpid"]).sort_index()
    stated = c["ficon_ops_per_s"].notna() | c["zhpf_ops_per_s"].notna()
    ops = c["ficon_ops_per_s"].fillna(0.0) + c["zhpf_ops_per_s"].fillna(0.0)
    if len(path):
        taken = path.groupby(["interval", "chpid"])["taken_per_s"].sum(min_count=1).reindex(c.index)
    else:
        taken = pd.Series(np.nan, index=c.index)
    out = pd.DataFrame({
        "busy": c["util_total_pct"].fillna(c["util_part_pct"]) / 100.0,
        "ops_per_s": ops.where(stated, taken),
        "zhpf_ops_per_s": c["zhpf_ops_per_s"],
        "read_mb_s": c["read_mb_s_total"].fillna(c["read_mb_s_part"]),
        "write_mb_s": c["write_mb_s_total"].fillna(c["write_mb_s_part"]),
        "bus": c["bus_pct"] / 100.0, "chpid_type": c["chpid_type"], "generation": c["generation"]})
    return out


def observe(m: Measured) -> Observed:
    """Condense ``m``; McioError if it holds no device rows (the base model's minimum)."""
    dev = m["device"].copy()
    if not len(dev):
        raise McioError("INPUT", "; ".join(m.sources) or "(no file)",
                        "holds no device activity (DASD) rows: a base model needs at least the devices' "
                        "rates and response times")
    dev["lcu"] = dev["lcu"].where(dev["lcu"] != "", NO_LCU)
    dev = dev[dev["ssch_per_s"].fillna(0) >= 0]
    lcu = _per_lcu(dev, m["cache"])
    path = m["lcu_path"]
    _cmr_from_paths(lcu, path)
    paths: dict = {}
    for (lc, chp) in path[["lcu", "chpid"]].drop_duplicates().itertuples(index=False):
        paths.setdefault(lc, [])
        if chp not in paths[lc]:
            paths[lc].append(chp)
    channel = _per_channel(m["channel"], path)
    devices = {lc: sorted(g["devnum"].unique()) for lc, g in dev.groupby("lcu")}
    n_dev = sum(len(v) for v in devices.values())
    totals = _weighted(dev, ["interval"])
    totals["interval_s"] = dev.groupby("interval")["interval_s"].first()
    totals["dev_util_pct"] = dev.groupby("interval")["dev_util_pct"].sum(min_count=1) / n_dev
    if len(channel):
        cg = channel.groupby(level=0)
        totals["channel_busy_pct"] = 100.0 * cg["busy"].mean()
        totals["mb_s"] = cg["read_mb_s"].sum(min_count=1).fillna(0.0) + cg["write_mb_s"].sum(min_count=1)
    else:
        totals["channel_busy_pct"] = totals["mb_s"] = np.nan
    return Observed(lcu, channel, totals, paths, devices, list(m.sources), _pav(dev, m["lcu"]))


def _pav(dev: pd.DataFrame, lcu: pd.DataFrame) -> dict:
    """lcu -> (mean exposures, HyperPAV, largest HPAV MAX) from the device report's PAV column
    ('4' static: base + 3 aliases; '1.2H': HyperPAV, the mean exposures in use) and the I/O queuing
    report's HPAV MAX; only LCUs whose devices state it."""
    if "pav" not in dev or not (dev["pav"] != "").any():
        return {}
    d = dev[dev["pav"] != ""]
    txt = d["pav"].astype(str).str.strip().str.upper()
    num = pd.to_numeric(txt.str.rstrip("H*"), errors="coerce")
    hmax = lcu.groupby("lcu")["hpav_max"].max() if len(lcu) else pd.Series(dtype=float)
    out = {}
    for lc, idx in d.groupby("lcu").groups.items():
        n = num.loc[idx]
        if n.notna().any():
            out[lc] = (float(n.mean()), bool(txt.loc[idx].str.endswith("H").any()),
                       float(hmax.get(lc, np.nan)) if len(hmax) else float("nan"))
    return out


def select_intervals(obs: Observed, how: str = "peak-iops") -> list:
    """The intervals ``how`` names: ``peak-iops`` (the highest total I/O rate), ``peak-mbs`` (the
    highest channel MB/s; needs channel data), ``all``, or ``FROM-TO`` (interval starts, inclusive,
    as ``YYYY-MM-DDTHH:MM`` or ``HH:MM`` on the data's days)."""
    tot = obs.totals
    if not len(tot):
        # measured.read refuses files without interval starts; this guards other callers
        raise McioError("--intervals", how, "needs measured intervals with a start time; the input has none")
    if how == "all":
        return list(tot.index)
    if how == "peak-iops":
        return [tot["ssch_per_s"].idxmax()]
    if how == "peak-mbs":
        if not tot["mb_s"].notna().any():
            raise McioError("--intervals", how, "needs channel data rates (a CHANNEL PATH ACTIVITY report); "
                            "the input has none: use peak-iops, all or FROM-TO")
        return [tot["mb_s"].idxmax()]
    if isinstance(how, str) and "-" in how and how.count("-") in (1, 5):
        a, b = (how.split("-") if how.count("-") == 1 else ("-".join(how.split("-")[:3]), "-".join(how.split("-")[3:])))
        idx = pd.DatetimeIndex(tot.index)
        try:
            if "T" in a or " " in a:
                lo, hi = pd.Timestamp(a), pd.Timestamp(b)
                sel = (idx >= lo) & (idx <= hi)
            else:
                tod = idx.strftime("%H:%M")
                lo, hi = pd.Timestamp(f"2000-01-01 {a}").strftime("%H:%M"), pd.Timestamp(f"2000-01-01 {b}").strftime("%H:%M")
                sel = (tod >= lo) & (tod <= hi)
        except ValueError:
            sel = None
        if sel is None:
            raise McioError("--intervals", how, "FROM-TO needs two times (HH:MM or YYYY-MM-DDTHH:MM)")
        got = list(tot.index[sel])
        if not got:
            raise McioError("--intervals", how, f"selects no interval; the data hold {tot.index.min()} to {tot.index.max()}")
        return got
    raise McioError("--intervals", how, f"allowed: {', '.join(INTERVAL_CHOICES)}")


__all__ = ["NO_LCU", "INTERVAL_CHOICES", "Observed", "observe", "select_intervals"]
