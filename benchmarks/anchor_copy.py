"""A copy of the same-work anchor (``../shared/bench``) with the scenario's fitted constants, made
outside the project, for the same-work ratio while the shipped anchor's constants lag the
scenario's (its ``same_work.py --check`` then refuses: "channels.mp_us_per_io_ccw = 75.912; the
anchor simulates 76.401").

    python benchmarks/anchor_copy.py /tmp/anchor             # copy, rewrite, then same_work --check
    cd /tmp/anchor && python same_work.py                     # the ratio, as the issue's target reads it
    python benchmarks/instructions.py --jit-only --anchor /tmp/anchor

Only the anchor's model constants named in ``CONSTANTS`` are rewritten, each with the value of its
field in ``build_scenario("ficon-channel")``'s model; the anchor's code is untouched, and the copy
is never placed inside the project (the anchor is a measuring stick kept outside mcio). The harness's
own ``--check`` then confirms that both simulate the same model (~25 s; ``--no-check`` skips it).
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ANCHOR = os.path.join(os.path.dirname(ROOT), "shared", "bench")
ANCHOR_FILE = "ficon_same_work.py"
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

# the anchor's constant -> (the model's section, field): a distribution's mean where the field is one
CONSTANTS = {
    "MP_US_PER_IO": ("channels", "mp_us_per_io_ccw"),
    "MP_SCV": ("channels", "mp_scv"),
    "MP_WAKE_US": ("channels", "mp_wake_us"),
    "HA_SERVICE_US": ("control_unit", "ha_service_us"),
    "BACKEND_SERVICE_MS": ("control_unit", "backend_service_ms"),
}


def scenario_values(population: int = 26) -> dict[str, float]:
    """The values ``CONSTANTS`` names, from the ficon-channel scenario's model (their units are the
    anchor's: it states its constants in the model fields' units)."""
    from mcio.scenarios import build_scenario
    d = build_scenario("ficon-channel", {"population": population}).to_dict()
    out = {}
    for name, (section, field) in CONSTANTS.items():
        v = d[section][field]
        out[name] = float(v["mean"] if isinstance(v, dict) else v)
    return out


def rewrite(source: str, values: dict[str, float]) -> str:
    """``source`` with each ``NAME = <number>`` line at the top level set to ``values[NAME]`` (its
    comment kept). Raises ValueError naming a constant not found exactly once."""
    for name, value in values.items():
        pat = re.compile(rf"^({name}\s*=\s*)([-+0-9.eE_]+)", re.M)
        source, n = pat.subn(lambda m: m.group(1) + repr(value), source)
        if n != 1:
            raise ValueError(f"{ANCHOR_FILE}: constant {name} found {n} times, expected once")
    return source


def run_harness(dest: str, *args: str, **run_kw) -> subprocess.CompletedProcess:
    """The copy's ``same_work.py`` with ``args``, importing this tree's mcio (``run_kw``: for
    ``subprocess.run``)."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, os.path.join(dest, "same_work.py"), *args], env=env, **run_kw)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dest", help="where the copy goes (a new directory outside the project)")
    ap.add_argument("--anchor", default=ANCHOR, help="the shipped anchor (default ../shared/bench)")
    ap.add_argument("--no-check", action="store_true", help="skip the harness's --check")
    a = ap.parse_args(argv)
    dest = os.path.abspath(a.dest)
    if os.path.commonpath([dest, ROOT]) == ROOT:
        ap.error(f"dest {dest!r} is inside the project: the anchor stays outside it")
    if os.path.exists(dest):
        ap.error(f"dest {dest!r} exists: give a new directory")
    if not os.path.isfile(os.path.join(a.anchor, ANCHOR_FILE)):
        ap.error(f"--anchor {a.anchor!r} has no {ANCHOR_FILE}")
    values = scenario_values()
    shutil.copytree(a.anchor, dest)
    path = os.path.join(dest, ANCHOR_FILE)
    with open(path) as f:
        text = rewrite(f.read(), values)
    with open(path, "w") as f:
        f.write(text)
    print(f"{dest}: " + ", ".join(f"{k} {v:g}" for k, v in values.items()))
    if a.no_check:
        return 0
    return run_harness(dest, "--check").returncode


if __name__ == "__main__":
    sys.exit(main())
