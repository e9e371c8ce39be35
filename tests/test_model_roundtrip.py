"""A model written as a file reads back (mcio/model/effect.py effective_toml): a scenario's model
may carry fields without effect under its options (zHPF costs at zhpf_share 0, positional
parameters on an emulated device); Model.to_dict writes them, and read back as the user's file
they are refused. effective_toml (Model.to_toml, the stored ``model_toml``) writes what counts:
it reads back, the same model for the engine (results bit for bit), and a field set in vain by
the user is still refused."""
from __future__ import annotations

import tomllib

import numpy as np
import pytest
from click.testing import CliRunner

from mcio import McioError, Model, simulate
from mcio.cli import main
from mcio.model.effect import effective_dict, effective_toml
from mcio.scenarios import SCENARIO_OBJECTS

from golden_models import CASES, _base


def _scenario_models():
    for name, scn in sorted(SCENARIO_OBJECTS.items()):
        for v in list(scn.variants) or [None]:
            try:
                yield f"{name}:{v}", scn.model(v)
            except McioError:          # (isfc-link's non-shared link is no single model)
                continue


SCENARIO_MODELS = dict(_scenario_models())
GOLDEN = {n: Model.from_dict(s, where=n) for n, (s, _) in CASES.items() if isinstance(s, dict)}


def _same_results(a: Model, b: Model, **kw):
    da = simulate(a, ios=1500, replications=2, seed=3, **kw)
    db = simulate(b, ios=1500, replications=2, seed=3, **kw)
    assert list(da.data_vars) == list(db.data_vars)
    for v in da.data_vars:
        np.testing.assert_array_equal(da[v].values, db[v].values, err_msg=v)


def test_to_toml_writes_what_counts_and_reads_back_where_every_field_would_be_refused():
    import tomli_w
    m = SCENARIO_OBJECTS["ficon-channel"].model()
    assert m.to_toml() == effective_toml(m)
    assert Model.from_dict(tomllib.loads(m.to_toml())).open_bottleneck() == m.open_bottleneck()
    with pytest.raises(McioError, match="has no effect"):     # every field (to_dict): the builder's, in vain
        Model.from_dict(tomllib.loads(tomli_w.dumps(m.to_dict())))


@pytest.mark.parametrize("name", sorted(SCENARIO_MODELS))
def test_a_scenario_model_written_as_what_counts_reads_back_as_the_same_model(name):
    m = SCENARIO_MODELS[name]
    back = Model.from_dict(tomllib.loads(effective_toml(m)), where=name)
    assert back.open_bottleneck() == m.open_bottleneck()
    # and again: a fixed point
    assert effective_toml(Model.from_dict(tomllib.loads(effective_toml(back)))) == effective_toml(back)


@pytest.mark.parametrize("name", ["ficon-channel:flat_out", "zhpf-dump:zhpf", "cms-commit:seed",
                                  "dasd-mdc:phase1_mdc_track", "mm1-demo:rho50"])
def test_what_counts_gives_the_same_results_bit_for_bit(name):
    m = SCENARIO_MODELS[name]
    _same_results(m, Model.from_dict(tomllib.loads(effective_toml(m))))


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_the_golden_models_read_back(name):
    m = GOLDEN[name]
    back = Model.from_dict(tomllib.loads(effective_toml(m)))
    if name in ("zhpf_mix", "dasd_3390_read_through", "ficon_fast"):
        _same_results(m, back, allow_unstable=True)
    assert effective_dict(back) == effective_dict(m)


def test_a_field_the_user_sets_in_vain_is_still_refused():
    d = _base(workload={"type": "closed", "population": 4})
    d["workload"]["rate_iops"] = 1234.5
    with pytest.raises(McioError, match="rate_iops"):
        Model.from_dict(d)


def test_validate_show_prints_a_model_file_that_validates(tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text('scenario = "ficon-channel"\n')
    r = CliRunner().invoke(main, ["validate", str(spec), "--show"])
    assert r.exit_code == 0, r.output
    shown = r.output.split("every field that counts resolved\n", 1)[1].rsplit("\n" + str(spec), 1)[0]
    model = tmp_path / "m.toml"
    model.write_text(shown)
    r = CliRunner().invoke(main, ["validate", str(model)])
    assert r.exit_code == 0, r.output
