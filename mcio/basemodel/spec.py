"""A base model as a runnable, commented TOML spec: every value with a comment saying whether it
was measured, derived, fitted or assumed, how, and from which intervals; the unknowns listed in
the header; the estimates with their standard errors and covariance in machine-readable comment
lines (``#: ``, a ``[base]`` table that :func:`read_estimates` reads and model files ignore).
"""
from __future__ import annotations

import json
import tomllib

import numpy as np
import pandas as pd


def _v(x) -> str:
    """A TOML value (numbers, strings, lists, inline tables of the model's fields)."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, (float, np.floating)):
        return repr(float(x))
    if isinstance(x, str):
        return json.dumps(x)
    if isinstance(x, (list, tuple)):
        return "[" + ", ".join(_v(i) for i in x) + "]"
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k} = {_v(v)}" for k, v in x.items()) + "}"
    raise TypeError(type(x))


def _line(key: str, value, note: str | None, indent: str = "") -> str:
    s = f"{indent}{key} = {_v(value)}"
    return s + (f"   # {note}" if note else "")


def format_base(b) -> str:
    """The spec text of a :class:`~mcio.basemodel.build.BaseModel`."""
    c, n = b.config, b.notes
    out = ["# mcio base model: a configuration built from measured data, every value commented with its",
           "# provenance (measured: read from a report; derived: a formula of measured figures; fitted: the",
           "# model inverted at the measured figures; assumed: the data cannot say). docs/base.md explains.",
           f"# built by: {b.command}" if b.command else "# built by: mcio.basemodel.build",
           "# from: " + "; ".join(b.sources),
           "# intervals: " + ", ".join(f"{pd.Timestamp(t):%Y-%m-%d %H:%M:%S}" for t in b.intervals),
           "#", "# Unknowns (the data cannot identify them; the value taken is stated):"]
    out += [f"#   - {k}: {v}" for k, v in b.unknowns.items()]
    out += ["", "[channels]"]
    for k, v in c["channels"].items():
        out.append(_line(k, v, n.get(f"channels.{k}")))
    out += ["", "[devices]"]
    for k, v in c["devices"].items():
        out.append(_line(k, v, n.get(f"devices.{k}")))
    out += ["", "[workload]"]
    for k, v in c["workload"].items():
        out.append(_line(k, v, n.get(f"workload.{k}")))
    t = c["topology"]
    out += ["", "[topology]", _line("load_scale", t["load_scale"], n.get("topology.load_scale"))]
    for ch in t["channel"]:
        out += ["", "[[topology.channel]]"]
        for k, v in ch.items():
            out.append(_line(k, v, n.get(f"channel.{ch['name']}.{k}")))
    for cu in t["control_unit"]:
        out += ["", "[[topology.control_unit]]"]
        for k, v in cu.items():
            if k != "lcu":
                out.append(_line(k, v, n.get(f"cu.{cu['name']}.{k}")))
        for lc in cu["lcu"]:
            out.append("  [[topology.control_unit.lcu]]")
            for k, v in lc.items():
                out.append(_line(k, v, n.get(f"lcu.{lc['name']}.{k}"), "  "))
    for w in t["workload"]:
        out += ["", "[[topology.workload]]"]
        for k, v in w.items():
            if k != "io":
                out.append(_line(k, v, n.get(f"workload.{w['name']}.{k}")))
        for io in w["io"]:
            out.append("  [[topology.workload.io]]")
            for k, v in io.items():
                out.append(_line(k, v, n.get(f"workload.{w['name']}.io.{k}"), "  "))
    # machine-readable: the estimates, their standard errors and covariance
    names, cov = b.covariance
    est = {k: (float(e.value), float(e.stderr), e.kind) for k, e in b.estimates.items()}
    mach = {"base": {"intervals": [f"{pd.Timestamp(x):%Y-%m-%dT%H:%M:%S}" for x in b.intervals],
                     "workload_lcu": dict(b.workload_lcu),
                     "covariance_names": list(names),
                     "covariance": [[float(x) for x in row] for row in np.asarray(cov)]}}
    out += ["", "# ---- the estimates (value, standard error over the intervals, kind) and the covariance of the",
            "# ---- estimated means, for tools (mcio.basemodel.spec.read_estimates)"]
    out.append("#: [base]")
    for k, v in mach["base"].items():
        out.append(f"#: {k} = {_v(v)}")
    out.append("#: [base.estimates]")
    for k, (v, se, kind) in est.items():
        out.append(f"#: {json.dumps(k)} = {{value = {v!r}, stderr = {se!r}, kind = {json.dumps(kind)}}}")
    return "\n".join(out) + "\n"


def read_estimates(path_or_text) -> dict:
    """The ``#: [base]`` table of a base spec (intervals, workload_lcu, covariance_names,
    covariance, estimates)."""
    text = path_or_text
    if "\n" not in str(path_or_text):
        with open(path_or_text) as f:
            text = f.read()
    lines = [ln[3:] if ln.startswith("#: ") else ln[2:] for ln in text.splitlines() if ln.startswith("#:")]
    return tomllib.loads("\n".join(lines)).get("base", {})


__all__ = ["format_base", "read_estimates"]
