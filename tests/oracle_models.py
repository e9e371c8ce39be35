"""Model builders shared by the engine tests: each maps onto a textbook queue or network."""
from scipy import stats

from mcio import Model


FAMILY_ALPHA = 0.05


def se_multiplier(replications: int, checks: int) -> float:
    """How many standard errors a mean may miss its oracle by.

    A module making ``checks`` comparisons, each at 3 SE, would fail by chance on about
    checks x 0.3-0.9 % of random streams (any kernel change re-draws them). Bonferroni keeps
    the chance that any check of the module fails falsely under FAMILY_ALPHA: each check gets
    the two-sided t quantile at FAMILY_ALPHA / checks (about 4.2 SE for 100 checks, 24
    replications). A real bias still shows: these SEs are 0.1-0.5 % of the means.
    """
    return float(stats.t.ppf(1.0 - FAMILY_ALPHA / (2 * checks), replications - 1))


def se_from_ci(ci95, ds):
    """Standard error recovered from a 95 % CI half-width over ds's replications."""
    return ci95 / stats.t.ppf(0.975, ds.sizes["replication"] - 1)


def tolerance_se(ds, comp: str) -> float:
    """Standard error of a replication-mean component (ms)."""
    return float(se_from_ci(float(ds[f"{comp}_ci95_ms"]), ds))


def single_server_open(rate_iops: float, service: dict, servers: int = 1, aliases: int = 0) -> Model:
    """An open stream to one device whose only work is back-end service (all misses).

    With ``aliases`` = 0 this is the G/G/1 queue at the device (IOSQ + disconnect); with many
    aliases and ``servers`` back-end servers it is the G/G/c queue at the back end.
    """
    return Model.from_dict({
        "workload": {"type": "open", "rate_iops": rate_iops},
        "io": [{"kb": 0.0, "miss_ratio": 1.0}],
        "devices": {"count": 1, "aliases": aliases},
        "channels": {"mp_us_per_io_ccw": 0.0, "max_open_exchanges": 100_000},
        "control_unit": {"backend_servers": servers, "backend_service_ms": service},
    })


# The closed product-form network used against exact MVA: think (delay), channel MP (FIFO
# exponential), host adapter (FIFO exponential), back end (FIFO exponential, ``be_servers``),
# link (processor sharing, deterministic size: PS is insensitive to the size distribution).
CLOSED_DEMANDS_MS = {"mp": 0.1, "ha": 0.05, "be": 0.3, "link": 0.1}
THINK_MS = 2.0


def closed_network(population: int, be_servers: int = 1) -> Model:
    return Model.from_dict({
        "workload": {"type": "closed", "population": population,
                     "think_ms": {"dist": "exponential", "mean": THINK_MS}},
        "io": [{"kb": 4.0, "miss_ratio": 1.0}],
        # 4 devices x 256 exposures: no IOSQ even at N = 600 (about 150 per device)
        "devices": {"count": 4, "aliases": 255},
        "channels": {"mp_us_per_io_ccw": 1000 * CLOSED_DEMANDS_MS["mp"], "mp_scv": 1.0,
                     "link_mb_s": 4.0 / CLOSED_DEMANDS_MS["link"], "max_open_exchanges": 100_000},
        "control_unit": {"ha_service_us": {"dist": "exponential", "mean": 1000 * CLOSED_DEMANDS_MS["ha"]},
                         "backend_servers": be_servers,
                         "backend_service_ms": {"dist": "exponential", "mean": CLOSED_DEMANDS_MS["be"]}},
    })


def ficon_like(population: int = 26, channels: int = 2) -> Model:
    """A seed-001-like path with every mechanism switched on (skew, classes, z/HPF, PS, HA, BE)."""
    return Model.from_dict({
        "workload": {"type": "closed", "population": population,
                     "think_ms": {"dist": "exponential", "mean": 0.5}},
        "io": [{"name": "read", "share": 0.75, "kb": 4, "miss_ratio": 0.74, "records": 2},
               {"name": "write", "share": 0.25, "kb": 27, "miss_ratio": 0.1}],
        "devices": {"count": 256, "skew": "zipf", "zipf_s": 0.8, "aliases": 1},
        "channels": {"count": channels, "mp_us_per_io_ccw": 80, "mp_us_per_command_ccw": 5,
                     "mp_scv": 0.3, "zhpf_share": 0.3, "link_mb_s": 400, "max_open_exchanges": 8,
                     "mp_start_fraction": 0.7, "protocol_us_per_command_ccw": 20,
                     "protocol_us_per_io_zhpf": 15, "selection": "least_busy"},
        "control_unit": {"ha_servers": 2, "ha_service_us": {"dist": "lognormal", "mean": 60, "scv": 2},
                         "backend_servers": 16,
                         "backend_service_ms": {"dist": "empirical", "values": [0.5, 1.5, 6.0],
                                                "weights": [5, 3, 1]}},
    })
