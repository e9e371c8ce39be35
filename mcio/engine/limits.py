"""A run's size limits, one home for the API (engine/run.py) and the sweep spec (batch/spec.py):
(lowest, highest) per run option. Light: no NumPy, no Numba."""

MAX_RUN_IOS = 2**62      # measured I/Os per replication (an int64 counter with room to spare)
RUN_BOUNDS = {"replications": (2, 10_000), "ios": (1, MAX_RUN_IOS), "warmup": (0, MAX_RUN_IOS),
              "seed": (0, 2**63 - 1)}
