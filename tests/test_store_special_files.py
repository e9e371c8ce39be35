"""Outputs are regular files the user named: a device node or FIFO given as an output is one
clear error before any simulation (never replaced by a regular file), and the lock and temporary
files beside an output are created exclusively: a symlink planted at ``OUT.lock`` or ``OUT.tmp``
is never followed, so the file it points to keeps its bytes. (CI runs as root, as these do.)"""
import importlib
import os
import stat

import pytest
from click.testing import CliRunner

from mcio.cli import main
from mcio.errors import McioError
from mcio.store import check_writable, lock_path, open_results, write_bytes, write_groups, write_netcdf
from mcio.store import tmp_path as final_tmp
from mcio.sweep import sweep
from sweep_specs import MM1_RATES, write

points_mod = importlib.import_module("mcio.batch.points")

TINY = MM1_RATES.replace("[200.0, 500.0, 700.0]", "[200.0, 500.0]").replace("ios = 40000", "ios = 500") \
                .replace("warmup = 4000", "warmup = 100").replace("replications = 4", "replications = 2")


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    d = tmp_path_factory.mktemp("res")
    out = d / "r.h5"
    sweep(write(d, TINY), out=out)
    return out


@pytest.fixture
def fifo(tmp_path):
    p = tmp_path / "fifo"
    os.mkfifo(p)
    return p


def _one_line_error(r, path):
    assert r.exit_code == 2, (r.exit_code, r.output)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mcio: error: "), r.stderr
    assert str(path) in lines[0] and "must be a regular file or a new path" in lines[0], lines[0]


def _commands(tmp_path, results, out):
    spec = write(tmp_path, TINY)
    measured = tmp_path / "m.csv"
    measured.write_text("")
    return {
        "sweep": ["sweep", spec, "-o", out],
        "compare": ["compare", spec, spec, "-o", out],
        "isfc run": ["isfc", "run", "--systems", "LPAR1,LPAR2", "--layout", "3C=D050-D051", "-o", out],
        "calibrate": ["calibrate", "--scenario", "mm1-demo", "--measured", measured, "-o", out],
        "table": ["table", results, "-o", out],
        "report": ["report", results, "-o", out],
        "plot": ["plot", results, "-o", out],
        "uncertain": ["uncertain", spec, "-o", out],
    }


@pytest.mark.parametrize("kind", ["fifo", "/dev/null"])
def test_special_file_as_output_is_refused_by_every_command_before_simulating(tmp_path, results, monkeypatch,
                                                                              kind):
    out = tmp_path / "fifo" if kind == "fifo" else "/dev/null"
    if kind == "fifo":
        os.mkfifo(out)
    monkeypatch.setattr(points_mod, "_simulate", lambda *a, **k: pytest.fail("simulated"))
    for name, args in _commands(tmp_path, results, out).items():
        r = CliRunner().invoke(main, [str(a) for a in args])
        _one_line_error(r, out)
        mode = os.stat(out).st_mode
        assert (stat.S_ISFIFO(mode) if kind == "fifo" else stat.S_ISCHR(mode)), (name, oct(mode))


def test_check_writable_refuses_special_files_and_accepts_regular_and_new(tmp_path, fifo):
    for p in (fifo, "/dev/null"):
        with pytest.raises(McioError, match="must be a regular file or a new path"):
            check_writable(p)
    os.symlink("/dev/null", tmp_path / "link-to-null")   # what a write would reach is what counts
    with pytest.raises(McioError, match="character device"):
        check_writable(tmp_path / "link-to-null")
    import socket
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(tmp_path / "sock"))
        with pytest.raises(McioError, match="socket"):
            check_writable(tmp_path / "sock")
    (tmp_path / "old").write_text("x")
    assert check_writable(tmp_path / "old") == tmp_path / "old"
    assert check_writable(tmp_path / "new") == tmp_path / "new"


def test_python_api_writers_refuse_special_files(tmp_path, results, fifo):
    ds = open_results(results)
    with pytest.raises(McioError, match="must be a regular file"):
        sweep(write(tmp_path, TINY), out=fifo)
    with pytest.raises(McioError, match="must be a regular file"):
        write_netcdf(ds, "/dev/null")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and stat.S_ISCHR(os.stat("/dev/null").st_mode)


def _victim(tmp_path):
    v = tmp_path / "victim"
    v.write_bytes(b"precious bytes\n")
    return v


def test_symlink_planted_at_out_tmp_is_not_followed(tmp_path):
    victim = _victim(tmp_path)
    out = tmp_path / "s.h5"
    os.symlink(victim, final_tmp(out))
    sweep(write(tmp_path, TINY), out=out)   # the planted link is removed, never written through
    assert victim.read_bytes() == b"precious bytes\n"
    assert open_results(out).sizes["rate_iops"] == 2
    assert not os.path.lexists(final_tmp(out))


def test_symlink_planted_at_out_lock_is_refused_and_victim_kept(tmp_path, monkeypatch):
    victim = _victim(tmp_path)
    out = tmp_path / "l.h5"
    os.symlink(victim, lock_path(out))
    monkeypatch.setattr(points_mod, "_simulate", lambda *a, **k: pytest.fail("simulated"))
    with pytest.raises(McioError, match=r"l\.h5\.lock.*symbolic link"):
        sweep(write(tmp_path, TINY), out=out)
    assert victim.read_bytes() == b"precious bytes\n"


def test_dangling_symlink_at_out_lock_creates_nothing_at_its_target(tmp_path, monkeypatch):
    out = tmp_path / "d.h5"
    target = tmp_path / "created-by-mcio"
    os.symlink(target, lock_path(out))
    monkeypatch.setattr(points_mod, "_simulate", lambda *a, **k: pytest.fail("simulated"))
    with pytest.raises(McioError, match="symbolic link"):
        sweep(write(tmp_path, TINY), out=out)
    assert not target.exists()


def test_fifo_or_hard_link_at_out_lock_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(points_mod, "_simulate", lambda *a, **k: pytest.fail("simulated"))
    out = tmp_path / "f.h5"
    os.mkfifo(lock_path(out))
    with pytest.raises(McioError, match="not a regular file of its own"):
        sweep(write(tmp_path, TINY), out=out)
    victim = _victim(tmp_path)
    out = tmp_path / "h.h5"
    os.link(victim, lock_path(out))
    with pytest.raises(McioError, match="not a regular file of its own"):
        sweep(write(tmp_path, TINY), out=out)
    assert victim.read_bytes() == b"precious bytes\n"


def test_symlink_planted_at_the_parts_directory_is_refused(tmp_path, monkeypatch):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "p.h5"
    os.symlink(elsewhere, out.with_name("p.h5.parts"))
    monkeypatch.setattr(points_mod, "_simulate", lambda *a, **k: pytest.fail("simulated"))
    with pytest.raises(McioError, match=r"p\.h5\.parts' is a symbolic link"):
        sweep(write(tmp_path, TINY), out=out, resume=True)
    assert not list(elsewhere.iterdir())


def test_atomic_writers_do_not_write_through_a_planted_temporary_name(tmp_path, results):
    victim = _victim(tmp_path)
    out = tmp_path / "w.bin"
    os.symlink(victim, out.with_name(f"w.bin.{os.getpid()}.tmp"))
    write_bytes(b"new", out)
    assert out.read_bytes() == b"new" and victim.read_bytes() == b"precious bytes\n"
    out = tmp_path / "w.h5"
    os.symlink(victim, out.with_name(f"w.h5.{os.getpid()}.tmp"))
    write_netcdf(open_results(results), out)
    assert victim.read_bytes() == b"precious bytes\n" and open_results(out).sizes["rate_iops"] == 2
    out = tmp_path / "g.h5"
    os.symlink(victim, final_tmp(out))
    write_groups({"a": open_results(results)}, out)
    assert victim.read_bytes() == b"precious bytes\n" and not os.path.lexists(final_tmp(out))
