"""What a model derives from its sections alone (device weights, mean demands) is made once per
set of section objects and shared by the models that hold them (a sweep's points): always what
a fresh computation gives, handed out as copies, and only a few kept."""
import numpy as np

from mcio.model import spec as S
from mcio.scenarios import SCENARIOS, build_scenario

CHANGES = [("channels.link_mb_s", 123.0), ("devices.count", 7), ("io.0.kb", 9.0),
           ("control_unit.ha_servers", 3), ("workload.population", 5), ("devices.skew", "zipf")]


def test_derived_values_are_a_fresh_computations_along_chains_of_changes():
    for name in sorted(SCENARIOS):
        m = build_scenario(name)
        if m.topology is not None:
            continue
        models = [m]
        for key, v in CHANGES:
            try:
                models.append(models[-1].replace(key, v, check=False))
            except Exception:   # noqa: BLE001 - a change this scenario refuses: skip it
                continue
        for x in models + models[::-1]:     # (hits and misses, in both orders)
            w, fresh_w = x.device_weights(), x._device_weights()
            assert w.tobytes() == fresh_w.tobytes(), name
            assert x.mean_demands_ms() == x._mean_demands_ms(), name


def test_what_is_handed_out_is_a_copy_and_few_are_kept():
    m = build_scenario("ficon-channel")
    w = m.device_weights()
    w[:] = 0.0
    d = m.mean_demands_ms()
    d["mp"] = -1.0
    assert np.isclose(m.device_weights().sum(), 1.0) and m.mean_demands_ms()["mp"] > 0
    for n in range(1, 4 * S.DERIVED_KEPT):
        m.replace("devices.count", n, check=False).device_weights()
        assert len(S._DERIVED) <= S.DERIVED_KEPT
