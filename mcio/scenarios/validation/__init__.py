"""The validation set (issue 30): published measurements run blind on the hardware catalogue.

- :mod:`.published`: the measurements, their sources and configurations;
- :mod:`.configs`: a channel group on a feature card driven flat out, as an mcio model;
- :mod:`.erase`: z/VM Fast Minidisk Erase elapsed times from command counts;
- :mod:`.scenario`: the scenario (``mcio reproduce validation``).
"""
from .published import CONFIGS, FIGURES
from .scenario import BLIND, FITTED, SCENARIO, Validation

__all__ = ["BLIND", "CONFIGS", "FIGURES", "FITTED", "SCENARIO", "Validation"]
