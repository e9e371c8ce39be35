"""Every bad input raises one McioError that names the field, the value and what is allowed."""
import math

import pytest
from hypothesis import given, settings, strategies as st

from mcio import McioError, Model, simulate
from mcio.model.spec import SECTIONS, load_toml
from oracle_models import single_server_open


def _raises(raw, field, *fragments):
    with pytest.raises(McioError) as e:
        Model.from_dict(raw)
    assert e.value.field == field, str(e.value)
    for f in fragments:
        assert f in str(e.value), str(e.value)
    return e.value


def test_unknown_key_names_the_key_and_lists_allowed():
    err = _raises({"channels": {"link_mbs": 800}}, "channels.link_mbs", "unknown key", "link_mb_s")
    assert err.value == 800


def test_unknown_section():
    _raises({"chanels": {}}, "chanels", "unknown section")


def test_negative_value():
    _raises({"channels": {"link_mb_s": -5}}, "channels.link_mb_s", "-5", ">= 0.01 and <= 1e+06")


def test_nan_value():
    _raises({"control_unit": {"backend_service_ms": {"dist": "gamma", "mean": math.nan, "scv": 1}}},
            "control_unit.backend_service_ms.mean", "finite")


def test_negative_scv():
    _raises({"workload": {"arrival_scv": -0.5}}, "workload.arrival_scv", ">= 0")
    _raises({"control_unit": {"ha_service_us": {"dist": "lognormal", "mean": 5, "scv": -1}}},
            "control_unit.ha_service_us.scv", ">= 0")


def test_zero_channels():
    _raises({"channels": {"count": 0}}, "channels.count", "integer in [1")


def test_device_with_no_path():
    _raises({"devices": {"count": 2, "paths": [[0], []]}}, "devices.paths[1]", "no path")
    _raises({"devices": {"count": 2, "paths": [[0], [3]]}, "channels": {"count": 2}},
            "devices.paths[1]", "does not exist")


def test_wrong_types_and_choices():
    _raises({"workload": {"type": "half-open"}}, "workload.type", "'open'", "'closed'")
    _raises({"workload": {"population": 2.5}}, "workload.population", "integer")
    _raises({"io": [{"miss_ratio": 1.5}]}, "io[0].miss_ratio", "<= 1")
    _raises({"control_unit": {"backend_service_ms": {"dist": "weibull", "mean": 1}}},
            "control_unit.backend_service_ms.dist", "exponential")


def test_open_load_at_or_over_capacity():
    m = single_server_open(1000.0, {"dist": "exponential", "mean": 1.0})     # rho = 1
    with pytest.raises(McioError) as e:
        simulate(m, ios=1000, replications=2)
    assert e.value.field == "workload.rate_iops"
    assert "capacity" in str(e.value) and "rate_iops <" in str(e.value)


def test_bad_run_arguments():
    m = single_server_open(100.0, {"dist": "exponential", "mean": 1.0})
    for kw, field in (({"ios": 0}, "ios"), ({"replications": 1}, "replications"),
                      ({"seed": -1}, "seed"), ({"warmup": -3}, "warmup")):
        with pytest.raises(McioError) as e:
            simulate(m, **kw)
        assert e.value.field == field


def test_toml_round_trip_and_file_errors(tmp_path):
    m = Model.from_dict({"workload": {"type": "open", "rate_iops": 50},
                         "control_unit": {"backend_service_ms": {"dist": "gamma", "mean": 2, "scv": 0.3}},
                         "devices": {"count": 3, "paths": [[0, 1]]}, "channels": {"count": 2}})
    p = tmp_path / "m.toml"
    p.write_text(m.to_toml())
    assert Model.from_toml(p) == m
    with pytest.raises(McioError, match="does not exist"):
        load_toml(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[workload\ntype = 'open'")
    with pytest.raises(McioError, match="not valid TOML"):
        load_toml(bad)


NUMERIC = [(sec, key) for sec, fields in SECTIONS.items() for key, f in fields.items()
           if isinstance(f.default, (int, float)) and not isinstance(f.default, bool)]


@settings(max_examples=60, deadline=None)
@given(field=st.sampled_from(NUMERIC),
       bad=st.one_of(st.floats(max_value=-1e-9, allow_nan=False), st.just(math.nan), st.just(math.inf),
                     st.text(max_size=3)))
def test_any_bad_number_names_its_field(field, bad):
    sec, key = field
    raw = {sec: [{key: bad}]} if sec == "io" else {sec: {key: bad}}
    with pytest.raises(McioError) as e:
        Model.from_dict(raw)
    assert key in e.value.field


@settings(max_examples=40, deadline=None)
@given(rate=st.floats(0.1, 1e6), scv=st.floats(0, 50), kb=st.floats(0, 1e4),
       miss=st.floats(0, 1), n=st.integers(1, 5000), aliases=st.integers(0, 255),
       mean=st.floats(0, 1e3), kind=st.sampled_from(["exponential", "gamma", "lognormal"]))
def test_valid_models_round_trip_through_toml(rate, scv, kb, miss, n, aliases, mean, kind):
    import tomllib
    m = Model.from_dict({"workload": {"type": "open", "rate_iops": rate, "arrival_scv": scv},
                         "io": [{"kb": kb, "miss_ratio": miss}],
                         "devices": {"count": n, "aliases": aliases},
                         "control_unit": {"backend_service_ms": {"dist": kind, "mean": mean, "scv": 1.0}
                                          if kind != "exponential" else {"dist": kind, "mean": mean}}})
    assert Model.from_dict(tomllib.loads(m.to_toml())) == m
