"""Headroom with the uncertainty of its inputs: for a spec with an ``[uncertain]`` table, the
answer at the nominal inputs (with its simulation 95 % CI, :func:`.headroom.headroom`) and the
input band of the answer: the headroom found again for each of a few drawn parameter sets (a
short root finding each, every set on the same random numbers), its 2.5 .. 97.5 % quantiles over
the sets, and the input that moves it most (standardised rank regression, as ``mcio uncertain``).
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .headroom import Headroom, format_headroom, headroom, open_at_rate
from .uncertain import Input, SetModels, apply_inputs, draw, integer_inputs, rank_sensitivity, split_spec

#: parameter sets of headroom's input band unless told (each set is a root finding of its own)
SAMPLES = 16
#: the sets' root finding stops at this relative bracket (the nominal answer's: 0.2 %)
SET_REL_TOL = 0.01
#: and after this many evaluations (the nominal answer's: 24)
SET_MAX_EVALS = 12


@dataclass
class HeadroomBand:
    """The nominal answer and the input band of the answer over drawn parameter sets."""
    nominal: Headroom
    inputs: list[Input]
    method: str
    values: np.ndarray          # (set, input) drawn values
    estimates: np.ndarray       # (set,) headroom found per set
    statuses: list[str]         # per set: "found", "holds over the range", "fails over the range"
    band: tuple[float, float, float]   # 2.5 %, 50 %, 97.5 % quantiles of the estimates
    rank_corr: np.ndarray       # (input,) Spearman rank correlation of the estimate with each input
    share: np.ndarray           # (input,) share of the estimate's rank variance
    evaluations: int            # over all sets
    ios_simulated: int
    seconds: float

    @property
    def most_moving(self) -> str:
        """The input with the largest share of the answer's rank variance ('-' if none varies it)."""
        if not np.isfinite(self.share).any():
            return "-"
        return self.inputs[int(np.nanargmax(self.share))].key


def load_uncertain_point(spec, point: int = 0):
    """(nominal model, [run] settings, inputs, options, label, the model at a parameter set: a
    function of the set's values) of a spec with an ``[uncertain]`` table, at grid point ``point``."""
    raw, inputs, opts, _, source = split_spec(spec)
    sm = SetModels(raw, inputs)
    s = sm.spec
    where = ", ".join(f"{k} = {v}" for k, v in s.coords(point).items())
    label = f"{source}" + (f" point {point} ({where})" if s.n_points > 1 else "")
    return sm.model(point), s.run, inputs, opts, label, lambda row: sm.model(point, row)


def headroom_band(model, inputs: list[Input], targets, samples: int = SAMPLES, method: str = "lhs",
                  draw_seed: int | None = None, grow: str = "load", limit=None, ios: int = 20_000,
                  replications: int = 8, seed: int = 0, warmup: int | None = None, at: float | None = None,
                  values: np.ndarray | None = None, correlation: np.ndarray | None = None,
                  model_of=None) -> HeadroomBand:
    """The headroom of ``model`` (its nominal inputs) to ``targets``, and again for each of
    ``samples`` parameter sets drawn from ``inputs`` (Latin hypercube or Sobol; ``values``: the
    (set, input) values to use instead; ``correlation``: see :func:`.uncertain.draw`); every set's
    root finding runs on root seed ``seed`` (common random numbers) with a looser stop than the
    nominal answer's. ``model_of``: the model at a set's values (default: ``model`` with each
    input's field set; a spec's scenario parameters need :class:`.uncertain.SetModels`)."""
    t0 = time.perf_counter()
    kw = dict(grow=grow, limit=limit, ios=ios, replications=replications, seed=seed, warmup=warmup)
    rate = None
    if grow == "load" and model.workload["type"] == "closed":
        # every set's growth factor is on the same I/O rate, the nominal model's measured one (each
        # set's own closed load would run at its own rate: their factors would not compare)
        from ..engine import simulate
        ds = simulate(model, ios=ios, replications=replications, seed=seed, warmup=warmup, allow_unstable=True)
        rate = float(np.nanmean(ds["throughput_iops"].values))
    nominal = headroom(open_at_rate(model, rate) if rate else model, targets, at=at, **kw)
    if rate:
        nominal.notes.insert(0, f"the closed load (population {model.workload['population']}) runs as an open "
                             f"load at its measured rate at the nominal inputs, {rate:.1f} SSCH/s, in every "
                             "parameter set, growing by the factor")
    if values is None:
        values = draw(inputs, samples, method, seed if draw_seed is None else draw_seed, correlation)
    values = np.asarray(values, float)
    if model_of is None:
        integer = integer_inputs(model, inputs)
        values = np.where(integer[None, :], np.round(values), values)

        def model_of(row):
            return apply_inputs(model, inputs, row, integer)
    est, statuses, evals, ios_sim = [], [], 0, 0
    for row in values:
        m = model_of(row)
        h = headroom(open_at_rate(m, rate) if rate else m, targets, rel_tol=SET_REL_TOL,
                     max_evals=SET_MAX_EVALS, **kw)
        est.append(h.estimate)
        statuses.append(h.status)
        evals += h.evaluations
        ios_sim += h.ios_simulated
    est = np.array(est, float)
    lo, med, hi = (float(v) for v in np.quantile(est, [0.025, 0.5, 0.975]))
    rho, share = rank_sensitivity(values, est)
    return HeadroomBand(nominal, list(inputs), method, values, est, statuses, (lo, med, hi), rho, share,
                        evals, ios_sim, time.perf_counter() - t0)


def format_headroom_band(b: HeadroomBand, targets) -> str:
    """The nominal answer as :func:`.headroom.format_headroom` gives it, then the input band of
    the answer and the inputs ranked by how much they move it."""
    lines = [format_headroom(b.nominal, targets)]
    factor = b.nominal.kind == "factor"

    def fmt(g):
        return f"{g:.4g} ({100 * (g - 1):+.1f} %)" if factor else f"{g:.4g}"
    lo, med, hi = b.band
    lines.append(f"input band of the answer: {fmt(lo)} .. {fmt(hi)} (median {fmt(med)}): 2.5 .. 97.5 % over "
                 f"{len(b.estimates)} parameter sets ({b.method}) of " + "; ".join(str(i) for i in b.inputs))
    order = np.argsort(-np.nan_to_num(b.share, nan=-1))
    ranked = np.isfinite(b.share).any()
    ranking = "; ".join(f"{b.inputs[i].key} {100 * b.share[i]:.0f} % (rank corr {b.rank_corr[i]:+.2f})"
                        for i in order)
    if len(b.inputs) == 1:
        ranking = f" (rank corr {b.rank_corr[0]:+.2f})" if np.isfinite(b.rank_corr[0]) else ""
    else:
        ranking = "; ranking: " + ranking if ranked else ""
    lines.append(f"moved most by: {b.most_moving}{ranking}")
    if b.nominal.check is not None:
        at = b.nominal.check["at"]
        ok = b.estimates >= at if b.nominal.direction == "largest" else b.estimates <= at
        lines.append(f"at {fmt(at)}: within the headroom of {int(ok.sum())} of {len(ok)} parameter sets")
    if not np.isfinite(b.share).any() and len(b.inputs) > 1:
        lines.append(f"note: {len(b.estimates)} parameter sets are too few to rank {len(b.inputs)} inputs "
                     f"(give --samples {len(b.inputs) + 2} or more)")
    odd = sum(s != "found" for s in b.statuses)
    if odd:
        lines.append(f"note: at {odd} parameter set(s) the targets hold or fail over the whole range searched: "
                     "their answer is the range's end (widen --limit)")
    lines.append(f"input band: {b.evaluations} evaluations, {b.ios_simulated:,} I/Os simulated; "
                 f"{b.seconds:.1f} s in all")
    return "\n".join(lines)


__all__ = ["HeadroomBand", "headroom_band", "format_headroom_band", "load_uncertain_point", "SAMPLES"]
