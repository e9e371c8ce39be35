"""Read-through versus staging: how a miss's service splits into disconnect and connect, the
mapping onto today's engine fields, and the engine giving those components back."""
import numpy as np
import pytest

from mcio import Model, simulate
from mcio.dasd import (EMULATED3390, IBM3390, ControlUnitCache, SschKind, random_distance_pmf,
                       seek_curve_for_average, service_map, think_per_ssch)
from mcio.model import Dist

SEEK = seek_curve_for_average(12.5, 2.0, 3339)
PMF = random_distance_pmf(1113)
TRACK = 12 * 4096


def _map(policy, hit_rate=None, kinds=None, geom=IBM3390):
    kinds = kinds or [SschKind("miss", 1.0, 12, miss=True)]
    return service_map(kinds, geom=geom, seek=SEEK, cu=ControlUnitCache(policy, hit_rate), link_mb_s=17.0,
                       block_bytes=4096, distance_pmf=PMF, ccw_protocol_us=20.0)


def test_read_through_miss_long_connect_short_disconnect():
    c = _map("read_through").components["miss"]
    assert c["disconnect_ms"] == pytest.approx(SEEK.mean_ms(PMF) + 7.1)
    assert c["connect_ms"] == pytest.approx(TRACK / 4200.0 + 12 * 0.020)        # media speed


def test_staging_miss_longer_disconnect_short_connect():
    rt = _map("read_through").components["miss"]
    st = _map("staging").components["miss"]
    assert st["disconnect_ms"] == pytest.approx(rt["disconnect_ms"] + TRACK / 4200.0)   # staged first
    assert st["connect_ms"] == pytest.approx(TRACK / 17_000.0 + 12 * 0.020)              # channel speed
    # same device time for the data, then the channel on top: staging serves one I/O slower ...
    assert st["disconnect_ms"] + st["connect_ms"] > rt["disconnect_ms"] + rt["connect_ms"]
    # ... but holds the channel for a quarter of the time
    assert st["connect_ms"] < 0.3 * rt["connect_ms"]


def test_one_time_per_record_maps_to_commands_else_to_quanta():
    same = _map("read_through", hit_rate=4.2, kinds=[SschKind("hit", 0.5, 12), SschKind("miss", 0.5, 12, miss=True)])
    assert [c["records"] for c in same.io] == [12, 12] and same.note == ""
    assert same.protocol_us_per_command_ccw == pytest.approx((4096 / 4.2 - 4096 / 17.0) / 1000 * 1000 + 20.0)
    mixed = _map("read_through", kinds=[SschKind("hit", 0.5, 12), SschKind("miss", 0.5, 12, miss=True)])
    assert "quanta" in mixed.note
    fixed = [c["records"] * mixed.protocol_us_per_command_ccw / 1000 for c in mixed.io]
    want = [mixed.components[k]["connect_ms"] - TRACK / 17_000.0 for k in ("hit", "miss")]
    np.testing.assert_allclose(fixed, want, atol=0.0006)


def test_emulated_miss_is_backend_service_at_channel_speed():
    sm = service_map([SschKind("miss", 1.0, 1, miss=True)], geom=EMULATED3390, seek=SEEK,
                     cu=ControlUnitCache("read_through"), link_mb_s=800.0, block_bytes=4096, distance_pmf=PMF,
                     emulated_backend=Dist("exponential", 0.5, 1.0))
    assert sm.backend_service_ms.mean == 0.5
    assert sm.components["miss"]["connect_ms"] == pytest.approx(4096 / 800_000.0)


def test_engine_returns_the_components():
    sm = _map("read_through")
    m = Model.from_dict({"workload": {"type": "closed", "population": 1, "think_ms": 5.0}, "io": sm.io,
                         "channels": {"link_mb_s": 17.0, "max_open_exchanges": 1, "mp_us_per_io_ccw": 0.0,
                                      "protocol_us_per_command_ccw": sm.protocol_us_per_command_ccw},
                         "control_unit": {"backend_service_ms": sm.backend_service_ms.to_toml()}})
    ds = simulate(m, ios=20_000, replications=4, seed=5)
    c = sm.components["miss"]
    assert float(ds.connect_ms.mean()) == pytest.approx(c["connect_ms"], rel=1e-9)
    sd = float(np.sqrt(sm.backend_service_ms.scv)) * sm.backend_service_ms.mean
    assert abs(float(ds.disconnect_ms.mean()) - c["disconnect_ms"]) < 5 * sd / np.sqrt(80_000)


def test_think_between_ssch_compounds_the_reads_mdc_served():
    pmf = np.zeros(6)
    pmf[4] = 1.0                                     # every 4th read issues an SSCH
    d = think_per_ssch(pmf, 2.0, 0.05)
    assert d.mean == pytest.approx(4 * 2.0 + 3 * 0.05)
    assert d.scv == pytest.approx(4 * 2.0**2 / d.mean**2)      # Erlang-4 of the thinks
    assert think_per_ssch(pmf, 0.0, 0.0).mean == 0.0
