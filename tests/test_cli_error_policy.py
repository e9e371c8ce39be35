"""One error policy for the whole ``mcio`` command (mcio/cli/app.py): a bad input (McioError, or an
OSError about a file) is one line and exit 2; anything else is a bug: traceback, a line asking to
report it, exit 1. McioError pickles (a Dask worker raises it, the client re-raises it)."""
import pickle

import click
import pytest
from click.testing import CliRunner

from mcio import McioError
from mcio.cli import main
from mcio.cli.app import McioGroup


@click.group(cls=McioGroup)
def group():
    """A group with one command per kind of failure."""


@group.command("bad-input")
def bad_input():
    raise McioError("run.ios", -1, "must be an integer >= 1")


@group.command("missing-file")
def missing_file():
    open("/nonexistent-dir/spec.toml")


@group.command("value-error")
def value_error():
    raise ValueError("a bug that looks like bad input")


@group.command("type-error")
def type_error():
    return len(3)


@group.command("os-error-without-path")
def os_error_without_path():
    raise OSError("no file involved")


def run(*args):
    return CliRunner().invoke(group, list(args))


def test_mcio_error_is_one_line_and_exit_2():
    r = run("bad-input")
    assert r.exit_code == 2
    assert r.stderr.splitlines() == ["mcio: error: run.ios = -1: must be an integer >= 1"]


def test_missing_file_is_bad_input_naming_the_path():
    r = run("missing-file")
    assert r.exit_code == 2
    assert r.stderr.splitlines() == ["mcio: error: /nonexistent-dir/spec.toml: No such file or directory"]


@pytest.mark.parametrize("cmd,kind", [("value-error", "ValueError"), ("type-error", "TypeError"),
                                      ("os-error-without-path", "OSError")])
def test_any_other_exception_is_a_bug_with_its_traceback(cmd, kind):
    r = run(cmd)
    assert r.exit_code == 1
    assert "Traceback (most recent call last)" in r.stderr and kind in r.stderr
    assert r.stderr.strip().splitlines()[-1].startswith("mcio: internal error: this is a bug in mcio, please report")


def test_debug_shows_the_traceback_of_a_bad_input(monkeypatch):
    monkeypatch.setenv("MCIO_DEBUG", "1")
    r = run("bad-input")
    assert isinstance(r.exception, McioError)


def test_click_usage_errors_stay_click_s():
    r = CliRunner().invoke(main, ["sweep", "--no-such-option"])
    assert r.exit_code == 2 and "No such option" in r.stderr and "internal error" not in r.stderr


def test_every_command_is_under_the_one_group():
    assert {"sweep", "run", "plot", "info", "scenarios", "reproduce", "validate", "calibrate", "isfc"} <= set(main.commands)
    assert isinstance(main, McioGroup) and isinstance(main.commands["isfc"], McioGroup)


def test_mcio_error_pickles():
    e = McioError("sweep.workload.population", [1, "x"], "values must be all numbers or all strings")
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is McioError and str(back) == str(e)
    assert (back.field, back.value, back.allowed) == (e.field, e.value, e.allowed)
