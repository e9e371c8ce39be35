"""What makes an I/O dearer at 256 channels than at 1: each suspect put into the 1-channel model alone.

    python benchmarks/scaling_suspects.py                 # 3 alternating rounds (~6 min)
    python benchmarks/scaling_suspects.py --rounds 5

channel_scaling.py's model ("CU delay": a control unit that never queues) on 1 channel, timed on
copies of the working tree's kernels (``git archive HEAD``), each with one thing of the 256-channel
run and nothing else (the same events and results; only the cost changes):

- ``devices``: 16,384 devices (256 channels' worth) instead of 64: the per-device arrays' misses;
- ``trees``: both winner trees (MP pieces, link ends) of 256 leaves, 255 of them never due: the
  trees' depth, log2 256 = 8 levels per update instead of 0;
- ``heap``: the event heap holding 2,500 more events, never due (256 channels keep ~2,500 per-I/O
  timers in it): the heap's depth;
- ``slots``: the free slots taken in FIFO order instead of LIFO, so every I/O's slot state
  (sf, si rows: 264 bytes) comes from beyond L2, as the ~3,000 I/Os in flight at 256 channels
  partly do (their ~800 KB of slot state);

and the 256-channel model itself on the unmodified copy. CPU ns per I/O (``time.process_time``),
one kernel call of 300,000 I/Os, least of 2 calls per process and of ``--rounds`` rounds; the
copies run in turn, in alternating order, one process each. Figures: benchmarks/README.md.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# (file, old, new) edits of each variant's copy
EDITS = {
    "base": [],
    "devices": [],
    "trees": [("mcio/kernels/iopath.py", "mp = mp + winner_new(C)", "mp = mp + winner_new(max(C, 256))"),
              ("mcio/kernels/transfer.py", "tw_t, tw_c = winner_new(n_tree)",
               "tw_t, tw_c = winner_new(max(n_tree, 256))")],
    "heap": [("mcio/kernels/iopath.py", "    h_t, h_c, h_n = heap\n    rs_slot",
              "    h_t, h_c, h_n = heap\n    for i in range(2500):\n"
              "        heap_put(h_t, h_c, h_n, 1e300, (P + i) * 8)\n    rs_slot")],
    "slots": [("mcio/kernels/iopath.py", "    n_free = P\n",
               "    n_free = P\n    free = np.arange(P).astype(np.int64)\n    f_h = 0\n    f_t = 0\n"),
              ("mcio/kernels/iopath.py", "                        free[n_free] = x\n                        n_free += 1",
               "                        free[f_t] = x\n                        f_t = f_t + 1 if f_t + 1 < P else 0\n"
               "                        n_free += 1"),
              ("mcio/kernels/iopath.py", "            n_free -= 1\n            x_next = free[n_free]",
               "            n_free -= 1\n            x_next = free[f_h]\n"
               "            f_h = f_h + 1 if f_h + 1 < P else 0")],
}
# variant -> (channels, devices per channel)
CASES = {"base": [(1, 64), (256, 64)], "devices": [(1, 16384)], "trees": [(1, 64)], "heap": [(1, 64)],
         "slots": [(1, 64)]}

_CHILD = r"""
import json, sys, time
tree = sys.argv[1]
sys.path.insert(0, tree); sys.path.insert(0, tree + "/benchmarks")
import numba
numba.set_num_threads(1)
import mcio
assert mcio.__file__.startswith(tree), mcio.__file__
import channel_scaling as cs
res = {}
for spec in sys.argv[2].split(","):
    c, d = map(int, spec.split(":"))
    cs.DEVICES_PER_CHANNEL = d
    call = cs._kernel_call(cs.scaled_model(c, "unbounded"), 300_000)
    call()
    best = 1e9
    for _ in range(2):
        c0 = time.process_time()
        call()
        best = min(best, (time.process_time() - c0) / 300_000 * 1e9)
    res[spec] = best
print(json.dumps(res))
"""


def _copy(dst: str, edits) -> None:
    """HEAD's mcio/ and benchmarks/ into ``dst``, with ``edits`` applied (each must match once)."""
    os.makedirs(dst)
    tar = subprocess.run(["git", "-C", ROOT, "archive", "HEAD", "mcio", "benchmarks"], check=True,
                         capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", dst], input=tar, check=True)
    for path, old, new in edits:
        p = os.path.join(dst, path)
        s = open(p).read()
        if s.count(old) != 1:
            raise SystemExit(f"{path}: the edit's anchor is not found once: {old!r}")
        open(p, "w").write(s.replace(old, new))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args(argv)
    best: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="mcio-suspects-") as tmp:
        for v, edits in EDITS.items():
            _copy(os.path.join(tmp, v), edits)
        order = list(EDITS)
        for r in range(a.rounds):
            for v in (order if r % 2 == 0 else order[::-1]):
                specs = ",".join(f"{c}:{d}" for c, d in CASES[v])
                env = dict(os.environ, NUMBA_NUM_THREADS="1", PYTHONPATH=os.path.join(tmp, v))
                out = subprocess.run([sys.executable, "-c", _CHILD, os.path.join(tmp, v), specs],
                                     capture_output=True, text=True, env=env)
                if out.returncode:
                    raise SystemExit(out.stderr[-3000:])
                for k, ns in json.loads(out.stdout.strip().splitlines()[-1]).items():
                    best[f"{v} {k}"] = min(best.get(f"{v} {k}", float("inf")), ns)
    ref = best["base 1:64"]
    print(f"CPU ns per I/O, least of {a.rounds} rounds (CU delay; channels:devices per channel)")
    for k, ns in best.items():
        print(f"{k:22s} {ns:7.0f}  {ns - ref:+6.0f} vs base 1:64")
    return 0


if __name__ == "__main__":
    sys.exit(main())
