"""Time to an answer at the command line, two versions of mcio in one run: the README main job as
a planner runs it, each command a new process (interpreter start, imports, Numba's start-up and
its kernel cache, the sweep, the final file, the process's exit):

    python benchmarks/compare_cli.py 5b2ef82            # that commit against the working tree
    python benchmarks/compare_cli.py 5b2ef82 HEAD --repeat 5

Times ``python -m mcio.cli sweep examples/ficon_knee.toml -o OUT.h5 -q`` and ``python -m
mcio.cli plot OUT.h5 -o OUT.png`` (the README's two commands) as wall time of the whole process.
Each ref is exported as in ``compare_refs.py`` and put first on ``PYTHONPATH``; one warm-up run of
each compiles its kernels into the tree's own cache and writes its bytecode (as an install does:
``PYTHONDONTWRITEBYTECODE`` is dropped). The versions alternate ``--repeat`` times (ABBA); the
best and the median of each are printed (other work on a shared machine only ever adds time).
Optional packages change the figures: with dask installed, xarray imports part of it
(``dask.base``, and ``dask.array`` for reductions, as in ``plot``).
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from compare_refs import exported, two_refs  # noqa: E402


def installed_env(tree: str) -> dict:
    """The environment of a command run on ``tree``'s mcio as an installed one runs: the tree
    first on PYTHONPATH, bytecode written."""
    e = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    e["PYTHONPATH"] = tree
    return e


def _run(tree: str, *args: str) -> float:
    """Wall seconds of ``python -m mcio.cli ARGS`` run in ``tree`` (its exit included)."""
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "mcio.cli", *args], cwd=tree, env=installed_env(tree),
                       capture_output=True, text=True)
    wall = time.perf_counter() - t
    if r.returncode:
        raise RuntimeError(f"{tree}: mcio {' '.join(args)} failed:\n{r.stderr}")
    return wall


def _commands(tree: str, out: str) -> dict:
    if os.path.exists(out):
        os.remove(out)
    main_job = os.path.join(tree, "examples", "ficon_knee.toml")
    return {"sweep": _run(tree, "sweep", main_job, "-o", out, "-q"),
            "plot": _run(tree, "plot", out, "-o", out[:-3] + ".png")}


def main(argv=None) -> int:
    a = two_refs(__doc__, argv, repeat=4)
    with exported(a, "mcio-cli-") as (trees, tmp):
        for ref, tree in trees.items():
            got = subprocess.run([sys.executable, "-c", "import mcio; print(mcio.__file__)"], cwd=tree,
                                 env=installed_env(tree), capture_output=True, text=True, check=True).stdout
            if not got.startswith(os.path.realpath(tree)) and not got.startswith(tree):
                raise RuntimeError(f"{ref}: imported {got.strip()}, not the tree's mcio")
            _commands(tree, os.path.join(tmp, "warm.h5"))     # compile / load kernels, write bytecode
        times: dict = {}
        for i in range(a.repeat):
            for ref, tree in (trees.items() if i % 2 == 0 else reversed(list(trees.items()))):
                for k, v in _commands(tree, os.path.join(tmp, f"{i}.h5")).items():
                    times.setdefault((ref, k), []).append(v)
    print(f"{a.repeat} alternations (ABBA), each command a new process; load average at the end "
          f"{os.getloadavg()[0]:.2f}")
    print(f"{'command':34s} {a.old:>16s} {a.new:>16s} {'old/new':>8s}")
    for k, label in (("sweep", "mcio sweep ficon_knee.toml -o"), ("plot", "mcio plot")):
        o, n = times[a.old, k], times[a.new, k]
        print(f"{label + ', best':34s} {min(o):>15.2f}s {min(n):>15.2f}s {min(o) / min(n):>8.2f}")
        print(f"{label + ', median':34s} {statistics.median(o):>15.2f}s {statistics.median(n):>15.2f}s "
              f"{statistics.median(o) / statistics.median(n):>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
