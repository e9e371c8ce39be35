"""The ``mcio`` command, in one place: the group and its error policy (:mod:`.app`), the sweep /
run / plot / info / scenarios / reproduce / validate commands (:mod:`.commands`), ``mcio
calibrate`` (:mod:`.calibrate`) and ``mcio isfc`` (:mod:`.isfc`).

The entry point is ``mcio.cli:main``; ``python -m mcio.cli`` runs it too.
"""
from .app import EXIT_BAD_INPUT, EXIT_BUG, McioGroup, main, set_threads
from . import commands  # noqa: F401  (registers its commands on main)
from . import whatif  # noqa: F401  (compare, schema)
from .calibrate import calibrate_cmd
from .commands import builtin_example, report
from .isfc import isfc_group

main.add_command(calibrate_cmd)
main.add_command(isfc_group)

__all__ = ["main", "McioGroup", "set_threads", "builtin_example", "report", "calibrate_cmd", "isfc_group",
           "EXIT_BAD_INPUT", "EXIT_BUG"]
