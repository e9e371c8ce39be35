"""``mcio sweep`` as a real process that stops for good inside point BLOCK_AT (after every earlier
point is stored), so the kill test's SIGKILL lands part-way every time, however loaded the machine.

usage: python sweep_kill_child.py BLOCK_AT sweep SPEC -o OUT ...
"""
import importlib
import sys
import time

block_at = int(sys.argv.pop(1))
points_mod = importlib.import_module("mcio.batch.points")  # where the engine call _simulate lives
real = points_mod._simulate


def simulate_until_blocked(model, **kw):
    if kw["point"] == block_at:
        print(f"blocked at point {block_at}", file=sys.stderr, flush=True)
        time.sleep(3600)
    return real(model, **kw)


points_mod._simulate = simulate_until_blocked

from mcio.cli import main  # noqa: E402

main(prog_name="mcio")
