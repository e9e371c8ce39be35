"""The fit: the optimiser loop over the loss (:mod:`~mcio.calibrate.loss`) and the uncertainty of
its result.

Parameters are fitted on a log scale (``scipy.optimize.least_squares``, trust-region reflective,
inside bounds) by finite differences.

Determinism: every evaluation simulates row ``i`` with the same root seed and stream key ``i``
(common random numbers), so the loss is a deterministic function of the parameters and the whole
fit is reproducible for a given seed.

Uncertainty: the linearised covariance at the optimum, ``(J^T J)^-1`` scaled by the reduced
chi-square when that exceeds 1 (the "fit" column); and, with ``noise_seeds = K``, the spread of
the fitted values that the simulation noise alone causes, propagated from the residuals' variance
over K other seeds (the "sim" column).
"""
from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np

from ..errors import McioError
from .loss import residual_names, residuals
from .measured import Row, load_measured, parse_rows
from .params import resolve_scenario, search_bounds, start_values
from .result import CalibrationResult
from .simulation import evaluate


def calibrate(scenario, measured, params: Sequence[str] | None = None, *, start: dict | None = None,
              base: dict | None = None, bounds: dict | None = None, ios: int = 100_000,
              replications: int = 4, seed: int = 1, noise_seeds: int = 0, max_nfev: int = 80,
              diff_step: float = 0.05, xtol: float = 1e-2,
              progress: Callable[[str], None] | None = None, fix_excess: bool = False) -> CalibrationResult:
    """Fit ``params`` of ``scenario`` (a Scenario or a registered name) to ``measured`` (path or rows).

    ``params``: scenario parameters or dotted model fields (default: the scenario's
    ``calibration_params``; an empty list only evaluates). ``base``: fixed overrides.
    ``bounds``: name -> (lo, hi) (default: see :func:`search_bounds`). ``xtol``: stop when a step changes the parameters by less than this fraction (1 %:
    about what the simulation noise lets the loss resolve). ``max_nfev`` bounds the loss
    evaluations (each simulates every row), Jacobian columns included. See the module docstring
    for the loss, the determinism and the uncertainty.

    ``scenario`` may also be any model (a :class:`~mcio.model.Model` or a spec path such as a base
    model from ``mcio base``), fitted by dotted model fields (:class:`.params.ModelScenario`).

    Fewer measured rows than parameters: an error, unless ``fix_excess``: then the parameters the
    rows identify least (pivoted QR of the scaled residuals' Jacobian at the start) are held at
    their start values, as many as exceed the rows, and the result says which
    (``CalibrationResult.unidentified``).
    """
    from scipy.optimize import least_squares

    scn = resolve_scenario(scenario)
    rows = measured if isinstance(measured, list) and all(isinstance(r, Row) for r in measured) else (
        parse_rows(list(measured)) if isinstance(measured, (list, tuple)) else load_measured(measured))
    if params is None:
        params = tuple(scn.calibration_params)
        if not params:
            raise McioError("--params", None, "this scenario declares no calibration parameters: name them")
    params = list(params)
    if len(set(params)) != len(params):
        raise McioError("--params", ",".join(params), "names a parameter twice")
    if params and len(rows) < len(params) and not fix_excess:
        raise McioError("--params", ",".join(params),
                        f"fitting {len(params)} parameter(s) needs at least {len(params)} measured rows; "
                        f"the table has {len(rows)} (--fix-excess holds the least identified ones fixed)")
    for k, v in (("ios", ios), ("replications", replications), ("seed", seed), ("noise_seeds", noise_seeds),
                 ("max_nfev", max_nfev)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < (2 if k == "replications" else 0):
            raise McioError(k, v, "must be a non-negative integer (replications >= 2)")
    x0 = start_values(scn, params, start, base)
    unidentified: list = []
    if params and len(rows) < len(params):
        keep = identifiable(scn, rows, params, x0, base, len(rows), ios, replications, seed, diff_step)
        unidentified = [k for k in params if k not in keep]
        base = {**(base or {}), **{k: x0[k] for k in unidentified}}
        params = [k for k in params if k in keep]
        x0 = {k: x0[k] for k in params}
        (progress or (lambda s: None))(f"  {len(rows)} rows for {len(params) + len(unidentified)} parameters: "
                                       f"held at their start values: {', '.join(unidentified)}")
    bnd = search_bounds(scn, params, x0, bounds)
    budget = {"ios": int(ios), "replications": int(replications), "seed": int(seed)}
    say = progress or (lambda s: None)

    def sims_at(v, sd=seed):
        vals = {k: float(x0[k] * math.exp(v[j])) for j, k in enumerate(params)}
        return evaluate(scn, rows, vals, base, ios, replications, sd)

    n_eval = [0]

    sims_seen: dict = {}

    def fun(v):  # one simulation of every row
        n_eval[0] += 1
        sims = sims_at(v)
        sims_seen[tuple(np.round(v, 12))] = sims
        r = residuals(rows, sims)
        say(f"  eval {n_eval[0]:>3}: " + ", ".join(f"{k}={x0[k] * math.exp(v[j]):.5g}" for j, k in enumerate(params))
            + f"  loss={0.5 * float(r @ r):.4g}")
        return r

    names = residual_names(rows)
    m_res = len(names)
    if not params:
        sims = evaluate(scn, rows, {}, base, ios, replications, seed)
        r = residuals(rows, sims)
        return CalibrationResult({}, {}, {}, {}, 0.5 * float(r @ r), float(r @ r) / max(m_res, 1), 1,
                                 "evaluated", rows, sims, budget, fixed=dict(base or {}), scenario=scn.name)
    lo = np.array([math.log(bnd[k][0] / x0[k]) for k in params])
    hi = np.array([math.log(bnd[k][1] / x0[k]) for k in params])
    cache: dict = {}

    def fun_cached(v):
        key = tuple(np.round(v, 12))
        if key not in cache:
            cache[key] = fun(v)
        return cache[key]

    def jac(v):
        # forward differences with a fixed step in log-parameter space (diff_step = 5 % by
        # default): large enough to see past the simulation's residual noise under CRN
        f0 = fun_cached(v)
        J = np.empty((f0.size, v.size))
        for j in range(v.size):
            h = diff_step if v[j] + diff_step <= hi[j] else -diff_step
            vj = v.copy()
            vj[j] += h
            J[:, j] = (fun_cached(vj) - f0) / h
        return J

    res = least_squares(fun_cached, np.zeros(len(params)), jac=jac, bounds=(lo, hi), method="trf",
                        x_scale=1.0, xtol=xtol, ftol=1e-2, gtol=1e-8,
                        max_nfev=max(1, max_nfev // (len(params) + 1)))
    v = res.x
    fitted = {k: float(x0[k] * math.exp(v[j])) for j, k in enumerate(params)}
    J = np.asarray(res.jac, float)
    dof = max(m_res - len(params), 1)
    chi2_red = float(res.fun @ res.fun) / dof
    JtJ_inv = np.linalg.pinv(J.T @ J)
    cov_v = JtJ_inv * max(1.0, chi2_red)
    stderr_fit = {k: float(fitted[k] * math.sqrt(max(cov_v[j, j], 0.0))) for j, k in enumerate(params)}
    sd = np.sqrt(np.maximum(np.diag(cov_v), 1e-300))
    corr = (cov_v / np.outer(sd, sd)).round(4).tolist()
    stderr_sim: dict = {}
    if noise_seeds:
        say(f"  simulation noise: residuals at the optimum with {noise_seeds} other seeds")
        R = np.array([residuals(rows, sims_at(v, seed + 1000 + s)) for s in range(noise_seeds)]
                     + [res.fun])
        var_r = np.var(R, axis=0, ddof=1)
        A = JtJ_inv @ J.T
        cov_sim = A @ np.diag(var_r) @ A.T
        stderr_sim = {k: float(fitted[k] * math.sqrt(max(cov_sim[j, j], 0.0))) for j, k in enumerate(params)}
    sims = sims_seen.get(tuple(np.round(v, 12))) or sims_at(v)
    # the covariance of the fitted values (linearised: the log-scale covariance times the values)
    xs = np.array([fitted[k] for k in params])
    cov_x = (cov_v * np.outer(xs, xs)).tolist()
    return CalibrationResult(fitted, dict(x0), stderr_fit, stderr_sim, float(res.cost), chi2_red,
                             n_eval[0], str(res.message), rows, sims, budget, bnd, corr,
                             dict(base or {}), scn.name, covariance=cov_x, unidentified=unidentified,
                             model=_model_dict(scn, fitted, base))


def _model_dict(scn, fitted: dict, base) -> dict | None:
    """A calibrated model's dict at the fitted values (None for a scenario: its params say it)."""
    from .params import ModelScenario, build_model
    return build_model(scn, fitted, base).to_dict() if isinstance(scn, ModelScenario) else None


def identifiable(scn, rows, params, x0: dict, base, n: int, ios, replications, seed, diff_step) -> list:
    """The ``n`` parameters of ``params`` the rows identify best: pivoted QR of the scaled
    residuals' Jacobian at ``x0`` (forward differences of ``diff_step`` in log scale), the
    first ``n`` pivots; costs ``len(params) + 1`` evaluations."""
    from scipy.linalg import qr
    f0 = residuals(rows, evaluate(scn, rows, dict(x0), base, ios, replications, seed))
    J = np.empty((f0.size, len(params)))
    for j, k in enumerate(params):
        xj = dict(x0)
        xj[k] = x0[k] * math.exp(diff_step)
        J[:, j] = (residuals(rows, evaluate(scn, rows, xj, base, ios, replications, seed)) - f0) / diff_step
    _q, _r, piv = qr(J, mode="economic", pivoting=True)
    chosen = {params[i] for i in piv[:n]}
    return [k for k in params if k in chosen]
