"""Every reported crash of issue 33 gets one clear McioError (field, value, what is allowed; the CLI
prints it in one line and exits 2) or a sensible finite result. Each input here crashed before
(ZeroDivisionError, OverflowError, TypeError, h5py's ValueError, a nonsense message). Cheap:
validation only, except one tiny CLI call."""
from __future__ import annotations

import math

import pytest
from click.testing import CliRunner

from mcio import McioError
from mcio.cli import main
from mcio.model import Dist, Model
from mcio.model.text import for_terminal
from mcio.sweep import load_spec

POSITIONAL = {"devices": {"geometry": "3390"}, "control_unit": {"miss_policy": "read_through"},
              "io": [{"miss_ratio": 1.0}]}


def _positional(**devices):
    return {"model": {**POSITIONAL, "devices": {"geometry": "3390", **devices}}}


def refused(spec, field_part: str) -> McioError:
    with pytest.raises(McioError) as e:
        load_spec(spec)
    assert field_part in e.value.field, e.value
    assert "\n" not in str(e.value)
    return e.value


@pytest.mark.parametrize("value", [1e-300, 5e-324, 1e-7])
def test_tiny_rotation_is_refused_at_validate_with_the_clock_bound(value):
    e = refused(_positional(rotation_ms=value), "devices.rotation_ms")
    assert "1e-06" in e.allowed


@pytest.mark.parametrize("value", [1e-300, 5e-324, 1e-4])
def test_tiny_media_rate_is_refused_at_validate_so_one_io_fits_the_longest_duration(value):
    e = refused(_positional(media_mb_s=value), "devices.media_mb_s")
    assert "0.001" in e.allowed


def test_the_smallest_allowed_media_rate_and_rotation_validate():
    load_spec(_positional(media_mb_s=1e-3, rotation_ms=1e-6))


def test_uniform_with_a_huge_high_is_refused_naming_high():
    spec = {"model": {"control_unit": {"backend_service_ms": {"dist": "uniform", "low": 0, "high": 1e308}}}}
    e = refused(spec, "backend_service_ms.high")
    assert e.value == 1e308


@pytest.mark.parametrize("low, high", [(0.0, 5e-324), (0.0, 1e-320), (1.0, 1.0 + 2**-52), (1e308, 1.7e308)])
def test_uniform_of_an_extreme_span_is_a_finite_distribution(low, high):
    d = Dist.uniform(low, high)
    assert math.isfinite(d.mean) and math.isfinite(d.scv) and d.scv >= 0
    assert d.mean >= 0


def test_uniform_of_a_subnormal_span_validates_as_a_finite_model():
    spec = {"model": {"control_unit": {"backend_service_ms": {"dist": "uniform", "low": 0, "high": 5e-324}}}}
    m = load_spec(spec).model
    assert math.isfinite(m.control_unit["backend_service_ms"].mean)


@pytest.mark.parametrize("where", ["title", "description", "io name", "variant name"])
def test_text_with_a_nul_character_is_refused(where):
    spec = {"model": {}}
    if where == "title":
        spec["title"] = "a\x00b"
    elif where == "description":
        spec["description"] = "a\x00b"
    elif where == "io name":
        spec["model"] = {"io": [{"name": "read\x00"}]}
    else:
        spec["variants"] = {"a\x00b": {}}
    e = refused(spec, {"title": "title", "description": "description", "io name": "io[0].name",
                       "variant name": "variants"}[where])
    assert "NUL" in e.allowed


def test_text_with_a_lone_surrogate_is_refused():
    refused({"title": "bad \ud800", "model": {}}, "title")


def test_terminal_escape_codes_are_removed_from_printed_titles():
    shown = for_terminal("ok\x1b[2J\x1b]0;pwned\x07\x1b[31mred\x1b[0m\x07\x9b end\tx")
    assert "\x1b" not in shown and "\x07" not in shown and "\x9b" not in shown
    assert shown.startswith("ok") and "red" in shown and shown.endswith("end\tx")


def test_isfc_link_with_one_system_is_a_clear_error():
    e = refused({"scenario": "isfc-link", "scenario_params": {"systems": 1}}, "scenario_params.systems")
    assert "two" in e.allowed


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 4095, 0, "4096"])
def test_cms_commit_block_bytes_must_be_a_cms_block_size(value):
    refused({"scenario": "cms-commit", "scenario_params": {"block_bytes": value}}, "block_bytes")


@pytest.mark.parametrize("name, value", [("n_commands", 10**5), ("n_commands", 2.5), ("file_blocks", 10**6),
                                         ("cylinders", 10**7), ("release", "9.9.9"), ("command", "DELETE")])
def test_cms_commit_sizes_and_names_are_bounded(name, value):
    refused({"scenario": "cms-commit", "scenario_params": {name: value}}, name)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_a_scenario_number_without_bounds_must_still_be_finite(value):
    # isfc-link's systems aside, every number parameter is finite (ficon-channel's kb had no upper bound)
    refused({"scenario": "ficon-channel", "scenario_params": {"kb": value}}, "scenario_params.kb")


def test_the_overload_message_prints_plain_finite_numbers():
    m = Model.from_dict({"workload": {"type": "open", "rate_iops": 1e8}})
    with pytest.raises(McioError) as e:
        m.check_open_capacity()
    text = str(e.value)
    assert "np.float64" not in text and "nan" not in text and "inf" not in text
    assert isinstance(e.value.value, float) and type(e.value.value) is float


def test_a_trace_faster_than_any_channel_subsystem_is_refused():
    e = refused({"model": {"workload": {"type": "open", "arrival_trace_ms": [0.0, 5e-324]}}},
                "workload.arrival_trace_ms")
    assert "1e+08" in e.allowed


def test_run_sizes_at_the_int64_edge_are_python_ints_and_validate():
    s = load_spec({"model": {}, "run": {"precision": 0.01, "ios": 1000, "warmup": 0, "max_ios": 2**62}})
    assert type(s.run["max_ios"]) is int and s.run["max_ios"] == 2**62
    refused({"model": {}, "run": {"precision": 0.01, "ios": 1000, "warmup": 0, "max_ios": 2**62 + 1}}, "run.max_ios")
    refused({"model": {}, "run": {"ios": 2**62, "warmup": 1}}, "run.ios")


def test_precision_rounds_report_the_length_they_ran(monkeypatch):
    """A target missed after every round, with max_ios far away: ``ios_used`` is the final run's
    length (it was the next round's, never run: 327,680,000 measured, 2,621,440,000 asked)."""
    import numpy as np
    import xarray as xr

    from mcio.batch import precision as P
    ran = []

    def fake(model, ios, replications, seed, point, warmup, **kw):
        ran.append(ios)
        x = np.array([1.0, 2.0, 3.0, 4.0])   # a CI of ~100 %: never met
        return xr.Dataset({"response_ms": (("replication",), x), "unstable": ((), np.int8(0))})

    ds = P.simulate_to_precision(None, 1e-6, ios=1000, max_ios=2**62, replications=4, simulate=fake)
    assert int(ds["ios_used"]) == ran[-1] and int(ds["precision_rounds"]) == len(ran) == P.MAX_ROUNDS
    assert int(ds["ios_spent"]) == sum(ran)


def test_cli_prints_a_bad_input_in_one_line_and_exits_2(tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text('title = "t"\n[model.devices]\ngeometry = "3390"\nrotation_ms = 1e-300\n'
                    '[model.control_unit]\nmiss_policy = "read_through"\n')
    r = CliRunner().invoke(main, ["validate", str(spec)])
    assert r.exit_code == 2, r.output
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert len(lines) == 1 and "devices.rotation_ms" in lines[0]


@pytest.mark.parametrize("values, weights", [([5e-295], [0.72]), ([5e-295, 1e-300], [0.72, 1.0]),
                                             ([1e9, 1e-300], [1e300, 1.0])])
def test_an_empirical_duration_of_extreme_values_has_a_finite_mean_and_scv(values, weights):
    d = Dist.parse("x", {"dist": "empirical", "values": values, "weights": weights})
    assert math.isfinite(d.mean) and math.isfinite(d.scv) and d.scv >= 0


def test_empirical_weights_must_have_a_finite_sum():
    with pytest.raises(McioError, match="finite sum"):
        Dist.parse("x", {"dist": "empirical", "values": [1.0, 2.0], "weights": [1e308, 1e308]})
