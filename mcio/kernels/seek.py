"""Seek time of a positional device's arm by distance: the one implementation, inlined by the
event engine's device-service seam (``stages.positional_miss``) and run on arrays for the host
(:class:`mcio.dasd.physics.SeekCurve`, through :func:`seek_ms_into`).

seek(d) = 0 for d = 0 cylinders (the same cylinder: a head switch, no arm motion), else
``settle_ms + ms_per_sqrt_cyl * sqrt(d)`` (ms): the usual short-seek form (shared/domain.md §2).
The curve's coefficient from a published average seek is the host's
(:func:`mcio.model.positional.seek_coefficient_for_average`).
"""
import numpy as np

from .options import JIT_LEAF, njit


@njit(**JIT_LEAF)
def seek_ms(distance_cyl, settle_ms, ms_per_sqrt_cyl):
    """Seek time (ms) of an arm move of ``distance_cyl`` cylinders (float64 >= 0): 0 for none (a
    head switch), else settle + coefficient * sqrt(distance)."""
    if distance_cyl <= 0.0:
        return 0.0
    return settle_ms + ms_per_sqrt_cyl * np.sqrt(distance_cyl)


@njit(**JIT_LEAF)
def seek_ms_into(distance_cyl, settle_ms, ms_per_sqrt_cyl, out):
    """``out[i] = seek_ms(distance_cyl[i], ...)``: ``distance_cyl`` float64[N] (cylinders, >= 0),
    ``out`` float64[N] (ms), both C-contiguous."""
    for i in range(distance_cyl.shape[0]):
        out[i] = seek_ms(distance_cyl[i], settle_ms, ms_per_sqrt_cyl)
