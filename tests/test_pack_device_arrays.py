"""The event kernel's device arrays (alias table, path groups) are made once per devices section:
points of a sweep that changes no device field share them, and they are what a fresh packing
makes; the alias table over Python floats is NumPy's old one bit for bit."""
import importlib

import numpy as np

from mcio.engine.units import alias_table
from mcio.scenarios import build_scenario

P = importlib.import_module("mcio.engine.pack")   # (mcio.engine.pack, the attribute, is the function)

FIELDS = ("al_prob", "al_idx", "dev_grp", "bound_dev", "grp_ptr", "grp_ch", "chg_ptr", "chg")


def _fresh(model):
    P._DEVICE_ARRAYS.clear()
    return P.pack(model, 1000, 100)


def test_points_that_share_their_devices_share_the_arrays_and_they_are_a_fresh_packings():
    m = build_scenario("ficon-channel")
    a = _fresh(m)
    m2 = m.replace("channels.link_mb_s", 900.0, check=False)
    assert m2.devices is m.devices
    b = P.pack(m2, 1000, 100)
    assert b.al_prob is a.al_prob and b.al_idx is a.al_idx and b.grp_ch is a.grp_ch
    c = _fresh(m2)
    for f in FIELDS:
        assert np.array_equal(getattr(b, f), getattr(c, f)) and getattr(b, f).dtype == getattr(c, f).dtype, f


def test_another_devices_section_gets_its_own_arrays():
    m = build_scenario("ficon-channel")
    a = _fresh(m)
    for key, v in [("devices.skew", "uniform"), ("devices.count", 512), ("channels.count", 2)]:
        m3 = m.replace(key, v, check=False)
        b = P.pack(m3, 1000, 100)
        c = _fresh(m3)
        for f in FIELDS:
            assert np.array_equal(getattr(b, f), getattr(c, f)), (key, f)
        if key != "channels.count":
            assert not np.array_equal(b.al_prob, a.al_prob) or len(b.al_prob) != len(a.al_prob), key
        P.pack(m, 1000, 100)     # (the first model's entry back in the cache)


def _alias_numpy(p):
    """alias_table as it was: on NumPy's scalars."""
    n = len(p)
    prob = p * n
    alias = np.arange(n, dtype=np.int64)
    small = [i for i in range(n) if prob[i] < 1.0]
    large = [i for i in range(n) if prob[i] >= 1.0]
    while small and large:
        s, l = small.pop(), large.pop()
        alias[s] = l
        prob[l] -= 1.0 - prob[s]
        (small if prob[l] < 1.0 else large).append(l)
    for i in small + large:
        prob[i] = 1.0
    return prob.astype(np.float64), alias


def test_the_alias_table_is_numpys_old_one_bit_for_bit():
    rng = np.random.default_rng(0)
    for k in range(600):
        n = int(rng.integers(1, 300))
        w = rng.random(n) ** rng.uniform(0.1, 8)
        if k % 3 == 0:
            w[rng.random(n) < 0.3] = 0
        w[0] += w.sum() == 0
        p = w / w.sum()
        (a, i), (b, j) = _alias_numpy(p.copy()), alias_table(p.copy())
        assert a.tobytes() == b.tobytes() and i.tobytes() == j.tobytes() and (b.dtype, j.dtype) == (a.dtype, i.dtype)


def test_only_a_few_devices_sections_are_kept():
    P._DEVICE_ARRAYS.clear()
    m = build_scenario("ficon-channel")
    for n in range(1, 3 * P.DEVICE_ARRAYS_KEPT):
        P.pack(m.replace("devices.count", 16 * n, check=False), 1000, 100)
        assert len(P._DEVICE_ARRAYS) <= P.DEVICE_ARRAYS_KEPT
