"""How fast this host runs a chain of dependent floating-point operations right now: CPU ns a
step of an add chain, a max-then-add chain (the fast path's free time: free' = max(free, t) +
svc) and a multiply-then-add chain (the fast path's sums).

Why: on a shared (virtual) host the same core can run the same code at half its speed for an
hour (benchmarks/README.md, session 31: a dependent add 0.54 ns idle, 0.82-1.24 ns later, the
load average ~1 and no steal time counted either way), and which of two forms of a loop is the
faster can flip with it. Printed beside the issue's figures (``issue29.py``,
``fastpath_ceiling.py``), it says which host state a figure was taken in.

    python benchmarks/host_probe.py
"""
from __future__ import annotations

import time

import numba as nb

STEPS = 50_000_000


@nb.njit(cache=False)
def _adds(n, x, y):
    for _ in range(n):
        x = x + y
    return x


@nb.njit(cache=False)
def _max_adds(n, x, y, z):
    for _ in range(n):
        x = (x if x > z else z) + y
    return x


@nb.njit(cache=False)
def _mul_adds(n, x, y, o):
    for _ in range(n):
        x = x * o + y
    return x


def probe(steps: int = STEPS, repeat: int = 3) -> dict:
    """CPU ns a step (least of ``repeat``) of each chain: {"add", "max_add", "mul_add"}."""
    calls = {"add": (_adds, (1.0, 1e-9)), "max_add": (_max_adds, (1.0, 1e-9, 0.5)),
             "mul_add": (_mul_adds, (1.0, 1e-9, 0.9999999))}
    best = {}
    for k, (f, args) in calls.items():
        f(10, *args)                                            # compile
        for _ in range(repeat):
            t = time.thread_time()
            f(steps, *args)
            best[k] = min(best.get(k, float("inf")), (time.thread_time() - t) / steps * 1e9)
    return best


def line(steps: int = STEPS) -> str:
    """The probe as one line of text."""
    p = probe(steps)
    return (f"host probe (CPU ns a dependent step): add {p['add']:.2f}, max then add "
            f"{p['max_add']:.2f}, multiply then add {p['mul_add']:.2f}")


if __name__ == "__main__":
    print(line())
