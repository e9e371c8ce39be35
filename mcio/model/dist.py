"""Duration distributions, described by mean and squared coefficient of variation (SCV).

A distribution is written in TOML either as a bare number (deterministic, in the unit the field's
name carries) or as a table: ``{dist = "gamma", mean = 2.0, scv = 0.5}``,
``{dist = "exponential", mean = 2.0}``, ``{dist = "lognormal", mean = 2.0, scv = 4.0}``,
``{dist = "empirical", values = [1.0, 2.0], weights = [3, 1]}``,
``{dist = "uniform", low = 0.0, high = 14.2}`` (every value in [low, high] equally likely: e.g. the
rotational latency of a disk, uniform over one revolution; written by its ends, not by mean and
SCV, because its ends are what is known, and low = high is deterministic).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field


from ..errors import McioError

KINDS = ("deterministic", "exponential", "gamma", "lognormal", "empirical", "uniform")
# Kernel codes; the order is the kernels' contract (mcio/kernels/dists.py).
KIND_CODE = {k: i for i, k in enumerate(KINDS)}
#: A gamma with a smaller SCV (a standard deviation under 3.2e-8 of the mean) is drawn as its mean.
GAMMA_MIN_SCV = 1e-15


def gamma_shape_scale(mean: float, scv: float) -> tuple[float, float]:
    """(shape, scale) of the gamma of ``mean`` and ``scv`` > 0: 1 / scv and mean x scv (the
    scale in the mean's unit)."""
    return 1.0 / scv, mean * scv


def lognormal_mu_sigma(mean: float, scv: float) -> tuple[float, float]:
    """(mu, sigma) of the lognormal of ``mean`` and ``scv`` > 0 (of the log of the duration in
    the mean's unit): sigma^2 = ln(1 + scv), mu = ln(mean) - sigma^2 / 2 (-inf for mean 0)."""
    sigma2 = math.log1p(scv)
    return (math.log(mean) - sigma2 / 2 if mean > 0 else -math.inf), math.sqrt(sigma2)


def _number(name: str, v, *, lo: float = 0.0, lo_open: bool = False) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise McioError(name, v, "must be a number")
    v = float(v)
    if not math.isfinite(v):
        raise McioError(name, v, "must be a finite number")
    if v < lo or (lo_open and v == lo):
        raise McioError(name, v, f"must be {'>' if lo_open else '>='} {lo:g}")
    return v


@dataclass(frozen=True)
class Dist:
    """A non-negative duration: ``kind`` in KINDS, ``mean`` in the field's unit, ``scv`` >= 0."""

    kind: str = "deterministic"
    mean: float = 0.0
    scv: float = 0.0
    values: tuple[float, ...] = field(default=())
    weights: tuple[float, ...] = field(default=())
    low: float = 0.0              # uniform: its ends, in the field's unit
    high: float = 0.0

    def __post_init__(self):
        if self.kind == "uniform" and not 0.0 <= self.low < self.high:
            raise McioError("dist", f"uniform({self.low}, {self.high})",
                            "a uniform needs 0 <= low < high: build it with Dist.uniform(low, high)")

    @staticmethod
    def parse(name: str, v) -> "Dist":
        """Build from a TOML value; ``name`` is the dotted field name used in errors."""
        if isinstance(v, Dist):
            return v
        if isinstance(v, dict):
            v = dict(v)
            kind = v.pop("dist", "deterministic")
            if kind not in KINDS:
                raise McioError(f"{name}.dist", kind, f"must be one of {', '.join(KINDS)}")
            allowed = {"deterministic": {"mean"}, "exponential": {"mean"},
                       "gamma": {"mean", "scv"}, "lognormal": {"mean", "scv"},
                       "empirical": {"values", "weights"}, "uniform": {"low", "high"}}[kind]
            for k in v:
                if k not in allowed:
                    raise McioError(f"{name}.{k}", v[k],
                                    f"unknown key for dist = {kind!r}; allowed: {', '.join(sorted(allowed))}")
            if kind == "empirical":
                vals = v.get("values")
                if not isinstance(vals, (list, tuple)) or not vals:
                    raise McioError(f"{name}.values", vals, "must be a non-empty list of durations")
                vals = tuple(_number(f"{name}.values[{i}]", x) for i, x in enumerate(vals))
                w = v.get("weights", [1.0] * len(vals))
                if not isinstance(w, (list, tuple)) or len(w) != len(vals):
                    raise McioError(f"{name}.weights", w, f"must be a list of {len(vals)} weights")
                w = tuple(_number(f"{name}.weights[{i}]", x) for i, x in enumerate(w))
                if not 0 < sum(w) < math.inf:
                    raise McioError(f"{name}.weights", list(w), "must have a positive, finite sum")
                tot = sum(w)
                mean = sum(a * b for a, b in zip(vals, w)) / tot
                if not math.isfinite(mean):       # (values x weights overflow: the weights normalised first)
                    mean = sum(a * (b / tot) for a, b in zip(vals, w))
                try:
                    var = sum(b * (a - mean) ** 2 for a, b in zip(vals, w)) / tot
                except OverflowError:             # (a square beyond float64: the relative form below)
                    var = math.inf
                if mean > 0 and mean * mean > 0 and math.isfinite(var):
                    scv = var / mean**2
                elif mean > 0:                    # (mean**2 underflows, or var overflows: relative deviations)
                    scv = sum((b / tot) * ((a - mean) / mean) ** 2 for a, b in zip(vals, w))
                else:
                    scv = 0.0
                return Dist("empirical", mean, scv, vals, w)
            if kind == "uniform":
                for k in ("low", "high"):
                    if k not in v:
                        raise McioError(f"{name}.{k}", None, "is required for dist = 'uniform' (low <= high)")
                lo = _number(f"{name}.low", v["low"])
                hi = _number(f"{name}.high", v["high"])
                if hi < lo:
                    raise McioError(f"{name}.high", hi, f"must be >= low ({lo:g})")
                return Dist.uniform(lo, hi)
            mean = _number(f"{name}.mean", v.get("mean", 0.0))
            if kind == "exponential":
                return Dist(kind, mean, 1.0)
            if kind == "deterministic":
                return Dist(kind, mean, 0.0)
            return Dist.from_mean_scv(mean, _number(f"{name}.scv", v.get("scv", 1.0)), kind, exponential=False)
        return Dist("deterministic", _number(name, v), 0.0)

    @staticmethod
    def from_mean_scv(mean: float, scv: float, family: str = "gamma", *, exponential: bool = True) -> "Dist":
        """The duration of ``mean`` (the field's unit) and ``scv`` (>= 0) in ``family`` ("gamma"
        or "lognormal"): deterministic when ``scv`` is 0; with ``exponential``, an exponential
        when ``scv`` is 1 (the law of a gamma of shape 1, but drawn by the exponential's sampler:
        other draws); else the family's member of that mean and SCV (its kernel parameters:
        :func:`gamma_shape_scale`, :func:`lognormal_mu_sigma`). ``.to_toml()`` gives the TOML
        value (a bare number when deterministic)."""
        if scv == 0:
            return Dist("deterministic", mean, 0.0)
        if exponential and scv == 1:
            return Dist("exponential", mean, 1.0)
        return Dist(family, mean, scv)

    @staticmethod
    def uniform(low: float, high: float) -> "Dist":
        """Uniform on [low, high] (low = high: deterministic)."""
        low, high = float(low), float(high)
        if high == low:
            return Dist("deterministic", low, 0.0)
        mean = (low + high) / 2
        if not math.isfinite(mean):          # (low + high overflows: halve first)
            mean = low / 2 + high / 2
        if mean == 0.0:
            # a span of a few subnormals (high 5e-324): its mean rounds to 0 and so does every
            # draw; a duration of 0 is what any clock sees
            return Dist("deterministic", 0.0, 0.0)
        sq = mean * mean
        if sq > 0.0 and math.isfinite(sq) and math.isfinite((high - low) ** 2):
            scv = (high - low) ** 2 / 12 / sq
        else:                                # (a square under- or overflows: the ratio first)
            scv = ((high - low) / mean) ** 2 / 12
        return Dist("uniform", mean, scv, low=low, high=high)

    def to_toml(self):
        """The TOML value that parses back to this distribution."""
        if self.kind == "deterministic":
            return self.mean
        if self.kind == "exponential":
            return {"dist": "exponential", "mean": self.mean}
        if self.kind == "empirical":
            return {"dist": "empirical", "values": list(self.values), "weights": list(self.weights)}
        if self.kind == "uniform":
            return {"dist": "uniform", "low": self.low, "high": self.high}
        return {"dist": self.kind, "mean": self.mean, "scv": self.scv}

    def scaled(self, factor: float) -> "Dist":
        """The same shape with every duration multiplied by ``factor`` (a unit change)."""
        return Dist(self.kind, self.mean * factor, self.scv,
                    tuple(x * factor for x in self.values), self.weights, self.low * factor, self.high * factor)

    def kernel_row(self, ev: list, ec: list) -> list:
        """This distribution as a row of the kernels' table ``dp`` (mcio/kernels/dists.py):
        [kind code, mean, scv, a, b] with the kind's parameters a, b (gamma: shape, scale;
        lognormal: mu, sigma; empirical: offset and length of its values, appended to ``ev``,
        and of its cumulative weights, appended to ``ec``; uniform: low, high - low)."""
        if self.kind == "gamma" and self.scv < GAMMA_MIN_SCV:
            # shape 1 / scv would overflow (scv 5e-324 gives inf: every draw inf) or its scale
            # mean * scv lose its digits as a subnormal; the spread, sqrt(scv) of the mean, is
            # below 3.2e-8 of it here: drawn as the deterministic mean
            return [float(KIND_CODE["deterministic"]), self.mean, 0.0, 0.0, 0.0]
        row = [float(KIND_CODE[self.kind]), self.mean, self.scv, 0.0, 0.0]
        if self.kind == "gamma":
            row[3], row[4] = gamma_shape_scale(self.mean, self.scv)
        elif self.kind == "lognormal":
            row[3], row[4] = lognormal_mu_sigma(self.mean, self.scv)
        elif self.kind == "empirical":
            import numpy as np  # here, not at module level: the CLI starts without NumPy
            w = np.asarray(self.weights, float)
            row[3] = float(len(ev))
            row[4] = float(len(self.values))
            ev.extend(self.values)
            ec.extend((np.cumsum(w) / w.sum()).tolist())
            ec[-1] = 1.0
        elif self.kind == "uniform":
            row[3] = self.low
            row[4] = self.high - self.low
        return row

    @property
    def second_moment(self) -> float:
        """E[X^2] in the squared unit."""
        return self.mean**2 * (1.0 + self.scv)
