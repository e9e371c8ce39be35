"""Ctrl-C latency of every command that simulates: seconds from SIGINT to the process's exit.

Each command runs in its own process, through the installed entry point's function
(``mcio.cli:console``), on a run far too long to finish; SIGINT is sent ``--after`` seconds after
its kernels completed their first I/Os (a thread of the child watches the kernels' progress
counter, as tests/cli_sigint_child.py does). Prints, per command, the exit codes, the last stderr
line, and two latencies (median and max of ``--repeat``): SIGINT to the ``mcio: interrupted`` line,
and SIGINT to the process's exit.

    python benchmarks/ctrl_c_latency.py [--repeat 3] [--after 1.0] [--only sweep,run]

Results: benchmarks/README.md ("Ctrl-C latency").
"""
from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHILD = """\
import sys, threading, time
from mcio import interrupt
from mcio.cli import console

def announce():
    while interrupt.counter().sum() == 0:
        time.sleep(0.005)
    print("kernels running", file=sys.stderr, flush=True)

threading.Thread(target=announce, daemon=True).start()
sys.argv = ["mcio"] + sys.argv[1:]
console()
"""
HUGE = str(10**9)
SPEC = """\
title = "ctrl-c latency"
scenario = "mm1-demo"

[sweep]
"workload.rate_iops" = [200.0, 500.0]

[run]
replications = 2
ios = 1000000000
warmup = 100
"""
EVENT_SPEC = """\
title = "ctrl-c latency, event engine"
scenario = "ficon-channel"

[sweep]
"workload.population" = [8, 16]

[run]
replications = 2
ios = 1000000000
warmup = 100
"""


UNCERTAIN_SPEC = SPEC.replace("[sweep]\n\"workload.rate_iops\" = [200.0, 500.0]\n", "") + """
[uncertain]
samples = 4
"control_unit.backend_service_ms.mean" = {low = 1.0, high = 1.6}
"""


def commands(d: Path) -> dict[str, list[str]]:
    (d / "huge.toml").write_text(SPEC)
    (d / "uncertain.toml").write_text(UNCERTAIN_SPEC)
    (d / "event.toml").write_text(EVENT_SPEC)
    (d / "m.csv").write_text("iops,channel_busy,response_ms\n2000,20%,0.6\n4000,40%,0.8\n6000,60%,1.3\n")
    return {
        "sweep (fast path)": ["sweep", str(d / "huge.toml"), "-o", str(d / "s.h5"), "-q"],
        "sweep (event)": ["sweep", str(d / "event.toml"), "-o", str(d / "e.h5"), "-q"],
        "run": ["run", str(d / "event.toml")],
        "reproduce": ["reproduce", "mm1-demo", "--ios", HUGE],
        "compare": ["compare", "mm1-demo", "mm1-demo", "--ios", HUGE],
        "calibrate": ["calibrate", "--scenario", "ficon-channel", "--measured", str(d / "m.csv"),
                      "--params", "mp_us_per_io", "--ios", HUGE],
        "isfc run": ["isfc", "run", "--systems", "LPAR1,LPAR2", "--layout", "3C=D000-D001",
                     "--ios-per-device", HUGE],
        "isfc plan": ["isfc", "plan", "--chpids", "3C,3D", "--devices", "2", "--systems", "LPAR1,LPAR2",
                      "--ios-per-device", HUGE],
        "headroom": ["headroom", "mm1-demo", "--target", "response_ms <= 3", "--ios", str(10**8),
                     "--replications", "3"],
        "uncertain": ["uncertain", str(d / "uncertain.toml")],
        "base": ["base", str(Path(__file__).resolve().parent.parent / "tests" / "data" / "measured" / "esamon_seed002.txt"),
                 "--ios", HUGE, "-o", str(d / "base.toml")],
    }


def once(args: list[str], err: Path, after_s: float) -> tuple[int, float, float, str]:
    """(exit code, seconds SIGINT -> the interrupted line, SIGINT -> exit, last stderr line)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    with open(err, "w") as f:
        proc = subprocess.Popen([sys.executable, "-c", CHILD] + args, env=env, stdout=subprocess.DEVNULL, stderr=f)
        try:
            deadline = time.monotonic() + 300
            while "kernels running" not in err.read_text() and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.005)
            time.sleep(after_s)
            t = time.perf_counter()
            proc.send_signal(signal.SIGINT)
            line_s = float("nan")
            while proc.poll() is None and time.perf_counter() - t < 300:
                if line_s != line_s and "mcio: interrupted" in err.read_text():
                    line_s = time.perf_counter() - t
                time.sleep(0.002)
            rc = proc.wait(timeout=300)
            took = time.perf_counter() - t
        finally:
            proc.kill()
    lines = [ln for ln in err.read_text().splitlines() if ln.strip() and ln != "kernels running"
             and " is large: " not in ln]
    return rc, line_s, took, (lines[-1] if lines else "") + (f" (+{len(lines) - 1} more lines)" if len(lines) > 1 else "")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--after", type=float, default=1.0, help="seconds of running kernels before SIGINT")
    ap.add_argument("--only", default="", help="comma-separated command names (default: all)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        cmds = commands(d)
        only = [s.strip() for s in a.only.split(",") if s.strip()]
        print(f"{'command':<20}{'exit':>5}{'line s':>8}{'(max)':>7}{'exit s':>8}{'(max)':>7}  last stderr line")
        for name, args in cmds.items():
            if only and name not in only:
                continue
            runs = [once(args, d / "err.txt", a.after) for _ in range(a.repeat)]
            for p in d.iterdir():
                if p.suffix == ".h5" or p.name.endswith(".parts"):
                    subprocess.run(["rm", "-rf", str(p)], check=False)
            line = [r[1] for r in runs]
            took = [r[2] for r in runs]
            rcs = sorted({r[0] for r in runs})
            print(f"{name:<20}{','.join(map(str, rcs)):>5}{statistics.median(line):>8.3f}{max(line):>7.3f}"
                  f"{statistics.median(took):>8.3f}{max(took):>7.3f}  {runs[-1][3]}", flush=True)

if __name__ == "__main__":
    main()
