"""A run's size limits, one home for the API (engine/run.py) and the sweep spec (batch/spec.py):
(lowest, highest) per run option. Light: no NumPy, no Numba."""

MAX_RUN_IOS = 2**62      # measured I/Os per replication (an int64 counter with room to spare)
RUN_BOUNDS = {"replications": (2, 10_000), "ios": (1, MAX_RUN_IOS), "warmup": (0, MAX_RUN_IOS),
              "seed": (0, 2**63 - 1)}


def refuse_too_short(ds, field: str, ios) -> None:
    """Raise McioError(field, ios, reason) if ``ds`` (a simulate() Dataset) is flagged as a run too
    short for any figure: its figures are no figures (a rate of 1e303, busy of 1e300)."""
    reason = str(ds.attrs.get("unstable_reason", ""))
    if reason.startswith("run too short"):
        from ..errors import McioError
        raise McioError(field, ios, reason)
