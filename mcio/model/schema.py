"""The JSON Schema of a model and of a sweep spec, and the table of every field's default,
both generated from the one declaration of the fields (``mcio.model.spec.SECTIONS``).

Editors with a TOML language server (e.g. Taplo, Even Better TOML) complete and check spec files
against the schema: ``mcio schema > mcio-spec.schema.json`` and point the editor at it, or add
``#:schema ./mcio-spec.schema.json`` as the spec's first line. ``python -m mcio.model.schema
--markdown`` writes the table of docs/model.md.
"""
from __future__ import annotations

import json
import sys

from .dist import Dist
from .spec import SECTION_DOCS, SECTIONS


def _default_json(v):
    if isinstance(v, Dist):
        return v.to_toml()
    return v


def section_schema(sec: str) -> dict:
    props = {}
    for key, f in SECTIONS[sec].items():
        p = dict(getattr(f.check, "schema", {}))
        p["description"] = f.doc
        if f.default is not None:
            p["default"] = _default_json(f.default)
        props[key] = p
    return {"type": "object", "description": SECTION_DOCS.get(sec, ""), "additionalProperties": False,
            "properties": props}


def model_schema() -> dict:
    """The schema of a model file: the five sections at the top level."""
    props = {sec: section_schema(sec) for sec in SECTIONS if sec != "io"}
    props["io"] = {"type": "array", "minItems": 1, "items": section_schema("io"), "description": SECTION_DOCS["io"]}
    props["topology"] = {"type": "object", "description": "a planner's I/O configuration: cards, channels, "
                         "directors, ISLs, control units with LCUs, workloads (docs/topology.md; validated by "
                         "mcio.model.topology)"}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "mcio model",
            "type": "object", "additionalProperties": False, "properties": props}


def spec_schema() -> dict:
    """The schema of a sweep spec: a model under [model] (or a scenario), [sweep], [variants],
    [run]; a plain model file (sections at the top level) is accepted too."""
    model = model_schema()
    axis = {"oneOf": [{"type": "array", "minItems": 1},
                      {"type": "object", "required": ["start", "stop", "num"],
                       "properties": {"start": {"type": "number"}, "stop": {"type": "number"},
                                      "num": {"type": "integer", "minimum": 1, "maximum": 100_000},
                                      "log": {"type": "boolean"}}, "additionalProperties": False}]}
    run = {"type": "object", "additionalProperties": False, "properties": {
        "replications": {"type": "integer", "minimum": 2, "maximum": 10_000, "default": 4},
        "ios": {"type": "integer", "minimum": 1, "default": 200_000},
        "warmup": {"type": "integer", "minimum": 0},
        "seed": {"type": "integer", "minimum": 0, "maximum": 2**63 - 1, "default": 0},
        "precision": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
        "max_ios": {"type": "integer", "minimum": 1}}}
    props = {"title": {"type": "string"}, "scenario": {"type": "string"},
             "scenario_params": {"type": "object"},
             "model": {k: v for k, v in model.items() if not k.startswith("$") and k != "title"},
             "sweep": {"type": "object", "additionalProperties": axis,
                       "description": "dotted model field -> values (a list or a range table)"},
             "variants": {"type": "object", "additionalProperties": {"type": "object"},
                          "description": "named variants: field overrides"},
             "run": run, **model["properties"]}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "mcio sweep spec",
            "type": "object", "additionalProperties": False, "properties": props}


def _fmt_default(v) -> str:
    if v is None:
        return "unset"
    v = _default_json(v)
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {json.dumps(x)}" for k, x in v.items()) + "}"
    return json.dumps(v)


def _fmt_allowed(sch: dict) -> str:
    if "enum" in sch:
        return ", ".join(f'"{x}"' for x in sch["enum"])
    if "oneOf" in sch:
        return "a duration: a number or {dist = ...}"
    lo = sch.get("minimum", sch.get("exclusiveMinimum"))
    hi = sch.get("maximum", sch.get("exclusiveMaximum"))
    t = sch.get("type", "")
    if t in ("number", "integer"):
        left = "(" if "exclusiveMinimum" in sch else "["
        right = ")" if "exclusiveMaximum" in sch else "]"
        return f"{t} {left}{lo:g}, {'inf' if hi is None else format(hi, 'g')}{right if hi is not None else ')'}"
    if t == "array":
        return "list"
    return t


def markdown_table() -> str:
    """Every model field, its default, what is allowed and what it means (docs/model.md)."""
    lines = ["# Model fields and their defaults",
             "",
             "Generated from `mcio/model/spec.py` by `python -m mcio.model.schema --markdown`; "
             "a test keeps it current. Every field left out of a spec takes the default below. "
             "Durations are distributions: a bare number is deterministic, or "
             "`{dist = \"exponential\" | \"gamma\" | \"lognormal\", mean = ..., scv = ...}`, "
             "`{dist = \"empirical\", values = [...], weights = [...]}`.",
             ""]
    for sec in SECTIONS:
        head = f"[[{sec}]]" if sec == "io" else f"[{sec}]"
        lines += [f"## `{head}` — {SECTION_DOCS.get(sec, '')}", "",
                  "| field | default | allowed | meaning |", "|---|---|---|---|"]
        for key, f in SECTIONS[sec].items():
            lines.append(f"| `{key}` | `{_fmt_default(f.default)}` | {_fmt_allowed(getattr(f.check, 'schema', {}))} "
                         f"| {f.doc} |")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    if "--markdown" in sys.argv[1:]:
        print(markdown_table())
    else:
        print(json.dumps(spec_schema(), indent=1))
