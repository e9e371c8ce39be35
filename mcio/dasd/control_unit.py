"""The control unit's cache policy, and how a DASD I/O's service splits into disconnect and
connect (RMF's definitions) for each kind of SSCH.

Kinds of SSCH (one I/O class each in the engine):

- **read hit** (the tracks are in the CU cache): no disconnect; connect = commands + data sent
  from cache at ``hit_transfer_mb_s`` (None: at channel speed).
- **read miss, read-through**: disconnect = seek + rotational latency; the CU reconnects at once
  and the data goes at media speed: connect = commands + bytes / media rate. Long connect, short
  disconnect.
- **read miss, staging**: disconnect = seek + latency + reading the data into cache at media
  speed; connect = commands + data from cache (as a hit). Longer disconnect, short connect.
- **write, fast write**: the data goes into the CU's cache / non-volatile storage and the I/O
  ends (destage later, off the I/O's time): no disconnect; connect as a hit.
- On an **emulated** device a read miss is back-end service (``backend_ms``, a Dist) and its
  data goes at channel speed: the positional parts are zero.

Mapping onto the engine's pass-through device (:func:`service_map`; the engine's positional
device, which tracks the arm per I/O, needs none of it: see :mod:`mcio.dasd`): every miss class
draws its disconnect, i.i.d., from the one back-end distribution (``control_unit.backend_service_ms``); connect is
``channels.protocol_us_per_command_ccw x records`` (a fixed time) plus ``kb`` over
``channels.link_mb_s`` (shared by the channel's transfers). A transfer paced slower than the
link (media speed, or a CU that sends hits at device speed) is written as its extra time per
record in the protocol time: ``block / paced rate - block / link``, so connect = bytes / paced
rate when the channel carries one transfer at a time (ESCON), and link busy counts the bytes at
link speed. All classes must then share one fixed time per record; when they do not (e.g. hits
at channel speed beside read-through misses), records count protocol quanta of
``QUANTUM_US`` instead of commands (stated in :attr:`ServiceMap.note`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import McioError
from ..model import Dist
from .geometry import Geometry
from .physics import SeekCurve, positional_disconnect

POLICIES = ("read_through", "staging")
QUANTUM_US = 1.0


@dataclass(frozen=True)
class ControlUnitCache:
    """A control unit's read policy on a miss, the rate it sends cached data (None: the channel's
    speed; MB/s, 1 MB = 10**6 bytes), and its write policy (fast write only)."""

    policy: str = "read_through"
    hit_transfer_mb_s: float | None = None
    write_policy: str = "fast_write"

    def __post_init__(self):
        if self.policy not in POLICIES:
            raise McioError("cu_policy", self.policy, f"must be one of {', '.join(POLICIES)}")
        if self.write_policy != "fast_write":
            raise McioError("cu_write_policy", self.write_policy, "must be 'fast_write'")
        if self.hit_transfer_mb_s is not None and not self.hit_transfer_mb_s > 0:
            raise McioError("cu_hit_transfer_mb_s", self.hit_transfer_mb_s, "must be > 0 MB/s or None")


@dataclass(frozen=True)
class SschKind:
    """One kind of SSCH: ``share`` of all SSCHs, ``blocks`` of ``block_bytes`` each, and whether
    it is a read that misses the CU cache (``miss``) or a ``write``."""

    name: str
    share: float
    blocks: int
    miss: bool = False
    write: bool = False


@dataclass
class ServiceMap:
    """The engine fields that express a set of SSCH kinds: ``io`` classes, the per-record
    protocol time, the back-end (disconnect) distribution; ``components`` holds each kind's
    intended disconnect (mean, ms) and connect (ms, at an unshared link) for reports and tests."""

    io: list
    protocol_us_per_command_ccw: float
    backend_service_ms: Dist
    components: dict = field(default_factory=dict)
    note: str = ""


def service_map(kinds, *, geom: Geometry, seek: SeekCurve, cu: ControlUnitCache, link_mb_s: float,
                block_bytes: int, distance_pmf, ccw_protocol_us: float = 0.0,
                emulated_backend: Dist | None = None) -> ServiceMap:
    """The engine's view of ``kinds`` (see the module docstring for each kind's parts).

    ``distance_pmf``: seek distances of the media accesses (cylinders), e.g. from
    :func:`mcio.dasd.walk.walk`; ``emulated_backend``: the miss service of an emulated device.
    """
    if not kinds:
        raise McioError("kinds", kinds, "needs at least one kind of SSCH")
    link_rate = link_mb_s * 1000.0                     # bytes per ms
    hit_rate = link_rate if cu.hit_transfer_mb_s is None else min(cu.hit_transfer_mb_s * 1000.0, link_rate)
    media_rate = geom.media_mb_s * 1000.0
    stage_ms = None
    miss_kinds = [k for k in kinds if k.miss]
    if geom.positional:
        if cu.policy == "staging":
            stage_blocks = {k.blocks for k in miss_kinds}
            if len(stage_blocks) > 1:
                raise McioError("kinds", sorted(stage_blocks), "staging misses of different sizes need one "
                                "back-end distribution each: not expressible here (the engine's positional device, "
                                "devices.geometry, stages each miss's own size)")
            stage_ms = (next(iter(stage_blocks)) * block_bytes / media_rate) if stage_blocks else 0.0
        backend = positional_disconnect(distance_pmf, seek, geom, extra_ms=stage_ms or 0.0)
    else:
        backend = emulated_backend if emulated_backend is not None else Dist("deterministic", 0.0)
    fixed, comps = [], {}
    for k in kinds:
        nbytes = k.blocks * block_bytes
        if k.miss and geom.positional and cu.policy == "read_through":
            rate = min(media_rate, link_rate)
        elif k.miss and not geom.positional:
            rate = link_rate
        else:
            rate = hit_rate
        paced_ms = nbytes / rate - nbytes / link_rate
        f = paced_ms + k.blocks * ccw_protocol_us / 1000.0
        fixed.append(f)
        comps[k.name] = {"disconnect_ms": backend.mean if k.miss else 0.0,
                         "connect_ms": f + nbytes / link_rate}
    per_record = [f / k.blocks for f, k in zip(fixed, kinds)]
    note = ""
    if max(per_record) - min(per_record) <= 1e-12 * max(1.0, max(per_record)):
        proto_us = per_record[0] * 1000.0
        records = [k.blocks for k in kinds]
    else:
        proto_us = QUANTUM_US
        records = [max(1, int(round(f * 1000.0 / QUANTUM_US))) for f in fixed]
        note = (f"kinds pace their data differently: io.records counts {QUANTUM_US:g}-us protocol quanta, "
                "not commands (mp_us_per_command_ccw must be 0)")
    io = [{"name": k.name, "share": k.share, "kb": k.blocks * block_bytes / 1000.0, "records": r,
           "miss_ratio": 1.0 if k.miss else 0.0} for k, r in zip(kinds, records)]
    return ServiceMap(io, proto_us, backend, comps, note)


def think_per_ssch(requests_per_ssch_pmf, app_think_ms: float, mdc_hit_ms: float) -> Dist:
    """The think time between a guest stream's SSCHs (ms): the application's think before each of
    the A requests since its previous SSCH (exponential, mean ``app_think_ms``) plus
    ``mdc_hit_ms`` for each of the A - 1 that MDC served; A from ``requests_per_ssch_pmf``.
    Returned as a gamma with the exact mean and SCV (deterministic if the SCV is 0)."""
    import numpy as np
    p = np.asarray(requests_per_ssch_pmf, float)
    p = p / p.sum()
    a = np.arange(p.size, dtype=float)
    cond_mean = a * app_think_ms + np.maximum(a - 1.0, 0.0) * mdc_hit_ms
    mean = float(np.dot(p, cond_mean))
    var = float(np.dot(p, a) * app_think_ms**2 + np.dot(p, cond_mean**2) - mean**2)
    if mean <= 0:
        return Dist("deterministic", 0.0)
    scv = max(var, 0.0) / mean**2
    return Dist.from_mean_scv(mean, scv if scv >= 1e-12 else 0.0, exponential=False)
