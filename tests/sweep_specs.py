"""Small sweep specs shared by the sweep, store, CLI and plot tests (kept cheap: 2 cores)."""
import os
import sys
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parent

# A closed FICON-like load on one or two channels, swept over population x channel count.
FICON_GRID = """\
title = "test grid"

[model.workload]
type = "closed"
population = 1

[[model.io]]
kb = 4.0
miss_ratio = 0.5

[model.devices]
count = 64
skew = "zipf"
aliases = 3

[model.channels]
count = 1
mp_us_per_io_ccw = 80.0

[model.control_unit]
ha_service_us = 50.0
backend_servers = 32
backend_service_ms = { dist = "gamma", mean = 1.5, scv = 1.0 }

[sweep]
"workload.population" = [2, 8, 32]
"channels.count" = [1, 2]

[run]
replications = 2
ios = 3000
warmup = 500
seed = 11
"""

# The M/M/1 demo scenario over arrival rates: an exact oracle for the sweep's values.
MM1_RATES = """\
title = "mm1 rates"
scenario = "mm1-demo"

[scenario_params]
service_ms = 1.0

[sweep]
"workload.rate_iops" = [200.0, 500.0, 700.0]

[run]
replications = 4
ios = 40000
warmup = 4000
seed = 3
"""


def write(tmp_path, text, name="spec.toml") -> Path:
    p = Path(tmp_path) / name
    p.write_text(text)
    return p


def cli_env(**extra) -> dict:
    """Environment for running ``python -m mcio.cli`` on this checkout in a subprocess."""
    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return dict(os.environ, PYTHONPATH=path, **extra)


CLI = [sys.executable, "-m", "mcio.cli"]

# The grid's model with two named variants (the second twice, under two names) over population.
VARIANT_GRID = FICON_GRID.replace('''[sweep]
"workload.population" = [2, 8, 32]
"channels.count" = [1, 2]''', '''[variants.ccw]

[variants.fast_mp]
"channels.mp_us_per_io_ccw" = 40.0

[variants.fast_mp_again.channels]
mp_us_per_io_ccw = 40.0

[sweep]
"workload.population" = [2, 8]''')
