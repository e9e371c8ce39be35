"""A damaged Numba cache (``*.nbi`` / ``*.nbc`` under the kernels' ``__pycache__``) is recognised:
one line naming the cache directory and the command that clears it, exit 2, not "a bug in mcio"."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import mcio
from mcio.cli.app import cache_message, numba_cache_dirs

CACHING = os.path.join("somewhere", "numba", "core", "caching.py")


def _raised_in(filename, exc, self_path=None):
    """``exc`` raised by code whose frame is in ``filename`` (with ``self._cache_path`` if given)."""
    code = compile("def load(self):\n    raise exc\n", filename, "exec")
    ns = {"exc": exc}
    exec(code, ns)

    class Cache:
        _cache_path = self_path
    try:
        ns["load"](Cache())
    except BaseException as e:   # noqa: BLE001
        return e


def test_recogniser_names_the_cache_dir_of_an_error_raised_in_numbas_cache_loader():
    import pickle
    e = _raised_in(CACHING, pickle.UnpicklingError("pickle data was truncated"), "/x/kernels/__pycache__")
    assert numba_cache_dirs(e) == ["/x/kernels/__pycache__"]
    msg = cache_message(e, ["/x/kernels/__pycache__"])
    assert "UnpicklingError: pickle data was truncated" in msg
    assert "rm -f /x/kernels/__pycache__/*.nbi /x/kernels/__pycache__/*.nbc" in msg


def test_recogniser_follows_chained_exceptions_and_falls_back_to_mcios_cache_dirs():
    inner = _raised_in(CACHING, EOFError("Ran out of input"))
    try:
        raise RuntimeError("while compiling") from inner
    except RuntimeError as outer:
        dirs = numba_cache_dirs(outer)
    assert dirs and dirs[0].endswith(os.path.join("kernels", "__pycache__"))


def test_errors_raised_elsewhere_are_not_blamed_on_the_cache():
    assert numba_cache_dirs(_raised_in(os.path.join("x", "mcio", "engine", "run.py"), ValueError("bug"))) is None
    assert numba_cache_dirs(ValueError("never raised")) is None


def test_the_api_raises_the_same_text_as_a_mcio_error():
    import pickle
    from mcio.kernelcache import DamagedCache, cache_errors

    @cache_errors
    def run():
        raise _raised_in(CACHING, EOFError("Ran out of input"), "/x/kernels/__pycache__")

    with pytest.raises(DamagedCache) as ei:
        run()
    e = ei.value
    assert isinstance(e, mcio.McioError) and e.dirs == ["/x/kernels/__pycache__"]
    assert f"mcio: error: {e}" == cache_message(e.__cause__, e.dirs)
    assert str(pickle.loads(pickle.dumps(e))) == str(e)      # (a Dask worker's error crosses a pickle)

    @cache_errors
    def other():
        raise ValueError("not the cache")
    with pytest.raises(ValueError, match="not the cache"):
        other()


API = """
import mcio
from mcio.scenarios import SCENARIOS
try:
    mcio.simulate(SCENARIOS["mm1-demo"](), ios=200, replications=2)
except mcio.McioError as e:
    print(e)
    raise SystemExit(3)
"""


def test_a_damaged_cache_in_a_copy_of_the_package_gives_one_line_and_exit_2(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    cmd = [sys.executable, "-m", "mcio.cli", "reproduce", "mm1-demo", "--ios", "200"]
    src = Path(mcio.__file__).parent
    # the real tree's cache first (compiled here if this is the session's first use of these kernels)
    first = subprocess.run(cmd, env=dict(env, PYTHONPATH=str(src.parent)), cwd=src.parent, capture_output=True,
                           timeout=900)
    assert first.returncode in (0, 1), first.stderr[-3000:]   # (1: 200 I/Os miss the published figures)
    if not list((src / "kernels" / "__pycache__").glob("*.nbc")):
        pytest.skip("no in-tree Numba cache to copy")
    shutil.copytree(src, tmp_path / "mcio", copy_function=shutil.copy2)   # (mtimes kept: the cache stays valid)
    cache = tmp_path / "mcio" / "kernels" / "__pycache__"
    for f in cache.glob("*.nbc"):
        f.write_bytes(b"garbage")
    r = subprocess.run(cmd, env=dict(env, PYTHONPATH=str(tmp_path)), cwd=tmp_path,   # (-m: cwd first on sys.path)
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2, r.stderr[-3000:]
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Numba's cache of compiled kernels is damaged" in lines[0], r.stderr[-3000:]
    assert str(cache) in lines[0] and "a bug in mcio" not in r.stderr
    # the Python API: the same text, as a McioError
    api = subprocess.run([sys.executable, "-c", API], env=dict(env, PYTHONPATH=str(tmp_path)), cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert api.returncode == 3, api.stderr[-3000:]
    assert "mcio: error: " + api.stdout.strip() == lines[0]
    clear = lines[0].split("clear it with: ")[1].split(" (")[0]
    subprocess.run(clear, shell=True, check=True)   # the command given clears it
    assert not list(cache.glob("*.nbc")) and not list(cache.glob("*.nbi"))
