"""Shared test set-up: the kernels warmed once per session.

The event engine's and the fast path's kernels are compiled (or loaded from Numba's cache) by
one tiny run each before the first test, so that cost is paid once, shows in ``--durations`` as
this fixture's set-up, and is not charged to whichever test happens to run first.

Tiers: the ``slow`` marker (registered in pyproject.toml) marks the tests that recompile a copy of
the package, re-run a documented command at full size or run longer than about 20 s;
``python -m pytest`` runs everything (what CI runs), ``python -m pytest -m "not slow"`` the quick
tier.
"""
import signal

import pytest

# A suite started in the background (``pytest &`` from a script: the shell starts it with SIGINT
# ignored) would inherit SIGINT ignored, and Python leaves it so: the Ctrl-C tests, here and in
# the commands they start (which inherit it too), would then test an ignored Ctrl-C (presses
# dropped, commands that never stop). They test what a terminal's Ctrl-C does: Python's default.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session", autouse=True)
def warm_kernels():
    """One tiny open M/M/1 run on each engine (fast path, event engine): kernels ready."""
    from mcio import simulate
    from oracle_models import single_server_open
    model = single_server_open(500.0, {"dist": "exponential", "mean": 1.0})
    for fast in (True, False):
        ds = simulate(model, ios=500, replications=2, seed=1, warmup=100, fast_path=fast)
        assert ds.attrs["engine"].startswith("fast") == fast
