"""``mcio table -o``, ``report -o``, ``plot -o`` and ``calibrate -o`` write through the store's
atomic path: a failure during the write (the rename of a fully written temporary fails, or the
figure cannot be rendered) leaves the previous content of the output unchanged and no temporary
beside it."""
import os

import pytest
from click.testing import CliRunner

import mcio.store.paths as paths
from mcio.cli import main
from mcio.sweep import sweep
from sweep_specs import FICON_GRID, write

OLD = b"previous content\n"


@pytest.fixture(scope="module")
def grid(tmp_path_factory):
    d = tmp_path_factory.mktemp("atomic")
    out = d / "grid.h5"
    sweep(write(d, FICON_GRID), out=out)
    return out


def _fail_rename(monkeypatch, seen):
    """os.replace in the store's atomic writer raises, after the temporary is whole on disk."""
    def boom(src, dst):
        seen.append(open(src, "rb").read())
        raise OSError(5, "injected failure")
    monkeypatch.setattr(paths.os, "replace", boom)


def _check_untouched(out, r):
    assert r.exit_code != 0
    assert "Traceback" not in r.output
    assert out.read_bytes() == OLD
    assert not [p for p in os.listdir(out.parent) if p.endswith(".tmp")]


@pytest.mark.parametrize("cmd,name", [(["table"], "t.txt"), (["table", "--csv"], "t.csv"),
                                      (["report"], "r.html"), (["plot"], "p.png"),
                                      (["plot", "--components-by", "count"], "c.png")])
def test_failed_write_keeps_the_old_output(grid, tmp_path, monkeypatch, cmd, name):
    out = tmp_path / name
    out.write_bytes(OLD)
    seen = []
    _fail_rename(monkeypatch, seen)
    r = CliRunner().invoke(main, [cmd[0], str(grid), *cmd[1:], "-o", str(out)])
    assert seen and seen[0] and seen[0] != OLD, r.output   # the temporary was written whole
    _check_untouched(out, r)
    monkeypatch.undo()   # and without the failure, the same command replaces the file
    r = CliRunner().invoke(main, [cmd[0], str(grid), *cmd[1:], "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert out.read_bytes() != OLD
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


def test_plot_whose_render_fails_keeps_the_old_output(grid, tmp_path, monkeypatch):
    import matplotlib.figure
    out = tmp_path / "p.png"
    out.write_bytes(OLD)

    def boom(self, *a, **k):
        raise RuntimeError("injected render failure")
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", boom)
    r = CliRunner().invoke(main, ["plot", str(grid), "-o", str(out)])
    assert r.exit_code != 0
    assert out.read_bytes() == OLD
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


def test_plot_keeps_the_format_of_the_suffix(grid, tmp_path):
    for name, magic in (("p.png", b"\x89PNG"), ("p.svg", b"<?xml"), ("p.pdf", b"%PDF"), ("p", b"\x89PNG")):
        r = CliRunner().invoke(main, ["plot", str(grid), "-o", str(tmp_path / name)])
        assert r.exit_code == 0, r.output
        assert (tmp_path / name).read_bytes().startswith(magic), name


class _Fit:
    """What the CLI needs of a calibration result (the fit itself is tested elsewhere)."""
    def to_text(self):
        return "fitted"

    def to_toml(self, cmd, measured):
        return f"# {cmd}\n[params]\nmp_us = 90.0\n"


def test_calibrate_failed_write_keeps_the_old_output(tmp_path, monkeypatch):
    import mcio.calibrate
    monkeypatch.setattr(mcio.calibrate, "calibrate", lambda *a, **k: _Fit())
    measured = tmp_path / "m.csv"
    measured.write_text("iops,channel_busy,response_ms\n1000,9%,1.8\n")
    out = tmp_path / "fit.toml"
    out.write_bytes(OLD)
    args = ["calibrate", "--scenario", "ficon-channel", "--measured", str(measured), "-o", str(out), "-q"]
    seen = []
    with monkeypatch.context() as m:
        _fail_rename(m, seen)
        r = CliRunner().invoke(main, args)
    assert seen and b"mp_us = 90.0" in seen[0], r.output
    _check_untouched(out, r)
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    assert out.read_bytes() == seen[0]
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]
