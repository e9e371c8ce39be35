"""Two source trees' kernels timed in ONE process, round after round: paired CPU time per I/O.

    python benchmarks/ab_kernels.py --against 946c6b3                   # the working tree vs a ref
    python benchmarks/ab_kernels.py --against HEAD --this HEAD          # A/A: the noise floor
    python benchmarks/ab_kernels.py --against main --cases N26 C256 fast --rounds 40

On a shared host, separate processes (event_cost.py, channel_scaling.py, fastpath_ceiling.py)
see different minutes of its load: one tree's runs moved by +-25 % between processes while a
change of a few per cent was the question. Here the other tree is exported (git archive), its
``mcio`` package copied as ``mcio_ref`` with its own imports renamed, and imported beside this
tree's ``mcio`` (``--this REF``: as ``mcio_this``), so both trees' kernels are compiled in the
same process (each into its own cache) and called alternately, in alternating order, on one
Numba thread, ``mcio.engine.run_kernels`` (no Dataset, no MSER) timed by ``time.thread_time``.
Each case's figure is the median over rounds of the rounds' own ratio (this / ref, below 1:
this is faster), with the quartiles of those ratios and how many rounds this tree won; the
medians and least of the CPU ns per I/O beside. Before timing, each case's outputs from both
trees are compared for one seed ("identical": bit for bit, what a speed-only change must keep).

Cases: ``N<population>`` the README main job (scenario ficon-channel); ``C<channels>``
channel_scaling.py's model on that many channels, the control unit a delay (what
``profile_lines.py event --channels -C`` and ``instructions.py --channels`` count); ``fast`` the
fast path's M/M/1 of fastpath_ceiling.py, ``fast<c>`` its M/M/c (c - 1 aliases, the same load per
server: the Kiefer-Wolfowitz recursion's scan of the servers). An A/A run (one ref against itself) shows what the
placement of two copies of the same code alone does (session 16: up to ~10 % between processes).
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if HERE not in sys.path:
    sys.path.insert(0, HERE)

WARMUP = 1000
REPS = 2

_IMPORT = re.compile(r"\b(from|import) mcio\b")
_DOTTED = re.compile(r"([\"'])mcio\.")


def rename_package(src: str, dest: str, name: str) -> None:
    """Copy package directory ``src`` (a tree's ``mcio``) to ``dest/name`` with its absolute
    imports of ``mcio`` and its dotted module names in strings ("mcio.kernels...") renamed, so
    that it imports beside the working tree's ``mcio`` as a package of its own."""
    out = os.path.join(dest, name)
    shutil.copytree(src, out, ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    for d, _, files in os.walk(out):
        for f in files:
            if f.endswith(".py"):
                p = os.path.join(d, f)
                with open(p) as fh:
                    s = fh.read()
                t = _IMPORT.sub(lambda m: f"{m.group(1)} {name}", s)
                t = _DOTTED.sub(lambda m: f"{m.group(1)}{name}.", t)
                if t != s:
                    with open(p, "w") as fh:
                        fh.write(t)


def export(ref: str, name: str, stack) -> str:
    """git ref ``ref`` of this repository, its ``mcio`` renamed ``name``, in a temporary directory
    (returned: the sys.path entry that imports it)."""
    tree = stack.enter_context(tempfile.TemporaryDirectory(prefix=f"mcio-ab-{name}-"))
    subprocess.run(f"git -C {ROOT} archive {ref} mcio | tar -x -C {tree}", shell=True, check=True)
    dest = stack.enter_context(tempfile.TemporaryDirectory(prefix=f"mcio-ab-pkg-{name}-"))
    rename_package(os.path.join(tree, "mcio"), dest, name)
    return dest


def build(pkg: str, case: str):
    """Case ``case``'s model, built by package ``pkg``."""
    if case.startswith("fast"):                 # fast: M/M/1; fast12: M/M/12 (the fast path)
        from fastpath_ceiling import mm1_model
        return mm1_model(pkg, int(case[4:] or 1))
    n = int(case[1:])
    if case[0] == "N":
        return importlib.import_module(pkg + ".scenarios").build_scenario("ficon-channel", {"population": n})
    if case[0] == "C":
        from channel_scaling import scaled_model
        return scaled_model(n, "unbounded", pkg)
    raise SystemExit(f"ab_kernels.py: case {case!r}: N<population>, C<channels>, fast or fast<servers>")


def identical(a, b) -> bool:
    import numpy as np
    return len(a) == len(b) and all(np.array_equal(x, y, equal_nan=True) for x, y in zip(a, b))


def measure(pkgs: dict, cases, ios: int, rounds: int) -> dict:
    """{case: {"identical": bool, tree name: [CPU ns per I/O by round], "ratio": [this / ref by
    round]}} for the two packages ``pkgs`` ({"this": package name, "ref": package name})."""
    import numba
    numba.set_num_threads(1)
    runs = {k: importlib.import_module(p + ".engine").run_kernels for k, p in pkgs.items()}
    out = {}
    for case in cases:
        fast = case.startswith("fast")
        models = {k: build(p, case) for k, p in pkgs.items()}
        first = {k: runs[k](models[k], 5000, REPS, 1, 500, 0, fast) for k in pkgs}   # (compiles)
        res = {"identical": identical(first["this"], first["ref"]), "this": [], "ref": []}
        per = ios // REPS
        for r in range(rounds):
            for k in (("this", "ref") if r % 2 == 0 else ("ref", "this")):
                t = time.thread_time()
                runs[k](models[k], per, REPS, 2, WARMUP, 0, fast)
                res[k].append((time.thread_time() - t) / (REPS * (per + WARMUP)) * 1e9)
        res["ratio"] = [a / b for a, b in zip(res["this"], res["ref"])]
        out[case] = res
    return out


def report(out: dict) -> None:
    print(f"{'case':>6}  {'identical':>9}  {'this ns/IO (median, least)':>27}  "
          f"{'ref ns/IO (median, least)':>26}  this/ref: median [quartiles], rounds this won")
    for case, r in out.items():
        q = statistics.quantiles(r["ratio"], n=4) if len(r["ratio"]) > 1 else [r["ratio"][0]] * 3
        won = sum(x < 1.0 for x in r["ratio"])
        print(f"{case:>6}  {'yes' if r['identical'] else 'NO':>9}  "
              f"{statistics.median(r['this']):13.1f} {min(r['this']):13.1f}  "
              f"{statistics.median(r['ref']):12.1f} {min(r['ref']):13.1f}  "
              f"{q[1]:.3f} [{q[0]:.3f}, {q[2]:.3f}], {won} of {len(r['ratio'])}", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", required=True, help="git ref: the other tree (as mcio_ref)")
    ap.add_argument("--this", default=None, help="a git ref in the working tree's place (as mcio_this)")
    ap.add_argument("--cases", nargs="+", default=["N26", "C1", "C256", "fast"])
    ap.add_argument("--ios", type=int, default=200_000, help="I/Os per call (fast: x 20)")
    ap.add_argument("--rounds", type=int, default=30)
    a = ap.parse_args(argv)
    with contextlib.ExitStack() as stack:
        sys.path.insert(0, export(a.against, "mcio_ref", stack))
        pkgs = {"this": "mcio", "ref": "mcio_ref"}
        if a.this:
            sys.path.insert(0, export(a.this, "mcio_this", stack))
            pkgs["this"] = "mcio_this"
        elif ROOT not in sys.path:
            sys.path.insert(0, ROOT)
        print(f"this: {a.this or 'the working tree'}; ref: {a.against}; {a.rounds} rounds; "
              f"load average {os.getloadavg()}", flush=True)
        out = {}
        for case in a.cases:
            ios = a.ios * (20 if case.startswith("fast") else 1)
            out.update(measure(pkgs, [case], ios, a.rounds))
        report(out)
        print(f"load average {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
