"""Positional DASD service in the engine's device-service seam (kernels/stages.positional_miss):
seek by the a + b sqrt(d) curve from the arm's tracked cylinder, uniform rotational latency, and
the read-through / staging split of a miss's media transfer between disconnect and connect.

The checks of the kernel's arm walk against mcio/dasd's own stationary means (physics.SeekCurve
over random_distance_pmf and access.AccessPattern.distance_pmf, which the engine does not use)
are rows of the oracle table (tests/oracle_models.ORACLES: dasd-*); here, what they rest on and
what else the seam must do."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mcio import McioError, Model, simulate
from mcio.dasd import random_distance_pmf
from mcio.engine import fast_path_applies
from oracle_models import dasd_volume as _dasd, run_row, seek_curve as _curve

HERE = Path(__file__).parent
IOS, REPS = 20_000, 4


def test_the_default_3390_curve_is_the_3390_3s_average_seek():
    """The oracle row dasd-3390-random's reference: its random-access mean is the 3390-3's 12.5 ms
    average seek, plus half a 14.2 ms revolution."""
    m = _dasd()
    pos = m.positional()
    want = _curve(m).mean_ms(random_distance_pmf(pos["cylinders"])) + pos["rotation_ms"] / 2
    assert abs(want - (12.5 + 7.1)) < 1e-9


def test_sequential_access_has_no_seek_but_the_cylinder_crossings():
    """Row dasd-3390-sequential's run: half a revolution and next to no seek."""
    assert float(run_row("dasd-3390-sequential").disconnect_ms.mean()) < 14.2 / 2 + 0.2


def test_the_arm_is_carried_a_locality_mix_matches_the_access_pattern():
    """p_sequential 0.5 over a 2,226-cylinder span (row dasd-3390-locality-p0.5-span2226 checks
    its mean against access.py's): an arm that was not carried (every read seeking from
    cylinder 0, or from nowhere) would be as far as random access over the span."""
    ds = run_row("dasd-3390-locality-p0.5-span2226")
    rnd = simulate(_dasd(kb=3 * 4.096, span_cylinders=2226), ios=IOS, replications=REPS, seed=5)
    assert float(ds.disconnect_ms.mean()) < float(rnd.disconnect_ms.mean()) - 3.0


def test_read_through_and_staging_split_a_miss_between_disconnect_and_connect():
    kb = 40.0
    media_ms, link_ms = kb / 4.2, kb / 800.0
    rt = simulate(_dasd(kb=kb, policy="read_through"), ios=IOS, replications=REPS, seed=6)
    st = simulate(_dasd(kb=kb, policy="staging"), ios=IOS, replications=REPS, seed=6)
    # read-through: connect paced by the media; staging: the media time moves into disconnect
    # and the connect runs at link speed. Same seed, same draws: the disconnects differ by the
    # media time exactly, replication by replication.
    assert np.abs(rt.connect_ms.values - media_ms).max() < 1e-9
    assert np.abs(st.connect_ms.values - link_ms).max() < 1e-9
    assert np.abs(st.disconnect_ms.values - rt.disconnect_ms.values - media_ms).max() < 1e-9
    # read-through overlaps the link with the media, staging does them one after the other
    assert np.abs(st.response_ms.values - rt.response_ms.values - link_ms).max() < 1e-9


def test_a_cache_hit_on_a_positional_device_does_not_touch_the_media():
    ds = simulate(_dasd(kb=40.0, miss=0.0), ios=5_000, replications=2, seed=7)
    assert np.abs(ds.disconnect_ms.values).max() == 0.0
    assert np.abs(ds.connect_ms.values - 40.0 / 800.0).max() < 1e-9


def test_the_3380_has_its_own_revolution_and_seek():
    """Row dasd-3380-random's reference: the 3380's revolution, media rate, cylinders and 16 ms
    average seek."""
    m = _dasd(geometry="3380")
    pos = m.positional()
    assert (pos["rotation_ms"], pos["media_mb_s"], pos["cylinders"]) == (16.7, 3.0, 2655)
    want = _curve(m).mean_ms(random_distance_pmf(2655)) + 16.7 / 2
    assert abs(want - (16.0 + 16.7 / 2)) < 1e-9


def test_an_emulated_device_ignores_the_positional_fields_bit_for_bit():
    base = {"workload": {"type": "closed", "population": 4}, "io": [{"kb": 8.0, "miss_ratio": 0.3}],
            "devices": {"count": 2}, "control_unit": {"backend_service_ms": 1.0}}
    a = simulate(Model.from_dict(base), ios=5_000, replications=2, seed=9)
    extra = dict(base, devices={"count": 2, "p_sequential": 0.7, "rotation_ms": 10.0, "seek_settle_ms": 3.0})
    with pytest.raises(McioError, match="geometry"):   # a field without effect is refused ...
        Model.from_dict(extra)
    from mcio.model import effect
    with effect.deferred():                          # ... and, let through, has none indeed
        b = simulate(Model.from_dict(extra), ios=5_000, replications=2, seed=9)
    for v in a.data_vars:
        assert np.array_equal(a[v].values, b[v].values, equal_nan=True), v


def test_the_miss_policy_must_fit_the_geometry_and_the_span_the_volume():
    with pytest.raises(McioError, match="miss_policy"):
        Model.from_dict({"io": [{}], "devices": {"geometry": "3390"}})
    with pytest.raises(McioError, match="miss_policy"):
        Model.from_dict({"io": [{}], "control_unit": {"miss_policy": "staging"}})
    with pytest.raises(McioError, match="span_cylinders"):
        _dasd(cylinders=1000, span_cylinders=2000)
    with pytest.raises(McioError, match="aliases"):
        _dasd(aliases=1)


def test_the_fast_path_never_takes_a_positional_device():
    raw = {"workload": {"type": "open", "rate_iops": 20.0}, "io": [{"miss_ratio": 1.0}]}
    assert fast_path_applies(Model.from_dict(raw))
    m = Model.from_dict(dict(raw, devices={"geometry": "3390"}, control_unit={"miss_policy": "staging"}))
    assert not fast_path_applies(m)
    with pytest.raises(McioError):
        simulate(m, ios=1_000, replications=2, seed=1, fast_path=True)


_CHILD = """
import hashlib, numpy as np
from mcio import Model, simulate
m = Model.from_dict({"workload": {"type": "closed", "population": 8},
                     "io": [{"kb": 12.0, "miss_ratio": 0.4}, {"kb": 4.0, "miss_ratio": 1.0, "share": 0.5}],
                     "devices": {"count": 4, "geometry": "3390", "p_sequential": 0.5, "span_cylinders": 2000},
                     "channels": {"count": 2}, "control_unit": {"miss_policy": "read_through"}})
ds = simulate(m, ios=10_000, replications=4, seed=11)
h = hashlib.sha256()
for name in sorted(ds.data_vars):
    h.update(name.encode()); h.update(np.ascontiguousarray(ds[name].values).tobytes())
print(h.hexdigest())
"""


def test_positional_runs_are_bit_identical_on_one_and_two_threads():
    outs = []
    for threads in (1, 2):
        env = dict(os.environ, NUMBA_NUM_THREADS=str(threads), PYTHONPATH=str(HERE.parent))
        r = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True,
                           timeout=600)
        assert r.returncode == 0, r.stderr[-3000:]
        outs.append(r.stdout.strip().splitlines()[-1])
    assert outs[0] == outs[1]


def test_dasd_mdc_phase1_on_the_seam_agrees_with_the_walks_iid_draws():
    """The dasd-mdc scenario's phase 1 run on the engine's positional device (arm tracked per
    I/O, p_sequential derived from the walk) and on the walk's i.i.d. seek distances: two
    approximations of one access pattern, so their disconnects agree within what the
    approximations differ by (the derived locality mix's mean seek is 8.56 ms, the walk's 8.53 ms)
    plus the runs' CIs; connect is the media's pace in both."""
    from mcio.scenarios import get_scenario
    from mcio.scenarios.base import RunSize
    scn = get_scenario("dasd-mdc")
    m = scn.model("phase1_on_seam")
    assert m.devices["geometry"] == "3390" and m.control_unit["miss_policy"] == "read_through"
    assert 0.1 < m.devices["p_sequential"] < 0.3
    run = RunSize(ios=10_000, replications=4, seed=2)
    seam, iid = scn.evaluate("phase1_on_seam", run), scn.evaluate("phase1_mdc_track", run)
    d_seam, ci_seam = seam["disconnect_ms"]
    d_iid, ci_iid = iid["disconnect_ms"]
    assert abs(d_seam - d_iid) < 0.05 + 1.5 * np.hypot(ci_seam, ci_iid), (d_seam, d_iid)
    assert abs(seam["connect_ms"][0] - iid["connect_ms"][0]) < 1e-6


def test_an_open_load_over_a_positional_volumes_capacity_is_refused():
    """A random 4 KB read on a 3390 holds the volume 12.5 + 7.1 + 4 / 4.2 ms (the link's share
    overlapped): capacity 48.6 reads/s. The stability check must see the seam's device time."""
    raw = {"workload": {"type": "open", "rate_iops": 60.0}, "io": [{"kb": 4.0, "miss_ratio": 1.0}],
           "devices": {"geometry": "3390"}, "control_unit": {"miss_policy": "read_through"}}
    m = Model.from_dict(raw)
    want = 12.5 + 7.1 + 4.0 / 4.2 - 4.0 / 800.0
    assert abs(m.mean_demands_ms()["device"] - want) < 1e-9
    with pytest.raises(McioError, match="capacity"):
        m.check_open_capacity()
    Model.from_dict(dict(raw, workload={"type": "open", "rate_iops": 40.0})).check_open_capacity()
