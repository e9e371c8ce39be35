"""DASD geometry: how a CKD device lays records on a track, and how fast the track turns.

A :class:`Geometry` holds the published figures of one device type (tracks per cylinder, track
capacity, cells per track and the record-size formula, revolution time, media data rate,
cylinders per model) and answers the layout questions: blocks per track and per cylinder for a
block size, usable bytes, how long the media takes to pass a record.

Units are in the names: ``_bytes``, ``_ms``, ``_mb_s`` (1 MB = 10**6 bytes, so 1 MB/s = 1 KB/ms
with mcio's 1 KB = 1000 bytes).

The 3390 record formula (IBM, *3390 Reference Summary*; it reproduces the published blocks per
track 49 / 33 / 21 / 12 for 512 B / 1 KB / 2 KB / 4 KB and the 56,664-byte track capacity —
tests/test_dasd_geometry.py checks all of them): a track has 1,729 cells of 34 bytes for user
records; a keyless record of data length DL takes ``10 + 9 + ceil((DL + 6 * ceil((DL + 6) /
232) + 6) / 34)`` cells. The 3380 formula (IBM 3380 reference: 1,499 cells of 32 bytes, record =
15 + ceil((DL + 12) / 32) cells) gives its 47,476-byte track and 10 blocks of 4 KB.

An ``emulated`` device (any modern controller's "3390") has the 3390's layout but no positional
parts: no seek, no rotation; a cache miss is back-end service (see :mod:`mcio.dasd.physics`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..errors import McioError


@dataclass(frozen=True)
class Geometry:
    """One CKD device type. ``formula`` names the record-size rule ("3390" or "3380");
    ``revolution_ms`` 0 and ``positional`` False for an emulated device."""

    name: str
    tracks_per_cylinder: int
    track_capacity_bytes: int          # largest single record on a track
    cells_per_track: int               # cells available to user records (R1..Rn)
    cell_bytes: int
    formula: str
    revolution_ms: float               # one turn of the disk
    media_mb_s: float                  # data rate off the head (instantaneous)
    positional: bool = True            # False: emulated, no seek or rotation
    cylinders: dict = field(default_factory=dict)   # model -> cylinders

    # ---- layout ----
    def record_cells(self, block_bytes: int) -> int:
        """Cells one keyless record of ``block_bytes`` data occupies on a track."""
        dl = _block(block_bytes)
        if self.formula == "3390":
            return 10 + 9 + math.ceil((dl + 6 * math.ceil((dl + 6) / 232) + 6) / 34)
        if self.formula == "3380":
            return 15 + math.ceil((dl + 12) / 32)
        raise McioError("geometry.formula", self.formula, "must be '3390' or '3380'")

    def blocks_per_track(self, block_bytes: int) -> int:
        """Records of ``block_bytes`` that fit on one track (0 if one does not fit)."""
        return self.cells_per_track // self.record_cells(block_bytes)

    def blocks_per_cylinder(self, block_bytes: int) -> int:
        return self.tracks_per_cylinder * self.blocks_per_track(block_bytes)

    def usable_track_bytes(self, block_bytes: int) -> int:
        """Data bytes on a track formatted with ``block_bytes`` records."""
        return self.blocks_per_track(block_bytes) * _block(block_bytes)

    def cylinders_of(self, model: str) -> int:
        if model not in self.cylinders:
            raise McioError("geometry.model", model, f"unknown {self.name} model; allowed: "
                            f"{', '.join(self.cylinders) or '(none)'}")
        return self.cylinders[model]

    # ---- time on the media ----
    @property
    def cell_ms(self) -> float:
        """Time one cell takes to pass the head at the media rate (ms)."""
        return self.cell_bytes / (self.media_mb_s * 1000.0) if self.positional else 0.0

    def record_footprint_ms(self, block_bytes: int) -> float:
        """Time the head spends over one record, gaps and count field included (ms)."""
        return self.record_cells(block_bytes) * self.cell_ms

    def data_transfer_ms(self, nbytes: float) -> float:
        """Time to move ``nbytes`` of data at the media rate, gaps not counted (ms)."""
        return nbytes / (self.media_mb_s * 1000.0)

    @property
    def mean_rotational_latency_ms(self) -> float:
        """Half a revolution: the mean wait for a uniformly placed record to reach the head."""
        return self.revolution_ms / 2.0 if self.positional else 0.0


def _block(block_bytes) -> int:
    if isinstance(block_bytes, bool) or not isinstance(block_bytes, int) or block_bytes <= 0:
        raise McioError("block_bytes", block_bytes, "must be a positive integer number of bytes")
    return block_bytes


#: IBM 3390: 15 tracks per cylinder, 56,664-byte track, 7.1 ms average rotational delay (so
#: 14.2 ms per revolution, ~4,225 rpm) and a 4.2 MB/s media data rate (3390 product literature;
#: shared/domain.md §2). Models 1-54 by cylinders (domain.md §2).
IBM3390 = Geometry("3390", 15, 56_664, 1_729, 34, "3390", 14.2, 4.2,
                   cylinders={"3390-1": 1_113, "3390-2": 2_226, "3390-3": 3_339, "3390-9": 10_017,
                              "3390-27": 32_760, "3390-54": 65_520})
#: IBM 3380: 15 tracks per cylinder, 47,476-byte track, 3,600 rpm (16.7 ms per revolution),
#: 3.0 MB/s (IBM 3380 product literature; not in domain.md: the figures are IBM's published ones).
IBM3380 = Geometry("3380", 15, 47_476, 1_499, 32, "3380", 16.7, 3.0,
                   cylinders={"3380-A": 885, "3380-E": 1_770, "3380-K": 2_655})
#: A "3390" emulated by a modern controller: the 3390 layout, no positional parts.
EMULATED3390 = Geometry("emulated-3390", 15, 56_664, 1_729, 34, "3390", 0.0, 1.0e9, positional=False,
                        cylinders=dict(IBM3390.cylinders))

GEOMETRIES = {g.name: g for g in (IBM3390, IBM3380, EMULATED3390)}


def geometry(name: str) -> Geometry:
    """The device type called ``name`` ("3390", "3380", "emulated-3390")."""
    if name not in GEOMETRIES:
        raise McioError("device_type", name, f"must be one of {', '.join(GEOMETRIES)}")
    return GEOMETRIES[name]
