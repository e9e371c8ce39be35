"""Nothing ignored in silence: a field (or scenario parameter) the user sets where it has no
effect is an error naming the option that would make it count (mcio/model/effect.py's table for
model fields, each Scenario's ``param_effect`` for its parameters). Every field x option pair of
the tables is enumerated: set under the option that ignores it -> refused naming the option; set
under one where it counts -> accepted. Validation only (no simulation)."""
from __future__ import annotations

import copy

import pytest

from mcio import McioError
from mcio.model import Model, effect
from mcio.model.spec import SECTIONS
from mcio.scenarios import SCENARIO_OBJECTS
from mcio.sweep import load_spec

FIELDS = [f"{sec}.{k}" for sec, fs in SECTIONS.items() for k in fs]
PAIRS = [(f, c) for f, conds in effect.EFFECT.items() for c in conds]


def _merge(a: dict, b: dict) -> dict:
    out = copy.deepcopy(a)
    for k, v in b.items():
        if k == "io":
            io = out.setdefault("io", [{}])
            for i, c in enumerate(v):
                if i < len(io):
                    io[i].update(c)
                else:
                    io.append(dict(c))
        elif isinstance(v, dict):
            out.setdefault(k, {}).update(v)
        else:
            out[k] = v
    return out


#: a valid value other than the default, per field (a default-valued field is not "set")
SPECIAL = {"workload.arrival_trace_ms": [0.0, 1.0, 3.0], "devices.weights": [1.0, 2.0, 3.0, 4.0],
           "devices.paths": [[0]], "devices.cylinders": 100, "devices.span_cylinders": 50,
           "devices.alias_mode": "hyperpav", "workload.binding": "device", "io.name": "other"}


def other_value(field: str):
    if field in SPECIAL:
        return SPECIAL[field]
    sec, key = field.split(".")
    f = SECTIONS[sec][key]
    sch = getattr(f.check, "schema", {})
    if "enum" in sch:
        return next(x for x in sch["enum"] if x != f.default)
    if "oneOf" in sch:
        return 2.0
    d = f.default
    if sch.get("type") == "integer":
        return min((d or 1) + 1, sch.get("maximum", 10**9))
    if sch.get("type") == "number":
        hi = sch.get("maximum", 1e9)
        return 0.5 * hi if d is None or d + 0.5 > hi else d + 0.5
    raise AssertionError(field)


def with_field(fragment: dict, field: str) -> dict:
    sec, key = field.split(".")
    m = copy.deepcopy(fragment)
    if sec == "io":
        m.setdefault("io", [{}])[0][key] = other_value(field)
    else:
        m.setdefault(sec, {})[key] = other_value(field)
    return m


def test_every_declared_field_is_in_the_effect_table_or_marked_always_effective():
    assert sorted(effect.EFFECT) == sorted(FIELDS)
    for f, conds in effect.EFFECT.items():
        assert conds is effect.ALWAYS or all(isinstance(c, effect.Condition) for c in conds), f


@pytest.mark.parametrize("field, cond", PAIRS, ids=[f"{f}-{c.option.split(' ')[0]}" for f, c in PAIRS])
def test_every_field_x_option_pair_is_refused_where_ignored_and_accepted_where_it_counts(field, cond):
    # where it counts: every condition of the field made to hold
    counts = {}
    for c in effect.EFFECT[field]:
        counts = _merge(counts, c.counts_under)
    Model.from_dict(with_field(counts, field))
    load_spec({"model": with_field(counts, field)})
    # where this condition fails (the others held): refused, naming the option
    ignored = _merge(counts, cond.ignored_under)
    with pytest.raises(McioError) as e:
        Model.from_dict(with_field(ignored, field))
    assert cond.option in e.value.allowed and e.value.field.endswith(field.split(".")[1]), e.value
    with pytest.raises(McioError) as e:
        load_spec({"model": with_field(ignored, field)})
    assert e.value.field.startswith("model.") and cond.option in e.value.allowed


@pytest.mark.parametrize("field", [f for f, c in effect.EFFECT.items() if c is effect.ALWAYS])
def test_an_always_effective_field_is_accepted_when_set(field):
    frag = {"devices.geometry": {"control_unit": {"miss_policy": "read_through"}},
            "control_unit.miss_policy": {"devices": {"geometry": "3390"}}}.get(field, {})
    Model.from_dict(with_field(frag, field))


def test_a_field_left_at_its_default_is_not_set():
    m = Model.from_dict({"workload": {"type": "closed", "rate_iops": 1000.0}})   # the default rate
    assert "workload.rate_iops" not in m.user_set


def test_a_model_mcio_wrote_reads_back():
    m = Model.from_dict({"workload": {"type": "open", "rate_iops": 50.0}, "devices": {"count": 4, "skew": "zipf"}})
    assert Model.from_dict(m.to_dict()) == m      # (every field written, the defaults among them)


def test_the_issue_example_rate_iops_on_a_closed_ficon_channel_is_refused_set_or_swept():
    with pytest.raises(McioError, match="load = 'open'"):
        load_spec({"scenario": "ficon-channel", "scenario_params": {"rate_iops": 8400.0}})
    with pytest.raises(McioError, match="workload.type = 'open'") as e:
        load_spec({"scenario": "ficon-channel", "sweep": {"workload.rate_iops": [8400.0, 9000.0]}})
    assert e.value.field == "sweep.workload.rate_iops"
    load_spec({"scenario": "ficon-channel", "scenario_params": {"load": "open", "rate_iops": 8400.0}})


def test_a_field_that_counts_at_some_point_of_the_sweep_is_accepted():
    load_spec({"model": {"workload": {"rate_iops": 50.0}}, "sweep": {"workload.type": ["open", "closed"]}})
    load_spec({"model": {"channels": {"mp_us_per_io_zhpf": 2.0}},
               "variants": {"ccw": {}, "zhpf": {"channels.zhpf_share": 1.0}}})


def test_a_variant_field_ignored_in_its_variant_is_refused_naming_the_variant():
    with pytest.raises(McioError) as e:
        load_spec({"model": {}, "variants": {"a": {}, "b": {"devices.zipf_s": 2.0}}})
    assert e.value.field == "variants.b.devices.zipf_s" and "devices.skew = 'zipf'" in e.value.allowed


def test_a_dotted_scenario_override_without_effect_is_refused():
    with pytest.raises(McioError, match="workload.type = 'open'"):
        load_spec({"scenario": "ficon-channel", "scenario_params": {"workload.rate_iops": 100.0}})
    with pytest.raises(McioError, match="workload.type = 'open'"):
        SCENARIO_OBJECTS["ficon-channel"].model(**{"workload.rate_iops": 100.0})


def test_replace_refuses_an_ignored_field_and_a_sweep_point_is_checked_with_the_grid():
    m = Model.from_dict({})
    with pytest.raises(McioError, match="workload.type = 'open'"):
        m.replace("workload.rate_iops", 5.0)
    assert m.replace("workload.rate_iops", 5.0, check=False).user_set["workload.rate_iops"][1] == 5.0


# ---- scenario parameters ------------------------------------------------------------------------

SC_PAIRS = [(name, p, c) for name, sc in SCENARIO_OBJECTS.items() for p, conds in sc.param_effect.items()
            for c in conds]


def _param_value(sc, name):
    p = sc.param(name)
    v = p.value
    if v is None:
        return 1000.0
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise AssertionError(name)
    lo, hi = p.bounds or (None, None)
    new = v + 1 if isinstance(v, int) else v + 0.5
    return new if hi is None or new <= hi else (v + (lo or 0)) / 2


def test_every_scenario_condition_names_declared_parameters():
    for name, sc in SCENARIO_OBJECTS.items():
        declared = {p.name for p in sc.params}
        for p, conds in sc.param_effect.items():
            assert p in declared, (name, p)
            for c in conds:
                assert c.param in declared and c.holds({c.param: c.counts_with}) \
                    and not c.holds({c.param: c.ignored_with}), (name, p, c)


@pytest.mark.parametrize("scenario, param, cond", SC_PAIRS, ids=[f"{s}-{p}" for s, p, _ in SC_PAIRS])
def test_every_scenario_parameter_x_option_pair(scenario, param, cond):
    sc = SCENARIO_OBJECTS[scenario]
    v = _param_value(sc, param)
    with pytest.raises(McioError) as e:
        sc.check_effective([({param: v, cond.param: cond.ignored_with}, None)])
    assert e.value.field == f"scenario_params.{param}" and cond.option in e.value.allowed
    sc.check_effective([({param: v, cond.param: cond.counts_with}, None)])


def test_scenario_parameter_effect_in_a_spec_counts_over_its_variants():
    load_spec({"scenario": "ficon-channel", "scenario_params": {"rate_iops": 500.0},
               "variants": {"open": {"load": "open"}, "closed": {}}})
    with pytest.raises(McioError, match="program_limit = 'bytes'"):
        load_spec({"scenario": "cms-commit", "scenario_params": {"program_bytes": 40960}})


# ---- the table is true: a field or parameter it calls ignored changes no result --------------

def _tiny(model):
    from mcio import simulate
    ds = simulate(model, ios=300, replications=2, seed=3, warmup=50)
    return {v: ds[v].values for v in ds.data_vars}


def _same(a, b) -> bool:
    import numpy as np
    return all(np.array_equal(a[v], b[v], equal_nan=True) for v in a)


@pytest.mark.parametrize("field, cond", PAIRS, ids=[f"{f}-{c.option.split(' ')[0]}" for f, c in PAIRS])
def test_a_field_under_an_option_that_ignores_it_changes_no_result_bit_for_bit(field, cond):
    counts = {}
    for c in effect.EFFECT[field]:
        counts = _merge(counts, c.counts_under)
    ignored = _merge(_merge({"io": [{"miss_ratio": 0.5}], "workload": {"rate_iops": 50.0}
                             if _merge(counts, cond.ignored_under).get("workload", {}).get("type") == "open" else {}},
                            counts), cond.ignored_under)
    if ignored.get("workload", {}).get("type", "closed") == "closed":
        ignored["workload"].pop("rate_iops", None) if "workload" in ignored else None
    with effect.deferred():
        base = Model.from_dict(ignored)
        changed = Model.from_dict(with_field(ignored, field))
    assert _same(_tiny(base), _tiny(changed)), field


@pytest.mark.parametrize("scenario, param, cond", SC_PAIRS, ids=[f"{s}-{p}" for s, p, _ in SC_PAIRS])
def test_a_scenario_parameter_under_an_option_that_ignores_it_changes_no_result(scenario, param, cond):
    sc = SCENARIO_OBJECTS[scenario]
    option = {cond.param: cond.ignored_with}
    if scenario == "ficon-channel" and option.get("load") == "open":
        option["rate_iops"] = 2000.0     # (an open load needs its rate)
    with effect.deferred():
        base = sc.model(**option)
        changed = sc.model(**option, **{param: _param_value(sc, param)})
    assert _same(_tiny(base), _tiny(changed)), param
