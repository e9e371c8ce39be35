"""The ``mcio`` command in a real process for the Ctrl-C tests, which prints ``kernels running``
(to stderr) once the kernels have completed their first I/Os (the progress counter moved), so
the test's SIGINT lands inside a point, not in the start-up.

usage: python cli_sigint_child.py MCIO-ARGUMENTS...
"""
import sys
import threading
import time

from mcio import interrupt
from mcio.cli import main


def _announce():
    while interrupt.counter().sum() == 0:
        time.sleep(0.02)
    print("kernels running", file=sys.stderr, flush=True)


threading.Thread(target=_announce, daemon=True).start()
sys.argv = ["mcio"] + sys.argv[1:]
main()
