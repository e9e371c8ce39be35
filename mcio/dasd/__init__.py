"""Device physics for rotating DASD and the caches in front of it (generic: no scenario here).

- :mod:`~mcio.dasd.geometry`: 3390 / 3380 / emulated layout, rotation, media rate;
- :mod:`~mcio.dasd.physics`: seek curve, distance distributions, latency, transfer, the
  positional disconnect distribution;
- :mod:`~mcio.dasd.access`: access patterns (sequential, random, a locality mix) and their
  stationary seek-distance distribution;
- :mod:`~mcio.dasd.walk`: an access pattern's requests through the minidisk cache (MDC) and the
  control-unit cache with the arm tracked (a Numba kernel);
- :mod:`~mcio.dasd.control_unit`: read-through / staging / fast write, and the mapping of each
  kind of SSCH onto today's engine fields.

Until the engine's device-service seam lands, the engine draws each miss's disconnect i.i.d.
from the distance distribution the walk measured (not from a tracked arm), see docs/dasd_mdc.md.
"""
from .access import AccessPattern
from .control_unit import ControlUnitCache, SschKind, ServiceMap, service_map, think_per_ssch
from .geometry import EMULATED3390, GEOMETRIES, IBM3380, IBM3390, Geometry, geometry
from .physics import (SeekCurve, channel_transfer_ms, positional_disconnect, random_distance_pmf,
                      seek_curve_for_average)
from .walk import WalkResult, walk

__all__ = ["AccessPattern", "ControlUnitCache", "SschKind", "ServiceMap", "service_map", "think_per_ssch", "EMULATED3390",
           "GEOMETRIES", "IBM3380", "IBM3390", "Geometry", "geometry", "SeekCurve", "channel_transfer_ms",
           "positional_disconnect", "random_distance_pmf", "seek_curve_for_average", "WalkResult", "walk"]
