"""Models shared by the asv suite, ``throughput.py`` and ``peers/compare.py``.

Kept in one place so every figure in the benchmarks names the same configuration.
"""
from __future__ import annotations

from mcio.model import Model

RHO = 0.9                 # utilisation of the fast-path M/M/1 and M/M/c models
SERVICE_MS = 1.0          # mean service time of those models


def mmc_model(c: int = 1, rho: float = RHO, service_ms: float = SERVICE_MS) -> Model:
    """Open M/M/c as mcio states it: Poisson I/Os to one device with ``c - 1`` aliases whose only
    work is an exponential back-end (disconnect) time; channel and control unit cost nothing.
    It reduces exactly to one FIFO queue, so ``simulate`` takes the fast path (G/G/c recursion).
    """
    rate_iops = rho * c / service_ms * 1000.0
    return Model.from_dict({
        "workload": {"type": "open", "rate_iops": rate_iops},
        "io": [{"name": "read", "kb": 0.0, "miss_ratio": 1.0}],
        "devices": {"count": 1, "aliases": c - 1},
        "channels": {"count": 1, "mp_us_per_io_ccw": 0.0},
        "control_unit": {"ha_servers": c, "backend_servers": c,
                         "backend_service_ms": {"dist": "exponential", "mean": service_ms}},
    })


def _ficon_local(population: int = 26) -> Model:
    """A seed-001-like FICON channel: closed load, 1024 zipf-skewed volumes, 75 % reads of which
    74 % miss the cache, writes absorbed by the cache (fast write), ~80 us of channel MP work per
    I/O (gamma, SCV 0.3), 4 host-adapter servers, a 64-server back end (gamma 1.5 ms)."""
    return Model.from_dict({
        "workload": {"type": "closed", "population": population, "think_ms": 0.0},
        "io": [{"name": "read", "share": 0.75, "kb": 4.0, "records": 1, "miss_ratio": 0.74},
               {"name": "write", "share": 0.25, "kb": 4.0, "records": 1, "miss_ratio": 0.0}],
        "devices": {"count": 1024, "skew": "zipf", "zipf_s": 0.6, "aliases": 3},
        "channels": {"count": 1, "link_mb_s": 800.0, "max_open_exchanges": 64,
                     "mp_us_per_io_ccw": 80.0, "mp_scv": 0.3},
        "control_unit": {"ha_servers": 4, "ha_service_us": {"dist": "exponential", "mean": 40.0},
                         "backend_servers": 64,
                         "backend_service_ms": {"dist": "gamma", "mean": 1.5, "scv": 0.5}},
    })


def ficon_model(population: int = 26) -> tuple[Model, str]:
    """The full-FICON-path benchmark model and where it came from.

    Uses ``mcio.scenarios.ficon_channel.model()`` when that scenario exists (its population set
    where the builder takes one), else the local seed-001-like configuration above.
    """
    try:
        from mcio.scenarios import ficon_channel  # type: ignore[attr-defined]
    except ImportError:
        return _ficon_local(population), "benchmarks.models._ficon_local"
    try:
        m = ficon_channel.model(population=population)
    except TypeError:
        m = ficon_channel.model()
        if m.workload["type"] == "closed":
            m = m.replace("workload.population", population)
    return m, "mcio.scenarios.ficon_channel.model"
