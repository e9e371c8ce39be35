"""A sweep in a real process for the Ctrl-C tests: prints ``point N done`` after each point (to
stderr) and, with SLEEP_S > 0, spends that long inside each point (a stand-in for a long point);
ends as the CLI does on SweepInterrupted: its message on stderr, exit 130.

usage: python sweep_sigint_child.py SLEEP_S SPEC OUT
"""
import importlib
import sys
import time

sleep_s, spec, out = float(sys.argv[1]), sys.argv[2], sys.argv[3]
sweep_mod = importlib.import_module("mcio.sweep")
points_mod = importlib.import_module("mcio.batch.points")
real = points_mod._simulate


def slow(model, **kw):
    if sleep_s:
        time.sleep(sleep_s)
    ds = real(model, **kw)
    return ds


printed = [0]


def progress(done, total, ios):
    # (on ``done``, not ``ios``: the within-point ticker may have reported all of a point's I/Os
    # already, and then the point's own call has none left to report)
    while printed[0] < done:
        printed[0] += 1
        # one write of the whole line (print() writes the text and its newline apart, and
        # another thread's line can land between: tests/cli_sigint_child.py)
        sys.stderr.write(f"point {printed[0]} done\n")
        sys.stderr.flush()


points_mod._simulate = slow
try:
    sweep_mod.sweep(spec, out=out, progress=progress)
except sweep_mod.SweepInterrupted as e:   # what the CLI does: one line, exit 130
    print(f"mcio: {e}", file=sys.stderr, flush=True)
    sys.exit(e.exit_code)
print("sweep completed", file=sys.stderr)
