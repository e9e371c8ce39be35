"""Run in a subprocess by the tests: a fixed simulation, results (or peak memory) to stdout.

usage: python engine_run_helper.py digest SEED     -> sha256 of every result array
       python engine_run_helper.py rss IOS          -> peak RSS growth (KB) of a run of IOS I/Os
"""
import hashlib
import resource
import sys

import numpy as np

from mcio import simulate
from oracle_models import ficon_like, single_server_open


def digest(seed: int) -> str:
    h = hashlib.sha256()
    for ds in (simulate(ficon_like(population=30, channels=3), ios=20_000, replications=4, seed=seed),
               simulate(single_server_open(800.0, {"dist": "gamma", "mean": 1.0, "scv": 0.5}),
                        ios=50_000, replications=4, seed=seed)):
        for name in sorted(ds.data_vars):
            h.update(name.encode())
            h.update(np.ascontiguousarray(ds[name].values).tobytes())
    return h.hexdigest()


def rss_growth_kb(ios: int) -> int:
    m = ficon_like(population=30, channels=2)
    simulate(m, ios=2_000, replications=2, seed=1)          # compile/load, allocate once
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    simulate(m, ios=ios, replications=2, seed=1)
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before


if __name__ == "__main__":
    what, arg = sys.argv[1], int(sys.argv[2])
    print(digest(arg) if what == "digest" else rss_growth_kb(arg))
