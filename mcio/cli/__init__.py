"""The ``mcio`` command, in one place: the group and its error policy (:mod:`.app`), the sweep /
run / plot / info / scenarios / reproduce / validate commands (:mod:`.commands`), ``mcio
calibrate`` (:mod:`.calibrate`) and ``mcio isfc`` (:mod:`.isfc`).

The entry point is ``mcio.cli:console`` (``main`` as a process's command); ``python -m mcio.cli``
runs it too.
"""
from .app import EXIT_BAD_INPUT, EXIT_BUG, McioGroup, main, set_threads
from . import commands  # noqa: F401  (registers its commands on main)
from . import whatif  # noqa: F401  (compare, schema)
from . import planner  # noqa: F401  (table, report, headroom)
from .calibrate import calibrate_cmd
from .base import base_cmd
from .commands import builtin_example, report
from .isfc import isfc_group

main.add_command(calibrate_cmd)
main.add_command(base_cmd)
main.add_command(isfc_group)


def console() -> None:
    """``mcio`` as a command: :data:`main`, and at exit the collector's last full walk skipped.

    Once the interpreter has loaded Numba, xarray and scipy it tracks ~200,000 objects, and its
    finalisation walks them all for garbage cycles (a tenth of the README's main job) just before the process ends and the OS takes the memory back. Freezing them, as the
    process exits, skips that walk (exit handlers still run, and every file mcio
    writes is closed and renamed into place before its command returns). Not done where
    ``main`` runs inside another program (tests, notebooks): their process is theirs."""
    import atexit
    import gc
    atexit.register(gc.freeze)
    main()


__all__ = ["main", "console", "McioGroup", "set_threads", "builtin_example", "report", "calibrate_cmd", "isfc_group",
           "EXIT_BAD_INPUT", "EXIT_BUG"]
