"""What the measured-data reader benchmarks (measured_rmf.py, measured_smf.py) share: this process's
peak memory and CPU time, and one run = write a synthetic file in a fresh process, then read it in
another (so the read's peak memory is its own). Light: no NumPy, no mcio."""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile


def maxrss_mb() -> float:
    """Peak resident memory of this process so far (MB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def cpu_s() -> float:
    """CPU seconds (user + system) of this process: less sensitive than wall time to other jobs on
    a shared machine."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def child(module: str, args: list[str]) -> dict:
    """``python -m MODULE ARGS`` in a fresh process; its last stdout line, a JSON object."""
    r = subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def write_then_read(module: str, suffix: str, write_args: list[str], chunk: int, keep: str | None,
                    days: int, per_day: int, devices: int, meta: dict) -> dict:
    """MODULE --write PATH WRITE_ARGS..., then MODULE --read PATH CHUNK, each in its own process;
    their figures merged with ``meta`` and the read rates (MB/s, device rows/s). The file is removed
    unless ``keep`` names it."""
    path = keep or tempfile.mktemp(suffix=suffix)
    try:
        out = dict(meta)
        out.update(child(module, ["--write", path, *write_args]))
        out.update(child(module, ["--read", path, str(chunk)]))
        out["mb"] = out.pop("bytes") / 1e6
        out["read_mb_per_s"] = out["mb"] / out["read_s"]
        out["device_rows_per_s"] = days * per_day * devices / out["read_s"]
        return out
    finally:
        if not keep and os.path.exists(path):
            os.remove(path)
