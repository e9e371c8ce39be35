"""A calibration's result: the fitted values, their uncertainty, the loss and the per-row comparison,
as text and as the fitted-scenario file (:mod:`mcio.scenarios.fitted`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import McioError
from .loss import SCALES


@dataclass
class CalibrationResult:
    """Fitted values, their uncertainty, the loss and the per-row comparison."""

    params: dict
    start: dict
    stderr_fit: dict
    stderr_sim: dict
    loss: float
    chi2_reduced: float
    nfev: int
    message: str
    rows: list
    sims: list
    budget: dict
    bounds: dict = field(default_factory=dict)
    correlation: list = field(default_factory=list)
    fixed: dict = field(default_factory=dict)
    scenario: str = ""
    #: linearised covariance of the fitted values (rows and columns in the order of ``params``)
    covariance: list = field(default_factory=list)
    #: parameters held at their start values because the rows were fewer than the parameters
    unidentified: list = field(default_factory=list)
    #: a model calibrated in place of a scenario (:class:`.params.ModelScenario`): its dict at the
    #: fitted values, written by :meth:`to_toml` as the runnable spec instead of scenario params
    model: dict | None = None

    def to_toml(self, command: str, measured: str) -> str:
        """The result file (:mod:`mcio.scenarios.fitted`): a runnable sweep spec whose
        ``[scenario_params]`` are the fitted values (and the fixed overrides), with the fit's
        table and uncertainty in comments."""
        from ..scenarios.fitted import format_fitted
        if not self.params:
            raise McioError("--output", measured, "nothing was fitted (--params none): no result file to write")
        if self.model is not None:
            return self._model_toml(command, measured)
        text = format_fitted(scenario=self.scenario, values=self.params, fixed=self.fixed,
                             stderr_fit=self.stderr_fit, stderr_sim=self.stderr_sim, start=self.start,
                             bounds=self.bounds, loss=self.loss, chi2_reduced=self.chi2_reduced,
                             evaluations=self.nfev, message=self.message, budget=self.budget,
                             command=command, measured=measured, table=self.to_text(),
                             correlation=self.correlation or None)
        return text + self.covariance_lines()

    def _model_toml(self, command: str, measured: str) -> str:
        """A calibrated model: its spec at the fitted values (runnable as it is), after the
        calibration's comments and machine-readable lines."""
        import tomli_w
        from ..scenarios.fitted import format_fitted
        head = format_fitted(scenario=self.scenario, values=self.params, fixed=self.fixed,
                             stderr_fit=self.stderr_fit, stderr_sim=self.stderr_sim, start=self.start,
                             bounds=self.bounds, loss=self.loss, chi2_reduced=self.chi2_reduced,
                             evaluations=self.nfev, message=self.message, budget=self.budget,
                             command=command, measured=measured, table=self.to_text(),
                             correlation=self.correlation or None)
        comments = [ln for ln in head.splitlines() if ln.startswith("#")]
        comments[0] = f"# mcio calibration result: the model {self.scenario} at its fitted values (a runnable spec)"
        return "\n".join(comments) + "\n" + self.covariance_lines() + "\n" + tomli_w.dumps(self.model)

    def covariance_lines(self) -> str:
        """The covariance of the fitted values (and the parameters held for want of rows) as
        machine-readable comment lines, a ``[calibration.covariance]`` table that
        :func:`mcio.scenarios.fitted.read_fitted` returns with the rest."""
        if not self.covariance and not self.unidentified:
            return ""
        from ..scenarios.fitted import rounded
        names = ", ".join(f'"{k}"' for k in self.params)
        rows = ", ".join("[" + ", ".join(repr(rounded(float(x), 5)) for x in r) + "]" for r in self.covariance)
        out = ["#", "# covariance of the fitted values (linearised, rows and columns as [scenario_params])",
               "#: [calibration.covariance]", f"#: names = [{names}]", f"#: matrix = [{rows}]"]
        if self.unidentified:
            out.append("#: unidentified = [" + ", ".join(f'"{k}"' for k in self.unidentified) + "]")
        return "\n".join(out) + "\n"

    def row_table(self) -> list[dict]:
        """Per-row measured vs simulated values and errors."""
        out = []
        for r, s in zip(self.rows, self.sims):
            d = {"load": "open" if r.is_open else f"closed N={r.population} Z={s['think_ms']:.3g} ms"}
            for c in SCALES:
                d[f"{c}_sim"] = s[c]
                d[f"{c}_meas"] = r.values.get(c)
            d["iosq_ms_sim"] = s["iosq_ms"]
            d["response_err"] = s["response_ms"] / r.values["response_ms"] - 1.0
            d["iops_err"] = s["iops"] / r.iops - 1.0
            d["busy_err_pp"] = 100.0 * (s["channel_busy"] - r.values["channel_busy"])
            d["response_ci95_ms"] = s["response_ci95_ms"]
            out.append(d)
        return out

    def summary(self) -> dict:
        t = self.row_table()
        e = [abs(d["response_err"]) for d in t]
        return {"response_err_mean": float(np.mean(e)), "response_err_max": float(np.max(e)),
                "iops_err_max": float(max(abs(d["iops_err"]) for d in t)),
                "busy_err_pp_max": float(max(abs(d["busy_err_pp"]) for d in t))}

    def to_text(self) -> str:
        lines = []
        w = max([len(k) for k in self.params] + [26]) + 2
        if self.params:
            lines += [f"fit: loss = {self.loss:.4g} (1/2 sum of squared scaled residuals), reduced "
                      f"chi-square {self.chi2_reduced:.3g}, {self.nfev} evaluations; {self.message}",
                      f"{'parameter':<{w}}{'start':>12}{'fitted':>12}{'+/- fit':>11}{'+/- sim':>11}"
                      f"{'bounds':>22}"]
            for k, v in self.params.items():
                lo, hi = self.bounds.get(k, (float('nan'), float('nan')))
                sim = f"{self.stderr_sim[k]:.3g}" if k in self.stderr_sim else "-"
                lines.append(f"{k:<{w}}{self.start[k]:>12.5g}{v:>12.5g}{self.stderr_fit[k]:>11.3g}"
                             f"{sim:>11}{f'[{lo:.4g}, {hi:.4g}]':>22}")
            if len(self.params) > 1 and self.correlation:
                lines.append("correlation of the fitted values (linearised):")
                for k, row in zip(self.params, self.correlation):
                    lines.append(f"  {k:<{w - 2}}" + "".join(f"{c:>8.2f}" for c in row))
        else:
            lines.append(f"evaluation only (no parameters fitted): loss = {self.loss:.4g}")
        if self.unidentified:
            lines.append("held at their start values (fewer measured rows than parameters; the rows identify "
                         "these least): " + ", ".join(f"{k} = {self.fixed.get(k, float('nan')):.5g}"
                                                      for k in self.unidentified))
        b = self.budget
        lines += ["", f"per row ({b['replications']} replications x {b['ios']} I/Os, seed {b['seed']}; "
                      "sim / measured, error):"]
        hdr = (f"{'row':>3} {'load':<22}{'IOPS':>16}{'busy %':>16}{'response ms':>24}"
               f"{'pend ms':>15}{'CMR ms':>13}{'OE':>13}{'IOSQ':>7}")
        lines.append(hdr)
        for i, d in enumerate(self.row_table()):
            def pair(c, fmt):
                s, m = d[c + "_sim"], d[c + "_meas"]
                return format(s, fmt) + "/" + ("-" if m is None else format(m, fmt))
            iops = pair("iops", ".0f") + " %+.1f%%" % (100 * d["iops_err"])
            busy = "%.1f/%.0f %+.1f" % (100 * d["channel_busy_sim"], 100 * d["channel_busy_meas"],
                                        d["busy_err_pp"])
            resp = pair("response_ms", ".3f") + " %+.1f%%" % (100 * d["response_err"])
            lines.append(f"{i + 1:>3} {d['load']:<22}{iops:>16}{busy:>16}{resp:>24}"
                         f"{pair('pend_ms', '.2f'):>15}{pair('cmr_ms', '.2f'):>13}"
                         f"{pair('open_exchanges', '.1f'):>13}{d['iosq_ms_sim']:>7.2f}")
        s = self.summary()
        lines.append(f"response error: mean |err| {100 * s['response_err_mean']:.1f} %, max "
                     f"{100 * s['response_err_max']:.1f} %; IOPS max |err| {100 * s['iops_err_max']:.1f} %; "
                     f"busy max |err| {s['busy_err_pp_max']:.1f} points")
        return "\n".join(lines)
