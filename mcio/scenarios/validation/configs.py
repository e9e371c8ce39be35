"""The measurement configurations of the validation set as mcio models: a FICON channel group on
one feature card driven flat out (the I/O-driver benchmarks behind IBM's channel and feature
maxima), with nothing but the stated configuration set and the rest from the hardware catalogue.

A benchmark of IBM's channel measurements keeps many I/Os outstanding to cache-hit devices on a
control unit that is not the bottleneck: a closed workload (``population`` I/Os, no think time),
every read a cache hit, every write a DASD fast write (no disconnect). Units: KB, MB/s, us.
"""
from __future__ import annotations

from ...model import Model

#: A control unit that does not limit a channel benchmark: assumed, because IBM's channel
#: measurements drive the channel, not the storage ("best can do" of the channel, FICON Express2
#: Channel Performance, p. 2); its 30 us per I/O is zhpf-dump's assumed CMR, 64 servers make it
#: far from busy.
CU_SERVERS = 64
CU_SERVICE_US = 30.0


def channel_benchmark(generation: str, channels: int, *, kb: float, records: int = 1,
                      write_share: float = 0.0, zhpf_share: float = 0.0, population: int = 64,
                      card: dict | None = None, link_mb_s: float | None = None,
                      devices: int = 64, extra_channel: dict | None = None,
                      protocol: dict | None = None) -> Model:
    """``channels`` channels of ``generation`` (a catalogue key) on one card (``card``: its limit
    fields, e.g. ``{"max_mb_s": 1300.0}``; None: no limit), ``population`` I/Os outstanding of
    ``kb`` KB in ``records`` commands, ``write_share`` of them writes, ``zhpf_share`` in transport
    mode. ``link_mb_s`` overrides the generation's link rate (a generation not in the catalogue).
    ``protocol``: the ``channels.protocol_us_*`` settings (the reference generation's connect-time
    protocol, :func:`catalogue_protocol`; each channel scales them by its generation's
    ``protocol_scale``); None: no protocol time (the blind run)."""
    ch = {"name": "ch", "count": int(channels), "generation": generation, "card": "F"}
    if link_mb_s is not None:
        ch["link_mb_s"] = float(link_mb_s)
    ch.update(extra_channel or {})
    return Model.from_dict({
        "channels": {"zhpf_share": float(zhpf_share), **(protocol or {})},
        "topology": {
            "card": [{"name": "F", **(card or {})}],
            "channel": [ch],
            "control_unit": [{"name": "CU", "ha_servers": CU_SERVERS, "ha_service_us": CU_SERVICE_US,
                              "lcu": [{"name": "L0", "devices": int(devices), "channels": ["ch"]}]}],
            "workload": [{"name": "bench", "population": int(population),
                          "io": [{"name": "io", "kb": float(kb), "records": int(records),
                                  "write_share": float(write_share)}]}],
        },
    }, where="scenario validation", user_set={})


def catalogue_protocol() -> dict:
    """The ``channels.protocol_us_*`` settings from the hardware catalogue's per-command costs
    (given for the reference generation, FICON Express8S: ``hardware.PROTOCOL_REFERENCE``): a
    command-mode command's protocol (a Read's, assumed as a Write's: 19.5 us, fitted to seed 003),
    a transport-mode program's (TCW + TCCB: 5.0 us, assumed) and a DCW's (none). The control
    unit's work per command is not added: the benchmarks' control unit is the assumed 30 us per I/O
    (:data:`CU_SERVICE_US`)."""
    from ...model.hardware import COMMAND_COSTS
    return {"protocol_us_per_command_ccw": COMMAND_COSTS["Read (one record, chained)"].protocol_us.value,
            "protocol_us_per_io_zhpf": COMMAND_COSTS["TCW + TCCB (one transport-mode program)"].protocol_us.value,
            "protocol_us_per_command_zhpf": COMMAND_COSTS["DCW (one record in a TCCB)"].protocol_us.value}


def data_rate_mb_s(ds) -> tuple[float, float]:
    """Reads + writes over every channel link (MB/s): mean over replications and its 95 % CI."""
    from ...engine import ci95_halfwidth
    kind = ds["link_kind"].values if "link_kind" in ds else ds["link_kind_label"].values
    sel = [i for i, k in enumerate(kind) if str(k) == "channel"]
    per_rep = ds["link_mb_s"].isel(link=sel).sum("link").values
    return float(per_rep.mean()), float(ci95_halfwidth(per_rep)) if per_rep.size > 1 else 0.0


def io_rate(ds) -> tuple[float, float]:
    """SSCH/s of the whole configuration: mean and 95 % CI."""
    from ...engine import ci95_halfwidth
    x = ds["throughput_iops"].values
    return float(x.mean()), float(ci95_halfwidth(x)) if x.size > 1 else 0.0


__all__ = ["channel_benchmark", "catalogue_protocol", "data_rate_mb_s", "io_rate", "CU_SERVERS", "CU_SERVICE_US"]
