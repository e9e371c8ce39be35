"""CPU ns per I/O of the event engine on the README main job's model (scenario ``ficon-channel``)
at populations 5, 26, 80, 578, for two source trees measured in alternating processes:

    python benchmarks/event_cost.py --against HEAD~1          # HEAD~1 against the working tree
    python benchmarks/event_cost.py --against b986a43 --rounds 5 --ios 1000000
    python benchmarks/event_cost.py --against main --this HEAD    # both exported (see below)

For a change of the kernels the paired ratio is the figure to read: the same-work anchor's ratio
(``../shared/bench/same_work.py``) moves with the machine's load by more than most single changes
(its smaller working set suffers less from the other processes on a shared machine), this does
not compare against it but against the other tree, in the same minutes. Each process runs
``mcio.simulate`` on one Numba thread (2 replications, the calling thread), after a warm-up call,
and takes ``time.thread_time()`` around each call; a round runs both trees once, in alternating
order; the figures are the medians over rounds of CPU ns per simulated I/O (warm-up included),
and of the rounds' own ratios (this tree / the other).

``--this REF`` exports REF too and runs it in the working tree's place (two commits compared
as they are committed, both in the same kind of place). The same code against itself (session
16, 5 rounds, load 1.0-1.7) read 0.94-0.97 (``--against HEAD``: the working tree and an export)
and 1.01-1.06 (``--against HEAD --this HEAD``): a single ratio moves by ~6 % with the load, so
read a change of a few per cent only when repeated runs agree.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
POPS = (5, 26, 80, 578)

_CHILD = r"""
import json, sys, time
import numba
numba.set_num_threads(1)
import mcio
from mcio.scenarios import build_scenario
ios, pops = int(sys.argv[1]), [int(p) for p in sys.argv[2:]]
out = {}
for n in pops:
    m = build_scenario("ficon-channel", {"population": n})
    mcio.simulate(m, ios=2000, replications=2, warmup=200, seed=1)
    c = time.thread_time()
    mcio.simulate(m, ios=ios, replications=2, warmup=20_000, seed=2)
    out[n] = (time.thread_time() - c) / (2 * (ios + 20_000)) * 1e9
print(json.dumps(out))
"""


def run(tree: str, ios: int, pops) -> dict:
    env = dict(os.environ, PYTHONPATH=tree)
    p = subprocess.run([sys.executable, "-c", _CHILD, str(ios), *map(str, pops)], env=env,
                       cwd=tree, capture_output=True, text=True)
    if p.returncode:
        raise SystemExit(f"{tree}: {p.stderr[-3000:]}")
    return {int(k): v for k, v in json.loads(p.stdout.strip().splitlines()[-1]).items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", required=True, help="git ref (exported with git archive)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--ios", type=int, default=1_000_000, help="measured I/Os per replication")
    ap.add_argument("--pops", type=int, nargs="+", default=list(POPS))
    ap.add_argument("--this", default=None, help="a git ref exported in the working tree's place")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="mcio-ref-") as ref, \
            tempfile.TemporaryDirectory(prefix="mcio-this-") as this:
        subprocess.run(f"git -C {ROOT} archive {a.against} | tar -x -C {ref}", shell=True, check=True)
        if a.this:
            subprocess.run(f"git -C {ROOT} archive {a.this} | tar -x -C {this}", shell=True, check=True)
        trees = {a.against: ref, "this tree": this if a.this else ROOT}
        print(f"load average {os.getloadavg()}")
        for tree in trees.values():          # compile each tree's kernels (its own cache)
            run(tree, 1000, a.pops[:1])
        res = {k: [] for k in trees}
        for r in range(a.rounds):
            order = list(trees) if r % 2 == 0 else list(trees)[::-1]
            for name in order:
                res[name].append(run(trees[name], a.ios, a.pops))
                print(f"round {r} {name:>12}: " + "  ".join(
                    f"N={n} {res[name][-1][n]:6.1f}" for n in a.pops), flush=True)
        print(f"load average {os.getloadavg()}")
        print(f"{'N':>5} {a.against:>12} {'this tree':>10}  this/other (median of rounds' ratios, range)")
        for n in a.pops:
            old = [x[n] for x in res[a.against]]
            new = [x[n] for x in res["this tree"]]
            ratios = [b / o for o, b in zip(old, new)]
            print(f"{n:5d} {statistics.median(old):12.1f} {statistics.median(new):10.1f}  "
                  f"{statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f})")


if __name__ == "__main__":
    main()
