"""Uncertain inputs from a calibration: ``from_calibration = "fitted.toml"`` in a spec's
``[uncertain]`` table makes every parameter the calibration fitted a normal input on the
scenario parameter (``scenario_params.NAME``): its mean the fitted value, its standard deviation
the fit's standard error (``calibration.stderr_fit``), each draw clipped to the fit's bounds
(``calibration.bounds``). The file's ``calibration.correlation`` (rows and columns in the order of
``stderr_fit``; ``mcio calibrate -o`` saves it) or a ``calibration.covariance`` makes them jointly
normal (a Gaussian copula on the drawn strata); a file with neither gives independent normals."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ..errors import McioError

SCENARIO_PREFIX = "scenario_params."


def calibration_inputs(path, base_dir: Path | None = None):
    """([Input] normal on ``scenario_params.NAME``, correlation matrix or None, the calibration's
    scenario, the file read) of a calibration result file ``path`` (as given, else relative to
    ``base_dir``, the spec's folder)."""
    from ..scenarios.fitted import read_fitted
    from .inputs import Input
    where = "uncertain.from_calibration"
    if not isinstance(path, str) or not path:
        raise McioError(where, path, "must be the path of a calibration result (mcio calibrate -o FILE)")
    p = Path(path)
    if not p.exists() and base_dir is not None and (Path(base_dir) / p).exists():
        p = Path(base_dir) / p
    if not p.exists():
        raise McioError(where, path, "no such file")
    try:
        f = read_fitted(p)
    except McioError as e:
        raise McioError(where, path, e.allowed) from None
    cal = f["calibration"]
    se = cal.get("stderr_fit", {})
    values = f["scenario_params"]
    bounds = cal.get("bounds", {})
    names = [k for k in se if k in values]
    if not names:
        raise McioError(where, path, "holds no fitted value with a standard error (calibration.stderr_fit)")
    inputs = []
    for k in names:
        sd = float(se[k])
        if not (math.isfinite(sd) and sd > 0):
            raise McioError(f"{where}: stderr_fit.{k}", se[k], "must be a finite standard error > 0")
        params = {"mean": float(values[k]), "sd": sd}
        if k in bounds:
            params.update(low=float(bounds[k][0]), high=float(bounds[k][1]))
        inputs.append(Input(SCENARIO_PREFIX + k, "normal", params))
    corr = _correlation(cal, names, [i.params["sd"] for i in inputs], where, path)
    return inputs, corr, f["scenario"], str(p)


def _correlation(cal: dict, names, sds, where, path):
    """The fitted values' correlation matrix from ``calibration.correlation`` or ``.covariance``
    (None if the file saves neither)."""
    for key in ("correlation", "covariance"):
        if key not in cal:
            continue
        saved = cal[key]
        # a bare matrix is in stderr_fit's order; a table {names, matrix} names its own order
        order = list(saved.get("names", ())) if isinstance(saved, dict) else list(cal.get("stderr_fit", {}))
        try:
            m = np.asarray(saved.get("matrix") if isinstance(saved, dict) else saved, float)
        except (TypeError, ValueError):
            m = np.full((0, 0), np.nan)
        n = len(order)
        if (m.shape != (n, n) or not np.allclose(m, m.T) or not np.isfinite(m).all()
                or not set(names) <= set(order)):
            raise McioError(f"{where}: calibration.{key}", path, f"must be a symmetric {n} x {n} matrix "
                            "in the order of stderr_fit (or of its own names) covering every fitted parameter")
        idx = [order.index(k) for k in names]
        m = m[np.ix_(idx, idx)]
        if key == "covariance":
            d = np.sqrt(np.diag(m))
            m = m / np.outer(d, d)
        return m
    return None


def correlate(u: np.ndarray, corr: np.ndarray | None, cols) -> np.ndarray:
    """Probabilities ``u`` (sample, input) with columns ``cols`` made jointly normal with
    correlation ``corr`` (a Gaussian copula: each column's strata kept, their normal scores mixed
    by the Cholesky factor); ``u`` unchanged if ``corr`` is None."""
    if corr is None or len(cols) < 2:
        return u
    from scipy import special
    try:
        chol = np.linalg.cholesky(corr)
    except np.linalg.LinAlgError:
        raise McioError("uncertain.from_calibration", "correlation", "is not positive definite") from None
    z = math.sqrt(2.0) * special.erfinv(2.0 * u[:, cols] - 1.0)
    out = u.copy()
    out[:, cols] = 0.5 * (1.0 + special.erf((z @ chol.T) / math.sqrt(2.0)))
    return out


__all__ = ["SCENARIO_PREFIX", "calibration_inputs", "correlate"]
