"""Run the mcio command with the fake engine (for subprocess tests): python tests/_fake_cli.py ARGS.
MCIO_FAKE_SLEEP=seconds makes each point take that long."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import _fake_engine  # noqa: E402

import mcio.sweep  # noqa: E402


def slow_simulate(model, **kw):
    time.sleep(float(os.environ.get("MCIO_FAKE_SLEEP", "0")))
    return _fake_engine.simulate(model, **kw)


mcio.sweep._simulate = slow_simulate

from mcio.cli import main  # noqa: E402

main()
