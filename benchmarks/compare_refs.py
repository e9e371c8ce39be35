"""Throughput of two versions of mcio measured in one run, interleaved, so the ratio is fair:

    python benchmarks/compare_refs.py main             # main against the working tree
    python benchmarks/compare_refs.py main HEAD~3      # two commits
    python benchmarks/compare_refs.py main --ios 4000000 --repeat 5

Each git ref is exported (``git archive``) into a temporary directory; ``.`` (the default second
argument) is the working tree as it is, uncommitted edits included. Every measurement runs in a
new process with that tree first on ``sys.path`` (its kernels compile once, into the tree's own
cache, during a warm-up call), on one Numba thread; the two versions alternate ``--repeat`` times
and the best rate of each is kept (other work on a shared machine only ever slows a run down).

Figures: M I/O/s of the full FICON path (the calibrated ficon-channel scenario, population 26,
event engine) and of the fast path (open M/M/1 at rho 0.9), as ``benchmarks/throughput.py``
measures them (``benchmarks/common.rate``: the whole ``simulate`` call, warm-up I/Os included).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

_CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import mcio
assert mcio.__file__.startswith(sys.argv[1]), mcio.__file__
from benchmarks.common import ficon_model, mmc_model, rate, warm
kind, n = sys.argv[2], int(sys.argv[3])
model = ficon_model()[0] if kind == "ficon" else mmc_model(1)
warm(model)
import time
c0 = time.process_time()
r, wall, _ = rate(model, n, threads=1)
cpu = time.process_time() - c0
print(json.dumps({"mios": r / 1e6, "cpu_mios": r * wall / cpu / 1e6}))
"""


def _export(ref: str, into: str) -> str:
    if ref == ".":
        return ROOT
    out = os.path.join(into, ref.replace("/", "_").replace("~", "-").replace("^", "-"))
    os.makedirs(out)
    archive = subprocess.run(["git", "-C", ROOT, "archive", "--format=tar", ref],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", out], input=archive, check=True)
    return out


def two_refs(doc: str, argv=None, repeat: int = 3, more=()) -> argparse.Namespace:
    """The command line of a two-version benchmark: OLD, NEW (default ``.``, the working tree),
    ``--repeat``, and ``more`` (``(args, kwargs)`` pairs for ``add_argument``)."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("new", nargs="?", default=".")
    ap.add_argument("--repeat", type=int, default=repeat)
    for args, kwargs in more:
        ap.add_argument(*args, **kwargs)
    return ap.parse_args(argv)


@contextlib.contextmanager
def exported(a: argparse.Namespace, prefix: str = "mcio-refs-"):
    """``({ref: its tree}, scratch dir)`` for ``a.old`` and ``a.new``, exported into a temporary
    directory removed on leaving."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        yield {a.old: _export(a.old, tmp), a.new: _export(a.new, tmp)}, tmp


def run_child(tree: str, code: str, *args: str, env: dict | None = None, stdin: str | None = None):
    """Run ``code`` in a new interpreter in ``tree`` (argv[1] = tree, then ``args``; no
    PYTHONPATH, plus ``env``); its last line of output, as JSON."""
    e = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    e.update(env or {})
    r = subprocess.run([sys.executable, "-c", code, tree, *args], input=stdin, capture_output=True,
                       text=True, env=e, cwd=tree)
    if r.returncode:
        raise RuntimeError(f"{tree} {' '.join(args)} failed:\n{r.stderr}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def _measure(tree: str, kind: str, n: int) -> dict:
    return run_child(tree, _CHILD, kind, str(n), env={"NUMBA_NUM_THREADS": "1"})


def main(argv=None) -> int:
    a = two_refs(__doc__, argv, more=[(("--ios",), dict(type=int, default=4_000_000,
                                                       help="I/Os per FICON-path run (fast path: 10x)"))])
    with exported(a) as (trees, _):
        best = {(ref, kind, m): 0.0 for ref in trees for kind in ("ficon", "fast") for m in ("mios", "cpu_mios")}
        for i in range(a.repeat):
            for kind, n in (("ficon", a.ios), ("fast", 10 * a.ios)):
                for ref, tree in (trees.items() if i % 2 == 0 else reversed(trees.items())):
                    got = _measure(tree, kind, n)
                    for m in ("mios", "cpu_mios"):
                        best[ref, kind, m] = max(best[ref, kind, m], got[m])
    print(f"best of {a.repeat}, 1 thread, load average at the end {os.getloadavg()[0]:.2f}; M I/O/s per "
          "wall second and per CPU second of the process (steadier when other work shares the cores)")
    print(f"{'figure':44s} {a.old:>12s} {a.new:>12s} {'new/old':>8s}")
    for kind, label in (("ficon", f"FICON path, {a.ios:.0e} I/Os"), ("fast", f"fast path M/M/1, {10 * a.ios:.0e} I/Os")):
        for m, per in (("mios", "wall"), ("cpu_mios", "CPU")):
            o, n = best[a.old, kind, m], best[a.new, kind, m]
            print(f"{label + ', per ' + per + ' s':44s} {o:>9.2f} M/s {n:>9.2f} M/s {n / o:>8.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
