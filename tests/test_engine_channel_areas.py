"""Channel areas integrated when a level changes (kernels/areas.py) obey Little's law over many
channels: the open exchanges' time average, summed over channels, is the I/O rate times the time
an I/O holds its exchange (pend + disconnect + connect, none deferred), and each channel's share
of it follows its own I/O rate."""
import numpy as np

from mcio.engine import simulate
from mcio.model import Model


def _model(n_ch=6):
    return Model.from_dict({
        "workload": {"type": "open", "rate_iops": 3000.0 * n_ch},
        "io": [{"name": "read", "share": 0.75, "kb": 4.0, "miss_ratio": 0.5},
               {"name": "write", "share": 0.25, "kb": 16.0, "miss_ratio": 0.0}],
        "devices": {"count": 8 * n_ch, "aliases": 3,
                    "paths": [[(i // 8) // 2 * 2, (i // 8) // 2 * 2 + 1] for i in range(8 * n_ch)]},
        "channels": {"count": n_ch, "link_mb_s": 200.0, "max_open_exchanges": 64,
                     "mp_us_per_io_ccw": 60.0, "mp_scv": 0.5},
        "control_unit": {"ha_servers": 4 * n_ch, "ha_service_us": {"dist": "exponential", "mean": 100.0},
                         "backend_servers": 8 * n_ch,
                         "backend_service_ms": {"dist": "exponential", "mean": 1.0}},
    })


def test_open_exchange_areas_follow_littles_law_on_every_channel():
    ds = simulate(_model(), ios=60_000, replications=2, warmup=5_000, seed=7)
    assert float(ds["deferred_iops"].sum()) == 0.0
    held_ms = (ds["pend_ms"] + ds["disconnect_ms"] + ds["connect_ms"]).values      # [replication]
    oe = ds["open_exchanges_mean"].values                                          # [replication, channel]
    rate = ds["channel_ssch_iops"].values / 1000.0                                 # per ms
    assert oe.shape == (2, 6)
    np.testing.assert_allclose(oe.sum(axis=1), rate.sum(axis=1) * held_ms, rtol=1e-3)
    # every channel's own average follows its own rate (the same holding time on each)
    np.testing.assert_allclose(oe, rate * held_ms[:, None], rtol=0.05)
    busy = ds["channel_busy"].mean("replication").values
    link = ds["link_busy"].mean("replication").values
    assert np.all((busy > 0.1) & (busy < 1.0)) and np.all((link > 0.0) & (link < 1.0))
