"""Model.replace and Model.get touch one section: the same model, and the same errors, as the
whole model's copy and check (the path they took before, kept for topology models), for every
legacy field of every built-in scenario."""
from __future__ import annotations

import copy

import pytest

from mcio.errors import McioError
from mcio.model import effect
from mcio.model.spec import MODEL_SECTIONS, SECTIONS, Model
from mcio.scenarios import SCENARIOS, build_scenario


def _whole(m: Model, key: str, value) -> Model:
    """The old path (Model.replace before it touched one section, as it stood): the whole
    model's dict, one field set, every section checked again."""
    d = copy.deepcopy(m.to_dict())
    parts = key.split(".")
    if parts[0] not in MODEL_SECTIONS:
        raise McioError(key, value, f"unknown section {parts[0]!r}; allowed: {', '.join(MODEL_SECTIONS)}")
    node = d
    for i, part in enumerate(parts[:-1]):
        if isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                raise McioError(key, value, ("io class" if parts[0] == "io" else parts[i - 1])
                                + f" index must be 0..{len(node) - 1}")
            node = node[int(part)]
        else:
            node = node.setdefault(part, {})
    last = parts[-1]
    if isinstance(node, list):
        raise McioError(key, value, "name a field of an io class, e.g. io.0.kb")
    node[last] = value
    user = dict(m.user_set)
    user[effect.canonical(key)] = (key, value)
    return Model._from_dict(d, "model", user)


def _get_whole(m: Model, key: str):
    """The old Model.get: the field read from the whole model's dict."""
    sec, *rest = key.split(".")
    node = m.to_dict().get(sec)
    for part in rest:
        node = node[int(part)] if isinstance(node, list) else node.get(part)
    return node


def _outcome(f):
    try:
        m = f()
    except McioError as e:
        return ("error", e.field, repr(e.value), e.allowed)
    except (TypeError, AttributeError, KeyError, IndexError) as e:   # (set_field: "not settable")
        return ("bug", type(e).__name__, str(e))
    return ("model", m.to_dict(), {k: v for k, v in m.user_set.items()}, m)


def _cases():
    for name in sorted(SCENARIOS):
        m = build_scenario(name)
        if m.topology is not None:
            continue
        for sec, fields in SECTIONS.items():
            secs = [(f"io.{i}", c) for i, c in enumerate(m.io)] if sec == "io" else [(sec, getattr(m, sec))]
            for prefix, values in secs:
                for f in fields:
                    d = m.to_dict()
                    cur = (d["io"][int(prefix[3:])] if sec == "io" else d[sec]).get(f)
                    for v in ([] if cur is None else [cur]) + [-1, "bogus", 3]:
                        yield name, f"{prefix}.{f}", v


CASES = list(_cases())


def test_cases_cover_every_field():
    keys = {k.split(".")[-1] for _, k, _ in CASES}
    assert keys == {f for fields in SECTIONS.values() for f in fields}
    assert len({n for n, _, _ in CASES}) >= 3


@pytest.mark.parametrize("name", sorted({n for n, _, _ in CASES}))
def test_replace_one_section_is_the_whole_models_replace(name):
    m = build_scenario(name)
    for _, key, v in (c for c in CASES if c[0] == name):
        got, want = _outcome(lambda: m.replace(key, v, check=False)), _outcome(lambda: _whole(m, key, v))
        assert got[:3] == want[:3], (key, v)
        if got[0] == "model":
            assert got[3] == want[3]
            assert got[3].get(key) == _get_whole(want[3], key)


def test_replace_leaves_the_original_model_alone():
    m = build_scenario(sorted(SCENARIOS)[0])
    before = copy.deepcopy(m.to_dict())
    m.replace("io.0.kb", 17.0, check=False)
    m.replace("workload.rate_iops" if m.workload["type"] == "open" else "workload.population", 3, check=False)
    assert m.to_dict() == before


def test_nested_fields_bad_indices_and_cross_checks():
    m = Model.from_dict({"workload": {"type": "open", "rate_iops": 100.0},
                         "control_unit": {"backend_service_ms": {"dist": "gamma", "mean": 2.0, "scv": 0.5}},
                         "io": [{"miss_ratio": 0.5}], "devices": {"count": 4, "paths": [[0, 1]]},
                         "channels": {"count": 2}})
    cases = [("control_unit.backend_service_ms.mean", 3.0), ("control_unit.backend_service_ms.scv", -2),
             ("control_unit.backend_service_ms.dist", "exponential"), ("channels.count", 1),
             ("devices.count", 2), ("devices.skew", "weights"), ("io.1.kb", 3.0), ("io.x.kb", 3.0),
             ("io.kb", 3.0), ("io", [{}]), ("devices.paths.0", [0]), ("workload", {"type": "open"}),
             ("workload.nope", 1), ("nosection.x", 1), ("topology.x", 1), ("io.0.kb.x", 1)]
    for key, v in cases:
        got, want = _outcome(lambda: m.replace(key, v, check=False)), _outcome(lambda: _whole(m, key, v))
        assert got[:3] == want[:3], (key, v)
        if got[0] == "model":
            assert got[3] == want[3]
    e = pytest.raises(McioError, m.replace, "channels.count", 1, check=False).value
    assert e.field == "devices.paths[0]"
