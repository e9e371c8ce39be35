"""``mcio.sweep`` is the batch API (mcio.batch) under its older name: the function, the module and
every name it exported before the package existed, the same objects as mcio.batch's."""
import importlib
import subprocess
import sys

import mcio.batch

OLD_NAMES = ("Axis", "SweepSpec", "load_spec", "parse_spec", "sweep", "run_point", "point_part", "point_task",
             "assemble", "open_results", "estimate", "Estimate", "check_size", "McioWarning", "SweepInterrupted",
             "dim_attrs", "STEADY_STATE_ONLY", "MUST_BE_FINITE", "WARN_AFTER_S", "EVENT_S_PER_IO", "machine_memory",
             "MAX_POINTS", "MAX_RUN_IOS", "RUN_KEYS", "PRECISION_VARS", "VARIANT_DIM", "McioError")


def test_the_old_module_exports_the_batch_objects():
    old = importlib.import_module("mcio.sweep")
    for name in OLD_NAMES:
        assert hasattr(old, name), name
    for name in mcio.batch.__all__:
        assert getattr(old, name) is getattr(mcio.batch, name), name
    assert set(old.__all__) <= set(mcio.batch.__all__)


def test_mcio_sweep_is_callable_however_it_was_imported():
    code = ("import mcio\n"
            "from mcio import sweep as a\n"
            "import mcio.sweep\n"
            "from mcio.sweep import sweep as f\n"
            "import mcio.batch\n"
            "assert callable(a) and callable(mcio.sweep) and a is mcio.sweep\n"
            "assert f is mcio.batch.sweep and mcio.batch.run.sweep is f\n"
            "assert mcio.open_results is mcio.batch.open_results\n"
            "from mcio.errors import McioError\n"
            "try:\n"
            "    mcio.sweep('title = 1\\n')   # the call reaches the sweep: it parses the spec (and refuses it)\n"
            "except McioError as e:\n"
            "    assert e.field == 'title', e\n"
            "else:\n"
            "    raise SystemExit('mcio.sweep(...) ran a spec with a bad title')\n"
            "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr
