"""The planner's configuration as data (issue 28): [topology] parsed, validated and compiled to
Tables (mcio/model/topology*.py), the FICON generation catalogue (mcio/model/hardware.py), the
shipped example and its sweep. No simulation here: the kernels that run a Tables are tested by
their own modules."""
import copy
import dataclasses
import tomllib
from pathlib import Path

import numpy as np
import pytest

from mcio.engine.tables import legacy_tables, tables_of
from mcio.errors import McioError
from mcio.model import Model, hardware

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "topology" / "two_subsystems.toml"
SWEEP = ROOT / "examples" / "topology" / "two_subsystems_sweep.toml"


def same_tables(a, b) -> None:
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and np.array_equal(x, y), f.name
        else:
            assert x == y, f.name


def small(**over) -> dict:
    """Two channels (a group), one CU with one LCU, one open workload."""
    raw = {"topology": {
        "channel": [{"name": "A", "count": 2, "generation": "8S"}],
        "control_unit": [{"name": "CU1", "lcu": [{"name": "L1", "devices": 4, "channels": ["A"]}]}],
        "workload": [{"name": "W", "rate_iops": 1000.0, "io": [{"kb": 4.0}]}]}}
    for path, value in over.items():
        node = raw
        *head, last = path.split("/")
        for p in head:
            node = node[int(p)] if p.isdigit() else node[p]
        node[last] = value
    return raw


def raises(raw: dict, field: str, *words: str) -> McioError:
    with pytest.raises(McioError) as e:
        Model.from_dict(raw)
    assert e.value.field == field, str(e.value)
    for w in words:
        assert w in str(e.value), str(e.value)
    return e.value


# ---- the example compiles to the expected tables -------------------------------------------------

@pytest.fixture(scope="module")
def example():
    m = Model.from_toml(EXAMPLE)
    return m, tables_of(m)


def test_example_counts(example):
    m, t = example
    assert not t.legacy
    assert t.n_channels == 16 and t.ch_name[:4] == ["40", "41", "42", "43"]
    # 16 full-duplex channels x 2 directions, 2 ISLs x 2 physical directions, 2 CUs x port read/write,
    # 2 card data limits (Express4 cards; the Express8 cards have none)
    assert len(t.ln_name) == 32 + 4 + 4 + 2
    assert t.ln_kind.count("channel") == 32 and t.ln_kind.count("isl") == 4
    assert t.ln_kind.count("cu_port") == 4 and t.ln_kind.count("card") == 2
    assert t.cu_name == ["DS1", "DS2"] and t.lcu_name == ["LCU10", "LCU11", "LCU20", "LCU21"]
    assert len(t.dev_lcu) == 896 == m.devices["count"] and m.channels["count"] == 16
    assert list(np.bincount(t.dev_lcu)) == [256, 256, 192, 192]
    assert list(t.dev_cu[[0, 511, 512, 895]]) == [0, 0, 1, 1]
    assert t.wl_name == ["PROD", "BATCH", "TEST"]
    assert list(t.wl_rate_iops) == [30000.0, 4000.0, 3000.0] and m.workload["rate_iops"] == 37000.0
    assert m.workload["type"] == "open"
    assert list(t.card_name) == ["C1", "C2", "C3", "C4"] and list(t.ch_card) == [0] * 4 + [1] * 4 + [2] * 4 + [3] * 4
    assert np.all(t.card_start_ms == 0.0)


def test_example_routes_cross_isls_by_channel_index(example):
    _, t = example
    name = lambda ids: [t.ln_name[i] for i in ids]
    # channel 40 (index 0, DIRA) reads from DS2 (DIRB): its read link, ISL 0 % 2 = 0 DIRB>DIRA,
    # DS2's read port, card C1's data limit
    assert name(t.route(0, 1, 0)) == ["40.read", "ISL-AB.0:DIRB>DIRA", "DS2.port.read", "C1"]
    # to DS1 (same director): no ISL
    assert name(t.route(0, 0, 1)) == ["40.write", "DS1.port.write", "C1"]
    # channel 41 (index 1) takes ISL 1; a write from 44 (index 4, DIRB) to DS1 takes ISL 0 B>A
    assert name(t.route(1, 1, 0))[1] == "ISL-AB.1:DIRB>DIRA"
    assert name(t.route(4, 0, 1)) == ["44.write", "ISL-AB.0:DIRB>DIRA", "DS1.port.write", "C2"]
    # an Express8 channel's card has no data limit: nothing after the port
    assert name(t.route(8, 0, 0)) == ["50.read", "DS1.port.read"]
    assert t.ln_kb_per_ms[t.ch_link[0, 0]] == 400.0 and t.ln_kb_per_ms[t.ch_link[8, 0]] == 800.0
    isl = [i for i, k in enumerate(t.ln_kind) if k == "isl"]
    assert all(t.ln_kb_per_ms[i] == 800.0 and t.ln_dir[i] == "both" for i in isl)
    # full duplex: a link per direction
    assert t.ch_link[0, 0] != t.ch_link[0, 1] and t.ln_dir[t.ch_link[0, 0]] == "read"


def test_example_path_groups_from_lcus(example):
    _, t = example
    ids = lambda names: tuple(t.ch_name.index(n) for n in names)
    g10 = ids(["40", "41", "44", "45", "50", "51", "54", "55"])
    g11 = ids(["42", "43", "46", "47", "52", "53", "56", "57"])
    assert t.groups == [g10, g11]
    # LCU10 and LCU20 share a path group, as do LCU11 and LCU21
    assert list(t.dev_grp[[0, 256, 512, 704]]) == [0, 1, 0, 1]


def test_example_classes_shares_directions(example):
    _, t = example
    assert t.cls_name == ["PROD.oltp.read", "PROD.oltp.write", "BATCH.seq.read", "BATCH.seq.write",
                          "TEST.small.read", "TEST.small.write", "TEST.large.read", "TEST.large.write"]
    assert list(t.cls_dir) == [0, 1] * 4 and list(t.cls_wl) == [0, 0, 1, 1, 2, 2, 2, 2]
    # open: shares of all I/Os (rate-weighted), summing to 1
    # each class's share of its workload's I/Os (the workloads' rates weigh them in the kernel)
    assert np.bincount(t.cls_wl, weights=t.cls_share) == pytest.approx([1.0, 1.0, 1.0])
    assert t.cls_share[0] == pytest.approx(0.75)
    assert t.cls_share[7] == pytest.approx(0.2 * 0.5)
    assert list(t.cls_miss) == [0.15, 0.0, 0.05, 0.0, 0.3, 0.0, 0.2, 0.0]
    assert list(t.cls_kb) == [4.0, 4.0, 27.0, 27.0, 4.0, 4.0, 56.0, 56.0]
    # workload devices: PROD all 896 (hotset), BATCH LCU11 + LCU21, TEST LCU20
    sizes = np.diff(t.wl_dev_ptr)
    assert list(sizes) == [896, 448, 192]
    for w in range(3):
        assert t.wl_dev_weight[t.wl_dev_ptr[w]:t.wl_dev_ptr[w + 1]].sum() == pytest.approx(1.0)
    batch = t.wl_dev[t.wl_dev_ptr[1]:t.wl_dev_ptr[2]]
    assert set(t.dev_lcu[batch]) == {1, 3}


def test_example_mp_per_channel_from_generations(example):
    _, t = example
    fex4, fex8 = hardware.channel_parameters("4"), hardware.channel_parameters("8")
    assert t.mp_ms[0, 0, 0] == pytest.approx(hardware.REFERENCE_MP_US_CCW / 1000)      # the fitted reference
    assert t.mp_ms[0, 0, 1] == pytest.approx(fex4["mp_us_per_io_zhpf"].value / 1000)
    assert t.mp_ms[8, 0, 0] == pytest.approx(fex8["mp_us_per_io_ccw"].value / 1000)
    assert t.mp_ms[8, 0, 1] == pytest.approx(hardware.REFERENCE_MP_US_CCW / 2.2 * 31 / 52 / 1000)
    assert list(t.ch_oe_cap) == [64] * 16


def test_example_capacity_and_load_scale(example):
    m, _ = example
    station, u, rate = m.open_bottleneck()
    assert rate == 37000.0 and 0 < u < 1 and station == "control unit DS1 host adapter"
    m2 = m.replace("topology.load_scale", 2.0)
    assert m2.get("topology.load_scale") == 2.0
    assert list(tables_of(m2).wl_rate_iops) == [60000.0, 8000.0, 6000.0]
    assert m2.open_bottleneck()[1] == pytest.approx(2 * u)
    with pytest.raises(McioError) as e:
        m.replace("topology.load_scale", 10.0).check_open_capacity()
    assert e.value.field == "topology.load_scale" and "load_scale <" in e.value.allowed
    dem = m.mean_demands_ms()
    assert set(dem) == {"mp", "link", "protocol", "ha", "backend"} and dem["ha"] == pytest.approx(0.79673)   # the example's host adapter (ficon-channel's fitted ha_service_us)


def test_example_round_trips_through_toml(example):
    m, t = example
    text = m.to_toml()
    back = Model.from_dict(tomllib.loads(text))
    assert back == m and back.topology == m.topology
    same_tables(tables_of(back), t)
    d = m.to_dict()
    assert "io" not in d and "count" not in d["channels"] and "topology" in d
    assert "rate_iops" not in d["workload"] and "type" not in d["workload"]


def test_sweep_spec_is_the_model_plus_a_load_scale_axis():
    from mcio.sweep import load_spec
    assert SWEEP.read_text().startswith(EXAMPLE.read_text())
    spec = load_spec(SWEEP)
    assert spec.shape == (5,) and spec.axes[0].key == "topology.load_scale"
    assert spec.model == Model.from_toml(EXAMPLE)


def test_example_satisfies_the_schema():
    import jsonschema

    from mcio.model.schema import spec_schema
    for f in (EXAMPLE, SWEEP):
        jsonschema.validate(tomllib.loads(f.read_text()), spec_schema())


# ---- without [topology]: exactly the legacy tables -----------------------------------------------

@pytest.mark.parametrize("raw", [{}, {"channels": {"count": 4}, "devices": {"count": 8, "paths": [[0, 1], [2, 3]] * 4},
                                      "workload": {"type": "open", "rate_iops": 500.0},
                                      "io": [{"share": 3, "kb": 8.0}, {"share": 1, "miss_ratio": 0.5}]}])
def test_no_topology_gives_legacy_tables(raw):
    m = Model.from_dict(raw)
    assert m.topology is None and "topology" not in m.to_dict()
    same_tables(tables_of(m), legacy_tables(m))


# ---- smaller configurations ------------------------------------------------------------------------

def test_small_defaults_closed_half_duplex_cards():
    m = Model.from_dict(small())
    t = tables_of(m)
    assert t.ch_name == ["A.0", "A.1"] and t.groups == [(0, 1)]
    assert t.ln_kb_per_ms[0] == 800.0                       # Express8S from the catalogue
    raw = small(**{"topology/channel/0/duplex": "half", "topology/channel/0/card": "K",
                   "topology/channel/0/link_mb_s": 123.0, "topology/channel/0/mp_us_per_io_ccw": 50.0})
    raw["topology"]["card"] = [{"name": "K", "max_iops": 20000.0}]
    raw["topology"]["workload"] = [{"name": "W1", "population": 10, "io": [{"share": 1, "write_share": 1.0}]},
                                   {"name": "W2", "population": 30, "io": [{"name": "r"}, {"name": "w", "write_share": 0.5}]}]
    raw["topology"]["load_scale"] = 0.5
    m = Model.from_dict(raw)
    t = tables_of(m)
    assert list(t.ch_link[:, 0]) == list(t.ch_link[:, 1]) == [0, 1] and t.ln_dir[:2] == ["both", "both"]
    assert t.ln_kb_per_ms[0] == 123.0 and t.mp_ms[0, 0, 0] == 0.05
    assert t.card_start_ms[0] == pytest.approx(1000 / 20000) and t.route(0, 0, 0).tolist() == [0]
    assert m.workload["type"] == "closed" and list(t.wl_population) == [5, 15] and m.workload["population"] == 20
    assert t.cls_name == ["W1.io.write", "W2.r.read", "W2.w.read", "W2.w.write"]
    # closed: shares within each workload
    assert t.cls_share.tolist() == pytest.approx([1.0, 0.5, 0.25, 0.25])
    assert m.open_bottleneck() == ("", 0.0, 0.0)


def test_legacy_sections_give_defaults():
    raw = small()
    raw["channels"] = {"mp_us_per_command_ccw": 5.0, "max_open_exchanges": 32}
    raw["control_unit"] = {"ha_servers": 7}
    raw["topology"]["channel"] = [{"name": "X", "link_mb_s": 100.0}]
    raw["topology"]["control_unit"][0]["lcu"][0]["channels"] = ["X"]
    t = tables_of(Model.from_dict(raw))
    assert t.ch_oe_cap.tolist() == [32] and t.cu_ha_servers.tolist() == [7]
    assert t.mp_ms[0, 0, 0] == pytest.approx((20.0 + 5.0) / 1000)        # legacy per-I/O default + per command


def test_replace_a_nested_field():
    m = Model.from_dict(small())
    m2 = m.replace("topology.channel.0.generation", "16S+")
    assert tables_of(m2).ln_kb_per_ms[0] == 1600.0
    with pytest.raises(McioError):
        m.replace("topology.channel.0.generation", "Express99")


# ---- every validation error names its field --------------------------------------------------------

def test_unknown_names_suggest_close_matches():
    raw = small(**{"topology/channel/0/card": "C9"})
    raw["topology"]["card"] = [{"name": "C1"}]
    raises(raw, "topology.channel[0].card", "unknown card", "did you mean 'C1'")
    raises(small(**{"topology/control_unit/0/lcu/0/channels": ["B"]}), "topology.control_unit[0].lcu[0].channels[0]",
           "unknown channel")
    raises(small(**{"topology/workload/0/lcus": ["L2"]}), "topology.workload[0].lcus[0]", "did you mean 'L1'")
    raises(small(**{"topology/channel/0/generation": "16Sx"}), "topology.channel[0].generation", "allowed")
    raises(small(**{"topology/channel/0/duplx": "half"}), "topology.channel[0].duplx", "did you mean 'duplex'")
    raises(small(**{"topology/cards": []}), "topology.cards", "did you mean 'card'")


def test_duplicate_names():
    raw = small()
    raw["topology"]["channel"].append({"name": "A.1"})
    raises(raw, "topology.channel[1].name", "duplicate channel name", "topology.channel[0].name")
    raw = small()
    raw["topology"]["control_unit"].append({"name": "CU1", "lcu": [{"name": "L2", "devices": 1, "channels": ["A.0"]}]})
    raises(raw, "topology.control_unit[1].name", "duplicate control unit")
    raw = small()
    raw["topology"]["control_unit"][0]["lcu"].append({"name": "L1", "devices": 1, "channels": ["A.0"]})
    raises(raw, "topology.control_unit[0].lcu[1].name", "duplicate LCU")


def test_path_group_of_more_than_8_channels():
    raw = small(**{"topology/channel/0/count": 9})
    raises(raw, "topology.control_unit[0].lcu[0].channels", "at most 8 channels; this one has 9")
    raw = small(**{"topology/control_unit/0/lcu/0/channels": ["A", "A.0"]})
    raises(raw, "topology.control_unit[0].lcu[0].channels", "twice")


def test_lcu_of_more_than_256_devices():
    raises(small(**{"topology/control_unit/0/lcu/0/devices": 257}), "topology.control_unit[0].lcu[0].devices",
           "[1, 256]")


def test_unreachable_control_unit():
    raw = small(**{"topology/channel/0/director": "D1", "topology/control_unit/0/director": "D2"})
    raw["topology"]["director"] = [{"name": "D1"}, {"name": "D2"}]
    raises(raw, "topology.control_unit[0].lcu[0].channels", "no topology.isl between them")
    raw["topology"]["isl"] = [{"name": "I", "between": ["D1", "D2"], "mb_s": 800.0}]
    t = tables_of(Model.from_dict(raw))
    assert [t.ln_name[i] for i in t.route(1, 0, 1)] == ["A.1.write", "I.0:D1>D2"]
    raw["topology"]["isl"].append({"name": "J", "between": ["D2", "D1"], "mb_s": 800.0})
    raises(raw, "topology.isl[1].between", "one ISL group per pair")
    raises(small(**{"topology/channel/0/director": "D1"}), "topology.channel[0].director", "the topology has none")


@pytest.mark.parametrize("sec,key,value", [("channels", "count", 2), ("devices", "count", 4),
                                            ("devices", "paths", [[0]]), ("workload", "rate_iops", 10.0),
                                            ("workload", "population", 3)])
def test_conflicting_legacy_field_names_both(sec, key, value):
    raw = small()
    raw[sec] = {key: value}
    raises(raw, f"{sec}.{key}", "conflicts with [topology]", "remove")


def test_other_refusals():
    raw = small()
    raw["io"] = [{"kb": 8.0}]
    raises(raw, "io", "conflicts with [topology]")
    raw = small()
    raw["workload"] = {"type": "closed"}
    raises(raw, "workload.type", "its workloads are open")
    raw = small()
    raw["topology"]["workload"].append({"name": "V", "population": 3, "io": [{}]})
    raises(raw, "topology.workload[0]", "every workload is open")
    raises(small(**{"topology/workload/0/population": 3}), "topology.workload[0]", "exactly one")
    raw = small()
    raw["channels"] = {"link_mb_s": 100.0}          # every channel has a generation: no effect
    raises(raw, "channels.link_mb_s", "has no effect")
    raises(small(**{"topology/workload/0/zipf_s": 2.0}), "topology.workload[0].zipf_s", "has no effect")
    raises(small(**{"topology/control_unit/0/lcu/0/aliases": 2}), "topology.control_unit[0].lcu[0].aliases",
           "devices.aliases")
    raises(small(**{"topology/load_scale": 0.0}), "topology.load_scale", "> 0")
    raw = small()
    raw["topology"]["channel"] = [{"name": "A", "count": 200}, {"name": "B", "count": 57}]
    raises(raw, "topology.channel", "at most 256")


def test_errors_name_their_fields_in_model_files(tmp_path):
    p = tmp_path / "m.toml"
    p.write_text(EXAMPLE.read_text().replace('card = "C3"', 'card = "C33"'))
    with pytest.raises(McioError) as e:
        Model.from_toml(p)
    assert e.value.field == "topology.channel[2].card" and "did you mean 'C3'" in str(e.value)


# ---- the catalogue ---------------------------------------------------------------------------------

def test_every_catalogue_figure_has_a_source():
    for g in hardware.CATALOGUE.values():
        for f in dataclasses.fields(g):
            v = getattr(g, f.name)
            if isinstance(v, hardware.Fig):
                assert v.source.strip(), (g.name, f.name)
                if v.value is None:
                    assert "not found" in v.source or "not published" in v.source, (g.name, f.name)
        for k, fig in hardware.channel_parameters(g.name).items():
            assert fig.value is not None and fig.value > 0 and fig.source, (g.name, k)
            if k.startswith("mp_") and g.name != "4":
                assert "derived" in fig.source, (g.name, k)
    assert "fitted" in hardware.channel_parameters("4")["mp_us_per_io_ccw"].source
    assert "assumed" in hardware.channel_parameters("32S")["mp_us_per_io_zhpf"].source


def test_catalogue_lookup():
    assert hardware.generation("FICON Express16S+").name == "16S+"
    assert hardware.generation("express8s").name == "8S"
    with pytest.raises(McioError) as e:
        hardware.generation("16SB", "x.generation")
    assert e.value.field == "x.generation" and "did you mean" in str(e.value)
    # MP work falls as the published z/HPF rate grows
    z = [hardware.channel_parameters(n)["mp_us_per_io_zhpf"].value for n in ("4", "8", "8S", "16S", "16S+")]
    assert z == sorted(z, reverse=True)
    assert "FICON Express32S" in hardware.listing()


def test_topology_copy_is_independent():
    m = Model.from_dict(small())
    t = m.topology.tables()
    t.ch_oe_cap[:] = 1
    assert tables_of(m).ch_oe_cap.tolist() == [64, 64]
    assert copy.deepcopy(m) == m


# ---- the documentation -----------------------------------------------------------------------------

def test_docs_example_parses_and_field_table_is_current():
    from mcio.model.topology import markdown_fields
    text = (ROOT / "docs" / "topology.md").read_text()
    block = text.split("```toml\n", 1)[1].split("```", 1)[0]
    m = Model.from_dict(tomllib.loads(block))
    t = tables_of(m)
    assert t.ch_name == ["fex8s.0", "fex8s.1"] and len(t.dev_lcu) == 64 and t.cls_name == ["PROD.oltp.read", "PROD.oltp.write"]
    assert text.rstrip().endswith(markdown_fields().rstrip()), \
        "regenerate docs/topology.md's field reference from mcio.model.topology.markdown_fields()"


def test_cli_hardware_lists_the_catalogue():
    from click.testing import CliRunner

    from mcio.cli import main
    r = CliRunner().invoke(main, ["hardware"])
    assert r.exit_code == 0 and "FICON Express8S" in r.output and "92,000" in r.output and "mp_us_per_io_zhpf" in r.output
    r = CliRunner().invoke(main, ["hardware", "16SB"])
    assert r.exit_code != 0


def test_unused_elements_are_refused():
    raw = small()
    raw["topology"]["card"] = [{"name": "K"}]
    raises(raw, "topology.card[0].name", "no channel sits on this card")
    raw = small()
    raw["topology"]["channel"].append({"name": "spare"})
    raises(raw, "topology.channel[1].name", "no LCU's path group uses this channel")
    raw = small()
    raw["topology"]["director"] = [{"name": "D"}]
    raises(raw, "topology.director[0].name", "no channel or control unit")
    raw = small(**{"topology/channel/0/director": "D1", "topology/control_unit/0/director": "D1"})
    raw["topology"]["director"] = [{"name": "D1"}, {"name": "D2"}]
    raw["topology"]["isl"] = [{"name": "I", "between": ["D1", "D2"], "mb_s": 800.0}]
    raises(raw, "topology.director[1].name", "no channel or control unit")
    raw["topology"]["channel"].append({"name": "B", "director": "D2"})
    raw["topology"]["control_unit"].append({"name": "CU2", "director": "D2",
                                            "lcu": [{"name": "L2", "devices": 1, "channels": ["B"]}]})
    raises(raw, "topology.isl[0].name", "no path group crosses")


def test_a_topology_model_pickles():
    import pickle
    m = Model.from_toml(EXAMPLE)
    back = pickle.loads(pickle.dumps(m))
    assert back == m
    same_tables(tables_of(back), tables_of(m))


def test_a_single_path_topology_matches_the_legacy_model():
    """One CU, one LCU on every channel, one workload, half duplex: the same tables (but names)
    and the same mean demands and utilisations as the legacy model it restates."""
    common = {"channels": {"link_mb_s": 400.0, "mp_us_per_io_ccw": 30.0, "mp_us_per_command_ccw": 2.0,
                           "mp_us_per_io_zhpf": 12.0, "zhpf_share": 0.3, "max_open_exchanges": 32},
              "control_unit": {"ha_servers": 4, "ha_service_us": 300.0, "backend_servers": 8,
                               "backend_service_ms": {"dist": "exponential", "mean": 2.0}}}
    io = [{"name": "a", "share": 3.0, "kb": 4.0, "miss_ratio": 0.2},
          {"name": "b", "share": 1.0, "kb": 16.0, "records": 2, "miss_ratio": 0.5}]
    legacy = Model.from_dict({**copy.deepcopy(common), "io": io,
                              "channels": {**common["channels"], "count": 3},
                              "devices": {"count": 16, "skew": "zipf", "zipf_s": 0.8},
                              "workload": {"type": "open", "rate_iops": 5000.0}})
    topo = Model.from_dict({**copy.deepcopy(common), "devices": {"skew": "zipf", "zipf_s": 0.8},
                            "topology": {"channel": [{"name": "ch", "count": 3, "duplex": "half"}],
                                         "control_unit": [{"name": "cu0", "lcu": [{"name": "lcu0", "devices": 16,
                                                                                   "channels": ["ch"]}]}],
                                         "workload": [{"name": "workload", "rate_iops": 5000.0, "io": io}]}})
    a, b = tables_of(topo), legacy_tables(legacy)
    for f in ("ch_oe_cap", "ch_card", "ch_link", "mp_ms", "ln_kb_per_ms", "rt_ptr", "rt_ln", "cu_ha_servers",
              "cu_be_servers", "lcu_cu", "dev_lcu", "dev_cu", "dev_grp", "wl_rate_iops", "wl_population",
              "wl_dev_ptr", "wl_dev", "cls_wl", "cls_dir", "cls_kb", "cls_records", "cls_miss"):
        assert np.allclose(getattr(a, f), getattr(b, f)), f
    assert np.allclose(a.wl_dev_weight, b.wl_dev_weight) and np.allclose(a.cls_share, b.cls_share)
    assert a.groups == b.groups and a.cu_ha_service_ms == b.cu_ha_service_ms
    assert a.cu_be_service_ms == b.cu_be_service_ms and a.ln_dir == b.ln_dir
    for k, v in legacy.mean_demands_ms().items():
        assert topo.mean_demands_ms()[k] == pytest.approx(v), k
    _, u_legacy, rate = legacy.open_bottleneck()
    _, u_topo, rate_topo = topo.open_bottleneck()
    assert rate_topo == rate and u_topo == pytest.approx(u_legacy)
    from mcio.model import topology_tables as tt
    util = tt.utilisations(a, topo.topology.parsed, {"channels": topo.channels, "control_unit": topo.control_unit})
    dem = legacy.mean_demands_ms()
    assert util["channel ch.0 MP"] == pytest.approx(5.0 * dem["mp"] / 3)
    assert util["channel link ch.0"] == pytest.approx(5.0 * dem["link"] / 3)
    assert util["control unit cu0 host adapter"] == pytest.approx(5.0 * dem["ha"] / 4)
    assert util["control unit cu0 back end"] == pytest.approx(5.0 * dem["backend"] / 8)


def test_devices_aliases_counts_even_when_every_lcu_repeats_it():
    raw = small(**{"topology/control_unit/0/lcu/0/aliases": 2})
    raw["devices"] = {"aliases": 2}
    assert Model.from_dict(raw).devices["aliases"] == 2
