"""Ctrl-C in every command that simulates (headroom and uncertain included): one line
``mcio: interrupted: ...`` on stderr, exit 130
(the command group's policy, mcio.cli.app), never click's "Aborted!" / exit 1 or a traceback; a
sweep keeps its finished points (it says so), the others, which write only at their end, wrote
nothing.

Each command runs in a real process (tests/cli_sigint_child.py) with a run far too long to finish,
and gets SIGINT once its kernels have completed their first I/Os. No timing is asserted (the
latency of each command is measured by benchmarks/ctrl_c_latency.py); the timeouts only guard
against a hang.
"""
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sweep_specs import cli_env, write

HERE = Path(__file__).parent
HANG_GUARD_S = 120
HUGE = str(10**9)

MM1_SPEC = """\
title = "ctrl-c"
scenario = "mm1-demo"

[sweep]
"workload.rate_iops" = [200.0, 500.0]

[run]
replications = 2
ios = 1000000000
warmup = 100
"""


UNCERTAIN_SPEC = """\
title = "ctrl-c, uncertain"
scenario = "mm1-demo"

[run]
replications = 2
ios = 1000000000
warmup = 100

[uncertain]
samples = 4
"control_unit.backend_service_ms.mean" = {low = 1.0, high = 1.6}
"""


def _commands(tmp_path):
    spec = write(tmp_path, MM1_SPEC, "huge.toml")
    uncertain = write(tmp_path, UNCERTAIN_SPEC, "huge_uncertain.toml")
    measured = write(tmp_path, "iops,channel_busy,response_ms\n2000,20%,0.6\n4000,40%,0.8\n6000,60%,1.3\n",
                     "m.csv")
    return {
        "sweep": ["sweep", str(spec), "-o", str(tmp_path / "s.h5"), "-q"],
        "run": ["run", str(spec)],
        "reproduce": ["reproduce", "mm1-demo", "--ios", HUGE],
        "compare": ["compare", "mm1-demo", "mm1-demo", "--ios", HUGE, "-o", str(tmp_path / "c.h5")],
        "calibrate": ["calibrate", "--scenario", "ficon-channel", "--measured", str(measured), "--params", "mp_us_per_io",
                      "--ios", HUGE,
                      "-o", str(tmp_path / "cal.toml")],
        "isfc-run": ["isfc", "run", "--systems", "LPAR1,LPAR2", "--layout", "3C=D000-D001",
                     "--ios-per-device", HUGE, "-o", str(tmp_path / "i.h5")],
        "isfc-plan": ["isfc", "plan", "--chpids", "3C,3D", "--devices", "2", "--systems", "LPAR1,LPAR2",
                      "--ios-per-device", HUGE],
        "headroom": ["headroom", "mm1-demo", "--target", "response_ms <= 3", "--ios", str(10**8),
                     "--replications", "3"],
        "uncertain": ["uncertain", str(uncertain), "-o", str(tmp_path / "u.h5")],
        "base": ["base", str(HERE / "data" / "measured" / "esamon_seed002.txt"), "--ios", HUGE,
                 "-o", str(tmp_path / "b.toml")],
    }


def sigint_once_running(args, err_path):
    """Run ``mcio ARGS``, send SIGINT once its kernels have completed I/Os; (exit code, stderr
    lines other than the child's own ``kernels running``)."""
    with open(err_path, "w") as f:
        proc = subprocess.Popen([sys.executable, str(HERE / "cli_sigint_child.py")] + args,
                                env=cli_env(), stdout=subprocess.DEVNULL, stderr=f)
        try:
            deadline = time.monotonic() + HANG_GUARD_S
            while "kernels running" not in err_path.read_text() and proc.poll() is None \
                    and time.monotonic() < deadline:
                time.sleep(0.02)
            assert "kernels running" in err_path.read_text(), err_path.read_text()
            proc.send_signal(signal.SIGINT)
            rc = proc.wait(timeout=HANG_GUARD_S)
        finally:
            proc.kill()
    lines = [ln for ln in err_path.read_text().splitlines() if ln.strip() and ln != "kernels running"]
    return rc, lines


COMMANDS = ["sweep", "run", "reproduce", "compare", "calibrate", "isfc-run", "isfc-plan", "headroom", "uncertain", "base"]


def test_every_command_that_simulates_is_interrupted_here():
    """A command that simulates applies the estimate's rules (check_run, directly or through a
    helper of its module): each such command of the CLI is in this test (one added later too)."""
    import inspect
    import click
    from mcio.cli import main

    def leaves(group, prefix=""):
        for n, c in group.commands.items():
            if isinstance(c, click.Group):
                yield from leaves(c, f"{prefix}{n}-")
            else:
                yield f"{prefix}{n}", c

    found = set()
    for name, cmd in leaves(main):
        fn = inspect.unwrap(cmd.callback)
        module = inspect.getsource(inspect.getmodule(fn))
        src = inspect.getsource(fn)
        helpers = [h for h in ("check_run_of_scenario", "_check_estimate", "_estimate") if h in src and h in module]
        if "check_run" in src or "warn_if_long" in src or helpers:
            found.add(name)
    assert found and found <= set(COMMANDS), sorted(found - set(COMMANDS))


@pytest.mark.parametrize("name", COMMANDS)
def test_ctrl_c_in_every_command_is_one_line_and_exit_130(name, tmp_path):
    args = _commands(tmp_path)[name]
    rc, lines = sigint_once_running(args, tmp_path / f"{name}.err")
    text = "\n".join(lines)
    assert rc == 130, text
    assert len(lines) == 1 and lines[0].startswith("mcio: interrupted: "), text
    if name == "sweep":   # what it kept, and how to go on (or, stopped in the estimate's pilot, nothing)
        assert lines[0] in ("mcio: interrupted: 0 of 2 points saved; resume with --resume",
                            "mcio: interrupted: the run was stopped before it finished; nothing written"), text
        assert not (tmp_path / "s.h5").exists()
    elif name == "base":  # the base model is written before it is compared: kept, and said
        assert lines[0] == (f"mcio: interrupted: {tmp_path / 'b.toml'} written (the base model); its comparison "
                            "with the measured intervals was stopped"), text
        assert (tmp_path / "b.toml").read_text().startswith("#")
    else:                 # writes only at its end: nothing written, no output left behind
        assert lines[0] == "mcio: interrupted: the run was stopped before it finished; nothing written", text
        assert not any(p.suffix in (".h5", ".toml") and not p.name.startswith("huge") for p in tmp_path.iterdir()), \
            sorted(p.name for p in tmp_path.iterdir())


def test_a_keyboard_interrupt_in_any_command_is_the_one_line(monkeypatch):
    """Whatever raised it (here a command of its own, as one added later would be): the group's policy."""
    import click
    from click.testing import CliRunner
    from mcio.cli.app import McioGroup

    @click.group(cls=McioGroup)
    def grp():
        pass

    @grp.command("slow")
    def slow():
        raise KeyboardInterrupt

    r = CliRunner().invoke(grp, ["slow"])
    assert r.exit_code == 130
    assert r.stderr == "mcio: interrupted: the run was stopped before it finished; nothing written\n"
    assert "Aborted" not in r.output
