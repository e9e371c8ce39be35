"""Sweep specs expand into the right grid, errors name the key, points get their own streams, and
the assembled Dataset has the sweep axes as labelled dimensions with values the oracles predict."""
import importlib
import numpy as np
import pytest

from mcio.errors import McioError
from mcio.scenarios import SCENARIOS, build_scenario, describe
from mcio.sweep import load_spec, sweep
from sweep_specs import FICON_GRID, MM1_RATES, write

points_mod = importlib.import_module("mcio.batch.points")  # where the engine call _simulate lives (tests substitute it)

# ---- the spec -----------------------------------------------------------------------------


def test_grid_axes_dims_and_c_order():
    s = load_spec(FICON_GRID)
    assert s.dims == ("population", "count")
    assert s.shape == (3, 2) and s.n_points == 6
    # C order: the last axis varies fastest
    assert [tuple(s.coords(p).values()) for p in range(6)] == [(2, 1), (2, 2), (8, 1), (8, 2), (32, 1), (32, 2)]
    m = s.point_model(3)
    assert m.workload["population"] == 8 and m.channels["count"] == 2
    assert m.devices["count"] == 64  # untouched fields come from the base model


def test_ranges_linear_log_and_integer_rounding():
    s = load_spec("""
[sweep]
"workload.population" = {start = 1, stop = 400, num = 12, log = true}
"channels.mp_us_per_io_ccw" = {start = 10, stop = 30, num = 3}
""")
    pop, mp = (a.values for a in s.axes)
    assert mp == (10.0, 20.0, 30.0)
    # integer field: geometric values rounded, duplicates dropped, ends kept
    assert pop[0] == 1 and pop[-1] == 400 and all(isinstance(v, int) for v in pop)
    assert list(pop) == sorted(set(pop))
    expect = list(dict.fromkeys(int(round(x)) for x in np.geomspace(1, 400, 12)))
    assert list(pop) == expect


def test_dim_names_unique_short_else_dunder():
    s = load_spec("""
[model]
io = [{name = "r", kb = 4.0}, {name = "w", kb = 8.0}]
[sweep]
"io.0.kb" = [4.0, 8.0]
"io.1.kb" = [16.0, 32.0]
"control_unit.backend_service_ms.mean" = [1.0]
"workload.population" = [1]
""")
    assert s.dims == ("io__0__kb", "io__1__kb", "backend_service_ms__mean", "population")
    assert s.axes[0].attrs["mcio_key"] == "io.0.kb" and s.axes[0].attrs["units"] == "kB"
    assert s.axes[2].attrs["units"] == "ms"


def test_bare_model_file_is_a_one_point_spec():
    s = load_spec("[workload]\npopulation = 3\n[channels]\ncount = 2\n")
    assert s.n_points == 1 and s.axes == ()
    assert s.point_model(0).workload["population"] == 3


def test_scenario_spec_and_registry():
    assert "mm1-demo" in SCENARIOS and describe("mm1-demo").startswith("M/M/1")
    s = load_spec(MM1_RATES)
    assert s.scenario == "mm1-demo"
    assert [s.point_model(p).workload["rate_iops"] for p in range(3)] == [200.0, 500.0, 700.0]
    assert build_scenario("mm1-demo", {"service_ms": 2.0}).control_unit["backend_service_ms"].mean == 2.0


@pytest.mark.parametrize("text, field", [
    ("colour = 1", "colour"),                                                   # unknown top-level key
    ("[run]\nreplicatons = 2", "run.replicatons"),                              # unknown run key
    ("[run]\nios = 0", "run.ios"),
    ("[run]\nseed = -1", "run.seed"),
    ("[model.workload]\npopulaton = 3", "model.workload.populaton"),            # unknown model key
    ("[model.channels]\ncount = 0", "model.channels.count"),
    ('scenario = "nope"', "scenario"),
    ('scenario = "mm1-demo"\n[scenario_params]\nrate = 1', "scenario_params.rate"),
    ('scenario = "mm1-demo"\n[model.workload]\npopulation = 2', "scenario"),
    ('[sweep]\n"workload.population" = [0, 1]', "sweep.workload.population"),  # value out of range
    ('[sweep]\n"workload.populaton" = [1]', "sweep.workload.populaton"),        # no such field
    ('[sweep]\n"wrkload.population" = [1]', "sweep.wrkload.population"),       # no such section
    ('[sweep]\n"workload.population" = []', "sweep.workload.population"),
    ('[sweep]\n"workload.population" = [1, "a"]', "sweep.workload.population"),
    ('[sweep]\n"workload.population" = {start = 0, stop = 9, num = 3, log = true}', "sweep.workload.population.start"),
    ('[sweep]\n"workload.population" = {start = 1, stop = 9}', "sweep.workload.population.num"),
    ('[sweep]\n"workload.population" = {start = 1, stop = 9, num = 3, step = 2}', "sweep.workload.population.step"),
])
def test_errors_name_the_key(text, field):
    with pytest.raises(McioError) as e:
        load_spec(text + "\n")
    assert e.value.field.startswith(field), str(e.value)


def test_missing_file_and_bad_toml(tmp_path):
    with pytest.raises(McioError, match="does not exist"):
        load_spec(tmp_path / "nope.toml")
    with pytest.raises(McioError, match="not valid TOML"):
        load_spec(write(tmp_path, "x = [\n"))


# ---- running ------------------------------------------------------------------------------


def test_each_point_gets_its_own_stream(monkeypatch):
    calls = []
    real = points_mod._simulate

    def spy(model, **kw):
        calls.append(kw)
        return real(model, **kw)

    monkeypatch.setattr(points_mod, "_simulate", spy)
    # a string axis that changes nothing the engine uses: the points differ only by their stream
    ds = sweep("""
scenario = "mm1-demo"
[sweep]
"io.0.name" = ["a", "b", "c"]
[run]
replications = 2
ios = 2000
warmup = 1000
seed = 5
""")
    assert [c["point"] for c in calls] == [0, 1, 2]
    assert all(c["seed"] == 5 and c["allow_unstable"] for c in calls)
    r = ds["response_ms"].values
    assert r.shape == (3, 2)
    assert not np.array_equal(r[0], r[1]) and not np.array_equal(r[1], r[2])
    assert list(ds["name"].values) == ["a", "b", "c"]


def test_mm1_sweep_matches_the_closed_form():
    """Mean response at each rate within the sweep's own 95 % CI (widened for the t-interval's
    4 replications, and for 3 simultaneous comparisons: 2x) of S / (1 - rho)."""
    ds = sweep(MM1_RATES)
    assert ds["response_ms"].dims == ("rate_iops", "replication")
    rate = ds["rate_iops"].values
    exact = 1.0 / (1.0 - rate * 1.0 / 1000.0)
    mean = ds["response_ms"].mean("replication").values
    ci = ds["response_ci95_ms"].values
    assert np.all(ci > 0)
    assert np.all(np.abs(mean - exact) <= 2 * ci), (mean, exact, ci)
    # throughput equals the offered rate in an open stable system
    x = ds["throughput_iops"].mean("replication").values
    xci = ds["throughput_ci95_iops"].values
    assert np.all(np.abs(x - rate) <= 2 * xci + 1e-9)
    assert ds["unstable"].dtype == np.int8 and not ds["unstable"].any()


def test_grid_dataset_layout_and_channel_padding():
    ds = sweep(FICON_GRID)
    assert ds.sizes["population"] == 3 and ds.sizes["count"] == 2 and ds.sizes["channel"] == 2
    assert ds["response_ms"].dims == ("population", "count", "replication")
    assert ds["channel_busy"].dims == ("population", "count", "replication", "channel")
    assert ds["response_quantile_ms"].dims == ("population", "count", "quantile")
    # one channel: the second channel slot does not exist and is NaN, not zero
    assert np.isnan(ds["channel_busy"].sel(count=1, channel=1)).all()
    assert np.isfinite(ds["channel_busy"].sel(count=2)).all()
    for name, v in ds.variables.items():
        if name not in ("replication", "channel", "quantile", "name"):
            assert "units" in v.attrs and "long_name" in v.attrs, name
    assert ds["population"].attrs["mcio_key"] == "workload.population"
    # more I/Os in flight: more throughput on one channel, until the channel saturates
    x = ds["throughput_iops"].mean("replication").sel(count=1).values
    assert x[0] < x[1] <= x[2] * 1.05


def test_unstable_open_points_are_flagged_not_errors():
    """Channel MP at 80 us per I/O saturates at 12,500 I/O per second: 20,000 is over capacity."""
    ds = sweep("""
[model.workload]
type = "open"
rate_iops = 5000.0
[model.devices]
count = 64
aliases = 3
[model.channels]
mp_us_per_io_ccw = 80.0
[sweep]
"workload.rate_iops" = [5000.0, 20000.0]
[run]
replications = 2
ios = 200000
warmup = 1000
""")
    assert list(ds["unstable"].values) == [0, 1]
    assert ds["throughput_iops"].sel(rate_iops=20000.0).mean() < 12_600


# ---- named variants -------------------------------------------------------------------------


def test_variants_are_a_leading_string_dimension_with_common_random_numbers(monkeypatch):
    from sweep_specs import VARIANT_GRID
    s = load_spec(VARIANT_GRID)
    assert s.dims == ("variant", "population") and s.shape == (3, 2)
    assert [s.coords(p)["variant"] for p in range(6)] == ["ccw"] * 2 + ["fast_mp"] * 2 + ["fast_mp_again"] * 2
    # streams keyed by the index over the sweep axes alone: the variants of one population share one
    assert [s.stream_index(p) for p in range(6)] == [0, 1, 0, 1, 0, 1]
    assert s.point_model(0).channels["mp_us_per_io_ccw"] == 80.0
    assert s.point_model(3).channels["mp_us_per_io_ccw"] == 40.0 and s.point_model(3).workload["population"] == 8
    calls = []
    real = points_mod._simulate
    monkeypatch.setattr(points_mod, "_simulate", lambda m, **kw: calls.append(kw["point"]) or real(m, **kw))
    ds = sweep(s)
    assert calls == [0, 1, 0, 1, 0, 1]
    assert list(ds.variant.values) == ["ccw", "fast_mp", "fast_mp_again"]
    assert ds.response_ms.dims[:2] == ("variant", "population")
    r = ds.response_ms.values
    # the same model under two names on the same streams: bit-identical; a different model: not
    assert np.array_equal(r[1], r[2]) and not np.array_equal(r[0], r[1])
    assert (ds.channel_busy.sel(variant="fast_mp") < ds.channel_busy.sel(variant="ccw")).all()


def test_scenario_variants_override_scenario_params():
    s = load_spec("""
scenario = "mm1-demo"
[scenario_params]
service_ms = 1.0
[variants.base]
[variants.slow]
service_ms = 1.5
[variants.slow_disc]
"control_unit.backend_service_ms.mean" = 1.5
[sweep]
"workload.rate_iops" = [100.0, 200.0]
""")
    means = [s.point_model(p).control_unit["backend_service_ms"].mean for p in range(s.n_points)]
    assert means == [1.0, 1.0, 1.5, 1.5, 1.5, 1.5]
    assert s.point_model(5).workload["rate_iops"] == 200.0


@pytest.mark.parametrize("text,field", [
    ('[variants.a]\nzhpf_share = 1.0\n', "variants.a.zhpf_share"),                       # no scenario
    ('[variants.a]\n"chanels.count" = 2\n', "variants.a.chanels.count"),                  # bad section
    ('scenario = "mm1-demo"\n[variants.a]\nnope = 1\n', "variants.a: scenario_params.nope"),
    ('variants = 3\n', "variants"),
    ('[variants]\na = 1\n', "variants.a"),
])
def test_variant_errors_name_the_key(text, field):
    with pytest.raises(McioError) as e:
        load_spec(text)
    assert e.value.field == field, str(e.value)


def test_variant_sweep_file_and_resume(tmp_path, monkeypatch):
    from mcio.store import open_results, parts_dir
    from sweep_specs import VARIANT_GRID
    spec = write(tmp_path, VARIANT_GRID)
    ref = sweep(spec, out=tmp_path / "ref.h5")
    back = open_results(tmp_path / "ref.h5")
    assert list(back.variant.values) == ["ccw", "fast_mp", "fast_mp_again"]
    assert back.attrs["sweep_dims"] == "variant, population" and back.attrs["variants"].startswith("ccw")
    np.testing.assert_array_equal(back.response_ms.values, ref.response_ms.values)

    class Stop(Exception):
        pass

    def stop_after(done, total, ios):
        if done == 3:
            raise Stop

    out = tmp_path / "cut.h5"
    with pytest.raises(Stop):
        sweep(spec, out=out, progress=stop_after)
    from mcio.store import stored_points
    assert sorted(stored_points(out)) == [0, 1, 2]
    computed = []
    real = points_mod._simulate
    monkeypatch.setattr(points_mod, "_simulate", lambda m, **kw: computed.append(kw["point"]) or real(m, **kw))
    sweep(spec, out=out, resume=True)
    assert computed == [1, 0, 1]      # points 3, 4, 5: streams 1, 0, 1
    a = open_results(out)
    for k in ("date_created", "history"):
        a.attrs.pop(k), back.attrs.pop(k)
    import xarray as xr
    xr.testing.assert_identical(a, back)


def test_a_bare_number_on_a_distribution_axis_sets_its_mean_and_keeps_its_shape():
    # the analyst's-experience issue, item 2: [1.0, 2.0] on an exponential turned it constant
    from mcio.sweep import load_spec
    text = """scenario = "mm1-demo"
[sweep]
"control_unit.backend_service_ms" = [1.0, 2.0]
[run]
replications = 2
ios = 1000
"""
    s = load_spec(text)
    for p in range(2):
        d = s.point_model(p).control_unit["backend_service_ms"]
        assert d.kind == "exponential" and d.mean == [1.0, 2.0][p]
    emp = text.replace('scenario = "mm1-demo"', '[model.control_unit]\nbackend_service_ms = '
                       '{dist = "empirical", values = [1.0, 2.0]}')
    with pytest.raises(McioError, match="empirical"):
        load_spec(emp).point_model(0)
