"""Predictions with the uncertainty of their inputs: a spec's ``[uncertain]`` table gives ranges
or distributions for model inputs; parameter sets are drawn (Latin hypercube or scrambled Sobol)
and each is simulated with the run's replications, on the same random numbers (common random
numbers: the spread between parameter sets is the inputs', little of it the simulation's).
Two bands result per figure: the simulation's 95 % CI at the nominal inputs, and the input band
(the 2.5 % .. 97.5 % quantiles, over parameter sets, of each set's mean over replications), with
a sensitivity ranking of the inputs (Spearman rank correlation and the variance share of
standardised rank regression).

::

    [uncertain]
    samples = 64                 # parameter sets (default 32)
    method = "lhs"               # or "sobol" (default lhs)
    "control_unit.backend_service_ms.mean" = {low = 1.0, high = 1.6}          # uniform
    "workload.rate_iops" = {dist = "normal", mean = 500.0, sd = 20.0}
    "devices.aliases" = {dist = "triangular", low = 1, mode = 2, high = 4}     # integers rounded
    "scenario_params.mp_scv" = {low = 8.0, high = 14.0}     # a scenario parameter (the spec rebuilt)
    from_calibration = "mcio/scenarios/ficon_channel_fitted.toml"   # its fitted values +- stderr

(``from_calibration``: :mod:`.calibration_inputs`.)
"""
from __future__ import annotations

import math
import tomllib
from pathlib import Path

import numpy as np
import xarray as xr


from ..errors import McioError
from .fields import get_value, set_value
from .inputs import Input

KINDS = ("uniform", "normal", "triangular", "loguniform")
#: parameter sets at most (each is a simulation per point; as many as a spec's replications)
MAX_SAMPLES = 10_000
#: figures summarised (per replication, from a simulate() Dataset; see headroom.figure_reps)
FIGURES = ("response_ms", "iosq_ms", "pend_ms", "disconnect_ms", "connect_ms", "response_p90_ms",
           "throughput_iops", "channel_busy", "device_busy")
UNITS = {"throughput_iops": "s-1", "channel_busy": "1", "device_busy": "1"}


def _num(where, v):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise McioError(where, v, "must be a finite number")
    return float(v)


def parse_uncertain(table: dict, base_dir: Path | None = None) -> tuple[list[Input], dict]:
    """([Input], options {samples, method, seed, correlation, from_calibration, calibration_scenario})
    of an ``[uncertain]`` table (``from_calibration``: a calibration result, relative paths tried
    as given, then in ``base_dir``; see :mod:`.calibration_inputs`)."""
    if not isinstance(table, dict):
        raise McioError("uncertain", table, "must be a table of FIELD = {low = .., high = ..} entries")
    opts = {"samples": 32, "method": "lhs", "seed": None, "correlation": None, "from_calibration": None,
            "calibration_scenario": None}
    inputs = []
    for key, v in table.items():
        where = f"uncertain.{key}"
        if key == "from_calibration":
            from .calibration_inputs import calibration_inputs
            cal_inputs, corr, opts["calibration_scenario"], opts["from_calibration"] = calibration_inputs(v, base_dir)
            opts["correlation"] = (len(inputs), corr)
            inputs += cal_inputs
            continue
        if key in opts:
            if key == "method" and v not in ("lhs", "sobol"):
                raise McioError(where, v, "allowed: lhs, sobol")
            if key in ("samples", "seed") and (isinstance(v, bool) or not isinstance(v, int) or v < (4 if key == "samples" else 0)
                                               or (key == "samples" and v > MAX_SAMPLES)):
                raise McioError(where, v, f"must be an integer in [4, {MAX_SAMPLES}]" if key == "samples"
                                else "must be an integer >= 0")
            opts[key] = v
            continue
        if not isinstance(v, dict):
            raise McioError(where, v, "must be a table: {low = .., high = ..} (uniform) or {dist = \"normal\", "
                            "mean = .., sd = ..}, {dist = \"triangular\", low, mode, high}, {dist = \"loguniform\", low, high}")
        kind = v.get("dist", "uniform")
        need = {"uniform": ("low", "high"), "loguniform": ("low", "high"), "normal": ("mean", "sd"),
                "triangular": ("low", "mode", "high")}.get(kind)
        if need is None:
            raise McioError(f"{where}.dist", kind, f"allowed: {', '.join(KINDS)}")
        extra = set(v) - set(need) - {"dist"}
        if extra or any(k not in v for k in need):
            raise McioError(where, v, f"a {kind} input takes exactly {', '.join(need)}")
        p = {k: _num(f"{where}.{k}", v[k]) for k in need}
        if kind in ("uniform", "loguniform", "triangular") and not p["low"] < p["high"]:
            raise McioError(where, v, "needs low < high")
        if kind == "loguniform" and p["low"] <= 0:
            raise McioError(where, v, "a loguniform input needs low > 0")
        if kind == "triangular" and not p["low"] <= p["mode"] <= p["high"]:
            raise McioError(where, v, "needs low <= mode <= high")
        if kind == "normal" and p["sd"] <= 0:
            raise McioError(where, v, "needs sd > 0")
        inputs.append(Input(key, kind, p))
    if not inputs:
        raise McioError("uncertain", table, "names no input; e.g. \"workload.rate_iops\" = {low = 400, high = 600}")
    keys = [i.key for i in inputs]
    dup = next((k for k in keys if keys.count(k) > 1), None)
    if dup is not None:
        raise McioError(f"uncertain.{dup}", None, "is given twice (also by from_calibration)")
    if opts["correlation"] is not None:      # (offset, matrix of the calibration's inputs) -> over all inputs
        at, corr = opts["correlation"]
        full = None
        if corr is not None:
            full = np.eye(len(inputs))
            full[at:at + len(corr), at:at + len(corr)] = corr
        opts["correlation"] = full
    return inputs, opts


def draw(inputs: list[Input], samples: int, method: str, seed: int,
         correlation: np.ndarray | None = None) -> np.ndarray:
    """(sample, input) parameter values: a Latin hypercube or a scrambled Sobol sequence mapped
    through each input's quantile function (made jointly normal with ``correlation``, an input x
    input matrix, by a Gaussian copula: a calibration's saved correlation)."""
    from scipy.stats import qmc
    d = len(inputs)
    if method == "sobol":
        u = qmc.Sobol(d=d, scramble=True, seed=seed).random(samples)
    else:
        u = qmc.LatinHypercube(d=d, seed=seed).random(samples)
    u = np.clip(u, 1e-12, 1 - 1e-12)
    if correlation is not None:
        from .calibration_inputs import correlate
        u = np.clip(correlate(u, correlation, list(range(d))), 1e-12, 1 - 1e-12)
    return np.column_stack([inp.ppf(u[:, j]) for j, inp in enumerate(inputs)])


def _reps(ds, fig):
    from .headroom import figure_reps
    return figure_reps(ds, fig)


def rank_sensitivity(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(Spearman rank correlation of y with each column of x, variance share of each input in a
    standardised rank regression: its SRRC squared, over the sum; NaN where y does not vary)."""
    from scipy.stats import rankdata
    ok = np.isfinite(y)
    x, y = x[ok], y[ok]
    d = x.shape[1]
    if y.size < d + 2 or np.ptp(y) == 0:
        return np.full(d, np.nan), np.full(d, np.nan)
    rx = np.column_stack([rankdata(x[:, j]) for j in range(d)])
    ry = rankdata(y)
    z = (rx - rx.mean(0)) / rx.std(0)
    zy = (ry - ry.mean()) / ry.std()
    rho = (z * zy[:, None]).mean(0)
    beta, *_ = np.linalg.lstsq(z, zy, rcond=None)
    share = beta**2 / np.sum(beta**2) if np.sum(beta**2) > 0 else np.full(d, np.nan)
    return rho, share


def split_spec(spec) -> tuple[dict, list[Input], dict, str | None, str]:
    """(the spec without its ``[uncertain]`` table, its inputs, options, TOML text or None,
    source) of a spec path, TOML text file or dict."""
    base_dir = None
    if isinstance(spec, dict):
        raw, text, source = dict(spec), None, "<dict>"
    else:
        if "\x00" in str(spec):
            raise McioError("spec", str(spec), "a file name cannot hold a NUL character")
        path = Path(spec)
        try:
            text = path.read_text()
        except UnicodeDecodeError as e:
            raise McioError("spec", str(path), f"cannot be read as TOML text ({e})") from None
        try:
            raw = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise McioError("spec", str(path), f"is not valid TOML ({e})") from None
        source, base_dir = str(path), path.parent
    if "uncertain" not in raw:
        raise McioError("uncertain", None, f"{source} has no [uncertain] table")
    inputs, opts = parse_uncertain(raw.pop("uncertain"), base_dir)
    cal = opts["calibration_scenario"]
    if cal is not None and raw.get("scenario") != cal:
        raise McioError("uncertain.from_calibration", opts["from_calibration"],
                        f"calibrates scenario {cal!r}: the spec needs scenario = \"{cal}\"")
    return raw, inputs, opts, text, source


class SetModels:
    """The models of a spec's grid points at the nominal inputs and at a drawn parameter set: a
    model field is set on the point's model; a scenario parameter (``scenario_params.NAME``, e.g.
    from a calibration) rebuilds the spec with it (each set's spec built once)."""

    def __init__(self, raw: dict, inputs: list[Input]):
        from ..batch import load_spec
        from .calibration_inputs import SCENARIO_PREFIX
        self.raw, self.inputs, self.load = raw, inputs, load_spec
        self.spec = load_spec(raw)
        self.scen = np.array([i.key.startswith(SCENARIO_PREFIX) for i in inputs])
        self.names = [i.key[len(SCENARIO_PREFIX):] for i in inputs]
        if self.scen.any() and "scenario" not in raw:
            k = inputs[int(np.flatnonzero(self.scen)[0])].key
            raise McioError(f"uncertain.{k}", None, "a scenario parameter needs scenario = \"NAME\" in the spec")
        params = raw.get("scenario_params", {})
        m0 = self.spec.point_model(0)
        self.integer = np.array([isinstance(params.get(n), int) and not isinstance(params.get(n), bool) if sc
                                 else isinstance(get_value(m0, i.key, f"uncertain.{i.key}"), int)
                                 for i, n, sc in zip(inputs, self.names, self.scen)], bool)
        self._specs: dict = {}

    def model(self, point: int, row: np.ndarray | None = None):
        """Point ``point``'s model at the nominal inputs (``row`` None) or at the values ``row``."""
        if row is None:
            return self.spec.point_model(point)
        spec = self.spec
        if self.scen.any():
            key = tuple(float(row[i]) for i in np.flatnonzero(self.scen))
            if key not in self._specs:
                params = dict(self.raw.get("scenario_params", {}))
                for i in np.flatnonzero(self.scen):
                    params[self.names[i]] = int(round(row[i])) if self.integer[i] else float(row[i])
                try:
                    self._specs[key] = self.load({**self.raw, "scenario_params": params})
                except McioError as e:
                    raise McioError("uncertain", f"{e.field} = {e.value}",
                                    f"a drawn parameter set the scenario refuses: {e.allowed}") from None
            spec = self._specs[key]
        keep = [i for i in range(len(self.inputs)) if not self.scen[i]]
        return apply_inputs(spec.point_model(point), [self.inputs[i] for i in keep], np.asarray(row)[keep],
                            self.integer[keep])


def integer_inputs(model, inputs: list[Input]) -> np.ndarray:
    """Which inputs name an integer field of ``model`` (their drawn values are rounded)."""
    return np.array([isinstance(get_value(model, inp.key, f"uncertain.{inp.key}"), int) for inp in inputs])


def apply_inputs(model, inputs: list[Input], row: np.ndarray, integer: np.ndarray):
    """``model`` with each input's field set to its value in ``row``."""
    for i, inp in enumerate(inputs):
        v = row[i]
        try:
            model = set_value(model, inp.key, int(round(v)) if integer[i] else float(v))
        except McioError as e:
            raise McioError(f"uncertain.{inp.key}", float(v), f"a drawn value the model refuses: {e.allowed}") from None
    return model


def run_uncertain(spec, ios: int | None = None, replications: int | None = None, samples: int | None = None,
                  method: str | None = None) -> xr.Dataset:
    """Simulate a spec with an ``[uncertain]`` table (a path, TOML text or dict): every grid point
    at its nominal inputs and at each drawn parameter set, on common random numbers. Returns a
    Dataset over the sweep dims with, per figure, the nominal per-replication values, the
    simulation CI (``<fig>_ci95``), the input band (``<fig>_input_lo`` / ``_input_median`` /
    ``_input_hi``), each set's per-replication values (``<fig>_samples``), the drawn inputs
    (``input_value``) and the sensitivity of the mean response (``response_ms_rank_corr``,
    ``response_ms_variance_share`` over ``input``)."""
    from ..engine import simulate
    raw, inputs, opts, text, source = split_spec(spec)
    sm = SetModels(raw, inputs)
    s = sm.spec
    run = s.run
    ios = ios or run["ios"]
    reps = replications or run["replications"]
    k = samples or opts["samples"]
    method = method or opts["method"]
    seed = run["seed"]
    values = draw(inputs, k, method, opts["seed"] if opts["seed"] is not None else seed, opts["correlation"])
    values = np.where(sm.integer[None, :], np.round(values), values)
    n = s.n_points
    from ..batch.estimates import Simulation, check_run, repeated, timed_simulations
    check_run(repeated(timed_simulations([Simulation.of(sm.model(0), ios, reps, run["warmup"])]), n * (k + 1)),
              "replications", reps, "this uncertainty run")   # (every point at the nominal inputs and each set)
    nom = {f: np.full((n, reps), np.nan) for f in FIGURES}
    smp = {f: np.full((n, k, reps), np.nan) for f in FIGURES}
    unstable = np.zeros((n, k), np.int8)
    for p in range(n):
        ds0 = simulate(sm.model(p), ios=ios, replications=reps, seed=seed, warmup=run["warmup"], point=p,
                       allow_unstable=True)
        from ..engine.limits import refuse_too_short
        refuse_too_short(ds0, "ios", ios)   # (an overload is a result; a run too short is not)
        for f in FIGURES:
            nom[f][p] = _reps(ds0, f)
        for j in range(k):
            m = sm.model(p, values[j])
            ds = simulate(m, ios=ios, replications=reps, seed=seed, warmup=run["warmup"], point=p, allow_unstable=True)
            refuse_too_short(ds, "ios", ios)
            unstable[p, j] = int(np.asarray(ds["unstable"]).item()) if "unstable" in ds else 0
            for f in FIGURES:
                smp[f][p, j] = _reps(ds, f)
    ds = _dataset(s, inputs, values, nom, smp, unstable, reps, ios, k, method, seed, text, source)
    if opts["from_calibration"] is not None:
        ds.attrs["from_calibration"] = opts["from_calibration"] + (
            ": normal inputs jointly correlated as the calibration saved" if opts["correlation"] is not None
            else ": independent normal inputs (the file saves no correlation)")
    return ds


def _dataset(s, inputs, values, nom, smp, unstable, reps, ios, k, method, seed, text, source) -> xr.Dataset:
    from scipy import special
    shape, dims = tuple(s.shape), tuple(s.dims)
    coords = {}
    for ax, d in enumerate(dims):
        vals = []
        for i in range(shape[ax]):
            idx = [0] * len(shape)
            idx[ax] = i
            vals.append(s.coords(int(np.ravel_multi_index(idx, shape)))[d])
        coords[d] = np.array(vals)
    coords["input"] = np.array([inp.key for inp in inputs])
    t = float(special.stdtrit(reps - 1, 0.975))
    data = {}

    def put(name, arr, extra_dims, long, units):
        data[name] = (dims + extra_dims, np.asarray(arr).reshape(shape + np.asarray(arr).shape[1:]),
                      {"long_name": long, "units": units})
    for f in FIGURES:
        u = UNITS.get(f, "ms")
        put(f, nom[f], ("replication",), f"{f} at the nominal inputs", u)
        put(f"{f}_ci95", t * np.nanstd(nom[f], axis=1, ddof=1) / math.sqrt(reps), (),
            f"95% CI half-width of {f} over replications at the nominal inputs (simulation)", u)
        with np.errstate(all="ignore"):
            means = np.nanmean(smp[f], axis=2)                           # (point, sample)
            q = np.nanquantile(means, [0.025, 0.5, 0.975], axis=1)
        for qi, name in zip(range(3), ("lo", "median", "hi")):
            put(f"{f}_input_{name}", q[qi], (), f"{f}: {('2.5', '50', '97.5')[qi]} % quantile over parameter "
                "sets of each set's mean (the input band)", u)
        put(f"{f}_samples", smp[f], ("sample", "replication"), f"{f} per parameter set and replication", u)
    rho = np.full((s.n_points, len(inputs)), np.nan)
    share = np.full_like(rho, np.nan)
    for p in range(s.n_points):
        rho[p], share[p] = rank_sensitivity(values, np.nanmean(smp["response_ms"][p], axis=1))
    put("response_ms_rank_corr", rho, ("input",), "Spearman rank correlation of the mean response with each input", "1")
    put("response_ms_variance_share", share, ("input",), "share of the mean response's rank variance explained "
        "by each input (standardised rank regression coefficient squared, normalised)", "1")
    put("unstable_samples", unstable, ("sample",), "1 if the parameter set's open load outgrew the model", "1")
    data["input_value"] = (("sample", "input"), values, {"long_name": "drawn value of each uncertain input",
                                                         "units": "1"})
    attrs = {a.dim: a.attrs for a in getattr(s, "axes", ())}      # the sweep's own coordinate attributes
    ds = xr.Dataset(data, coords={**{d: (d, v, attrs.get(d, {})) for d, v in coords.items()},
                                  "sample": ("sample", np.arange(k)), "replication": ("replication", np.arange(reps))})
    ds.attrs.update({"title": f"{s.title} (with input uncertainty)", "Conventions": "CF-1.8",
                     "seed": int(seed), "ios": int(ios), "replications": int(reps), "samples": int(k),
                     "sampling": method, "uncertain_inputs": "; ".join(str(i) for i in inputs),
                     "pairing": "every parameter set of a point runs on the same random numbers", "source": source})
    if text is not None:
        ds.attrs["spec_toml"] = text
    return ds


def format_uncertain(ds, figures=("response_ms", "response_p90_ms", "throughput_iops", "channel_busy")) -> str:
    """Per point: each figure at the nominal inputs with its simulation CI, and its input band;
    then the inputs ranked by their share of the mean response's variance."""
    dims = [d for d in ds.dims if d not in ("replication", "sample", "input")]
    lines = [ds.attrs.get("title", ""), f"inputs: {ds.attrs.get('uncertain_inputs', '')}",
             f"{ds.attrs.get('samples')} parameter sets ({ds.attrs.get('sampling')}) x {ds.attrs.get('replications')} "
             f"replications x {ds.attrs.get('ios')} I/Os, on common random numbers"]
    shape = tuple(ds.sizes[d] for d in dims)
    keys = list(ds["input"].values)
    for idx in np.ndindex(*shape):
        sel = {d: i for d, i in zip(dims, idx)}
        pt = ds.isel(sel)
        where = ", ".join(f"{d} = {ds[d].values[i]}" for d, i in sel.items()) or "the point"
        lines.append(f"{where}:")
        for f in figures:
            v = float(np.nanmean(pt[f].values))
            lines.append(f"  {f:<16} nominal {v:.4g} ±{float(pt[f + '_ci95']):.2g} (simulation 95 % CI); "
                         f"input band {float(pt[f + '_input_lo']):.4g} .. {float(pt[f + '_input_hi']):.4g} "
                         f"(median {float(pt[f + '_input_median']):.4g})")
        share = np.asarray(pt["response_ms_variance_share"].values, float)
        rho = np.asarray(pt["response_ms_rank_corr"].values, float)
        order = np.argsort(-np.nan_to_num(share, nan=-1))
        if np.isfinite(share).any():
            lines.append("  sensitivity of the mean response: " + "; ".join(
                f"{keys[i]} {100 * share[i]:.0f} % (rank corr {rho[i]:+.2f})" for i in order))
        else:
            lines.append(f"  sensitivity of the mean response: not ranked ({ds.sizes['sample']} parameter sets "
                         f"for {len(keys)} inputs: give --samples {len(keys) + 2} or more, or no set varied it)")
        bad = int(np.asarray(pt["unstable_samples"].values).sum())
        if bad:
            lines.append(f"  warning: {bad} parameter set(s) over capacity (unstable): their figures are missing")
    return "\n".join(lines)


__all__ = ["Input", "SetModels", "parse_uncertain", "split_spec", "integer_inputs", "apply_inputs", "draw",
           "run_uncertain", "rank_sensitivity", "format_uncertain"]
