"""The fast path against the ceiling of this machine: a hand-written Numba Lindley loop for M/M/1
at rho 0.9, with the same xoshiro256** generator and ziggurat exponentials (mcio/kernels/rng.py),
one running sum and nothing else — measured in the same run, one thread each.

    python benchmarks/fastpath_ceiling.py [--ios 40000000] [--repeat 3]

Prints M I/O/s of each (best of --repeat, the two interleaved) and the ratio mcio / hand-written
(the performance issue's target: >= 0.75), for mcio's whole ``simulate`` call (packing, kernels,
MSER, the Dataset) and for its kernels alone (``run_kernels``), and the Numba target CPU the
kernels were compiled for. The hand loop is what no general engine can beat: it takes no
statistics but the mean, no histogram, no warm-up bookkeeping, no components.

To see an AVX2-only target on a newer CPU, compile for it in a cache of its own:
``NUMBA_CPU_NAME=haswell NUMBA_CACHE_DIR=/tmp/nb-haswell python benchmarks/fastpath_ceiling.py``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import numba as nb  # noqa: E402
import numpy as np  # noqa: E402

from mcio.kernels.rng import _std_exponential_zig_st  # noqa: E402  (the same generator)

RHO = 0.9
WARMUP = 1_000                 # I/Os discarded per replication of mcio's run
REPLICATIONS = 2


@nb.njit(nogil=True, cache=False)
def lindley_mm1(n, rate_per_ms, service_ms, a, b, c, d):
    """Mean response (ms) of n customers of M/M/1 by W_{k+1} = max(0, W_k + S_k - A_{k+1})."""
    w = 0.0
    total = 0.0
    inv_rate = 1.0 / rate_per_ms
    for _ in range(n):
        e1, a, b, c, d = _std_exponential_zig_st(a, b, c, d)
        e2, a, b, c, d = _std_exponential_zig_st(a, b, c, d)
        s = e1 * service_ms
        total += w + s
        w = w + s - e2 * inv_rate
        if w < 0.0:
            w = 0.0
    return total / n


def mm1_model():
    """The M/M/1 of the issue: Poisson I/Os at 900/s to one device whose only work is an
    exponential 1 ms back-end miss (no MP work, no data): the fast path's Lindley recursion."""
    from mcio import Model
    return Model.from_dict({"workload": {"type": "open", "rate_iops": 900.0},
                            "io": [{"kb": 0.0, "miss_ratio": 1.0}], "devices": {"count": 1},
                            "channels": {"mp_us_per_io_ccw": 0.0},
                            "control_unit": {"backend_service_ms": {"dist": "exponential", "mean": 1.0}}})


def target_cpu() -> str:
    """The CPU Numba compiles for (NUMBA_CPU_NAME, else the host's) and whether AVX-512 is on."""
    import llvmlite.binding as llvm
    name = nb.config.CPU_NAME or llvm.get_host_cpu_name()
    feats = nb.config.CPU_FEATURES if nb.config.CPU_NAME else llvm.get_host_cpu_features().flatten()
    return f"{name} ({'AVX-512' if '+avx512f' in (feats or '') else 'no AVX-512'})"


def measure(ios: int = 40_000_000, repeat: int = 3) -> dict:
    """Best-of-``repeat`` rates (I/Os per second of wall time) of the hand loop (``hand``),
    mcio's ``simulate`` (``simulate``) and its kernels alone (``kernels``), each of ``ios`` I/Os
    (mcio's: 2 replications, warm-up included), interleaved; one Numba thread."""
    from mcio import simulate
    from mcio.engine import run_kernels
    from mcio.cli.app import set_threads
    set_threads(1)
    m = mm1_model()
    st = [np.uint64(x) for x in np.random.SeedSequence(1).generate_state(4, np.uint64)]
    lindley_mm1(1000, RHO, 1.0, *st)                                   # compile
    simulate(m, ios=2000, replications=REPLICATIONS, warmup=100)       # compile / load
    per_rep = ios // REPLICATIONS - WARMUP
    best = {"hand": 0.0, "simulate": 0.0, "kernels": 0.0}
    for _ in range(repeat):
        t = time.perf_counter()
        r = lindley_mm1(ios, RHO, 1.0, *st)
        best["hand"] = max(best["hand"], ios / (time.perf_counter() - t))
        t = time.perf_counter()
        ds = simulate(m, ios=per_rep, replications=REPLICATIONS, warmup=WARMUP)
        best["simulate"] = max(best["simulate"], ios / (time.perf_counter() - t))
        assert ds.attrs["engine"].startswith("fast")
        t = time.perf_counter()
        run_kernels(m, per_rep, REPLICATIONS, 0, WARMUP, 0, True)
        best["kernels"] = max(best["kernels"], ios / (time.perf_counter() - t))
    best["hand_mean_ms"] = r
    best["mcio_mean_ms"] = float(ds.response_ms.mean())
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ios", type=int, default=40_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    b = measure(args.ios, args.repeat)
    print(f"Numba target CPU: {target_cpu()}; {args.ios:,} I/Os each, best of {args.repeat}")
    print(f"hand-written Lindley loop: {b['hand'] / 1e6:7.1f} M I/O/s (mean response {b['hand_mean_ms']:.3f} ms, "
          f"exact 10.000)")
    print(f"mcio fast path (simulate):  {b['simulate'] / 1e6:7.1f} M I/O/s (mean response {b['mcio_mean_ms']:.3f} ms)")
    print(f"mcio kernels (run_kernels): {b['kernels'] / 1e6:7.1f} M I/O/s")
    print(f"ratio mcio / hand-written:  {b['simulate'] / b['hand']:.2f} simulate, "
          f"{b['kernels'] / b['hand']:.2f} kernels alone (target >= 0.75, simulate)")


if __name__ == "__main__":
    main()
