"""Access patterns: where a guest's next read goes, and the seek distances that follow.

A pattern is a **locality mix**: with probability ``p_sequential`` the next request continues the
previous one (the blocks right after it), otherwise it jumps to a uniformly chosen request
position in a band of ``span_cylinders`` (the data's extent). ``p_sequential = 1`` is a
sequential scan, ``0`` random access over the span.

:meth:`AccessPattern.distance_pmf` is the stationary distribution of the distance between
consecutive requests when every request goes to the media (no cache in front): a sequential step
stays on its cylinder unless it crosses into the next one (distance 1, probability
request / blocks per cylinder); a jump from a uniform position to a uniform position has the
random-access distance (:func:`~mcio.model.positional.random_distance_pmf`). With caches in front
only misses move the arm; :func:`mcio.dasd.walk` measures that case with the arm tracked. The
engine's positional device draws the same locality mix per I/O (``devices.p_sequential``,
``devices.span_cylinders``: ``mcio.kernels.stages.positional_miss``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import McioError
from ..model.positional import random_distance_pmf


@dataclass(frozen=True)
class AccessPattern:
    """A locality mix of sequential runs and uniform jumps over ``span_cylinders``; requests of
    ``request_blocks`` blocks."""

    p_sequential: float
    span_cylinders: int
    request_blocks: int = 1

    def __post_init__(self):
        if not 0.0 <= self.p_sequential <= 1.0:
            raise McioError("p_sequential", self.p_sequential, "must be in [0, 1]")
        for k in ("span_cylinders", "request_blocks"):
            v = getattr(self, k)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise McioError(k, v, "must be an integer >= 1")

    @classmethod
    def sequential(cls, span_cylinders: int, request_blocks: int = 1) -> "AccessPattern":
        return cls(1.0, span_cylinders, request_blocks)

    @classmethod
    def random(cls, span_cylinders: int, request_blocks: int = 1) -> "AccessPattern":
        return cls(0.0, span_cylinders, request_blocks)

    def distance_pmf(self, blocks_per_cylinder: int) -> np.ndarray:
        """P(distance = d cylinders) between consecutive requests, d = 0 .. span - 1."""
        if self.request_blocks > blocks_per_cylinder:
            raise McioError("request_blocks", self.request_blocks, f"must be <= {blocks_per_cylinder} blocks per cylinder")
        seq = np.zeros(self.span_cylinders)
        cross = self.request_blocks / blocks_per_cylinder if self.span_cylinders > 1 else 0.0
        seq[0] = 1.0 - cross
        if self.span_cylinders > 1:
            seq[1] = cross
        return self.p_sequential * seq + (1.0 - self.p_sequential) * random_distance_pmf(self.span_cylinders)

    def walk_kwargs(self) -> dict:
        """The keywords of :func:`mcio.dasd.walk` this pattern sets."""
        return {"p_sequential": self.p_sequential, "extent_cylinders": self.span_cylinders,
                "request_blocks": self.request_blocks}
