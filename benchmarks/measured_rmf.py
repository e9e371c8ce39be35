"""Streaming read of a large synthetic RMF Postprocessor text report (issue 31: "a large synthetic
dump, e.g. 30 days x 96 intervals x 1,000 devices: time and memory; streaming, not all in memory").

Writes the report with mcio.measured.rmf_write, one day at a time (a synthetic ``Measured`` per day:
``--devices`` DASD devices in LCUs of 128, 16 FICON channels, 4 paths per LCU, one cache subsystem
per LCU with its device overview), to a temporary file, then reads it with ``rmf_text.iter_read``
one day (96 intervals) per chunk in a fresh process, reporting wall time, rows and the process's
peak RSS. Memory is bounded if the peak does not grow with the number of days.
``--reports device`` writes the DASD activity pages only (the file the first reader was timed on).

    nice python -m benchmarks.measured_rmf                          # 3 days x 96 x 1,000 devices
    nice python -m benchmarks.measured_rmf --days 3 30 --reports device
    nice python -m benchmarks.measured_rmf --read-only /tmp/rmf30.txt
Reports wall time and CPU time (the CPU time varies less on a shared machine). Figures go to
docs/measured.md, not here.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

from benchmarks.reader_bench import child, cpu_s, maxrss_mb, write_then_read



def synthetic_day(day: int, per_day: int, devices: int, reports: str, seed: int = 1):
    """A ``Measured`` of one day: ``per_day`` intervals of ``devices`` devices (and, unless
    ``reports == 'device'``, channels, LCUs and their paths, caches), random but plausible values."""
    import numpy as np
    import pandas as pd

    from mcio.measured.table import Measured, frame

    rng = np.random.default_rng(seed + day)
    ivl_s = 86400.0 / per_day
    starts = pd.Timestamp("2026-01-01") + pd.to_timedelta(day * 86400 + np.arange(per_day) * ivl_s, unit="s")
    n = per_day * devices
    dev_i = np.tile(np.arange(devices), per_day)
    keys = {"interval": np.repeat(starts.to_numpy(), devices), "interval_s": np.full(n, ivl_s), "system": "SYSA"}
    devnum = np.array(["%04X" % (0x8000 + i) for i in range(devices)], dtype=object)
    lcu_of = np.array(["%04X" % (0x10 + i // 128) for i in range(devices)], dtype=object)
    u = lambda a, b, k=n: rng.uniform(a, b, k).round(3)  # noqa: E731
    pend, disc, conn, iosq = u(.05, .4), u(0, 3), u(.05, 1), u(0, .5)
    rate = u(0, 400)
    dev = pd.DataFrame(dict(keys, devnum=devnum[dev_i], volser=np.char.add("PR", np.char.zfill(dev_i.astype(str), 4)).astype(object),
                            lcu=lcu_of[dev_i], dev_type="33909", ssch_per_s=rate, resp_ms=(iosq + pend + disc + conn).round(3),
                            iosq_ms=iosq, cmr_ms=u(0, .05), db_ms=0.0, int_dly_ms=u(0, .01), pend_ms=pend, disc_ms=disc,
                            conn_ms=conn, dev_conn_pct=(rate * conn / 10).round(2), dev_util_pct=(rate * (conn + disc) / 10).round(2),
                            pav="1.0H"))
    frames = {"device": frame_df("device", dev)}
    if reports != "device":
        lcus = sorted(set(lcu_of))
        chp = ["%02X" % (0x40 + k) for k in range(16)]
        rows = {"channel": [], "lcu": [], "lcu_path": [], "cache": []}
        for iv in starts:
            k = dict(interval=iv, interval_s=ivl_s, system="SYSA")
            for c in chp:
                rows["channel"].append(dict(k, chpid=c, chpid_type="FC_S", generation="11", speed="16G", shared="Y",
                                            util_part_pct=rng.uniform(0, 60), util_total_pct=rng.uniform(0, 80),
                                            bus_pct=rng.uniform(0, 50), read_mb_s_part=rng.uniform(0, 900),
                                            read_mb_s_total=rng.uniform(0, 1200), write_mb_s_part=rng.uniform(0, 300),
                                            write_mb_s_total=rng.uniform(0, 400), ficon_ops_per_s=rng.uniform(0, 9000),
                                            ficon_active=rng.uniform(0, 9), ficon_defer_per_s=0.0,
                                            zhpf_ops_per_s=rng.uniform(0, 20000), zhpf_active=rng.uniform(0, 9),
                                            zhpf_defer_per_s=0.0))
            for j, lcu in enumerate(lcus):
                rows["lcu"].append(dict(k, lcu=lcu, cu="%04X" % (0x8000 + 128 * j), ssch_per_s=rng.uniform(0, 9000),
                                        cont_per_s=rng.uniform(0, 2), delay_q_length=rng.uniform(0, .1),
                                        hpav_wait=rng.uniform(0, .01), hpav_max=float(rng.integers(0, 16)),
                                        css_dly_ms=rng.uniform(0, .02)))
                for c in chp[4 * (j % 4):4 * (j % 4) + 4]:
                    rows["lcu_path"].append(dict(k, lcu=lcu, chpid=c, taken_per_s=rng.uniform(0, 3000),
                                                 dp_busy_pct=rng.uniform(0, 1), cu_busy_pct=rng.uniform(0, 1),
                                                 cub_dly_ms=rng.uniform(0, .1), cmr_ms=rng.uniform(0, .05)))
                rd, wr = rng.uniform(100, 5000), rng.uniform(10, 2000)
                rows["cache"].append(dict(k, ssid=lcu, cu="%04X" % (0x8000 + 128 * j), devnum="", io_per_s=rd + wr,
                                          read_per_s=rd, write_per_s=wr, read_hit_ratio=rng.uniform(.5, 1),
                                          write_hit_ratio=1.0, hit_ratio=rng.uniform(.5, 1),
                                          staging_per_s=rng.uniform(0, 300), seq_read_per_s=rng.uniform(0, 50)))
        from mcio.measured import table
        for lv, r in rows.items():
            frames[lv] = frame(lv, [dict({c: "" for c, (d, *_x) in table.COLUMNS[lv].items() if d == "str"}, **x)
                                    for x in r])
        cdev = dev[["interval", "interval_s", "system", "devnum", "volser"]].copy()
        cdev["ssid"], cdev["cu"] = lcu_of[dev_i], lcu_of[dev_i]
        cdev["io_per_s"], cdev["hit_ratio"] = rate, u(.5, 1)
        cdev["read_hit_ratio"], cdev["write_hit_ratio"] = u(.5, 1), 1.0
        cdev["staging_per_s"], cdev["read_pct"] = u(0, 30), u(0, 100)
        frames["cache"] = pd.concat([frames["cache"], frame_df("cache", cdev)], ignore_index=True)
    return Measured(frames)


def frame_df(level: str, df):
    """``df`` with every column of ``level`` (missing ones NaN / '') in table order and dtype."""
    import pandas as pd

    from mcio.measured import table
    spec = {**table.KEYS, **table.COLUMNS[level]}
    out = {}
    for c, (d, *_r) in spec.items():
        if c in df:
            out[c] = (df[c].to_numpy(float) if d == "float64" else df[c].to_numpy(object) if d == "str"
                      else df[c].to_numpy().astype(d))
        else:
            out[c] = "" if d == "str" else float("nan")
    return pd.DataFrame(out, index=range(len(df))).astype({c: object for c, (d, *_r) in spec.items() if d == "str"})


def write(path: str, days: int, per_day: int, devices: int, reports: str) -> dict:
    from mcio.measured import rmf_write
    t0 = time.perf_counter()
    tmp = path + ".day"
    with open(path, "wb") as out:
        for d in range(days):
            rmf_write.write(synthetic_day(d, per_day, devices, reports), tmp)
            with open(tmp, "rb") as f:
                out.write(f.read())
    os.remove(tmp)
    return {"write_s": time.perf_counter() - t0, "bytes": os.path.getsize(path)}


def read(path: str, chunk: int) -> dict:
    import mcio.measured.rmf_text as rmf_text
    rss0 = maxrss_mb()
    t0, c0 = time.perf_counter(), cpu_s()
    rows, chunks, intervals, per_level = 0, 0, 0, {}
    for m in rmf_text.iter_read(path, chunk_intervals=chunk):
        chunks += 1
        for lv, f in m.frames.items():
            per_level[lv] = per_level.get(lv, 0) + len(f)
            rows += len(f)
        intervals += len(m.intervals())
    return {"read_s": time.perf_counter() - t0, "read_cpu_s": cpu_s() - c0, "rows": rows, "rows_per_level": per_level, "chunks": chunks,
            "intervals": intervals, "rss_after_import_mb": rss0, "peak_rss_mb": maxrss_mb()}


def run(days: int, per_day: int, devices: int, chunk: int, reports: str, keep: str | None) -> dict:
    return write_then_read("benchmarks.measured_rmf", ".txt", [str(days), str(per_day), str(devices), reports],
                           chunk, keep, days, per_day, devices,
                           {"days": days, "intervals_per_day": per_day, "devices": devices, "reports": reports,
                            "chunk_intervals": chunk})


def main(argv=None) -> None:
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["--write"]:
        print(json.dumps(write(argv[1], int(argv[2]), int(argv[3]), int(argv[4]), argv[5])))
        return
    if argv[:1] == ["--read"]:
        print(json.dumps(read(argv[1], int(argv[2]))))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--days", type=int, nargs="*", default=[3])
    ap.add_argument("--per-day", type=int, default=96)
    ap.add_argument("--devices", type=int, default=1000)
    ap.add_argument("--chunk", type=int, default=96)
    ap.add_argument("--reports", choices=("all", "device"), default="all")
    ap.add_argument("--keep", default=None, help="write the report here and keep it")
    ap.add_argument("--read-only", default=None, help="only read this (already written) report")
    a = ap.parse_args(argv)
    if a.read_only:
        out = child("benchmarks.measured_rmf", ["--read", a.read_only, str(a.chunk)])
        out["mb"] = os.path.getsize(a.read_only) / 1e6
        out["read_mb_per_s"] = out["mb"] / out["read_s"]
        print(json.dumps(out), flush=True)
        return
    for d in a.days:
        print(json.dumps(run(d, a.per_day, a.devices, a.chunk, a.reports, a.keep)), flush=True)


if __name__ == "__main__":
    main()
