"""Device physics for rotating DASD and the caches in front of it (generic: no scenario here).

- :mod:`~mcio.dasd.geometry`: 3390 / 3380 / emulated layout, rotation, media rate;
- :mod:`~mcio.dasd.physics`: the seek curve (evaluated by the engine's own kernel,
  :func:`mcio.kernels.seek.seek_ms`), the random-access distance law
  (:mod:`mcio.model.positional`), latency, transfer, the positional disconnect distribution;
- :mod:`~mcio.dasd.access`: access patterns (sequential, random, a locality mix) and their
  stationary seek-distance distribution;
- :mod:`~mcio.dasd.walk`: an access pattern's requests through the minidisk cache (MDC) and the
  control-unit cache with the arm tracked (the wrapper of the Numba kernel
  :mod:`mcio.kernels.dasd_walk`);
- :mod:`~mcio.dasd.control_unit`: read-through / staging / fast write, each kind of SSCH's
  disconnect and connect, and their mapping onto a pass-through device's engine fields.

Two ways into the engine. The pass-through mapping (:func:`service_map`) gives every miss a
disconnect drawn i.i.d. from one distribution, e.g. of the distances a walk measured (the
dasd-mdc scenario's walk-based variants). The engine's positional device ([devices] ``geometry =
"3390"`` or ``"3380"`` with ``control_unit.miss_policy`` read_through or staging) tracks each
device's arm instead: seek from its cylinder, uniform rotational latency, media pacing, in the
device-service seam (``mcio.kernels.stages.positional_miss``; variant ``phase1_on_seam``), see
docs/dasd_mdc.md.
"""
from ..model.positional import random_distance_pmf
from .access import AccessPattern
from .control_unit import ControlUnitCache, SschKind, ServiceMap, service_map, think_per_ssch
from .geometry import EMULATED3390, GEOMETRIES, IBM3380, IBM3390, Geometry, geometry
from .physics import SeekCurve, channel_transfer_ms, positional_disconnect, seek_curve_for_average
from .walk import WalkResult, walk

__all__ = ["AccessPattern", "ControlUnitCache", "SschKind", "ServiceMap", "service_map", "think_per_ssch", "EMULATED3390",
           "GEOMETRIES", "IBM3380", "IBM3390", "Geometry", "geometry", "SeekCurve", "channel_transfer_ms",
           "positional_disconnect", "random_distance_pmf", "seek_curve_for_average", "WalkResult", "walk"]
