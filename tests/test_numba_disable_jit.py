"""``NUMBA_DISABLE_JIT=1`` is refused in one line (mcio/kernels/__init__.py): the kernels use LLVM
intrinsics, which have no Python form, so without the check the setting failed deep inside an
import (AttributeError: 'function' object has no attribute 'py_func') or a run."""
import os
import subprocess
import sys


def _mcio(*args):
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    env.pop("MCIO_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "mcio.cli", *args], env=env, capture_output=True,
                          text=True, timeout=300)


def test_a_run_with_numba_disable_jit_is_one_line_naming_the_setting_and_exit_2():
    r = _mcio("run")
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("mcio: error: NUMBA_DISABLE_JIT = '1': ")
    assert "unset it or set it to 0" in lines[0]
    assert "Traceback" not in r.stderr


def test_the_kernels_import_raises_the_mcio_error_under_numba_disable_jit():
    code = ("from mcio import McioError\n"
            "try:\n"
            "    import mcio.kernels.blockrng\n"
            "except McioError as e:\n"
            "    print(e.field)\n")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "NUMBA_DISABLE_JIT"
