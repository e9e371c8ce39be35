"""Instructions per I/O of the event engine on the README main job's model (scenario
``ficon-channel``), and of the same-work anchor, counted by Valgrind (cachegrind): a count that
does not move with the host's load or speed, where CPU time here moved by +-25 % within minutes
(benchmarks/README.md, session 18) and paired timings could not show a change of less than ~5 %.

    python benchmarks/instructions.py                          # this tree, N = 5 26 80 578
    python benchmarks/instructions.py --against main           # and main, exported (git archive)
    python benchmarks/instructions.py --anchor ../shared/bench # and the anchor (with its constants)
    python benchmarks/instructions.py --branches               # and the simulated branch misses
    python benchmarks/instructions.py --fastpath --jit-only    # the fast path and its ceiling
    python benchmarks/instructions.py --channels 1 256 --jit-only  # channel_scaling.py's model

Each case is two processes under ``valgrind --tool=cachegrind``, the same up to the length of
the last ``simulate`` call (``--ios`` more I/Os per replication in the second): the difference of
their instruction counts over the difference of their I/Os is the cost of one I/O with every
start-up, compile and fixed cost of a call gone. The kernels run from the cache a native run has
just filled (Numba's CPU name and features pinned to the host's in both, or Valgrind's CPU would
miss the cache and compile); one Numba thread, hash seed fixed. Cases run in parallel (a count
does not depend on the load). A count is not a time: a cache miss or a mispredicted branch costs
no instruction (``--branches`` adds Valgrind's simulated branch predictor: its misses per I/O,
a model of a predictor, not this CPU's). Valgrind must be installed (``apt-get install valgrind``).

``--jit-only`` counts only compiled code (the kernels, and the libm functions they call;
Valgrind's callgrind, which tells code by its object): the same count to the instruction in every run of one compiled kernel (measured:
611,919,688 twice), where the whole process's count moves by ~0.5 % of a case's difference from
run to run (Python and library threads around the kernel). For comparing two trees to better
than a per cent.
The anchor (``../shared/bench/ficon_same_work.py``, never copied into the project) compiles under
Valgrind each time (it keeps no cache): ~3 minutes a process.
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from event_cost import POPS, ROOT, _trees

WARMUP = 1000          # I/Os of warm-up per replication, both processes
BASE_IOS = 20_000      # the first process's measured I/Os per replication
REPS = 2               # replications per call (mcio.simulate refuses fewer)
KERNEL_LIBS = ("libm.",)   # what compiled code calls per I/O (log, exp, pow), counted with it

_CHILD = r"""
import sys
engine, n, ios, anchor = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
import numba
numba.set_num_threads(1)
import os
sys.path.insert(0, os.path.join(os.getcwd(), "benchmarks"))
if engine in ("mcio", "fast", "channels"):
    # mcio's engine on: the main job; fastpath_ceiling.py's M/M/1 (the fast path);
    # channel_scaling.py's model on n channels, the control unit a delay (what
    # profile_lines.py --channels -n counts)
    import mcio
    if engine == "mcio":
        from mcio.scenarios import build_scenario
        m = build_scenario("ficon-channel", {"population": n})
    elif engine == "fast":
        import fastpath_ceiling as fc
        m = fc.mm1_model()
    else:
        from channel_scaling import scaled_model
        m = scaled_model(n, "unbounded")
    mcio.simulate(m, ios=1000, replications=2, warmup=100, seed=1)
    mcio.simulate(m, ios=ios, replications=%(reps)d, warmup=%(warmup)d, seed=2)
elif engine == "lindley":
    # fastpath_ceiling.py's hand-written loop on its M/M/1
    import numpy as np
    import fastpath_ceiling as fc
    st = [np.uint64(x) for x in np.random.SeedSequence(1).generate_state(4, np.uint64)]
    fc.lindley_mm1(1000, fc.RHO, 1.0, *st)
    for r in range(%(reps)d):
        fc.lindley_mm1(ios + %(warmup)d, fc.RHO, 1.0, *st)
else:
    sys.path.insert(0, anchor)
    import ficon_same_work as A
    import same_work as sw
    sw.check_model(sw.build_model(n, A), A, n)       # the anchor's constants are the model's
    A.simulate_full(n, 1000, 100, A.seed_state(1, 0))
    for r in range(%(reps)d):
        A.simulate_full(n, ios, %(warmup)d, A.seed_state(2, r))
""" % {"reps": REPS, "warmup": WARMUP}


def valgrind_cpu() -> dict:
    """The CPU the code Valgrind runs is compiled for: ``NUMBA_CPU_NAME`` / ``NUMBA_CPU_FEATURES``
    as set in the environment, else this host's (as LLVM sees it outside Valgrind, whose emulated
    CPU LLVM would read differently) with every AVX-512 feature off: Valgrind does not decode
    AVX-512 (SIGILL on a Zen 4 or a recent Xeon). Counts compare across trees in one run; across
    hosts only where the CPU is the same (sessions 19-25: Zen 3, ``znver3``)."""
    if os.environ.get("NUMBA_CPU_NAME"):
        return {k: os.environ[k] for k in ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES")
                if k in os.environ}
    import llvmlite.binding as ll
    features = ll.get_host_cpu_features()
    for name in features:
        if name.startswith("avx512"):
            features[name] = False
    return {"NUMBA_CPU_NAME": ll.get_host_cpu_name(), "NUMBA_CPU_FEATURES": features.flatten()}


def _env(tree: str) -> dict:
    return dict(os.environ, PYTHONPATH=tree, NUMBA_NUM_THREADS="1", PYTHONHASHSEED="0",
                **valgrind_cpu())


def _counts(engine: str, tree: str, n: int, ios: int, anchor: str, branches: bool,
            jit_only: bool = False) -> dict:
    """Valgrind's totals for one process: {"I": instructions, "Bc"/"Bcm": conditional branches
    and their simulated misses (with ``branches``)}; ``jit_only``: of compiled code only."""
    child = [sys.executable, "-c", _CHILD, engine, str(n), str(ios), anchor]
    with tempfile.TemporaryDirectory(prefix="mcio-instr-") as d:
        out = os.path.join(d, "callgrind.out")
        if jit_only:
            cmd = ["valgrind", "--tool=callgrind", f"--branch-sim={'yes' if branches else 'no'}",
                   "--compress-pos=no", "--compress-strings=no", f"--callgrind-out-file={out}"]
        else:
            cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no",
                   f"--branch-sim={'yes' if branches else 'no'}", "--cachegrind-out-file=/dev/null"]
        p = subprocess.run(cmd + child, env=_env(tree), cwd=tree, capture_output=True, text=True)
        if p.returncode:
            raise SystemExit(f"{engine} N={n} in {tree}: {p.stderr[-3000:]}")
        if not jit_only:
            return parse_summary(p.stderr)
        events, costs = callgrind_costs(out)
    jit = [sum(c[i] for (pos, ob), c in costs.items() if ob == "" or ob.startswith(KERNEL_LIBS))
           for i in range(len(events))]
    names = {"Ir": "I", "Bc": "Bc", "Bcm": "Bcm"}
    return {names[e]: v for e, v in zip(events, jit) if e in names}


def callgrind_costs(path: str):
    """A callgrind file (``--compress-pos=no --compress-strings=no``; with or without
    ``--dump-instr``) -> (event names, {(first position: address or line, object): [cost per
    event]}); object "" for code of no object file (JIT-compiled). The line after ``calls=``
    carries the callee's inclusive cost at the call site: not counted (the callee's own lines
    count it)."""
    events, costs = [], collections.defaultdict(lambda: [0] * len(events))
    npos, ob, after_call = 1, "", False
    with open(path) as f:
        for line in f:
            c = line[:1]
            if c.isdigit() or c in "+-*":
                if after_call:
                    after_call = False
                    continue
                parts = line.split()
                key = (int(parts[0], 0), ob)
                row = costs[key]
                for i, v in enumerate(parts[npos:npos + len(events)]):
                    row[i] += int(v)
            elif line.startswith("calls="):
                after_call = True
            elif line.startswith("ob="):
                name = line[3:].strip()
                ob = "" if name == "???" else os.path.basename(name)
            elif line.startswith("positions:"):
                npos = len(line.split()[1:])
            elif line.startswith("events:"):
                events = line.split()[1:]
    return events, dict(costs)


def parse_summary(text: str) -> dict:
    """Cachegrind's closing summary -> {"I": instructions; with --branch-sim, "Bc": conditional
    branches, "Bcm": their simulated mispredictions}."""
    out = {}
    for key, pat in (("I", r"I\s+refs:\s+([\d,]+)"),
                     ("Bc", r"Branches:\s+[\d,]+\s+\(\s*([\d,]+) cond"),
                     ("Bcm", r"Mispredicts:\s+[\d,]+\s+\(\s*([\d,]+) cond")):
        m = re.search(pat, text)
        if m:
            out[key] = int(m.group(1).replace(",", ""))
    if "I" not in out:
        raise SystemExit("instructions.py: no instruction count in cachegrind's output:\n" + text[-2000:])
    return out


def per_io(engine: str, tree: str, n: int, ios: int, anchor: str, branches: bool, pool,
           jit_only: bool = False):
    """Both processes submitted to ``pool``; returns a function that waits for them and gives
    the counts per I/O: (process with BASE_IOS + ios) - (process with BASE_IOS), over REPS * ios."""
    a = pool.submit(_counts, engine, tree, n, BASE_IOS, anchor, branches, jit_only)
    b = pool.submit(_counts, engine, tree, n, BASE_IOS + ios, anchor, branches, jit_only)

    def result() -> dict:
        lo, hi = a.result(), b.result()
        return {k: (hi[k] - lo[k]) / (REPS * ios) for k in lo}
    return result


def measure(engine: str = "mcio", pops=POPS, ios: int = 1_000_000, this=None, against=None,
            anchor: str = "", branches: bool = False, jit_only: bool = False,
            jobs: int | None = None) -> tuple[list, dict]:
    """Counts per I/O of ``engine`` ("mcio": the main job at each population; "fast":
    fastpath_ceiling.py's M/M/1, with the hand-written loop beside it as "lindley"; "channels":
    channel_scaling.py's model, the control unit a delay, on each count of ``pops`` channels) in the
    working tree (or git ref ``this``), ``against`` (a git ref) and the ``anchor`` directory:
    (case names, {(name, population): {"I": instructions, with ``branches`` "Bc", "Bcm"}}); the
    fast path's population is 0. Valgrind must be installed."""
    if engine == "fast":
        pops = [0]              # (no population: one case per engine)
    if engine != "mcio":
        anchor = ""             # (the anchor simulates the main job only)
    with contextlib.ExitStack() as stack:
        trees = {"this tree": _trees(this, 1, "mcio-this-", stack)[0]}
        if against:
            trees[against] = _trees(against, 1, "mcio-ref-", stack)[0]
        for name, tree in trees.items():      # the kernels compiled natively, into the tree's cache
            for n in pops if engine == "channels" else pops[:1]:   # (models of other shapes)
                p = subprocess.run([sys.executable, "-c", _CHILD, engine, str(n), "1000", ""],
                                   env=_env(tree), cwd=tree, capture_output=True, text=True)
                if p.returncode:
                    raise SystemExit(f"{name}: {p.stderr[-3000:]}")
        cases = [(name, engine, tree) for name, tree in trees.items()]
        if engine == "fast":
            cases.append(("lindley", "lindley", trees["this tree"]))
        if anchor:
            cases.append(("anchor", "anchor", ROOT))
        pool = stack.enter_context(concurrent.futures.ThreadPoolExecutor(jobs or os.cpu_count()))
        futures = {(name, n): per_io(kind, tree, n, ios, anchor, branches, pool, jit_only)
                   for name, kind, tree in cases for n in pops}
        return [c[0] for c in cases], {key: result() for key, result in futures.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", help="also a git ref (exported with git archive)")
    ap.add_argument("--this", default=None, help="a git ref exported in the working tree's place")
    ap.add_argument("--anchor", help="also the same-work anchor: its directory (../shared/bench "
                                     "or a copy whose constants are the scenario's)")
    ap.add_argument("--pops", type=int, nargs="+", default=list(POPS))
    ap.add_argument("--ios", type=int, default=1_000_000, help="I/Os per replication the second "
                                                             "process measures more")
    ap.add_argument("--branches", action="store_true", help="also cachegrind's simulated branch misses")
    ap.add_argument("--jit-only", action="store_true", help="count compiled code only (callgrind): "
                                                             "exact, for comparing trees")
    ap.add_argument("--fastpath", action="store_true", help="benchmarks/fastpath_ceiling.py's M/M/1 "
                    "instead: mcio's fast path (this tree, --against) and the hand-written loop")
    ap.add_argument("--channels", type=int, nargs="+", help="channel_scaling.py's model on these "
                    "channel counts instead (the control unit a delay), and each count's ratio to the first")
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    a = ap.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("instructions.py: valgrind is not installed (apt-get install valgrind)")
    engine = "fast" if a.fastpath else "channels" if a.channels else "mcio"
    anchor = os.path.abspath(a.anchor) if a.anchor and engine == "mcio" else ""
    pops = [0] if a.fastpath else a.channels or a.pops
    names, res = measure(engine, pops, a.ios, a.this, a.against, anchor, a.branches, a.jit_only,
                         a.jobs)
    print(("compiled code's " if a.jit_only else "") + "instructions per I/O"
          + (" (and simulated conditional-branch misses)" if a.branches else ""))
    print(f"{'C' if a.channels else 'N':>5} " + " ".join(f"{x:>16}" for x in names) + "   ratios")
    for n in pops:
        cells = []
        for x in names:
            r = res[(x, n)]
            cells.append(f"{r['I']:9.1f}" + (f" ({r['Bcm']:5.1f})" if "Bcm" in r else "       "))
        ratios = []
        if a.against:
            ratios.append(f"this / {a.against} {res[('this tree', n)]['I'] / res[(a.against, n)]['I']:.4f}")
        if a.fastpath:
            ratios += [f"lindley / {x} {res[('lindley', n)]['I'] / res[(x, n)]['I']:.3f}"
                       for x in names if x != "lindley"]
        if a.channels:
            ratios += [f"{x} / C={pops[0]} {res[(x, n)]['I'] / res[(x, pops[0])]['I']:.3f}"
                       for x in names]
        if anchor:
            ratios += [f"{x} / anchor {res[(x, n)]['I'] / res[('anchor', n)]['I']:.3f}"
                       for x in names if x != "anchor"]
        print(f"{n:5d} " + " ".join(f"{c:>16}" for c in cells) + "   " + "; ".join(ratios))
    print(json.dumps({f"{x}|{n}": res[(x, n)] for x, n in res}))


if __name__ == "__main__":
    main()
