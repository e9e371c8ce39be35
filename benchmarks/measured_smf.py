"""Streaming read of a large synthetic SMF dump (issue 31: "a large synthetic dump, e.g. 30 days x
96 intervals x 1,000 devices: time and memory; streaming, not all in memory").

Writes the dump with mcio.measured.smf_write.synthetic_intervals (73, 74.1, 74.5, 78.3 records per
15-minute interval) to a temporary file, then reads it with ``smf.iter_read`` one day (96
intervals) per chunk, in a fresh process per size, reporting wall time, records, rows and the
process's peak RSS. Memory is bounded if the peak does not grow with the number of days.

    nice python -m benchmarks.measured_smf                 # 3 and 30 days x 96 x 1,000 devices
    nice python -m benchmarks.measured_smf --days 30 --devices 1000 --keep /tmp/smf30.bin
Figures go to benchmarks/README.md, not here.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import time

from benchmarks.reader_bench import maxrss_mb, write_then_read



def write(path: str, days: int, per_day: int, devices: int) -> dict:
    from mcio.measured import smf_write
    t0 = time.perf_counter()
    n = smf_write.write_dump(path, smf_write.synthetic_intervals(
        dt.datetime(2026, 1, 1), days * per_day, devices))
    return {"write_s": time.perf_counter() - t0, "bytes": n}


def read(path: str, chunk: int) -> dict:
    import mcio.measured.smf as smf
    rss0 = maxrss_mb()
    t0 = time.perf_counter()
    rows, chunks, skipped, intervals = 0, 0, {}, 0
    for m in smf.iter_read(path, chunk_intervals=chunk):
        chunks += 1
        rows += sum(len(f) for f in m.frames.values())
        intervals += len(m.intervals())
        for k, v in m.skipped.items():
            skipped[k] = skipped.get(k, 0) + v
    return {"read_s": time.perf_counter() - t0, "rows": rows, "chunks": chunks, "intervals": intervals,
            "skipped": skipped, "rss_after_import_mb": rss0, "peak_rss_mb": maxrss_mb()}


def run(days: int, per_day: int, devices: int, chunk: int, keep: str | None) -> dict:
    return write_then_read("benchmarks.measured_smf", ".smf", [str(days), str(per_day), str(devices)], chunk, keep,
                           days, per_day, devices,
                           {"days": days, "intervals_per_day": per_day, "devices": devices, "chunk_intervals": chunk})


def main(argv=None) -> None:
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["--write"]:
        print(json.dumps(write(argv[1], int(argv[2]), int(argv[3]), int(argv[4]))))
        return
    if argv[:1] == ["--read"]:
        print(json.dumps(read(argv[1], int(argv[2]))))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--days", type=int, nargs="*", default=[3, 30])
    ap.add_argument("--per-day", type=int, default=96)
    ap.add_argument("--devices", type=int, default=1000)
    ap.add_argument("--chunk", type=int, default=96)
    ap.add_argument("--keep", default=None)
    a = ap.parse_args(argv)
    for d in a.days:
        print(json.dumps(run(d, a.per_day, a.devices, a.chunk, a.keep)), flush=True)


if __name__ == "__main__":
    main()
