"""The fast path against the ceiling of this machine: a hand-written Numba Lindley loop for M/M/1
at rho 0.9, with the same xoshiro256** generator and ziggurat exponentials (mcio/kernels/rng.py),
one running sum and nothing else — measured in the same run, one thread each.

    python benchmarks/fastpath_ceiling.py [--ios 40000000] [--repeat 5]

Prints M I/O/s of each (best of --repeat) and the ratio mcio / hand-written (the performance
issue's target: >= 0.75). The hand loop is what no general engine can beat: it takes no
statistics but the mean, no histogram, no warm-up bookkeeping, no components.
"""
from __future__ import annotations

import argparse
import time

import numba as nb
import numpy as np

from mcio.kernels.rng import _next_st, _std_exponential_zig_st  # noqa: F401  (the same generator)


@nb.njit(nogil=True, cache=False)
def lindley_mm1(n, rate_per_ms, service_ms, a, b, c, d):
    """Mean response of n customers of M/M/1 by W_{k+1} = max(0, W_k + S_k - A_{k+1})."""
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ios", type=int, default=40_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    from mcio import Model, simulate
    from mcio.cli.app import set_threads
    set_threads(1)
    m = Model.from_dict({"workload": {"type": "open", "rate_iops": 900.0},
                         "io": [{"kb": 0.0, "miss_ratio": 1.0}], "devices": {"count": 1},
                         "channels": {"mp_us_per_io_ccw": 0.0},
                         "control_unit": {"backend_service_ms": {"dist": "exponential", "mean": 1.0}}})
    st = [np.uint64(x) for x in np.random.SeedSequence(1).generate_state(4, np.uint64)]
    lindley_mm1(1000, 0.9, 1.0, *st)                                   # compile
    simulate(m, ios=2000, replications=2, warmup=100)                   # compile / load
    hand, fast = [], []
    for _ in range(args.repeat):
        t = time.perf_counter()
        r = lindley_mm1(args.ios, 0.9, 1.0, *st)
        hand.append(args.ios / (time.perf_counter() - t))
        t = time.perf_counter()
        ds = simulate(m, ios=args.ios // 2 - 1000, replications=2, warmup=1000)
        fast.append(args.ios / (time.perf_counter() - t))
        assert ds.attrs["engine"].startswith("fast")
    print(f"hand-written Lindley loop: {max(hand) / 1e6:7.1f} M I/O/s (mean response {r:.3f} ms, exact 10.000)")
    print(f"mcio fast path (simulate):  {max(fast) / 1e6:7.1f} M I/O/s (mean response {float(ds.response_ms.mean()):.3f} ms)")
    print(f"ratio mcio / hand-written:  {max(fast) / max(hand):.2f} (target >= 0.75)")


if __name__ == "__main__":
    main()
