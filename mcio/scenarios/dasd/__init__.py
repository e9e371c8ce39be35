"""The ``dasd-mdc`` scenario (seed 002): see :mod:`.scenario`; the seed's rows in :mod:`.measured`."""
from .scenario import SCENARIO, DasdMdc

__all__ = ["SCENARIO", "DasdMdc"]
