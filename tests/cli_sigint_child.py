"""The ``mcio`` command in a real process for the Ctrl-C tests, which prints ``kernels running``
(to stderr) once the kernels have completed their first I/Os (the progress counter moved), so
the test's SIGINT lands inside a point, not in the start-up.

usage: python cli_sigint_child.py MCIO-ARGUMENTS...
"""
import os
import sys
import threading
import time

from mcio import interrupt
from mcio.cli import main


def _announce():
    while interrupt.counter().sum() == 0:
        time.sleep(0.02)
    # one write(2) of the whole line: print() writes the text and its newline separately, and the
    # main thread's "mcio: interrupted" once landed between them (a CI run read
    # "kernels runningmcio: interrupted: ...")
    os.write(2, b"kernels running\n")


threading.Thread(target=_announce, daemon=True).start()
sys.argv = ["mcio"] + sys.argv[1:]
main()
