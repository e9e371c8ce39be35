"""What a base model is built from: a :class:`~mcio.measured.table.Measured` condensed to one row
per interval x LCU, interval x channel and interval, and the choice of intervals
(``--intervals peak-iops | peak-mbs | all | FROM-TO``).

Per interval and LCU (:attr:`Observed.lcu`): the I/O rate (SSCH/s, the sum of its devices'), the
rate-weighted means of its devices' response, IOSQ, CMR, pend, disconnect and connect (ms, as RMF's
LCU summary weighs them), the devices seen, the share of its I/O on its busiest tenth of devices,
the sum of their % DEV UTIL, and from the cache report (SSID = LCU) the read share and the read
and write hit ratios. A device row without an LCU (a z/VM monitor states none) goes to LCU
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

    @property
    def intervals(self) -> list:
        return list(self.totals.index)


def _wmean(x: pd.Series, w: pd.Series) -> float:
    ok = x.notna() & w.notna() & (w > 0)
    return float((x[ok] * w[ok]).sum() / w[ok].sum()) if ok.any() and w[ok].sum() > 0 else float("nan")


def observe(m: Measured) -> Observed:
    """Condense ``m``; McioError if it holds no device rows (the base model's minimum)."""
    dev = m["device"].copy()
    if not len(dev):
        raise McioError("INPUT", "; ".join(m.sources) or "(no file)",
                        "holds no device activity (DASD) rows: a base model needs at least the devices' "
                        "rates and response times")
    dev["lcu"] = dev["lcu"].where(dev["lcu"] != "", NO_LCU)
    dev = dev[dev["ssch_per_s"].fillna(0) >= 0]
    cache = m["cache"]
    rows = []
    for (t, lcu), g in dev.groupby(["interval", "lcu"], sort=True):
        r = g["ssch_per_s"].fillna(0.0)
        d = {"interval": t, "lcu": lcu, "interval_s": float(g["interval_s"].iloc[0]), "ssch_per_s": float(r.sum()),
             "devices": int(g["devnum"].nunique())}
        for c in ("resp_ms", "iosq_ms", "cmr_ms", "pend_ms", "disc_ms", "conn_ms"):
            d[c] = _wmean(g[c], r)
        top = np.sort(r.to_numpy())[::-1]
        n_hot = max(1, int(round(0.1 * len(top))))
        d["hot10_share"] = float(top[:n_hot].sum() / top.sum()) if top.sum() > 0 else float("nan")
        d["dev_util_sum_pct"] = float(g["dev_util_pct"].sum()) if g["dev_util_pct"].notna().any() else float("nan")
        c = cache[(cache["interval"] == t) & (cache["ssid"] == lcu) & (cache["devnum"] == "")] if len(cache) else cache
        if len(c):
            c = c.iloc[0]
            io = c["io_per_s"] if np.isfinite(c["io_per_s"]) else c["read_per_s"] + c["write_per_s"]
            d["read_share"] = float(c["read_per_s"] / io) if io and np.isfinite(c["read_per_s"]) else float("nan")
            d["read_hit_ratio"] = float(c["read_hit_ratio"])
            d["write_hit_ratio"] = float(c["write_hit_ratio"])
        else:
            rs = g["read_share"]
            d["read_share"] = _wmean(rs, r)
            d["read_hit_ratio"] = d["write_hit_ratio"] = float("nan")
        rows.append(d)
    lcu = pd.DataFrame(rows).set_index(["interval", "lcu"]).sort_index()

    ch = m["channel"]
    path = m["lcu_path"]
    paths: dict = {}
    for (lc, chp) in path[["lcu", "chpid"]].drop_duplicates().itertuples(index=False):
        paths.setdefault(lc, [])
        if chp not in paths[lc]:
            paths[lc].append(chp)
    crow = []
    for (t, chp), g in ch.groupby(["interval", "chpid"], sort=True):
        g = g.iloc[0]
        busy = g["util_total_pct"] if np.isfinite(g["util_total_pct"]) else g["util_part_pct"]
        ops = np.nansum([g["ficon_ops_per_s"], g["zhpf_ops_per_s"]])
        if not (np.isfinite(g["ficon_ops_per_s"]) or np.isfinite(g["zhpf_ops_per_s"])):
            taken = path[(path["interval"] == t) & (path["chpid"] == chp)]["taken_per_s"]
            ops = float(taken.sum()) if len(taken) else float("nan")
        rd = g["read_mb_s_total"] if np.isfinite(g["read_mb_s_total"]) else g["read_mb_s_part"]
        wr = g["write_mb_s_total"] if np.isfinite(g["write_mb_s_total"]) else g["write_mb_s_part"]
        crow.append({"interval": t, "chpid": chp, "busy": busy / 100.0, "ops_per_s": ops,
                     "zhpf_ops_per_s": g["zhpf_ops_per_s"], "read_mb_s": rd, "write_mb_s": wr,
                     "bus": g["bus_pct"] / 100.0, "chpid_type": g["chpid_type"], "generation": g["generation"]})
    channel = (pd.DataFrame(crow).set_index(["interval", "chpid"]).sort_index() if crow else
               pd.DataFrame(columns=["busy", "ops_per_s", "zhpf_ops_per_s", "read_mb_s", "write_mb_s", "bus",
                                     "chpid_type", "generation"],
                            index=pd.MultiIndex.from_tuples([], names=["interval", "chpid"])))
    devices = {lc: sorted(g["devnum"].unique()) for lc, g in dev.groupby("lcu")}
    n_dev = sum(len(v) for v in devices.values())
    tot = []
    for t, g in dev.groupby("interval", sort=True):
        r = g["ssch_per_s"].fillna(0.0)
        d = {"interval": t, "interval_s": float(g["interval_s"].iloc[0]), "ssch_per_s": float(r.sum())}
        for c in ("resp_ms", "iosq_ms", "cmr_ms", "pend_ms", "disc_ms", "conn_ms"):
            d[c] = _wmean(g[c], r)
        d["dev_util_pct"] = (float(g["dev_util_pct"].sum()) / n_dev if g["dev_util_pct"].notna().any()
                             else float("nan"))
        if len(channel) and t in channel.index.get_level_values(0):
            cc = channel.loc[t]
            d["channel_busy_pct"] = 100.0 * float(cc["busy"].mean())
            d["mb_s"] = float(np.nansum(cc["read_mb_s"]) + np.nansum(cc["write_mb_s"]))
        else:
            d["channel_busy_pct"] = d["mb_s"] = float("nan")
        tot.append(d)
    totals = pd.DataFrame(tot).set_index("interval").sort_index()
    return Observed(lcu, channel, totals, paths, devices, list(m.sources))


def select_intervals(obs: Observed, how: str = "peak-iops") -> list:
    """The intervals ``how`` names: ``peak-iops`` (the highest total I/O rate), ``peak-mbs`` (the
    highest channel MB/s; needs channel data), ``all``, or ``FROM-TO`` (interval starts, inclusive,
    as ``YYYY-MM-DDTHH:MM`` or ``HH:MM`` on the data's days)."""
    tot = obs.totals
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
