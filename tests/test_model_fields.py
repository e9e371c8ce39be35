"""The one declaration of the model's fields: physical bounds refuse nonsense, misspelt keys get
a suggestion, shares that do not sum to 1 get a note, and the JSON Schema and the defaults table
(docs/model.md) are generated from it and agree with what validation accepts."""
import tomllib
from pathlib import Path

import jsonschema
import pytest

from mcio import McioError, Model
from mcio.model.schema import markdown_table, model_schema, spec_schema
from mcio.model.spec import SECTIONS

ROOT = Path(__file__).parent.parent


@pytest.mark.parametrize("raw, field", [
    ({"workload": {"type": "open", "rate_iops": 1e308}}, "workload.rate_iops"),
    ({"workload": {"type": "open", "rate_iops": 5e-324}}, "workload.rate_iops"),
    ({"workload": {"type": "open", "rate_iops": 1e-10}}, "workload.rate_iops"),
    ({"channels": {"link_mb_s": 1e308}}, "channels.link_mb_s"),
    ({"channels": {"link_mb_s": 5e-324}}, "channels.link_mb_s"),
    ({"channels": {"mp_scv": 1e308}}, "channels.mp_scv"),
    ({"workload": {"type": "open", "arrival_scv": 1e308}}, "workload.arrival_scv"),
    ({"workload": {"think_ms": 2**63}}, "workload.think_ms"),
    ({"workload": {"think_ms": {"dist": "gamma", "mean": 1.0, "scv": 1e9}}}, "workload.think_ms.scv"),
    ({"workload": {"population": 10**7}}, "workload.population"),
])
def test_extreme_values_are_refused_by_their_physical_bounds(raw, field):
    with pytest.raises(McioError) as e:
        Model.from_dict(raw)
    assert e.value.field == field
    assert "must be" in e.value.allowed


def test_misspelt_keys_get_a_suggestion():
    with pytest.raises(McioError, match="did you mean 'link_mb_s'"):
        Model.from_dict({"channels": {"link_mbs": 800}})
    with pytest.raises(McioError, match="did you mean 'channels'"):
        Model.from_dict({"chanels": {}})
    with pytest.raises(McioError) as e:
        Model.from_dict({"channels": {"zzz": 1}})
    assert "did you mean" not in str(e.value)


def test_shares_that_do_not_sum_to_one_get_a_note():
    m = Model.from_dict({"io": [{"share": 0.5}, {"share": 0.3}]})
    notes = m.notes()
    assert len(notes) == 1 and "sum to 0.8" in notes[0] and "0.625" in notes[0]
    assert Model.from_dict({"io": [{"share": 0.75}, {"share": 0.25}]}).notes() == []
    assert Model.from_dict({"io": [{"share": 3}, {"share": 1}]}).notes() == []   # plainly relative


def test_the_shipped_examples_satisfy_the_schema():
    schema = spec_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    files = sorted((ROOT / "examples").glob("*.toml")) + sorted((ROOT / "mcio" / "examples").glob("*.toml"))
    assert files
    for f in files:
        jsonschema.validate(tomllib.loads(f.read_text()), schema)


def test_schema_and_validation_agree_on_bounds():
    schema = model_schema()
    v = jsonschema.Draft202012Validator(schema)
    for raw in ({"channels": {"link_mb_s": 5e-324}}, {"workload": {"population": 0}},
                {"channels": {"selection": "random"}}, {"channels": {"link_mbs": 1}}):
        assert list(v.iter_errors(raw)), raw
        with pytest.raises(McioError):
            Model.from_dict(raw)
    ok = {"workload": {"type": "open", "rate_iops": 500.0}, "io": [{"kb": 8.0}],
          "control_unit": {"backend_service_ms": {"dist": "gamma", "mean": 1.0, "scv": 0.5}}}
    assert not list(v.iter_errors(ok))
    Model.from_dict(ok)


def test_every_field_has_a_doc_and_the_defaults_table_is_current():
    for sec, fields in SECTIONS.items():
        for key, f in fields.items():
            assert f.doc and hasattr(f.check, "schema"), (sec, key)
    assert (ROOT / "docs" / "model.md").read_text().strip() == markdown_table().strip(), \
        "regenerate: python -m mcio.model.schema --markdown > docs/model.md"
