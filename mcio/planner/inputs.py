"""One uncertain input of a spec's ``[uncertain]`` section: a model field (or scenario parameter)
and the distribution it is drawn from, as its quantile function (probabilities in (0, 1))."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Input:
    """One uncertain input: model field ``key`` drawn from ``kind`` with ``params``."""
    key: str
    kind: str
    params: dict

    def ppf(self, u: np.ndarray) -> np.ndarray:
        """The input's quantile function at probabilities ``u`` (0 < u < 1)."""
        p = self.params
        if self.kind == "uniform":
            return p["low"] + u * (p["high"] - p["low"])
        if self.kind == "loguniform":
            return np.exp(np.log(p["low"]) + u * (np.log(p["high"]) - np.log(p["low"])))
        if self.kind == "normal":        # (a calibration's: clipped to the fit's bounds, low .. high)
            from scipy import special
            x = p["mean"] + p["sd"] * math.sqrt(2.0) * special.erfinv(2.0 * u - 1.0)
            return np.clip(x, p["low"], p["high"]) if "low" in p else x
        a, c, b = p["low"], p["mode"], p["high"]       # triangular
        fc = (c - a) / (b - a)
        return np.where(u < fc, a + np.sqrt(u * (b - a) * (c - a)), b - np.sqrt((1 - u) * (b - a) * (b - c)))

    def __str__(self):
        return f"{self.key} ~ {self.kind}(" + ", ".join(f"{k}={v:g}" for k, v in self.params.items()) + ")"
