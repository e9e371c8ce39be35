"""The loss the fit minimises: scaled residuals of every measured cell.

Weighted least squares, ``loss = 1/2 * sum(r_i^2)`` over every measured cell, each residual scaled
by the tolerance the measurement deserves (:data:`SCALES`): channel busy in absolute fraction
(0.02 = 2 percentage points), open exchanges in exchanges (2.5, the half-width of the seed's
ranges), times and rates as log ratios (0.05 = 5 % for response, 0.25 for the loosely reported
pend and CMR, 0.10 for disconnect and connect, 0.02 for IOPS; the IOPS of an open row, or of a
closed row whose think time is solved, is imposed and carries no residual, and that of a closed
row with a given think time is already in its response by Little's law, so it is not counted
twice).
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from .measured import Row


#: column -> (kind, scale). kind: "log" (residual = ln(sim/measured) / scale) or "abs"
#: (residual = (sim - measured) / scale).
SCALES: dict[str, tuple[str, float]] = {
    "iops": ("log", 0.02),
    "channel_busy": ("abs", 0.02),
    "response_ms": ("log", 0.05),
    "pend_ms": ("log", 0.25),
    "cmr_ms": ("log", 0.25),
    "disconnect_ms": ("log", 0.10),
    "connect_ms": ("log", 0.10),
    "open_exchanges": ("abs", 2.5),
    "iosq_ms": ("abs", 0.1),
}


def residual_names(rows: Sequence[Row]) -> list[tuple[int, str]]:
    """(row, column) of every residual. A row's IOPS carries none when the load imposes it (open,
    or closed with the think time solved) or when it would count twice: in a closed row with a
    given think time, response = population / IOPS - think (Little's law), so the response
    residual already holds the IOPS information."""
    names = []
    for i, r in enumerate(rows):
        for c in SCALES:
            if c not in r.values:
                continue
            if c == "iops" and (r.is_open or r.think_ms == "solve" or "response_ms" in r.values):
                continue
            names.append((i, c))
    return names


def residuals(rows: Sequence[Row], sims: Sequence[dict]) -> np.ndarray:
    out = []
    for i, c in residual_names(rows):
        kind, scale = SCALES[c]
        meas, sim = rows[i].values[c], sims[i][c]
        if kind == "log":
            out.append(math.log(max(sim, 1e-12) / meas) / scale)
        else:
            out.append((sim - meas) / scale)
    return np.asarray(out)
