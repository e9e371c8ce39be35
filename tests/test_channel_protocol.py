"""A channel's own connect-time protocol time (issue 30): ``[[topology.channel]] protocol_scale``
(default: its generation's, mcio.model.hardware) multiplies the ``channels.protocol_us_*``
settings on that channel only. Oracle: one I/O at a time per channel, every time deterministic,
so each workload's connect time is its channel's protocol time + its transfer, exactly.
"""
from __future__ import annotations

import numpy as np
import pytest

from mcio.engine import simulate
from mcio.engine.tables import tables_of
from mcio.model import Model
from mcio.model import hardware

KB, RECORDS = 4.0, 3
PROTO = {"protocol_us_per_command_ccw": 20.0, "protocol_us_per_io_zhpf": 5.0, "protocol_us_per_command_zhpf": 1.5}
CU_CMD = {"cu_us_per_command_ccw": 2.0, "cu_us_per_command_zhpf": 0.5}


def _model(zhpf: float, a: dict, b: dict, proto: dict | None = None) -> Model:
    """Two channels (a, b: their fields), each the only path of its own LCU and workload."""
    return Model.from_dict({
        "channels": {"zhpf_share": zhpf, "mp_scv": 0.0, **(PROTO if proto is None else proto)},
        "control_unit": CU_CMD,
        "topology": {
            "channel": [{"name": "A", "link_mb_s": 800.0, **a}, {"name": "B", "link_mb_s": 800.0, **b}],
            "control_unit": [{"name": "CU", "ha_servers": 8, "ha_service_us": 30.0,
                              "lcu": [{"name": "LA", "devices": 4, "channels": ["A"]},
                                      {"name": "LB", "devices": 4, "channels": ["B"]}]}],
            "workload": [{"name": n, "population": 1, "lcus": [lc],
                          "io": [{"name": "io", "kb": KB, "records": RECORDS}]}
                         for n, lc in (("wA", "LA"), ("wB", "LB"))],
        },
    }, where="test", user_set={})


def _expected_connect_ms(zhpf: bool, scale: float) -> float:
    if zhpf:
        us = PROTO["protocol_us_per_io_zhpf"] * scale + (PROTO["protocol_us_per_command_zhpf"] * scale
                                                         + CU_CMD["cu_us_per_command_zhpf"]) * RECORDS
    else:
        us = (PROTO["protocol_us_per_command_ccw"] * scale + CU_CMD["cu_us_per_command_ccw"]) * RECORDS
    return us / 1000.0 + KB / 800.0


@pytest.mark.parametrize("zhpf", [0.0, 1.0])
def test_a_channels_protocol_time_is_in_its_connect_time(zhpf):
    """Channel A at 2.5 x the settings, B at its generation's (Express16S: 800 / 1600 MB/s = 0.5,
    its link rate set back to 800 so only the protocol differs)."""
    m = _model(zhpf, {"protocol_scale": 2.5}, {"generation": "16S", "link_mb_s": 800.0, "path_mb_s": 1e6})
    assert hardware.channel_parameters("16S")["protocol_scale"].value == 0.5
    ds = simulate(m, ios=2000, replications=2, seed=3)
    conn = ds["workload_connect_ms"].sel(workload=["wA", "wB"]).mean("replication").values
    want = [_expected_connect_ms(zhpf == 1.0, 2.5), _expected_connect_ms(zhpf == 1.0, 0.5)]
    np.testing.assert_allclose(conn, want, rtol=1e-9)
    # and not the settings' own: the two differ by the scales' difference
    assert conn[0] - conn[1] > 1e-3
    # the capacity check's mean protocol demand: the two channels' (half the I/Os each)
    assert m.mean_demands_ms()["protocol"] == pytest.approx(sum(want) / 2 - KB / 800.0, rel=1e-12)


def test_no_own_protocol_time_packs_the_classes_own():
    """Every scale 1 (or no protocol time at all): no per-channel table, the kernels run as before."""
    assert tables_of(_model(0.0, {}, {})).ch_proto_ms is None
    assert tables_of(_model(0.0, {"generation": "4"}, {"generation": "16S"}, proto={})).ch_proto_ms is None
    t = tables_of(_model(0.0, {"generation": "8S"}, {"protocol_scale": 1.0}))
    assert t.ch_proto_ms is None          # Express8S is the reference generation: scale 1
    assert tables_of(_model(0.0, {"generation": "4"}, {})).ch_proto_ms is not None


def test_scale_one_is_bit_identical_to_the_settings():
    """A scale of 1 written out gives the same results, to the bit, as none."""
    a = simulate(_model(1.0, {}, {}), ios=1000, replications=2, seed=5)
    b = simulate(_model(1.0, {"protocol_scale": 1.0}, {"protocol_scale": 1.0}), ios=1000, replications=2, seed=5)
    for v in ("workload_connect_ms", "workload_response_ms", "response_ms"):
        np.testing.assert_array_equal(a[v].values, b[v].values)


def test_every_generation_has_a_protocol_scale_with_its_provenance():
    """The catalogue's scale: the reference (Express8S) link rate over the generation's, assumed."""
    for g in hardware.CATALOGUE.values():
        f = hardware.channel_parameters(g.name)["protocol_scale"]
        assert f.value == pytest.approx(800.0 / g.link_mb_s.value, rel=1e-12)
        assert f.source.startswith("assumed, because")
    assert hardware.CATALOGUE[hardware.PROTOCOL_REFERENCE].protocol_scale.value == 1.0
    assert "protocol time / Express8S protocol time" in hardware.listing("16S")
