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

``--instances K`` runs K copies of each tree (the working tree copied, or the refs exported)
at K different temporary paths, and pairs copy i of one with copy i of the other in each round.
Where the tree sits changes the speed of the same compiled code: two exports of main at N = 5
(/tmp/sw_main, /tmp/swA_m1, session 16) read 106-123 and 97-108 ns per I/O round after round,
the slow one recompiled or not, and not for its path's length (the mechanism is not known:
presumably where the process's code and data land). One copy of each tree compares two such
placements as much as two codes (session 16's heap mode looked 10 % faster at N = 5 that way
and was the same with 6 copies): with several copies the placements average out.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
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


def _trees(ref, k: int, prefix: str, stack) -> list:
    """``k`` copies of git ref ``ref`` (None: the working tree, as it is, files git knows or would
    add) in temporary directories whose paths differ in length (see the module docstring); k = 1
    and no ref: the working tree itself."""
    if ref is None and k == 1:
        return [ROOT]
    out = []
    for i in range(k):
        d = stack.enter_context(tempfile.TemporaryDirectory(prefix=prefix + "x" * i + "-"))
        if ref is not None:
            subprocess.run(f"git -C {ROOT} archive {ref} | tar -x -C {d}", shell=True, check=True)
        else:
            files = subprocess.run(["git", "-C", ROOT, "ls-files", "-co", "--exclude-standard", "-z"],
                                   capture_output=True, text=True, check=True).stdout.split("\0")
            for f in filter(None, files):
                if os.path.isfile(os.path.join(ROOT, f)):
                    os.makedirs(os.path.dirname(os.path.join(d, f)), exist_ok=True)
                    shutil.copy2(os.path.join(ROOT, f), os.path.join(d, f))
        out.append(d)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", required=True, help="git ref (exported with git archive)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--ios", type=int, default=1_000_000, help="measured I/Os per replication")
    ap.add_argument("--pops", type=int, nargs="+", default=list(POPS))
    ap.add_argument("--this", default=None, help="a git ref exported in the working tree's place")
    ap.add_argument("--instances", type=int, default=1,
                    help="copies of each tree, at paths of different lengths (see the docstring)")
    a = ap.parse_args()
    with contextlib.ExitStack() as stack:
        k = a.instances
        trees = {a.against: _trees(a.against, k, "mcio-ref-", stack),
                 "this tree": _trees(a.this, k, "mcio-this-", stack)}
        print(f"load average {os.getloadavg()}")
        for copies in trees.values():        # compile each copy's kernels (its own cache)
            for tree in copies:
                run(tree, 1000, a.pops[:1])
        res = {name: [[] for _ in range(k)] for name in trees}
        for r in range(a.rounds):
            order = [(name, i) for i in range(k) for name in trees]
            if r % 2:
                order = order[::-1]
            for name, i in order:
                res[name][i].append(run(trees[name][i], a.ios, a.pops))
                print(f"round {r} {name:>12}" + (f" #{i}" if k > 1 else "") + ": " + "  ".join(
                    f"N={n} {res[name][i][-1][n]:6.1f}" for n in a.pops), flush=True)
        print(f"load average {os.getloadavg()}")
        print(f"{'N':>5} {a.against:>12} {'this tree':>10}  this/other (median of rounds' ratios, range)"
              + ("; the copies' medians' means" if k > 1 else ""))
        for n in a.pops:
            old = [x[n] for c in res[a.against] for x in c]
            new = [x[n] for c in res["this tree"] for x in c]
            ratios = [b / o for o, b in zip(old, new)]
            line = (f"{n:5d} {statistics.median(old):12.1f} {statistics.median(new):10.1f}  "
                    f"{statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f})")
            if k > 1:
                mo = [statistics.median(x[n] for x in c) for c in res[a.against]]
                mn = [statistics.median(x[n] for x in c) for c in res["this tree"]]
                line += (f"; {statistics.mean(mn) / statistics.mean(mo):.3f} (copies: "
                         + " ".join(f"{v:.1f}" for v in mo) + " | " + " ".join(f"{v:.1f}" for v in mn) + ")")
            print(line)


if __name__ == "__main__":
    main()
