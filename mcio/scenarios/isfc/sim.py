"""Simulation of one ISFC link on the engine, and its labelled results Dataset.

The shared channels of a link form one engine model, each non-shared channel one of its own: a
closed workload with one customer pinned to each used FCTC device, the channel MP and link of its
CHPID carrying every FCTC end on that channel, and the partner end as the control unit (its back
end the partner latency, a pure delay; on a non-shared channel its host adapter the partner
channel's MP, a one-server queue). :func:`simulate_link` runs the models and :func:`assemble`
labels the per-replication arrays by device number and CHPID.
"""
from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

import numpy as np

if TYPE_CHECKING:
    import xarray as xr

from ...errors import McioError
from ...model import Dist, Model
from ...store import cf_attrs
from .link import IsfcLink, direction_shares, parse_senders
from .params import DEFAULT_PARAMS, IsfcParams
from .rules import format_chpid, format_devno, writers

# ---- model building --------------------------------------------------------------------------


def _channel_model(channel_of_device: Sequence[int], used: Sequence[bool], n_channels: int, shared: bool,
                   params: IsfcParams, where: str = "isfc model") -> Model:
    """One engine model: channels of one kind, device j on channel ``channel_of_device[j]``."""
    n_dev = len(channel_of_device)
    return Model.from_dict({
        # one write always outstanding per used device: the sender always has relocation data
        "workload": {"type": "closed", "population": int(sum(used)), "think_ms": 0.0, "binding": "device"},
        # FCTC I/O is command mode, one chained write; every I/O waits for the partner (disconnect)
        "io": [{"name": "relocation_write", "kb": params.kb_per_io, "records": 1, "miss_ratio": 1.0}],
        "devices": {"count": n_dev, "skew": "weights", "weights": [1.0 if u else 0.0 for u in used],
                    "paths": [[int(c)] for c in channel_of_device]},
        "channels": params.channel_section(shared, n_channels),
        "control_unit": _partner_section(shared, n_channels, n_dev, params, where),
    }, where=where, user_set={})


def _partner_section(shared: bool, n_channels: int, n_dev: int, params: IsfcParams, where: str) -> dict:
    """The engine's [control_unit] is the partner end. Its back end (a server per device: a pure
    delay) is the partner latency. Its host adapter is the partner channel's MP on a non-shared
    channel (one server: the receiver's read ends of this channel's devices queue for it), and
    nothing on a shared one (the read ends are on the sender's own MP)."""
    mp = params.partner_mp_us(shared)
    if mp > 0.0 and n_channels != 1:
        raise McioError(where, f"{n_channels} non-shared channels",
                        "each non-shared channel's partner MP is a queue of its own: one engine model per channel")
    if mp > 0.0:
        return {"ha_servers": 1, "ha_service_us": Dist.from_mean_scv(mp, params.mp_scv).to_toml(),
                "backend_servers": n_dev, "backend_service_ms": _latency(params)}
    return {"ha_servers": n_dev, "ha_service_us": 0.0, "backend_servers": n_dev,
            "backend_service_ms": _latency(params)}


def _per_channel(counts: Sequence[int]) -> list[int]:
    return [c for c, n in enumerate(counts) for _ in range(n)]


def _latency(params: IsfcParams):
    """The partner latency (ms) as a TOML value: of its mean and SCV (a zero latency has none)."""
    lat = params.partner_latency_ms
    return Dist.from_mean_scv(lat, params.partner_latency_scv if lat else 0.0).to_toml()


def _engine():
    """The engine's simulate, imported late (the planner and tests may pass their own)."""
    from ...engine import simulate
    return simulate


def ci95(a: np.ndarray, axis: int = 0) -> np.ndarray:
    """Half-width of the 95 % t confidence interval of the mean over ``axis`` (replications):
    :func:`mcio.engine.results.ci95_halfwidth`, NaN with one replication."""
    from ...engine.results import ci95_halfwidth
    a = np.asarray(a, dtype=float)
    return ci95_halfwidth(a, axis) if a.shape[axis] > 1 else np.full(np.delete(a.shape, axis), np.nan)


# Device busy, as RMF and z/VM define it (the engine's device_busy and device_busy_zvm)
BUSY_DEFINITIONS = {"RMF": "(disconnect + connect) / interval",
                    "z/VM": "(pend + disconnect + connect) / interval"}


# ---- simulation of one link ----------------------------------------------------------------


def _link_models(link: IsfcLink, used: np.ndarray, params: IsfcParams):
    """(stream key, channel indices, device indices, engine model, used devices) of each engine
    model of ``link`` that carries traffic (``used``: per device): the shared channels form one
    model; each non-shared channel is one (its partner MP is a queue of its own, the engine's one
    control unit)."""
    dev_chpid = [c for _, c in link.devices]
    n_dev = len(link.devices)
    groups = [(0, True, [i for i, c in enumerate(link.chpids) if c in link.shared])]
    groups += [(1 + k, False, [i]) for k, i in enumerate(i for i, c in enumerate(link.chpids) if c not in link.shared)]
    for g, kind, chs in groups:
        devs = [[j for j in range(n_dev) if dev_chpid[j] == link.chpids[i]] for i in chs]
        flat = [j for ds in devs for j in ds]
        if not flat or not used[flat].any():
            continue                                        # no traffic: zeros stay
        model = _channel_model(_per_channel([len(ds) for ds in devs]), [bool(used[j]) for j in flat],
                               len(chs), kind, params)
        yield g, chs, flat, model, int(used[flat].sum())


def link_simulations(link: IsfcLink, senders="auto", params: IsfcParams = DEFAULT_PARAMS, *,
                     ios_per_device: int = 20_000, replications: int = 4) -> list:
    """The engine runs :func:`simulate_link` makes with these arguments, as
    :class:`mcio.batch.estimates.Simulation` (for the time and memory estimates)."""
    from ...batch.estimates import Simulation
    used = direction_shares(link, parse_senders(link, senders)).sum(axis=1) > 0
    return [Simulation.of(model, ios_per_device * n_used, replications)
            for _, _, _, model, n_used in _link_models(link, used, params)]


def simulate_link(link: IsfcLink, senders="auto", params: IsfcParams = DEFAULT_PARAMS, *,
                  ios_per_device: int = 20_000, replications: int = 4, seed: int = 0,
                  simulate_fn: Callable | None = None) -> xr.Dataset:
    """Simulate relocation traffic over ``link``; per-connection, per-channel and per-link results.

    ``senders``: the sending member's name, or {member: share}; "auto" = the member whose name
    sorts second (the seed's LPAR2 and BOER3740). ``ios_per_device`` I/Os are simulated per used
    device and replication (after the engine's warm-up).

    Device busy comes in both definitions (see :data:`BUSY_DEFINITIONS`): ``connection_busy``
    (RMF) is the engine's per-device figure. ``connection_busy_zvm`` (z/VM, the seed's "device busy
    ~100 %") is SSCH/s x (pend + disconnect + connect) per connection; the engine measures it
    per model, not per device, but here every used device holds exactly one I/O at all times (one
    write outstanding, no think time, so no IOSQ), so it is the same for each used connection of a
    model: the model's z/VM busy over its used devices, 1 up to the measurement window's edges.
    """
    shares = parse_senders(link, senders)
    frac = direction_shares(link, shares)                   # (device, member)
    used = frac.sum(axis=1) > 0
    simulate = simulate_fn or _engine()
    n_ch, n_dev = len(link.chpids), len(link.devices)
    R = replications
    ch_vars = {k: np.zeros((R, n_ch)) for k in ("channel_ssch_iops", "channel_mb_s", "channel_busy", "link_busy")}
    dev_x = np.zeros((R, n_dev))
    dev_busy = np.zeros((R, n_dev))
    dev_busy_zvm = np.zeros((R, n_dev))
    tomls = []
    for g, chs, flat, model, n_used in _link_models(link, used, params):
        tomls.append(model.to_toml())
        ds = simulate(model, ios=ios_per_device * n_used, replications=R, seed=seed, point=g, per_device=True)
        if int(ds["unstable"]) if "unstable" in ds else 0:
            raise McioError("isfc", "simulation", "the engine flagged the run unstable: " + str(ds.attrs.get("unstable_reason")))
        for k in ch_vars:
            ch_vars[k][:, chs] = ds[k].values
        dev_x[:, flat] = ds["device_ssch_iops"].values
        dev_busy[:, flat] = ds["device_busy_by_device"].values
        zvm = ds["device_busy_zvm"].values * len(flat) / n_used if "device_busy_zvm" in ds else np.full(R, np.nan)
        dev_busy_zvm[:, flat] = zvm[:, None] * used[flat]
    return assemble(link, shares, frac, ch_vars, dev_x, dev_busy, params,
                    attrs={"seed": seed, "replications": R, "ios_per_device": ios_per_device,
                           "model_toml": "\n# ----\n".join(tomls)}, dev_busy_zvm=dev_busy_zvm)


def assemble(link: IsfcLink, shares: Mapping[str, float], frac: np.ndarray, ch_vars: Mapping,
             dev_x: np.ndarray, dev_busy: np.ndarray, params: IsfcParams, attrs: dict, *,
             dev_busy_zvm: np.ndarray | None = None) -> xr.Dataset:
    """Label per-replication channel and device arrays as the ISFC results dataset.

    ``dev_busy`` is device busy by the RMF definition, ``dev_busy_zvm`` (optional) by z/VM's."""
    import xarray as xr
    R = dev_x.shape[0]
    mb_per_io = params.kb_per_io / 1000.0
    link_x = dev_x.sum(axis=1)
    link_mb = ch_vars["channel_mb_s"].sum(axis=1)
    sender_x = dev_x @ frac                                  # (replication, member)
    w = writers(link.devnos, *link.systems)
    rep = ("replication",)
    conn = ("replication", "connection")
    chan = ("replication", "channel")
    u = lambda units, ln: {"units": units, "long_name": ln}
    busy = lambda d: {**u("1", f"device busy per FCTC connection, {d} definition: {BUSY_DEFINITIONS[d]}"),
                      "definition": d}
    busies = {"connection_busy": ("RMF", dev_busy)}
    if dev_busy_zvm is not None:
        busies["connection_busy_zvm"] = ("z/VM", dev_busy_zvm)
    ds = xr.Dataset(
        {
            "connection_ssch_iops": (conn, dev_x, u("s-1", "I/O rate per FCTC connection (SSCH/s)")),
            **{v: (conn, a, busy(d)) for v, (d, a) in busies.items()},
            "connection_ssch_ci95_iops": (("connection",), ci95(dev_x), u("s-1", "95% CI half-width of connection I/O rate")),
            "channel_ssch_iops": (chan, ch_vars["channel_ssch_iops"], u("s-1", "channel I/O rate (SSCH/s)")),
            "channel_mb_s": (chan, ch_vars["channel_mb_s"], u("Mbyte s-1", "channel relocation data rate")),
            "channel_busy": (chan, ch_vars["channel_busy"], u("1", "channel MP busy")),
            "link_busy": (chan, ch_vars["link_busy"], u("1", "channel link (bus) busy")),
            "channel_ssch_ci95_iops": (("channel",), ci95(ch_vars["channel_ssch_iops"]), u("s-1", "95% CI half-width of channel I/O rate")),
            "channel_mb_s_ci95": (("channel",), ci95(ch_vars["channel_mb_s"]), u("Mbyte s-1", "95% CI half-width of channel data rate")),
            "link_ssch_iops": (rep, link_x, u("s-1", "ISFC link I/O rate (SSCH/s)")),
            "link_mb_s": (rep, link_mb, u("Mbyte s-1", "ISFC link data rate")),
            "link_ssch_ci95_iops": ((), float(ci95(link_x)), u("s-1", "95% CI half-width of link I/O rate")),
            "link_mb_s_ci95": ((), float(ci95(link_mb)), u("Mbyte s-1", "95% CI half-width of link data rate")),
            "sender_ssch_iops": (("replication", "system"), sender_x, u("s-1", "I/O rate written by each member")),
            "sender_mb_s": (("replication", "system"), sender_x * mb_per_io, u("Mbyte s-1", "data rate written by each member")),
        },
        coords={
            "replication": ("replication", np.arange(R)),
            "connection": ("connection", [format_devno(d) for d in link.devnos], u("1", "FCTC device number")),
            "connection_chpid": ("connection", [format_chpid(c) for _, c in link.devices], u("1", "CHPID of the connection")),
            "connection_writers": ("connection", [",".join(w[d]) for d in link.devnos],
                                   u("1", "members that may write on the device (write-collision convention)")),
            "connection_used": ("connection", (frac.sum(axis=1) > 0).astype(np.int8), u("1", "carries sender traffic")),
            "channel": ("channel", [format_chpid(c) for c in link.chpids], u("1", "CHPID")),
            "channel_shared": ("channel", np.array([c in link.shared for c in link.chpids], dtype=np.int8),
                               u("1", "both ends of its FCTC connections on this channel")),
            "system": ("system", list(link.systems), u("1", "z/VM member")),
            "sender_share": ("system", [float(shares[s]) for s in link.systems], u("1", "relative share of sending")),
        },
        attrs={**cf_attrs("ISFC logical link over FICON CTC (mcio scenario isfc-link, seed 000)",
                          "mcio scenario isfc-link (simulate_link)"),
               "layout": link.describe(), "params": repr(asdict(params)),
               "device_busy_definition": "; ".join(f"{v}: {d}, {BUSY_DEFINITIONS[d]}"
                                                   for v, (d, _) in busies.items()),
               **attrs},
    )
    return ds


def summary(ds: xr.Dataset) -> dict:
    """Means over replications: {'connection_*': {devno: mean}, 'channel_*': {CHPID: mean}, 'link_*': ...}."""
    m = lambda v: ds[v].mean("replication").values
    per = lambda dim, v: dict(zip(ds[dim].values.tolist(), m(v).tolist()))
    names = ["connection_ssch_iops", "connection_busy", "connection_busy_zvm"]
    return {
        **{v: per("connection", v) for v in names if v in ds},
        **{v: per("channel", v) for v in ("channel_ssch_iops", "channel_mb_s")},
        "link_ssch_iops": float(m("link_ssch_iops")), "link_ssch_ci95_iops": float(ds.link_ssch_ci95_iops),
        "link_mb_s": float(m("link_mb_s")), "link_mb_s_ci95": float(ds.link_mb_s_ci95),
    }


__all__ = ["simulate_link", "assemble", "summary", "ci95", "BUSY_DEFINITIONS"]
