"""Issue 29's figures in one place (the asv suite ``bench_issue29.py`` wraps these functions):

- ``mainjob``: mcio's CPU ns per I/O on the README main job's model (the ficon-channel scenario,
  closed) at populations 5, 26, 80 and 578 (the issue's same-work figure is this over the
  anchor's, which lives outside the project);
- ``channels``: CPU ns per I/O of the event kernel at 1 and 256 channels at the same per-channel
  load (``channel_scaling.py``'s model, CU scaled), and their ratio (target <= 1.3);
- ``ceiling``: the fast path against the hand-written Lindley loop (``fastpath_ceiling.py``), the
  ratio of the rates in CPU time (target >= 0.9: mcio at least 0.9x the hand loop's speed);
- ``threads``: 1 -> 2 Numba threads on 4 replications (FICON model 4e6 I/Os, fast path 1e8):
  the wall-time speed-up (target >= 1.9, meaningful on an idle machine only) and, whatever the
  load, the speed-up the CPU times allow (below);
- ``warm``: ``mcio run`` (the built-in main job) as a new process on a warm kernel cache: wall
  and CPU seconds (target <= 1 s wall), median of ``--repeat``; with ``--against TREE``, that
  tree's and this one's alternated, ``--repeat`` rounds (a before / after);
- ``cold``: ``benchmarks/compile_cost.py`` (the specialisations an empty cache compiles, cold
  CPU), where that script exists;
- ``memory``: bytes per point of a 10^4-point fast-path grid in memory and to a file
  (``memory_per_point.py``; target <= 2 KB).
- ``samework``: the issue's own figure, ``same_work.py``'s ratio (mcio / the anchor, CPU) per
  population and its worst (target <= 1.25), from the anchor's harness run on a copy made outside
  the project by ``anchor_copy.py`` (a temporary directory; the shipped anchor's constants lag the
  scenario's); skipped where ``../shared/bench`` is not beside the project;
- ``instructions``: compiled code's instructions per I/O, counted by Valgrind
  (``instructions.py --jit-only``: the same count in every run, whatever the host's load or
  speed): the event path on the main job at N = 26 and the fast path beside the hand-written
  loop (their ratio: the ceiling's, in instructions); skipped without Valgrind.

    python benchmarks/issue29.py                    # everything (~10 min on a quiet machine)
    python benchmarks/issue29.py threads warm       # some

CPU figures are least-of-``--repeat`` ``time.process_time`` (every thread of the process), one
Numba thread unless said: other work on a shared machine adds less to them than to wall times.
The threads' CPU-bound speed-up: on two threads the replications' kernels run in mcio's kernel
pool, whose tasks are timed here per thread (``time.thread_time``); the rest of the process's
CPU is the serial Python around them (packing, statistics, the Dataset). Two free cores would
run the two-thread call in its serial CPU plus its busier kernel thread's CPU: the one-thread
call's CPU over that is the speed-up the work allows, whatever else the machine runs (two
threads slowing each other down through shared caches or memory show in their CPU, and count).
The load average and ``host_probe.py``'s chain latencies (the host's state: a shared host can run
at half speed for an hour) are printed before and after. Results: benchmarks/README.md, "issue 29".
"""
from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for p in (ROOT, HERE):
    if p not in sys.path:
        sys.path.insert(0, p)

POPULATIONS = (5, 26, 80, 578)
SEED = 2026


def _least_cpu(call, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        c = time.process_time()
        call()
        best = min(best, time.process_time() - c)
    return best


def mainjob_cpu_ns(populations=POPULATIONS, ios: int = 400_000, repeat: int = 3) -> dict:
    """{N: least CPU ns per I/O of ``simulate`` (2 replications, 10 % warm-up counted), one thread}."""
    from benchmarks.common import set_threads
    from benchmarks.models import ficon_model
    from channel_scaling import _simulate_call
    set_threads(1)
    calls = {n: _simulate_call(ficon_model(n)[0], ios, False) for n in populations}
    for call in calls.values():
        call()                                   # compile / load
    best = {n: float("inf") for n in populations}
    for _ in range(repeat):                      # populations alternate within a round
        for n, call in calls.items():
            best[n] = min(best[n], _least_cpu(call, 1) / ios * 1e9)
    return best


def channel_cost(ios: int = 300_000, repeat: int = 3, channels=(1, 256)) -> dict:
    """{C: least CPU ns per I/O of the event kernel alone at C channels} (channel_scaling.py)."""
    from benchmarks.common import set_threads
    from channel_scaling import _kernel_call, scaled_model
    set_threads(1)
    calls = {c: _kernel_call(scaled_model(c), ios) for c in channels}
    for call in calls.values():
        call()
    best = {c: float("inf") for c in channels}
    for _ in range(repeat):
        for c, call in calls.items():
            best[c] = min(best[c], _least_cpu(call, 1) / ios * 1e9)
    return best


def ceiling(ios: int = 20_000_000, repeat: int = 3) -> dict:
    """fastpath_ceiling.measure: rates (I/Os per s) wall and CPU of the hand loop, simulate and
    the kernels alone."""
    from fastpath_ceiling import measure
    return measure(ios, repeat)


class _ThreadCpu:
    """While in use, every kernel call (``fast_one``, ``run_one``, ``run_one_units``: one
    replication each) records its thread's CPU time, summed per thread: the kernel threads' and
    the calling thread's (which takes replications beside the pool)."""

    KERNELS = (("mcio.kernels.fastpath", "fast_one"), ("mcio.kernels.iopath", "run_one"),
               ("mcio.kernels.iopath", "run_one_units"))

    def __enter__(self):
        import importlib
        self.per_thread, self.orig = {}, []
        lock = threading.Lock()
        record = self.per_thread
        for mod_name, name in self.KERNELS:
            mod = importlib.import_module(mod_name)
            kernel = getattr(mod, name)
            self.orig.append((mod, name, kernel))

            def timed(*args, _kernel=kernel):
                c = time.thread_time()
                try:
                    return _kernel(*args)
                finally:
                    with lock:
                        k = threading.get_ident()
                        record[k] = record.get(k, 0.0) + time.thread_time() - c
            setattr(mod, name, timed)
        return self

    def __exit__(self, *exc):
        for mod, name, kernel in self.orig:
            setattr(mod, name, kernel)


def _split_cpu(call) -> tuple[float, float, list]:
    """(wall, process CPU, [kernels' CPU in each thread that ran any]) of ``call()``."""
    with _ThreadCpu() as tc:
        t, c = time.perf_counter(), time.process_time()
        call()
        wall, cpu = time.perf_counter() - t, time.process_time() - c
    return wall, cpu, sorted(tc.per_thread.values())


def threads_speedup(which: str = "ficon", repeat: int = 2) -> dict:
    """1 vs 2 Numba threads on 4 replications: ``wall`` (best wall-time speed-up of ``repeat``
    interleaved pairs) and ``cpu_bound``: the one-thread run's CPU over what the two-thread run
    needs with two free cores, its serial CPU (the process's minus every thread's kernels) plus
    its busier thread's kernel CPU (best pair); ``k_ratio``: the two-thread run's kernel CPU over
    the one-thread run's (above 1: they slow each other down)."""
    from benchmarks.common import ficon_model, mmc_model, rate, set_threads, warm
    model = ficon_model()[0] if which == "ficon" else mmc_model(1)
    total = 4_000_000 if which == "ficon" else 100_000_000
    warm(model)
    runs = {1: [], 2: []}
    for _ in range(repeat):
        for th in (1, 2):
            runs[th].append(_split_cpu(lambda: rate(model, total, replications=4, threads=th)))
    set_threads(2)
    w1, w2 = min(r[0] for r in runs[1]), min(r[0] for r in runs[2])
    pairs = []
    for (_, c1, k1), (_, c2, ks) in zip(runs[1], runs[2]):
        serial = c2 - sum(ks)
        pairs.append((c1 / (serial + max(ks, default=0.0)), c1, serial, ks, sum(k1)))
    best, c1, serial, ks, k1 = max(pairs)
    return {"wall": w1 / w2, "cpu_bound": best, "k_ratio": sum(ks) / max(k1, 1e-9),
            "serial_s": serial, "cpu1_s": c1, "kernel_threads_s": ks, "wall_s": (w1, w2)}


def warm_run(repeat: int = 5, args=("run",), tree: str = ROOT) -> dict:
    """``python -m mcio.cli ARGS`` of ``tree`` as new processes on the kernels' warm cache: median
    wall and CPU (user + system) seconds; the first run (which may fill the cache) is not counted."""
    from compare_cli import installed_env
    env = installed_env(tree)

    def one():
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "mcio.cli", *args], cwd=tree, env=env, check=True,
                       capture_output=True)
        wall = time.perf_counter() - t
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)

    one()
    got = [one() for _ in range(repeat)]
    if not got:
        return {}
    return {"wall": statistics.median(w for w, _ in got), "cpu": statistics.median(c for _, c in got),
            "walls": [w for w, _ in got]}


def warm_alternated(trees, rounds: int = 7, args=("run",)) -> dict:
    """:func:`warm_run` of each of ``trees`` (paths of mcio trees, each with a warm kernel cache),
    one run each per round, the trees alternating (their order turned each round), so that the
    machine's load falls on every tree alike: {tree: {"wall", "cpu" (medians), "walls", "cpus"}}."""
    from compare_cli import installed_env
    got = {t: [] for t in trees}
    for t in trees:                                # the first run (which may fill a cache) not counted
        warm_run(repeat=0, args=args, tree=t)
    for r in range(rounds):
        for t in (trees if r % 2 == 0 else trees[::-1]):
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            w = time.perf_counter()
            subprocess.run([sys.executable, "-m", "mcio.cli", *args], cwd=t, env=installed_env(t), check=True,
                           capture_output=True)
            w = time.perf_counter() - w
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            got[t].append((w, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)))
    return {t: {"wall": statistics.median(w for w, _ in g), "cpu": statistics.median(c for _, c in g),
                "walls": [w for w, _ in g], "cpus": [c for _, c in g]} for t, g in got.items()}


def cold_compile(args=("run",)) -> dict:
    """``compile_cost.measure`` of this tree (cold and warm figures), or {} where
    benchmarks/compile_cost.py does not exist."""
    try:
        import compile_cost
    except ImportError:
        return {}
    return compile_cost.measure(ROOT, list(args))


def memory(points: int = 10_000) -> dict:
    """{"mem": ..., "file": ...}: memory_per_point.measure of a ``points``-point grid."""
    from memory_per_point import measure
    return {"mem": measure(points, False), "file": measure(points, True)}


def instruction_counts(populations=(26,), ios: int = 200_000, channels=(1, 256)) -> dict:
    """Compiled code's instructions per I/O (``instructions.measure``, ``jit_only``): {"mcio": {N:
    the event path's on the main job}, "fast": the fast path's, "lindley": the hand-written
    loop's (fastpath_ceiling.py's M/M/1), "channels": {C: the event path's on channel_scaling.py's
    model, the control unit a delay}}; {} where Valgrind is not installed."""
    import shutil
    if shutil.which("valgrind") is None:
        return {}
    import instructions
    _, ev = instructions.measure("mcio", list(populations), ios, jit_only=True)
    _, fp = instructions.measure("fast", [0], ios, jit_only=True)
    _, ch = instructions.measure("channels", list(channels), ios, jit_only=True)
    return {"mcio": {n: ev[("this tree", n)]["I"] for n in populations},
            "fast": fp[("this tree", 0)]["I"], "lindley": fp[("lindley", 0)]["I"],
            "channels": {c: ch[("this tree", c)]["I"] for c in channels}}


_SAME_WORK_ROW = re.compile(r"^\s*(\d+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s", re.M)
_SAME_WORK_WORST = re.compile(r"^SAME-WORK RATIO worst=([0-9.]+)", re.M)


def parse_same_work(text: str) -> dict:
    """``same_work.py``'s ratio table: {"ratio", "mcio_ns", "anchor_ns": {N: value}, "worst":
    its last line's ratio}. Raises ValueError if the text has no table or no last line."""
    rows = _SAME_WORK_ROW.findall(text)
    worst = _SAME_WORK_WORST.search(text)
    if not rows or worst is None:
        raise ValueError("same_work.py's output has no ratio table or no 'SAME-WORK RATIO' line:\n"
                         + text[-2000:])
    out = {"ratio": {}, "mcio_ns": {}, "anchor_ns": {}, "worst": float(worst.group(1))}
    for n, m, a_, r in rows:
        out["mcio_ns"][int(n)] = float(m)
        out["anchor_ns"][int(n)] = float(a_)
        out["ratio"][int(n)] = float(r)
    return out


def same_work(populations=POPULATIONS, anchor: str | None = None) -> dict:
    """The issue's same-work figure as its harness gives it (``parse_same_work``), run on a copy
    of the anchor made by ``anchor_copy.py`` in a temporary directory outside the project (the
    anchor is never copied into it); {} where the anchor is not there (a clone without
    ../shared)."""
    import tempfile
    import anchor_copy
    src = anchor or anchor_copy.ANCHOR
    if not os.path.isfile(os.path.join(src, anchor_copy.ANCHOR_FILE)):
        return {}
    with tempfile.TemporaryDirectory() as tmp:
        dest = os.path.join(tmp, "anchor")
        if anchor_copy.main([dest, "--anchor", src, "--no-check"]) != 0:
            raise RuntimeError(f"anchor_copy.py could not copy {src}")
        p = anchor_copy.run_harness(dest, "--pops", *map(str, populations), cwd=dest,
                                    capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"same_work.py failed ({p.returncode}):\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
    return parse_same_work(p.stdout)


def main(argv=None) -> int:
    parts = ("mainjob", "samework", "channels", "ceiling", "threads", "warm", "cold", "memory", "instructions")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("parts", nargs="*", help=f"some of: {', '.join(parts)} (default: all)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--against", metavar="TREE", default=None,
                    help="warm: alternate this tree's mcio run (e.g. a checkout before a change) with this "
                         "tree's, --repeat rounds")
    a = ap.parse_args(argv)
    bad = [p for p in a.parts if p not in parts]
    if bad:
        ap.error(f"unknown part(s) {', '.join(bad)}; choose from {', '.join(parts)}")
    from host_probe import line as host_line
    print(f"load average {os.getloadavg()}; {host_line()}", flush=True)
    for part in a.parts or parts:
        if part == "mainjob":
            got = mainjob_cpu_ns(repeat=a.repeat)
            print("main job CPU ns per I/O: " + ", ".join(f"N={n} {v:.0f}" for n, v in got.items()), flush=True)
        elif part == "samework":
            g = same_work()
            if not g:
                print("same-work: the anchor (../shared/bench) is not beside the project", flush=True)
            else:
                print("same-work mcio / anchor (CPU): " + ", ".join(
                    f"N={n} {r:.2f} ({g['mcio_ns'][n]:.1f} / {g['anchor_ns'][n]:.1f} ns)"
                    for n, r in g["ratio"].items()) + f"; worst {g['worst']:.2f} (target <= 1.25)", flush=True)
        elif part == "channels":
            got = channel_cost(repeat=a.repeat)
            print(f"event kernel CPU ns per I/O: 1 channel {got[1]:.0f}, 256 channels {got[256]:.0f}: "
                  f"{got[256] / got[1]:.2f}x (target <= 1.3)", flush=True)
        elif part == "ceiling":
            b = ceiling(repeat=a.repeat)
            print(f"fast path / hand-written Lindley loop (rates): CPU {b['simulate_cpu'] / b['hand_cpu']:.2f} "
                  f"simulate, {b['kernels_cpu'] / b['hand_cpu']:.2f} kernels; wall {b['simulate'] / b['hand']:.2f}, "
                  f"{b['kernels'] / b['hand']:.2f} (target >= 0.9, CPU, simulate)", flush=True)
        elif part == "threads":
            for which in ("ficon", "fast"):
                g = threads_speedup(which, repeat=max(2, a.repeat - 1))
                print(f"1 -> 2 threads, {which}: wall {g['wall']:.2f}x, CPU-bound {g['cpu_bound']:.2f}x "
                      f"(1 thread {g['cpu1_s']:.3f} s CPU; 2 threads: serial {g['serial_s']:.3f} s, kernel "
                      f"threads {' + '.join(f'{k:.3f}' for k in g['kernel_threads_s'])} s, x{g['k_ratio']:.3f} "
                      f"the one thread's kernels; wall {g['wall_s'][0]:.2f} / {g['wall_s'][1]:.2f} s) "
                      f"(target >= 1.9)", flush=True)
        elif part == "warm" and a.against:
            for t, g in warm_alternated([a.against, ROOT], rounds=max(3, a.repeat)).items():
                print(f"warm mcio run, {t}: {g['wall']:.2f} s wall, {g['cpu']:.2f} s CPU (median; walls "
                      f"{', '.join(f'{w:.2f}' for w in g['walls'])}; CPU {', '.join(f'{c:.2f}' for c in g['cpus'])})",
                      flush=True)
        elif part == "warm":
            g = warm_run(repeat=max(3, a.repeat))
            print(f"warm mcio run: {g['wall']:.2f} s wall, {g['cpu']:.2f} s CPU (median; walls "
                  f"{', '.join(f'{w:.2f}' for w in g['walls'])}) (target <= 1 s wall)", flush=True)
        elif part == "cold":
            g = cold_compile()
            if not g:
                print("cold compile: benchmarks/compile_cost.py not in this tree", flush=True)
            else:
                c, w = g["cold"], g["warm"]
                print(f"mcio run cold: {c['compiled']} specialisations, {c['cpu_s']:.1f} s CPU; warm "
                      f"{w['cpu_s']:.2f} s CPU, {w['wall_s']:.2f} s wall", flush=True)
        elif part == "memory":
            g = memory()
            for k, m in g.items():
                print(f"memory per point, 10^4-point grid, {k}: {m['per_point']:.0f} B (target <= 2048)", flush=True)
        elif part == "instructions":
            g = instruction_counts()
            if not g:
                print("instructions: valgrind is not installed", flush=True)
            else:
                print("compiled code's instructions per I/O: event path "
                      + ", ".join(f"N={n} {v:.1f}" for n, v in g["mcio"].items())
                      + f"; fast path {g['fast']:.1f}, hand-written loop {g['lindley']:.1f}: "
                      f"{g['lindley'] / g['fast']:.3f}; channels "
                      + ", ".join(f"C={c} {v:.1f}" for c, v in g["channels"].items())
                      + f": {g['channels'][256] / g['channels'][1]:.3f}", flush=True)
    print(f"load average {os.getloadavg()}; {host_line()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
