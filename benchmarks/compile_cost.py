"""What a first answer costs in compiling: the Numba specialisations ``mcio run`` compiles with an
empty cache, and the command's CPU time cold (empty cache) and warm (the cache it just filled).

    python benchmarks/compile_cost.py                    # mcio run (the README main job's model)
    python benchmarks/compile_cost.py --against b986a43  # the same for another commit, alternating
    python benchmarks/compile_cost.py --list             # which functions compile, how often, how long
    python benchmarks/compile_cost.py --phases           # where a cold compile's CPU goes, by phase
    python benchmarks/compile_cost.py --against HEAD --repeat 5 --phases   # before/after, by phase
    python benchmarks/compile_cost.py --against HEAD --repeat 5 --together # both at once: the ratio
    python benchmarks/compile_cost.py -- run examples/topology/two_subsystems.toml

Each measurement is a new process with ``NUMBA_CACHE_DIR`` a new temporary directory (Numba then
keeps every cache entry there, none in the tree's ``__pycache__``), running the command through
``mcio.cli.main``. The child counts Numba's ``numba:compile`` events (one per specialisation
compiled, nested ones included: a function compiled on its own for a caller's typing counts too)
and sums the outermost events' durations (the compile's wall time), and reports its own CPU time
(user + system, ``resource``) for the whole process: interpreter, imports, compiling, the run.
Then a second process runs the same command on the filled cache (the warm figure). Of the
specialisations, those of a kernel called only from other kernels (``mcio/kernels/dispatch.py``)
are compiled into their callers' code: no machine code of their own ("into callers").

``--phases``: one more cold process, on one thread, with a CPU-time clock (``process_time``)
around Numba's and LLVM's steps (exclusive times: a nested compile's time goes to its own steps):
typing, Numba's IR passes, lowering to LLVM IR, the wrappers, LLVM's function and module passes,
machine code, the cache.

``--against REF`` also measures ``git archive REF`` unpacked in a temporary directory, the two
trees alternating (``--repeat`` rounds), so a before/after comparison shares the machine's load.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

_CHILD = r"""
import collections, json, resource, sys, time
from numba.core import event as ev

names = collections.Counter()
into_callers = [0]
own = collections.Counter()          # seconds of each function's compiles, nested ones excluded
outer = [0.0]
stack = []


def _name(event):
    f = event.data["dispatcher"].py_func
    return f.__qualname__ + " (" + f.__module__ + ")"


class Listener(ev.Listener):
    def on_start(self, event):
        now = time.perf_counter()
        if stack:
            own[stack[-1][0]] += now - stack[-1][1]
        names[_name(event)] += 1
        into_callers[0] += type(event.data["dispatcher"]).__name__ == "_Callee"
        stack.append([_name(event), now, now])

    def on_end(self, event):
        now = time.perf_counter()
        name, since, began = stack.pop()
        own[name] += now - since
        if stack:
            stack[-1][1] = now
        else:
            outer[0] += now - began

ev.register("numba:compile", Listener())
t0 = time.perf_counter()
import mcio.cli
try:
    mcio.cli.main(sys.argv[1:], standalone_mode=False)
except SystemExit:
    pass
ru = resource.getrusage(resource.RUSAGE_SELF)
json.dump({"compiled": sum(names.values()), "names": dict(names), "own_s": dict(own),
           "mcio": sum(n for k, n in names.items() if "(mcio." in k), "compile_s": outer[0],
           "into_callers": into_callers[0],
           "cpu_s": ru.ru_utime + ru.ru_stime, "wall_s": time.perf_counter() - t0},
          sys.stderr)
"""


_PHASES = r"""
import collections, functools, json, os, sys, time
from numba.core import caching, codegen, compiler_machinery as cm, cpu
clock = time.process_time
acc = collections.Counter()
stack = []


def wrap(owner, name, cat):
    f = getattr(owner, name)

    @functools.wraps(f)
    def w(*a, **k):
        now = clock()
        if stack:
            acc[stack[-1][0]] += now - stack[-1][1]
        stack.append([cat(*a) if callable(cat) else cat, now])
        try:
            return f(*a, **k)
        finally:
            now = clock()
            c, since = stack.pop()
            acc[c] += now - since
            if stack:
                stack[-1][1] = now
    setattr(owner, name, w)


def by_pass(pm, index, pss, state):
    n = pss.name()
    return {"nopython_type_inference": "typing", "native_lowering": "lowering to LLVM IR"}.get(
        n, "Numba's other IR passes")


wrap(cm.PassManager, "_runPass", by_pass)
wrap(cpu.CPUContext, "create_cpython_wrapper", "CPython wrappers")
wrap(cpu.CPUContext, "create_cfunc_wrapper", "C wrappers")
wrap(codegen.CPUCodeLibrary, "add_ir_module", "LLVM IR text and parsing")
wrap(codegen.CPUCodeLibrary, "_optimize_functions", "LLVM function passes")
wrap(codegen.CPUCodeLibrary, "_optimize_final_module", "LLVM module passes")
wrap(codegen.JITCodeLibrary, "_finalize_specific", "machine code")
wrap(caching.Cache, "save_overload", "cache")
wrap(caching.Cache, "load_overload", "cache")
import mcio.cli
t0 = clock()
try:
    mcio.cli.main(sys.argv[1:], standalone_mode=False)
except SystemExit:
    pass
acc["(the command, outside these)"] = clock() - t0 - sum(acc.values())
json.dump(dict(acc), sys.stderr)
"""


def phases(tree: str, args: list[str]) -> dict:
    """CPU seconds of a cold ``mcio ARGS`` by compile phase (one thread)."""
    with tempfile.TemporaryDirectory(prefix="mcio-numba-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=tree, NUMBA_NUM_THREADS="1")
        p = subprocess.run([sys.executable, "-c", _PHASES, *args], env=env, cwd=tree,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        last = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""
        try:
            return json.loads(last[last.index("{"):])
        except ValueError:
            raise SystemExit(f"{tree}: the child failed:\n{p.stderr[-3000:]}")


def measure(tree: str, args: list[str]) -> dict:
    """Cold then warm figures of ``mcio ARGS`` on the source tree ``tree``."""
    with tempfile.TemporaryDirectory(prefix="mcio-numba-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=tree)
        out = {}
        for kind in ("cold", "warm"):
            p = subprocess.run([sys.executable, "-c", _CHILD, *args], env=env, cwd=tree,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            last = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""
            try:
                out[kind] = json.loads(last[last.index("{"):])
            except ValueError:
                raise SystemExit(f"{tree}: the child failed:\n{p.stderr[-3000:]}")
        return out


def cold_together(trees: dict, args: list[str]) -> dict:
    """Each tree's cold ``mcio ARGS`` at the same time, one Numba thread each (one core each on a
    2-core machine): both see the same load, so their ratio holds while the machine's speed
    drifts (a shared host's CPU time for the same work moved by +-20 % over minutes)."""
    procs, caches = {}, []
    for name, tree in trees.items():
        cache = tempfile.TemporaryDirectory(prefix="mcio-numba-")
        caches.append(cache)
        env = dict(os.environ, NUMBA_CACHE_DIR=cache.name, PYTHONPATH=tree, NUMBA_NUM_THREADS="1")
        procs[name] = subprocess.Popen([sys.executable, "-c", _CHILD, *args], env=env, cwd=tree,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    out = {}
    for name, p in procs.items():
        err = p.communicate()[1].strip()
        last = err.splitlines()[-1] if err else ""
        try:
            out[name] = json.loads(last[last.index("{"):])
        except ValueError:
            raise SystemExit(f"{trees[name]}: the child failed:\n{err[-3000:]}")
    for cache in caches:
        cache.cleanup()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", help="also measure this git ref (git archive into a temp dir)")
    ap.add_argument("--repeat", type=int, default=1, help="rounds (trees alternate in each)")
    ap.add_argument("--list", action="store_true", help="print the functions compiled, by count")
    ap.add_argument("--phases", action="store_true", help="also a cold run's CPU by compile phase")
    ap.add_argument("--together", action="store_true",
                    help="with --against: the two trees' cold runs at the same time, one thread "
                         "each (--repeat rounds); prints this tree / the other per round")
    ap.add_argument("args", nargs="*", default=["run"], help="the mcio command (default: run)")
    a = ap.parse_args()
    trees = {"this tree": ROOT}
    tmp = None
    if a.against:
        tmp = tempfile.TemporaryDirectory(prefix="mcio-ref-")
        subprocess.run(f"git -C {ROOT} archive {a.against} | tar -x -C {tmp.name}", shell=True,
                       check=True)
        # (its bytecode compiled now, as this tree's already is: not in its first round's CPU)
        subprocess.run([sys.executable, "-m", "compileall", "-q", tmp.name], check=True,
                       stdout=subprocess.DEVNULL)
        trees = {a.against: tmp.name, "this tree": ROOT}
    print(f"mcio {' '.join(a.args)}; load average {os.getloadavg()}")
    if a.together:
        if len(trees) != 2:
            raise SystemExit("--together needs --against")
        ratios = []
        for r in range(a.repeat):
            got = cold_together(trees, a.args)
            cpu = {k: g["cpu_s"] for k, g in got.items()}
            ratios.append(cpu["this tree"] / cpu[a.against])
            print(f"round {r}: cold CPU {a.against} {cpu[a.against]:.2f} s, this tree "
                  f"{cpu['this tree']:.2f} s: {ratios[-1]:.3f} ({got['this tree']['compiled']} vs "
                  f"{got[a.against]['compiled']} specialisations)", flush=True)
        print(f"this tree / {a.against}: median {sorted(ratios)[len(ratios) // 2]:.3f} of "
              f"{len(ratios)}, range {min(ratios):.3f}-{max(ratios):.3f}; load average "
              f"{os.getloadavg()}")
        tmp.cleanup()
        return
    rows = {k: [] for k in trees}
    for r in range(a.repeat):
        for name, tree in trees.items():
            m = measure(tree, a.args)
            rows[name].append(m)
            c, w = m["cold"], m["warm"]
            print(f"round {r} {name:>12}: cold {c['compiled']:4d} specialisations ({c['mcio']} of "
                  f"mcio's, {c.get('into_callers', 0)} into callers), compiling "
                  f"{c['compile_s']:5.1f} s wall, process {c['cpu_s']:5.1f} s CPU ({c['wall_s']:5.1f} s "
                  f"wall); warm {w['compiled']} compiled, {w['cpu_s']:4.2f} s CPU ({w['wall_s']:4.2f} s wall)",
                  flush=True)
    print(f"load average {os.getloadavg()}")
    for name, ms in rows.items():
        med = lambda f: sorted(f(m) for m in ms)[len(ms) // 2]
        print(f"{name:>12}: specialisations {ms[0]['cold']['compiled']} ({ms[0]['cold']['mcio']} of "
              f"mcio's, {ms[0]['cold'].get('into_callers', 0)} into callers), cold CPU "
              f"{med(lambda m: m['cold']['cpu_s']):.1f} s, warm CPU {med(lambda m: m['warm']['cpu_s']):.2f} s, "
              f"warm wall {med(lambda m: m['warm']['wall_s']):.2f} s (median of {len(ms)})")
        if a.list:
            own = ms[0]["cold"]["own_s"]
            print("    compiles  own s  function (own: its compiles' time, nested compiles excluded)")
            for fn, n in sorted(ms[0]["cold"]["names"].items(), key=lambda kv: (-own[kv[0]], kv[0])):
                print(f"    {n:8d} {own[fn]:6.2f}  {fn}")
    if a.phases:
        # --repeat rounds here too, the trees alternating: each phase's median over the rounds
        runs = {name: [] for name in trees}
        for r in range(a.repeat):
            for name, tree in trees.items():
                runs[name].append(phases(tree, a.args))
        got = {name: {k: sorted(g.get(k, 0.0) for g in gs)[len(gs) // 2] for k in {k for g in gs for k in g}}
               for name, gs in runs.items()}
        keys = sorted({k for g in got.values() for k in g}, key=lambda k: -max(g.get(k, 0) for g in got.values()))
        print(f"cold, one thread, CPU s by phase (median of {a.repeat}): " + " | ".join(trees))
        for k in keys:
            print("    " + "  ".join(f"{got[n].get(k, 0.0):6.2f}" for n in trees) + f"  {k}")
        print("    " + "  ".join(f"{sum(got[n].values()):6.2f}" for n in trees) + "  (all)")
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
