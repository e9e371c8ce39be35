"""A calibration's result file (``mcio calibrate -o fitted.toml``), written and read.

The file is a runnable one-point sweep spec: ``scenario = "NAME"``, the fitted values (and the
fixed overrides the fit held them with) as ``[scenario_params]``, and the budget as ``[run]``,
so ``mcio sweep fitted.toml`` / ``mcio run fitted.toml`` run the calibrated model and its
``[scenario_params]`` table can be pasted into any spec of that scenario. The fit's table (start,
fitted value, standard errors, bounds; loss; the command that produced it) is in comments; the
same, machine-readable, is TOML in the comment lines that start with ``#: `` (a ``[calibration]``
table that sweep specs do not see), read back by :func:`read_fitted`.

Fitted values are written to :data:`DIGITS` significant digits: the file is the result, and a
scenario that ships one (``ficon_channel_fitted.toml``) reads its values from it unchanged.
"""
from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path
from typing import Mapping

from ..errors import McioError

FORMAT = "mcio-calibration-1"
#: significant digits of the written values (the simulation noise is far above the 5th digit)
DIGITS = 5


def rounded(x: float, digits: int = DIGITS) -> float:
    """``x`` to ``digits`` significant digits (the value the file holds)."""
    return float(f"{float(x):.{digits}g}")


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            return "nan" if v != v else ("inf" if v > 0 else "-inf")
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)                       # a TOML basic string
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        return "{" + ", ".join(f"{_key(k)} = {_toml_value(x)}" for k, x in v.items()) + "}"
    raise McioError("calibration output", v, "cannot be written as TOML")


def _key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() else json.dumps(k)


def format_fitted(*, scenario: str, values: Mapping[str, float], fixed: Mapping, stderr_fit: Mapping,
                  stderr_sim: Mapping, start: Mapping, bounds: Mapping, loss: float, chi2_reduced: float,
                  evaluations: int, message: str, budget: Mapping, command: str, measured: str,
                  table: str = "", correlation=None) -> str:
    """The result file's text (see the module docstring). ``correlation``: the fitted values'
    linearised correlation matrix, rows and columns in the order of ``values`` (saved as data:
    ``mcio uncertain``'s ``from_calibration`` draws the inputs jointly from it)."""
    vals = {k: rounded(v) for k, v in values.items()}
    lines = [f"# mcio calibration result ({FORMAT}): a runnable sweep spec of scenario {scenario}",
             f"# written by: {command}",
             f"# measured intervals: {measured}",
             f"# loss {loss:.4g} (1/2 sum of squared scaled residuals), reduced chi-square {chi2_reduced:.3g}, "
             f"{evaluations} evaluations: {message}",
             "#",
             f"# {'parameter':<24}{'start':>11}{'fitted':>12}{'+/- fit':>10}{'+/- sim':>10}   bounds"]
    for k, v in vals.items():
        lo, hi = bounds.get(k, (float("nan"), float("nan")))
        sim = f"{stderr_sim[k]:.3g}" if k in stderr_sim else "-"
        lines.append(f"# {k:<24}{start.get(k, float('nan')):>11.5g}{v:>12.5g}{stderr_fit.get(k, float('nan')):>10.3g}"
                     f"{sim:>10}   [{lo:.4g}, {hi:.4g}]")
    lines.append("# (+/- fit: linearised standard error, scaled by the reduced chi-square when > 1; "
                 "+/- sim: the part the simulation noise alone causes)")
    if table:
        lines += ["#"] + [f"#   {ln}" if ln else "#" for ln in table.splitlines()]
    cal = {"format": FORMAT, "scenario": scenario, "command": command, "measured": measured,
           "loss": rounded(loss, 6), "chi2_reduced": rounded(chi2_reduced, 6), "evaluations": int(evaluations),
           "budget": dict(budget)}
    if correlation is not None and len(values) > 1:
        cal["correlation"] = [[rounded(float(x), 4) for x in row] for row in correlation]
    lines += ["#", "#: [calibration]"] + [f"#: {_key(k)} = {_toml_value(v)}" for k, v in cal.items()]
    for name, table_ in (("start", start), ("stderr_fit", stderr_fit), ("stderr_sim", stderr_sim),
                         ("bounds", {k: list(b) for k, b in bounds.items()})):
        lines.append(f"#: [calibration.{name}]")
        lines += [f"#: {_key(k)} = {_toml_value(rounded(v, 4) if isinstance(v, float) else v)}"
                  for k, v in table_.items()]
    lines += ["", f"title = {_toml_value(f'{scenario} calibrated to {measured}')}",
              f"scenario = {_toml_value(scenario)}", "", "[scenario_params]"]
    lines += [f"{_key(k)} = {_toml_value(v)}" for k, v in vals.items()]
    if fixed:
        lines.append("# held fixed during the fit (--set): the fitted values hold with these")
        lines += [f"{_key(k)} = {_toml_value(v)}" for k, v in fixed.items()]
    lines += ["", "[run]"] + [f"{k} = {_toml_value(v)}" for k, v in budget.items()]
    return "\n".join(lines) + "\n"


def read_fitted(path) -> dict:
    """``{"scenario", "scenario_params", "run", "calibration"}`` of a result file (McioError if it
    is not one)."""
    p = Path(path)
    try:
        text = p.read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise McioError("calibration file", str(p), f"cannot be read ({e})") from None
    try:
        spec = tomllib.loads(text)
        cal = tomllib.loads("\n".join(ln[3:] for ln in text.splitlines() if ln.startswith("#: ")))
    except tomllib.TOMLDecodeError as e:
        raise McioError("calibration file", str(p), f"is not valid TOML ({e})") from None
    if cal.get("calibration", {}).get("format") != FORMAT:
        raise McioError("calibration file", str(p), f"is not an mcio calibration result ({FORMAT})")
    return {"scenario": spec.get("scenario"), "scenario_params": spec.get("scenario_params", {}),
            "run": spec.get("run", {}), "calibration": cal["calibration"]}


__all__ = ["FORMAT", "DIGITS", "rounded", "format_fitted", "read_fitted"]
