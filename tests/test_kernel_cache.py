"""The compiled-kernel cache is cleared when any kernel source changes, also where
NUMBA_CACHE_DIR puts it (an edit to an inlined module must not leave stale machine code)."""
import os
import subprocess
import sys
from pathlib import Path

import mcio.kernels as kernels


def test_user_cache_dir_is_numbas_own_choice(tmp_path, monkeypatch):
    from numba.core.caching import _CacheLocator
    here = Path(kernels.__file__).parent
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    d = kernels.cache_dirs(here)[1]
    assert d == tmp_path / _CacheLocator.get_suitable_cache_subpath(str(here / "iopath.py"))


def test_stale_entries_under_numba_cache_dir_are_removed(tmp_path):
    here = Path(kernels.__file__).parent
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    code = "import mcio.kernels as k, pathlib; print(k.cache_dirs(pathlib.Path(k.__file__).parent)[1])"
    d = Path(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                            check=True).stdout.strip())
    assert (d / "mcio_kernels.sha256").exists()
    stale = d / "iopath.run_one-1.py311.nbi"
    stale.write_bytes(b"stale")
    (d / "mcio_kernels.sha256").write_text("a different source")   # as after an edit of a kernel
    subprocess.run([sys.executable, "-c", "import mcio.kernels"], env=env, check=True)
    assert not stale.exists()
    assert (d / "mcio_kernels.sha256").read_text() != "a different source"
