"""Physical results only: a stable point's figures obey the bounds physics sets (busy in [0, 1] per
server, an open load's throughput not above what was offered beyond sampling error, components
summing to the response); a run too short for that is flagged unstable with its reason, never
stored as stable (mcio/engine/physics.py). Small runs only."""
from __future__ import annotations

import numpy as np
import pytest

from mcio import McioError, Model, simulate
from mcio.engine import physics
from mcio.scenarios import get_scenario
from mcio.sweep import load_spec, sweep


def _mm1(rate=500.0, **workload):
    return Model.from_dict({"workload": {"type": "open", "rate_iops": rate, **workload},
                            "io": [{"kb": 0.0, "miss_ratio": 1.0}], "channels": {"mp_us_per_io_ccw": 0.0},
                            "control_unit": {"backend_service_ms": {"dist": "exponential", "mean": 1.0}}})


def test_one_io_per_replication_is_flagged_too_short_not_stored_as_stable():
    ds = simulate(get_scenario("mm1-demo").model("rho50"), ios=1, replications=4, seed=1)
    assert int(ds.unstable) == 1 and "too short" in ds.attrs["unstable_reason"]


def test_reproduce_of_a_run_too_short_is_a_clear_error_not_busy_1e300():
    from mcio.scenarios.base import RunSize
    with pytest.raises(McioError) as e:
        get_scenario("mm1-demo").reproduce(RunSize(ios=1, replications=4, seed=1))
    assert e.value.field == "--ios" and "too short" in e.value.allowed


@pytest.mark.parametrize("ios", ["1", "2"])
def test_mcio_run_of_a_run_too_short_is_one_error_line_not_a_rate_of_1e303(ios, tmp_path):
    """(found by the CLI fuzzer: ``mcio run SPEC --ios 1`` printed an I/O rate of 1e303 under a
    header blaming an overload, and NumPy's warnings)"""
    from click.testing import CliRunner
    from mcio.cli import main
    spec = tmp_path / "s.toml"
    spec.write_text('title = "s"\nscenario = "mm1-demo"\n[run]\nreplications = 2\nios = 2000\n')
    r = CliRunner().invoke(main, ["run", str(spec), "--ios", ios])
    assert r.exit_code == 2, r.output + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"mcio: error: --ios = {ios}: run too short"), r.stderr
    assert "e+" not in r.output and "Warning" not in r.stderr


def test_the_documented_maximum_arrival_scv_on_the_fast_path_is_flagged_when_the_run_is_short():
    ds = simulate(_mm1(300.0, arrival_scv=1e4), ios=2000, replications=4, seed=1)
    assert ds.attrs["engine"].startswith("fast-path")
    assert int(ds.unstable) == 1 and "SCV 10000" in ds.attrs["unstable_reason"]


def test_short_fast_path_runs_near_capacity_are_flagged_when_busy_exceeds_one():
    ds = simulate(_mm1(990.0), ios=50, replications=8, seed=3)
    assert float(ds.backend_busy.max()) > 1.0            # the fast path's interval, 50 I/Os, rho 0.99
    assert int(ds.unstable) == 1 and "backend_busy" in ds.attrs["unstable_reason"]


@pytest.mark.parametrize("model, ios", [
    (_mm1(500.0), 5_000),
    (_mm1(900.0, arrival_scv=4.0), 5_000),
    (Model.from_dict({"workload": {"type": "closed", "population": 6}, "devices": {"count": 3, "aliases": 1},
                      "io": [{"kb": 8.0, "miss_ratio": 0.4}], "channels": {"count": 2},
                      "control_unit": {"backend_service_ms": 2.0, "ha_service_us": 40.0}}), 5_000),
    (Model.from_dict({"workload": {"type": "open", "rate_iops": 40.0}, "devices": {"geometry": "3390"},
                      "io": [{"kb": 4.0, "miss_ratio": 1.0}], "control_unit": {"miss_policy": "read_through"}}),
     2_000),
], ids=["mm1", "g-m-1", "closed-aliases", "positional"])
def test_a_stable_point_obeys_busy_throughput_and_component_bounds(model, ios):
    ds = simulate(model, ios=ios, replications=2, seed=5)
    assert int(ds.unstable) == 0, ds.attrs["unstable_reason"]
    for v in ("channel_busy", "link_busy", "cu_ha_busy", "backend_busy"):
        assert ((ds[v].values >= 0) & (ds[v].values <= 1 + 1e-9)).all(), v   # (to rounding)
    assert (ds.device_busy.values <= physics.device_servers(model)).all()
    total = ds.iosq_ms + ds.pend_ms + ds.disconnect_ms + ds.connect_ms
    assert np.allclose(total.values, ds.response_ms.values, rtol=1e-9)
    rate = physics.offered_iops(model)
    if rate is not None:
        assert (ds.throughput_iops.values <= rate * 1.1).all()


class _FakePart:
    def __init__(self, **v):
        self.vars = {k: ((), np.asarray(x, float), {}, False) for k, x in v.items()}

    def data(self, name):
        return self.vars[name][1]


_OK = dict(ios_measured=[1000, 1000], channel_busy=[[0.5], [0.5]], device_busy=[0.4, 0.4],
           throughput_iops=[500.0, 510.0], response_ms=[2.0, 2.0], iosq_ms=[1.0, 1.0], pend_ms=[0.0, 0.0],
           disconnect_ms=[1.0, 1.0], connect_ms=[0.0, 0.0])


@pytest.mark.parametrize("change, words", [
    ({}, ""),
    ({"channel_busy": [[0.5], [1.2]]}, "channel_busy 1.2"),
    ({"device_busy": [-0.1, 0.4]}, "device_busy -0.1"),
    ({"throughput_iops": [500.0, 1100.0]}, "throughput 1100"),
    ({"response_ms": [2.0, 2.5]}, "components do not sum"),
])
def test_each_physical_bound_is_named_when_broken(change, words):
    reason = physics.violation(_mm1(500.0), _FakePart(**{**_OK, **change}))
    assert (reason == "") if not words else (words in reason), reason


def test_too_short_needs_two_ios_and_four_per_unit_of_arrival_scv():
    assert physics.too_short(_mm1(), 1) and not physics.too_short(_mm1(), 4)
    assert physics.too_short(_mm1(arrival_scv=0.0), 3) and not physics.too_short(_mm1(arrival_scv=0.0), 4)
    assert physics.too_short(_mm1(arrival_scv=100.0), 399) and not physics.too_short(_mm1(arrival_scv=100.0), 400)
    closed = Model.from_dict({})
    assert physics.too_short(closed, 1) == ""


def test_a_sweep_stores_a_too_short_point_as_unstable_with_its_reason():
    ds = sweep(load_spec({"scenario": "mm1-demo", "sweep": {"workload.rate_iops": [100.0, 500.0]},
                          "run": {"ios": 1, "replications": 2, "warmup": 10}}))
    assert ds.unstable.values.all()
    assert all("too short" in r for r in ds.unstable_reason.values)
    assert np.isnan(ds.response_ms.values).all()


@pytest.mark.parametrize("n, busy, flagged", [(100_000, 1.00002, False), (100_000, 1.001, True),
                                              (7, 1.26, True), (7, 1.0 + 1e-12, False)])
def test_a_busy_over_its_bound_is_excused_only_by_a_small_edge_that_covers_it(n, busy, flagged):
    # (a busy figure counts whole the I/Os in service when the interval began: ~c / n of it)
    part = _FakePart(**{**_OK, "ios_measured": [n, n], "device_busy": [0.5, busy], "throughput_iops": [500.0, 500.0]})
    assert bool(physics.violation(_mm1(500.0), part)) is flagged
