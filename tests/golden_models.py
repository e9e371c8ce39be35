"""The golden models: a dozen small models that between them use every mechanism of both engines.

``tests/golden/outputs.npz`` holds every output variable of each (regenerate with
``python tests/golden_models.py``, only for a deliberate change of results, and say why in the
commit). test_golden_outputs.py compares: integers exactly, floats to 1e-12 relative.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

GOLDEN = Path(__file__).parent / "golden" / "outputs.npz"
IOS, REPS, SEED = 3_000, 2, 11


def _base(**sections) -> dict:
    base = {"workload": {"type": "open", "rate_iops": 2000.0},
            "io": [{"kb": 4.0, "miss_ratio": 0.5}],
            "devices": {"count": 8},
            "channels": {"count": 2, "mp_us_per_io_ccw": 50.0},
            "control_unit": {"ha_servers": 4, "ha_service_us": 50.0, "backend_servers": 8,
                             "backend_service_ms": {"dist": "exponential", "mean": 1.0}}}
    for k, v in sections.items():
        base[k] = {**base[k], **v} if isinstance(v, dict) else v
    # the base's fields a case's options ignore are left out (a field set where it has no effect is
    # an error, mcio/model/effect.py); being without effect, leaving them out changes no output
    if base["workload"]["type"] == "closed":
        base["workload"].pop("rate_iops", None)
    if base.get("control_unit", {}).get("miss_policy", "backend") != "backend":
        for k in ("backend_servers", "backend_service_ms"):
            base["control_unit"].pop(k, None)
    return base


def _mm1(rate=700.0, service=None, **extra):
    return {"workload": {"type": "open", "rate_iops": rate, **extra},
            "io": [{"kb": 0.0, "miss_ratio": 1.0}], "devices": {"count": 1},
            "channels": {"mp_us_per_io_ccw": 0.0},
            "control_unit": {"backend_service_ms": service or {"dist": "exponential", "mean": 1.0}}}


#: name -> (model dict or scenario name with params, simulate keyword arguments)
CASES: dict[str, tuple[dict, dict]] = {
    "mm1_fast": (_mm1(), {"fast_path": True}),
    "mm1_event": (_mm1(), {"fast_path": False}),
    "mmc_fast_gamma": (_mm1(2500.0, {"dist": "gamma", "mean": 1.0, "scv": 0.5}, arrival_scv=2.0)
                       | {"devices": {"count": 1, "aliases": 3},
                          "control_unit": {"backend_servers": 4, "ha_servers": 4,
                                           "backend_service_ms": {"dist": "gamma", "mean": 1.0, "scv": 0.5}}},
                       {"fast_path": True}),
    "trace_event": ({"workload": {"type": "open", "arrival_trace_ms": [0.0, 0.7, 1.1, 3.0, 3.2, 5.0]},
                     "io": [{"kb": 8.0, "miss_ratio": 0.6}], "devices": {"count": 2},
                     "channels": {"mp_us_per_io_ccw": 40.0},
                     "control_unit": {"backend_service_ms": {"dist": "lognormal", "mean": 0.8, "scv": 2.0}}},
                    {"fast_path": False}),
    "closed_think_classes": (_base(workload={"type": "closed", "population": 12,
                                             "think_ms": {"dist": "exponential", "mean": 2.0}},
                                   io=[{"name": "r", "share": 3, "kb": 4.0, "records": 1, "miss_ratio": 0.7},
                                       {"name": "w", "share": 1, "kb": 16.0, "records": 4, "miss_ratio": 0.0},
                                       {"name": "big", "share": 0.5, "kb": 64.0, "records": 2, "miss_ratio": 0.3}],
                                   channels={"mp_us_per_command_ccw": 5.0, "mp_us_per_kb_ccw": 0.5,
                                             "protocol_us_per_command_ccw": 3.0, "mp_scv": 1.5}),
                             {"per_device": True}),
    "pav_static_zipf": (_base(devices={"count": 6, "aliases": 2, "skew": "zipf", "zipf_s": 1.2},
                              workload={"type": "open", "rate_iops": 3000.0}), {"per_device": True}),
    "hyperpav_hotset": (_base(devices={"count": 6, "aliases": 3, "alias_mode": "hyperpav",
                                       "skew": "hotset", "hot_fraction": 0.2, "hot_share": 0.9},
                              workload={"type": "closed", "population": 20}), {"per_device": True}),
    "paths_rotate": (_base(devices={"count": 8, "paths": [[0]] * 5 + [[0, 1]] * 3}), {}),
    "paths_least_busy": (_base(devices={"count": 8, "paths": [[0, 1]] * 4 + [[1, 2]] * 4},
                               channels={"count": 3, "selection": "least_busy", "mp_us_per_io_ccw": 50.0}), {}),
    "zhpf_mix": (_base(channels={"count": 1, "zhpf_share": 0.4, "mp_us_per_io_ccw": 60.0,
                                 "mp_us_per_io_zhpf": 25.0, "protocol_us_per_io_zhpf": 10.0}), {}),
    "shared_link_loaded": (_base(io=[{"kb": 64.0, "miss_ratio": 0.2}],
                                 workload={"type": "closed", "population": 30},
                                 channels={"count": 1, "link_mb_s": 200.0, "mp_us_per_io_ccw": 10.0}), {}),
    "oe_cap_deferrals": (_base(channels={"count": 1, "max_open_exchanges": 2, "mp_us_per_io_ccw": 50.0},
                               devices={"count": 8, "skew": "weights", "weights": [4, 3, 2, 1, 1, 1, 1, 1]}),
                         {}),
    "unstable_open_event": (_base(workload={"type": "open", "rate_iops": 30000.0}),
                            {"allow_unstable": True}),
    "unstable_open_fast": (_mm1(1400.0), {"allow_unstable": True, "fast_path": True}),
    "empirical_backend": (_base(control_unit={"backend_service_ms": {"dist": "empirical", "values": [0.5, 1.0, 4.0],
                                                                     "weights": [5, 3, 1]}}), {}),
    # positional DASD (3390 seek + rotation + media transfer), both miss policies, sequential runs
    "dasd_3390_read_through": (_base(devices={"count": 4, "geometry": "3390", "p_sequential": 0.3,
                                              "span_cylinders": 1200},
                                     control_unit={"miss_policy": "read_through"},
                                     workload={"type": "open", "rate_iops": 150.0}), {"per_device": True}),
    "dasd_3380_staging": (_base(devices={"count": 2, "geometry": "3380"},
                                io=[{"kb": 16.0, "miss_ratio": 0.8}],
                                control_unit={"miss_policy": "staging"},
                                workload={"type": "closed", "population": 3}), {}),
    # 20 channels, each device on two: the MPs' pieces through the timed events' queue (from
    # iopath.MP_HEAP_CHANNELS on), both orders of the MP's waiting work, a wake-up
    "many_channels_end_first": (_base(workload={"type": "closed", "population": 60},
                                      devices={"count": 40, "paths": [[i % 20, (i + 7) % 20] for i in range(40)]},
                                      channels={"count": 20, "mp_us_per_io_ccw": 400.0, "mp_scv": 1.5,
                                                "mp_start_fraction": 0.6, "mp_wake_us": 8.0},
                                      control_unit={"ha_servers": 16, "backend_servers": 32}), {}),
    "many_channels_fifo": (_base(workload={"type": "open", "rate_iops": 30000.0},
                                 devices={"count": 40, "paths": [[i % 20, (i + 3) % 20] for i in range(40)]},
                                 channels={"count": 20, "mp_us_per_io_ccw": 450.0, "mp_scv": 2.0,
                                           "mp_start_fraction": 0.5, "mp_order": "fifo"},
                                 control_unit={"ha_servers": 16, "backend_servers": 32}), {}),
    # the calibrated values of the first golden run, pinned: a re-calibration must not move this case
    "ficon_channel": ("ficon-channel", {"_params": {"population": 26, "mp_us_per_io": 80.80, "mp_scv": 8.932,
                                                    "ha_service_us": 752.5, "backend_service_ms": 1.376,
                                                    "mp_wake_us": 0.0, "mp_order": "end_first"}}),
}


def run_case(name: str):
    """Simulate one golden case; return {variable: ndarray}."""
    from mcio import Model, simulate
    from mcio.scenarios import build_scenario
    spec, kw = CASES[name]
    kw = dict(kw)
    if isinstance(spec, str):
        model = build_scenario(spec, kw.pop("_params", {}))
    else:
        model = Model.from_dict(spec, where=f"golden {name}")
    ds = simulate(model, ios=IOS, replications=REPS, seed=SEED, **kw)
    return {v: np.asarray(ds[v].values) for v in ds.data_vars}


def regenerate(names=()) -> None:
    """Rewrite the stored outputs: of every case, or only of ``names`` (the others are kept as
    stored, so a deliberate change of results touches only the cases it explains)."""
    out = {}
    if names:
        unknown = sorted(set(names) - set(CASES))
        if unknown:
            raise SystemExit(f"unknown golden case(s) {unknown}; known: {sorted(CASES)}")
        with np.load(GOLDEN) as stored:
            out = {k: stored[k] for k in stored.files if k.split("/", 1)[0] not in names}
    for name in (names or CASES):
        for v, a in run_case(name).items():
            out[f"{name}/{v}"] = a
    GOLDEN.parent.mkdir(exist_ok=True)
    np.savez_compressed(GOLDEN, **out)
    print(f"wrote {GOLDEN} ({len(out)} arrays, {len(CASES)} models)")


if __name__ == "__main__":
    import sys
    regenerate(tuple(sys.argv[1:]))
