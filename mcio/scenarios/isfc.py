"""Seed 000: an ISFC logical link made of FICON CTC (FCTC) devices, live guest relocation traffic.

A link is a set of FCTC devices (device numbers), each on one FICON channel (CHPID), between two
z/VM members. z/VM's write-collision convention (:mod:`.isfc_rules`) decides on which devices each
member writes. The sending member keeps one write outstanding on every device it may use (a
relocation is a bulk stream and an FCTC device carries one I/O at a time), so each channel is a
small closed queueing network: per used device one I/O cycling through

    channel MP (start work, FIFO)  ->  partner-side latency (disconnect)  ->  data transfer
    (the channel's data rate shared by its concurrent transfers)

built on the generic engine (:func:`mcio.engine.simulate`) as a closed workload with one customer
pinned to each used device. Devices the sender may not use get weight 0 and carry nothing.

Shared versus non-shared channels. A "straight" FCTC connection has both ends on the same CHPID,
shared by the two LPARs of one CEC (the seed's case): that channel handles both the write of the
sender and the matching read of the receiver, so every relocated byte and every I/O costs it two
ends' worth of work. A non-shared channel carries only the sender's end; the receiver's end is on
another channel (another CEC), assumed to mirror the sender's load without adding to it.

Nothing in this model couples different channels (the engine's host adapter and back end are given
a server per device), so a link's throughput is the sum of its channels' throughputs; the planner
uses that to score thousands of layouts from one simulation per channel kind.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import asdict, dataclass, field
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np
import xarray as xr

from ..errors import McioError
from ..model import Model
from .isfc_rules import (MAX_DEVICES, check_pair, first_member, format_chpid, format_devno,
                         format_devno_ranges, parse_chpid, parse_devno, parse_devno_ranges,
                         reserved_per_side, write_order, writers)

# ---- physical parameters -------------------------------------------------------------------


@dataclass(frozen=True)
class IsfcParams:
    """Per-I/O physics of relocation traffic over FCTC devices on FICON channels.

    Provenance of each default: *seed* (read off document 000), *public* (an IBM figure) or
    *fitted* (chosen so that the model reproduces the seed; see :func:`fit_to_seed`).
    """

    # Data per SSCH. seed: link 565 MB/s / 754 SSCH/s = 0.749 MB (straight) and 590 / 782 = 0.754 MB
    # (striped); ISFC moves guest pages in ~0.75 MB chained writes. (1 KB = 1000 B as in the engine.)
    kb_per_io: float = 750.0

    # FCTC data rate of one FICON channel counting each end of a transfer separately (a shared
    # channel moves every relocated byte twice: out for the write, in for the partner's read).
    # fitted: the seed's one-channel saturation (~206 MB/s of relocation data through a shared
    # channel "with enough FCTCs", 270 SSCH/s x 0.75 MB with three) needs ~2 x 205 MB/s here.
    # public: IBM's command-mode (CCW) FICON throughput maxima are a few hundred MB/s per channel
    # (full duplex, FICON Express4 to 8S), the same magnitude; FCTC traffic is always command mode.
    channel_mb_s: float = 407.0

    # Channel-processor (MP) work per I/O and per end, us (FIFO, all of it at the start of the I/O).
    # fitted: the seed's 2-device channels (2 x 128 SSCH/s) are slower than a pure bandwidth share
    # allows; ~0.5 ms per end (~1 ms per I/O on a shared channel) reproduces them. A 0.75 MB
    # CCW-mode FCTC write is a long command chain that the channel's CTC control-unit function
    # pairs with the partner's read, so this is far above the ~80 us of a 4 KB DASD I/O on seed
    # 001's z9 channel (12,100 I/O/s at 96 % MP busy).
    mp_us_per_end: float = 456.0
    # Variability (SCV) of that work. fitted: 1 (exponential); deterministic work would let two
    # devices on a channel overlap almost perfectly and overstate the seed's 2-device channels.
    mp_scv: float = 1.0

    # Partner-side latency per I/O, ms (disconnect): the FCTC handshake through the FICON switch
    # before data flows, the receiver's read already posted. assumed: 20 us. The seed cannot tell
    # it apart from MP work (a free fit drives it to 0, and the fit of the others barely moves for
    # anything below ~0.1 ms): its one-device channel, 214 SSCH/s = 4.67 ms per I/O, is almost
    # all MP work and transfer. If ISFC did not keep reads posted, the receiver's attention
    # interrupt, CP dispatch and read SSCH would add tens to hundreds of us per I/O here.
    partner_latency_ms: float = 0.02
    partner_latency_scv: float = 1.0

    # Factor of per-I/O channel work and data on a shared channel (both ends on one CHPID). seed:
    # all measurements are on shared channels; the factor 2 is the two-ends argument above.
    shared_factor: float = 2.0

    def __post_init__(self):
        for name in ("kb_per_io", "channel_mb_s", "shared_factor"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v) or v <= 0:
                raise McioError(f"isfc.{name}", v, "must be a positive number")
        for name in ("mp_us_per_end", "mp_scv", "partner_latency_ms", "partner_latency_scv"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v) or v < 0:
                raise McioError(f"isfc.{name}", v, "must be a number >= 0")

    def channel_section(self, shared: bool, count: int) -> dict:
        f = self.shared_factor if shared else 1.0
        return {"count": count, "link_mb_s": self.channel_mb_s / f,
                "mp_us_per_io_ccw": self.mp_us_per_end * f, "mp_scv": self.mp_scv,
                "mp_start_fraction": 1.0, "zhpf_share": 0.0, "max_open_exchanges": 64}

    def demands_ms(self, shared: bool) -> dict:
        """Mean per-I/O demands (ms) of one channel: MP (FIFO), link (PS), partner (delay)."""
        f = self.shared_factor if shared else 1.0
        return {"mp": self.mp_us_per_end * f / 1000.0, "link": self.kb_per_io * f / self.channel_mb_s,
                "partner": self.partner_latency_ms}


DEFAULT_PARAMS = IsfcParams()


def channel_throughput_mva(n_used: int, params: IsfcParams = DEFAULT_PARAMS, shared: bool = True) -> float:
    """Exact SSCH/s of one channel with ``n_used`` always-busy devices, by MVA.

    With exponential MP work the channel is a product-form network (FIFO exponential MP, processor-
    shared link, delay for the partner), so this is the oracle the simulation must match.
    """
    if n_used == 0:
        return 0.0
    d = params.demands_ms(shared)
    q = np.zeros(2)
    x = 0.0
    for n in range(1, n_used + 1):
        r = np.array([d["mp"], d["link"]]) * (1.0 + q)
        x = n / (d["partner"] + r.sum())
        q = x * r
    return 1000.0 * x


# The seed's figures (document 000), as read off it; the tests and scripts/isfc_seed.py compare with
# these, and fit_to_seed() derives the fitted defaults above from the per-channel ones.
SEED_000 = {
    "straight_3x3": {"connection_ssch_iops": {"D000": 0.0, "D001": 0.0, "D002": 214.0, "D003": 90.0,
                                              "D004": 90.0, "D005": 90.0, "D006": 90.0, "D007": 90.0,
                                              "D008": 90.0},
                     "channel_ssch_iops": {"3C": 214.0, "3D": 270.0, "3E": 270.0},
                     "link_ssch_iops": 754.0, "link_mb_s": 565.0},
    "striped_3x3": {"connection_ssch_iops": {"D000": 0.0, "D001": 0.0, "D002": 90.0, "D003": 128.0,
                                             "D004": 128.0, "D005": 90.0, "D006": 128.0, "D007": 128.0,
                                             "D008": 90.0},
                    "channel_ssch_iops": {"3C": 256.0, "3D": 256.0, "3E": 270.0},
                    "link_ssch_iops": 782.0, "link_mb_s": 590.0},
    "one_channel_2fctc": {"link_mb_s": 165.0},
    "channel_max_mb_s": 206.0,          # "about 206 MB/s ... with one FICON channel if sufficient FCTCs"
}


def fit_to_seed(partner_latency_ms: float = DEFAULT_PARAMS.partner_latency_ms,
                base: IsfcParams = DEFAULT_PARAMS) -> IsfcParams:
    """Least-squares fit of ``mp_us_per_end`` and ``channel_mb_s`` to the seed's shared channels
    (relative errors, exact MVA): 1 used device 214 SSCH/s (D002) and 165 MB/s (the 1 x 2 case),
    2 used devices 256 SSCH/s, 3 used devices 270 SSCH/s. The partner latency is held fixed
    (the fit drives it to ~0 and is insensitive to it below ~0.1 ms)."""
    from dataclasses import replace
    from scipy.optimize import least_squares
    one_dev = [214.0, SEED_000["one_channel_2fctc"]["link_mb_s"] * 1000.0 / base.kb_per_io]
    targets = np.array(one_dev + [256.0, 270.0])

    def model(p):
        prm = replace(base, mp_us_per_end=p[0], channel_mb_s=p[1], partner_latency_ms=partner_latency_ms)
        x = [channel_throughput_mva(n, prm, shared=True) for n in (1, 2, 3)]
        return np.array([x[0], x[0], x[1], x[2]])

    r = least_squares(lambda p: model(p) / targets - 1.0, [500.0, 400.0], bounds=([0.0, 50.0], [5000.0, 5000.0]))
    return replace(base, mp_us_per_end=float(r.x[0]), channel_mb_s=float(r.x[1]),
                   partner_latency_ms=partner_latency_ms)


# ---- the link ------------------------------------------------------------------------------


@dataclass(frozen=True)
class IsfcLink:
    """An ISFC logical link: two members, its channels, and each FCTC device's channel.

    ``devices`` maps device number -> CHPID (ints); ``chpids`` lists the link's channels in order;
    ``shared`` holds the CHPIDs whose FCTC connections have both ends on that channel.
    """

    systems: tuple[str, str]
    chpids: tuple[int, ...]
    devices: tuple[tuple[int, int], ...]      # (devno, chpid), sorted by devno
    shared: frozenset = field(default=frozenset())

    @classmethod
    def build(cls, systems: Sequence[str], chpids: Iterable, devices: Mapping, shared=True) -> "IsfcLink":
        """Validate and build. ``devices``: {devno: chpid} (hex strings or ints). ``shared``: True
        (every channel), False, or the CHPIDs that are shared."""
        if not isinstance(systems, (list, tuple)) or len(systems) != 2:
            raise McioError("systems", systems, "give the two z/VM members' system names")
        pair = check_pair(*systems)
        if isinstance(chpids, (str, bytes)) or not isinstance(chpids, Iterable):
            raise McioError("chpids", chpids, "must be a list of CHPIDs, e.g. ['3C', '3D']")
        chs = [parse_chpid(c, f"chpids[{i}]") for i, c in enumerate(chpids)]
        if not chs:
            raise McioError("chpids", list(chpids), "a link needs at least one channel")
        if len(set(chs)) != len(chs):
            dup = next(c for c in chs if chs.count(c) > 1)
            raise McioError("chpids", [format_chpid(c) for c in chs], f"CHPID {format_chpid(dup)} is listed twice")
        if not isinstance(devices, Mapping) or not devices:
            raise McioError("devices", devices, "must map FCTC device numbers to CHPIDs, e.g. {'D000': '3C'}")
        if len(devices) > MAX_DEVICES:
            raise McioError("devices", len(devices),
                            f"{len(devices)} FCTC devices; an ISFC link holds at most {MAX_DEVICES}")
        devs: dict[int, int] = {}
        for d_raw, c_raw in devices.items():
            d = parse_devno(d_raw, "devices")
            c = parse_chpid(c_raw, f"devices.{format_devno(d)}")
            if d in devs:
                raise McioError("devices", format_devno(d), "duplicate device number in the link")
            if c not in chs:
                raise McioError(f"devices.{format_devno(d)}", format_chpid(c),
                                f"unknown CHPID; the link's CHPIDs are {', '.join(map(format_chpid, chs))}")
            devs[d] = c
        if shared is True:
            sh = frozenset(chs)
        elif shared is False or shared is None:
            sh = frozenset()
        else:
            sh = frozenset(parse_chpid(c, "shared") for c in shared)
            bad = sh - set(chs)
            if bad:
                raise McioError("shared", [format_chpid(c) for c in sorted(bad)], "unknown CHPID in the shared list")
        return cls(pair, tuple(chs), tuple(sorted(devs.items())), sh)

    @classmethod
    def from_ranges(cls, systems: Sequence[str], ranges: Mapping, shared=True, chpids=None) -> "IsfcLink":
        """Build from device-number ranges per CHPID: {'3C': 'D000-D002', '3D': 'D003-D005'}.
        ``chpids`` (default: the keys of ``ranges``) lists the link's channels."""
        if not isinstance(ranges, Mapping) or not ranges:
            raise McioError("ranges", ranges, "must map CHPIDs to device-number ranges, e.g. {'3C': 'D000-D002'}")
        devs: dict[int, object] = {}
        for c_raw, text in ranges.items():
            c = parse_chpid(c_raw, "ranges")
            for d in parse_devno_ranges(text, f"ranges.{format_chpid(c)}"):
                if d in devs:
                    raise McioError("devices", format_devno(d),
                                    f"duplicate device number in the link (on CHPIDs "
                                    f"{format_chpid(parse_chpid(devs[d]))} and {format_chpid(c)})")
                devs[d] = c
                if len(devs) > MAX_DEVICES:
                    raise McioError("devices", f"{len(devs)}+",
                                    f"too many FCTC devices; an ISFC link holds at most {MAX_DEVICES}")
        return cls.build(systems, list(ranges) if chpids is None else chpids, devs, shared)

    # ---- derived ----
    @property
    def devnos(self) -> list[int]:
        return [d for d, _ in self.devices]

    def chpid_of(self, devno: int) -> int:
        return dict(self.devices)[devno]

    def ranges(self) -> dict[str, str]:
        """CHPID -> its device numbers as ranges (the IOCDS view)."""
        return {format_chpid(c): format_devno_ranges(d for d, cc in self.devices if cc == c)
                for c in self.chpids}

    def n_ranges(self) -> int:
        return sum(len(r.split(", ")) for r in self.ranges().values() if r)

    def describe(self) -> str:
        return "; ".join(f"{c}: {r}" if r else f"{c}: (none)" for c, r in self.ranges().items())


def parse_senders(link: IsfcLink, senders) -> dict[str, float]:
    """``'LPAR2'`` (that member sends everything) or ``{'LPAR1': 0.3, 'LPAR2': 0.7}``."""
    if isinstance(senders, str):
        senders = {senders: 1.0}
    if not isinstance(senders, Mapping) or not senders:
        raise McioError("senders", senders, f"name the sending member ({' or '.join(link.systems)}) "
                                            "or give shares per member")
    out = {s: 0.0 for s in link.systems}
    for k, v in senders.items():
        name = k.strip().upper() if isinstance(k, str) else k
        if name not in out:
            raise McioError("senders", k, f"not a member of this link; allowed: {', '.join(link.systems)}")
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
            raise McioError(f"senders.{name}", v, "a share must be a number >= 0")
        out[name] = float(v)
    if sum(out.values()) <= 0:
        raise McioError("senders", senders, "at least one member needs a positive share")
    return out


def direction_shares(link: IsfcLink, senders: Mapping[str, float]) -> np.ndarray:
    """(device, member) fraction of each device's I/Os written by each member.

    A device only one sending member may write on carries only that member's I/Os; a device both
    sending members may write on is alternated between them in the ratio of their shares (their
    relative intensity of contention for it). A device no sending member may use stays idle.
    """
    w = writers(link.devnos, *link.systems)
    out = np.zeros((len(link.devices), 2))
    for i, d in enumerate(link.devnos):
        tot = sum(senders[s] for s in w[d])
        for j, s in enumerate(link.systems):
            if s in w[d] and tot > 0:
                out[i, j] = senders[s] / tot
    return out


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
        # the CU is the partner: a server per device, so the latency is a pure delay (no queue)
        "control_unit": {"ha_servers": n_dev, "ha_service_us": 0.0, "backend_servers": n_dev,
                         "backend_service_ms": _latency(params)},
    }, where=where)


def _per_channel(counts: Sequence[int]) -> list[int]:
    return [c for c, n in enumerate(counts) for _ in range(n)]


def _latency(params: IsfcParams):
    if params.partner_latency_ms == 0 or params.partner_latency_scv == 0:
        return params.partner_latency_ms
    if params.partner_latency_scv == 1.0:
        return {"dist": "exponential", "mean": params.partner_latency_ms}
    return {"dist": "gamma", "mean": params.partner_latency_ms, "scv": params.partner_latency_scv}


def _engine():
    try:
        from ..engine import simulate
    except ImportError as e:  # pragma: no cover - the engine is part of the package
        raise McioError("engine", "mcio.engine", f"cannot be imported ({e})") from None
    return simulate


def _t95(r: int) -> float:
    from scipy.stats import t
    return float(t.ppf(0.975, r - 1)) if r > 1 else float("nan")


def ci95(a: np.ndarray, axis: int = 0) -> np.ndarray:
    """Half-width of the 95 % t confidence interval of the mean over ``axis`` (replications)."""
    a = np.asarray(a, dtype=float)
    r = a.shape[axis]
    return _t95(r) * a.std(axis=axis, ddof=1) / math.sqrt(r) if r > 1 else np.full(np.delete(a.shape, axis), np.nan)


# ---- simulation of one link ----------------------------------------------------------------


def simulate_link(link: IsfcLink, senders="auto", params: IsfcParams = DEFAULT_PARAMS, *,
                  ios_per_device: int = 20_000, replications: int = 4, seed: int = 0,
                  simulate_fn: Callable | None = None) -> xr.Dataset:
    """Simulate relocation traffic over ``link``; per-connection, per-channel and per-link results.

    ``senders``: the sending member's name, or {member: share}; "auto" = the member whose name
    sorts second (the seed's LPAR2 and BOER3740). ``ios_per_device`` I/Os are simulated per used
    device and replication (after the engine's warm-up).
    """
    if senders == "auto":
        a, b = link.systems
        senders = b if first_member(a, b) == a else a
    shares = parse_senders(link, senders)
    frac = direction_shares(link, shares)                   # (device, member)
    used = frac.sum(axis=1) > 0
    simulate = simulate_fn or _engine()
    dev_chpid = [c for _, c in link.devices]
    n_ch, n_dev = len(link.chpids), len(link.devices)
    R = replications
    ch_vars = {k: np.zeros((R, n_ch)) for k in ("channel_ssch_iops", "channel_mb_s", "channel_busy", "link_busy")}
    dev_x = np.zeros((R, n_dev))
    dev_busy = np.zeros((R, n_dev))
    tomls = []
    for g, kind in enumerate((True, False)):                # shared channels, then non-shared
        chs = [i for i, c in enumerate(link.chpids) if (c in link.shared) == kind]
        devs = [[j for j in range(n_dev) if dev_chpid[j] == link.chpids[i]] for i in chs]
        flat = [j for ds in devs for j in ds]
        if not flat or not used[flat].any():
            continue                                        # no traffic: zeros stay
        model = _channel_model(_per_channel([len(ds) for ds in devs]), [bool(used[j]) for j in flat],
                               len(chs), kind, params)
        tomls.append(model.to_toml())
        ds = simulate(model, ios=ios_per_device * int(used[flat].sum()), replications=R, seed=seed,
                      point=g, per_device=True)
        if int(ds["unstable"]) if "unstable" in ds else 0:
            raise McioError("isfc", "simulation", "the engine flagged the run unstable")
        for k in ch_vars:
            ch_vars[k][:, chs] = ds[k].values
        dev_x[:, flat] = ds["device_ssch_iops"].values
        dev_busy[:, flat] = ds["device_busy_by_device"].values
    return assemble(link, shares, frac, ch_vars, dev_x, dev_busy, params,
                    attrs={"seed": seed, "replications": R, "ios_per_device": ios_per_device,
                           "model_toml": "\n# ----\n".join(tomls)})


def assemble(link: IsfcLink, shares: Mapping[str, float], frac: np.ndarray, ch_vars: Mapping,
             dev_x: np.ndarray, dev_busy: np.ndarray, params: IsfcParams, attrs: dict) -> xr.Dataset:
    """Label per-replication channel and device arrays as the ISFC results dataset."""
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
    ds = xr.Dataset(
        {
            "connection_ssch_iops": (conn, dev_x, u("s-1", "I/O rate per FCTC connection (SSCH/s)")),
            "connection_busy": (conn, dev_busy, u("1", "device busy per FCTC connection (connect + disconnect)")),
            "connection_ssch_ci95_iops": (("connection",), ci95(dev_x), u("s-1", "95% CI half-width of connection I/O rate")),
            "channel_ssch_iops": (chan, ch_vars["channel_ssch_iops"], u("s-1", "channel I/O rate (SSCH/s)")),
            "channel_mb_s": (chan, ch_vars["channel_mb_s"], u("MB s-1", "channel relocation data rate")),
            "channel_busy": (chan, ch_vars["channel_busy"], u("1", "channel MP busy")),
            "link_busy": (chan, ch_vars["link_busy"], u("1", "channel link (bus) busy")),
            "channel_ssch_ci95_iops": (("channel",), ci95(ch_vars["channel_ssch_iops"]), u("s-1", "95% CI half-width of channel I/O rate")),
            "channel_mb_s_ci95": (("channel",), ci95(ch_vars["channel_mb_s"]), u("MB s-1", "95% CI half-width of channel data rate")),
            "link_ssch_iops": (rep, link_x, u("s-1", "ISFC link I/O rate (SSCH/s)")),
            "link_mb_s": (rep, link_mb, u("MB s-1", "ISFC link data rate")),
            "link_ssch_ci95_iops": ((), float(ci95(link_x)), u("s-1", "95% CI half-width of link I/O rate")),
            "link_mb_s_ci95": ((), float(ci95(link_mb)), u("MB s-1", "95% CI half-width of link data rate")),
            "sender_ssch_iops": (("replication", "system"), sender_x, u("s-1", "I/O rate written by each member")),
            "sender_mb_s": (("replication", "system"), sender_x * mb_per_io, u("MB s-1", "data rate written by each member")),
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
        attrs={"Conventions": "CF-1.8", "title": "ISFC logical link over FICON CTC (mcio scenario isfc, seed 000)",
               "layout": link.describe(), "params": repr(asdict(params)), **attrs},
    )
    return ds


def summary(ds: xr.Dataset) -> dict:
    """Means over replications: {'connection': {devno: SSCH/s}, 'channel': {...}, 'link_*': ...}."""
    m = lambda v: ds[v].mean("replication").values
    return {
        "connection_ssch_iops": dict(zip(ds.connection.values.tolist(), m("connection_ssch_iops").tolist())),
        "connection_busy": dict(zip(ds.connection.values.tolist(), m("connection_busy").tolist())),
        "channel_ssch_iops": dict(zip(ds.channel.values.tolist(), m("channel_ssch_iops").tolist())),
        "channel_mb_s": dict(zip(ds.channel.values.tolist(), m("channel_mb_s").tolist())),
        "link_ssch_iops": float(m("link_ssch_iops")), "link_ssch_ci95_iops": float(ds.link_ssch_ci95_iops),
        "link_mb_s": float(m("link_mb_s")), "link_mb_s_ci95": float(ds.link_mb_s_ci95),
    }


# ---- layouts ---------------------------------------------------------------------------------


def _balanced(n: int, k: int) -> list[int]:
    return [n // k + (1 if i < n % k else 0) for i in range(k)]


def straight_layout(systems, chpids, n_devices: int, base="D000", shared=True) -> IsfcLink:
    """Sequential device numbers: the first CHPID gets the lowest block, and so on (balanced)."""
    chs = list(chpids)
    b = parse_devno(base, "base")
    order = [c for c, cnt in zip(chs, _balanced(n_devices, len(chs))) for _ in range(cnt)]
    return _link_from_order(systems, chs, order, b, shared)


def striped_layout(systems, chpids, n_devices: int, base="D000", shared=True) -> IsfcLink:
    """Striped device numbers: device i on CHPID i mod (number of CHPIDs)."""
    chs = list(chpids)
    b = parse_devno(base, "base")
    order = [chs[i % len(chs)] for i in range(n_devices)]
    return _link_from_order(systems, chs, order, b, shared)


def _link_from_order(systems, chpids, order, base: int, shared) -> IsfcLink:
    n = len(order)
    if n < 1 or n > MAX_DEVICES:
        raise McioError("devices", n, f"an ISFC link holds 1 to {MAX_DEVICES} FCTC devices")
    if base + n - 1 > 0xFFFF:
        raise McioError("base", format_devno(base), f"no room for {n} device numbers above it")
    return IsfcLink.build(systems, chpids, {base + i: c for i, c in enumerate(order)}, shared)



def build_isfc(layout: Mapping | None = None, systems: Sequence[str] = ("LPAR1", "LPAR2"),
               sender: str = "auto", shared: bool = True, kb_per_io: float = DEFAULT_PARAMS.kb_per_io,
               channel_mb_s: float = DEFAULT_PARAMS.channel_mb_s,
               mp_us_per_end: float = DEFAULT_PARAMS.mp_us_per_end, mp_scv: float = DEFAULT_PARAMS.mp_scv,
               partner_latency_ms: float = DEFAULT_PARAMS.partner_latency_ms) -> Model:
    """ISFC logical link over FICON CTC (seed 000) as one engine model, for sweeps.

    ``layout``: CHPID -> device-number ranges (default: the seed's striped 3 x 3 link); channel i
    of the model is the i-th CHPID, device j the j-th lowest device number. Devices the sender may
    not write on get weight 0. (:func:`simulate_link` gives the labelled per-connection view.)
    """
    layout = layout or {"3C": "D000,D003,D006", "3D": "D001,D004,D007", "3E": "D002,D005,D008"}
    link = IsfcLink.from_ranges(list(systems), layout, shared=shared)
    prm = IsfcParams(kb_per_io=kb_per_io, channel_mb_s=channel_mb_s, mp_us_per_end=mp_us_per_end,
                     mp_scv=mp_scv, partner_latency_ms=partner_latency_ms)
    if sender == "auto":
        a, b = link.systems
        sender = b if first_member(a, b) == a else a
    used = direction_shares(link, parse_senders(link, sender)).sum(axis=1) > 0
    if not used.any():
        raise McioError("layout", layout, "the sender may write on none of these devices")
    idx = {c: i for i, c in enumerate(link.chpids)}
    return _channel_model([idx[c] for _, c in link.devices], list(used), len(link.chpids), shared, prm,
                          where="scenario isfc-link")


# ---- the planner -----------------------------------------------------------------------------
#
# For one direction, a layout's throughput depends only on how many devices the sender uses on
# each channel (and the channel's kind), because channels do not interact. So the planner
#   1. simulates, once per channel kind, a channel with u = 1 .. U used devices (one engine run:
#      U channels, channel u holding u devices) -> per-replication SSCH/s table X_kind(u);
#   2. searches layouts: which channels hold the k lowest device numbers (the first member's own),
#      which hold the k highest (the second member's own), and, greedily, where the n - 2k devices
#      in between go (for one direction the score is a sum of a concave X, where greedy is exact);
#   3. scores every layout as the sum over channels of the simulated X (per replication, so the
#      confidence interval comes along), adds the straight and striped layouts for comparison,
#      and ranks: best worse-direction throughput (or the given sender's), then fewer devno ranges.


@dataclass
class PlanEntry:
    """One ranked layout: per sending member, simulated link SSCH/s (mean, CI) and used devices."""

    name: str
    link: IsfcLink
    ssch_iops: dict            # sender -> mean link SSCH/s
    ssch_ci95_iops: dict       # sender -> 95 % CI half-width
    used_per_channel: dict     # sender -> {CHPID: devices it writes on}
    score: tuple = ()

    def mb_s(self, kb_per_io: float) -> dict:
        return {s: x * kb_per_io / 1000.0 for s, x in self.ssch_iops.items()}


def _kind(link: IsfcLink, chpid: int) -> str:
    return "shared" if chpid in link.shared else "non-shared"


@dataclass
class Plan:
    """The planner's result: ranked entries (best first) and the simulated table they rest on."""

    entries: list
    directions: list           # the sending members considered
    systems: tuple
    params: IsfcParams
    table: dict                # channel kind ("shared"/"non-shared") -> (replication, u) SSCH/s
    verification: dict = field(default_factory=dict)   # sender -> Dataset of the best layout

    @property
    def best(self) -> PlanEntry:
        return self.entries[0]

    def entry(self, name: str) -> PlanEntry:
        for e in self.entries:
            if e.name == name:
                return e
        raise KeyError(name)

    def rank(self, name: str) -> int:
        return [e.name for e in self.entries].index(name) + 1

    def evaluate(self, link: IsfcLink, name: str = "layout") -> PlanEntry:
        """Score any layout of the same two members on this plan's simulated table."""
        if set(link.systems) != set(self.systems):
            raise McioError("systems", list(link.systems), f"the plan is for {' and '.join(self.systems)}")
        used, per_rep = {}, {}
        for s in self.directions:
            partner = next(x for x in self.systems if x != s)
            counts = {c: 0 for c in link.chpids}
            for d in write_order(link.devnos, s, partner):
                counts[link.chpid_of(d)] += 1
            tot = np.zeros(next(iter(self.table.values())).shape[0])
            for c, u in counts.items():
                t = self.table.get(_kind(link, c))
                if t is None or u >= t.shape[1]:
                    raise McioError("layout", link.describe(),
                                    f"{u} used devices on a {_kind(link, c)} channel are outside the planned table")
                tot = tot + t[:, u]
            used[s] = {format_chpid(c): u for c, u in counts.items()}
            per_rep[s] = tot
        means = {s: float(v.mean()) for s, v in per_rep.items()}
        score = (round(min(means.values()), 6), round(sum(means.values()), 6), -link.n_ranges())
        return PlanEntry(name, link, means, {s: float(ci95(v)) for s, v in per_rep.items()}, used, score)

    def report(self) -> str:
        kb = self.params.kb_per_io
        other = {a: b for a, b in (self.systems, self.systems[::-1])}
        heads = [f"{s}->{other[s]}" for s in self.directions]
        lines = [f"{'rank':>4}  {'layout':<13}" + "".join(f"  {h:>28}" for h in heads),
                 f"{'':>4}  {'':<13}" + "".join(f"  {'SSCH/s':>16} {'MB/s':>11}" for _ in heads)]
        for i, e in enumerate(self.entries, 1):
            row = f"{i:>4}  {e.name:<13}"
            for s in self.directions:
                row += f"  {e.ssch_iops[s]:>8.1f} ±{e.ssch_ci95_iops[s]:<6.1f} {e.mb_s(kb)[s]:>11.1f}"
            lines.append(row)
        b = self.best
        lines += ["", f"Best layout ({b.name}), device numbers per CHPID:"]
        for c, r in b.link.ranges().items():
            use = ", ".join(f"{s} writes on {b.used_per_channel[s].get(c, 0)}" for s in self.directions)
            lines.append(f"  CHPID {c}: {r or '(none)':<30} ({use})")
        for s, ds in self.verification.items():
            lines.append(f"Full-link simulation of the best layout, {s}->{other[s]}: "
                         f"{float(ds.link_ssch_iops.mean()):.1f} ±{float(ds.link_ssch_ci95_iops):.1f} SSCH/s, "
                         f"{float(ds.link_mb_s.mean()):.1f} MB/s")
        return "\n".join(lines)


def channel_table(u_max: int, shared: bool, params: IsfcParams = DEFAULT_PARAMS, *,
                  ios_per_device: int = 20_000, replications: int = 4, seed: int = 0, point: int = 0,
                  simulate_fn: Callable | None = None) -> np.ndarray:
    """Simulated SSCH/s of one channel with u = 0 .. u_max used devices: (replication, u_max + 1).

    One engine run: u_max independent channels, channel u holding u used devices. Beyond ~3 used
    devices a channel's rate hardly grows, so each channel gets about ``3 * ios_per_device`` I/Os.
    """
    simulate = simulate_fn or _engine()
    model = _channel_model(_per_channel(range(1, u_max + 1)), [True] * (u_max * (u_max + 1) // 2), u_max,
                           shared, params)
    ds = simulate(model, ios=3 * ios_per_device * u_max, replications=replications, seed=seed, point=point)
    x = ds["channel_ssch_iops"].values
    return np.concatenate([np.zeros((x.shape[0], 1)), x], axis=1)


def _order_from(bot: Sequence[int], mid: Sequence[int], top: Sequence[int]) -> list[int]:
    """Channel index of each position (lowest device number first), runs kept contiguous."""
    bot, top = sorted(bot), sorted(top)
    blocks = [c for c in range(len(mid)) if mid[c] > 0]
    if bot and bot[-1] in blocks:                    # continue the last reserved channel's run
        blocks.remove(bot[-1]); blocks.insert(0, bot[-1])
    if top and top[0] in blocks and blocks[0] != top[0]:
        blocks.remove(top[0]); blocks.append(top[0])
    if blocks and top and blocks[-1] in top:         # the top run starts where the middle ends
        top.remove(blocks[-1]); top.insert(0, blocks[-1])
    if blocks and bot and blocks[0] in bot:
        bot.remove(blocks[0]); bot.append(blocks[0])
    return list(bot) + [c for c in blocks for _ in range(mid[c])] + list(top)


def plan(chpids: Sequence, n_devices: int, systems: Sequence[str], sender: str | None = None, *,
         base="D000", shared=True, params: IsfcParams = DEFAULT_PARAMS, ios_per_device: int = 20_000,
         replications: int = 4, seed: int = 0, top: int = 3, verify: bool = False,
         simulate_fn: Callable | None = None) -> Plan:
    """Search device-number layouts of ``n_devices`` FCTC devices over ``chpids`` and rank them by
    simulated link throughput (best first; the straight and striped layouts are always ranked too).

    ``sender``: the member that sends (relocates), or None for both directions, ranked by the worse
    direction. ``shared``: as in :meth:`IsfcLink.build`. ``top``: how many distinct searched
    layouts to keep. ``verify``: also simulate the best layout as a whole link.
    """
    if not isinstance(systems, (list, tuple)) or len(systems) != 2:
        raise McioError("systems", systems, "give the two z/VM members' system names")
    pair = check_pair(*systems)
    if isinstance(chpids, (str, bytes)) or not isinstance(chpids, Sequence) or not chpids:
        raise McioError("chpids", chpids, "must be a non-empty list of CHPIDs, e.g. ['3C', '3D']")
    b0 = parse_devno(base, "base")
    probe = IsfcLink.build(pair, chpids, {b0: chpids[0]}, shared)
    if isinstance(n_devices, bool) or not isinstance(n_devices, int):
        raise McioError("devices", n_devices, "the number of FCTC devices must be an integer")
    k = reserved_per_side(n_devices)                         # raises for < 1 or > 16
    if b0 + n_devices - 1 > 0xFFFF:
        raise McioError("base", format_devno(b0), f"no room for {n_devices} device numbers above it")
    chs = list(probe.chpids)
    C = len(chs)
    if sender is None:
        directions = list(pair)
    else:
        s = sender.strip().upper() if isinstance(sender, str) else sender
        if s not in pair:
            raise McioError("sender", sender, f"not a member of the link; allowed: {', '.join(pair)}")
        directions = [s]
    first = first_member(*pair)
    second = next(s for s in pair if s != first)
    kind_of = [_kind(probe, c) for c in chs]

    # 1. the simulated per-channel table: X_kind(u) for u = 0 .. u_cap. A channel's rate is concave
    #    in its used devices, so no layout that crowds more than ceil(n / C) + k of them onto one
    #    channel can beat a balanced one; those are left out of the search.
    u_cap = min(n_devices - k, -(-n_devices // C) + k)
    table = {kind: channel_table(u_cap, kind == "shared", params, ios_per_device=ios_per_device,
                                 replications=replications, seed=seed, point=100 + p, simulate_fn=simulate_fn)
             for p, kind in enumerate(sorted(set(kind_of)))}
    result = Plan([], directions, pair, params, table)
    mean = {kd: t.mean(axis=0) for kd, t in table.items()}

    def fast_score(used: dict) -> tuple:
        if any(used[s][c] > u_cap for s in directions for c in range(C)):
            return (-math.inf, -math.inf)
        tot = [sum(mean[kind_of[c]][used[s][c]] for c in range(C)) for s in directions]
        return (round(min(tot), 6), round(sum(tot), 6))

    # 2. the search. Channels of one kind are interchangeable, so the reserved ends can always sit
    #    on the first 2k channels of each kind; the middle devices are placed greedily.
    canon = [c for kd in sorted(set(kind_of)) for c in [i for i in range(C) if kind_of[i] == kd][: 2 * k]]
    found: dict = {}
    for bot in itertools.combinations_with_replacement(canon, k):
        for topr in itertools.combinations_with_replacement(canon, k):
            own = {first: np.bincount(np.array(bot, int), minlength=C),
                   second: np.bincount(np.array(topr, int), minlength=C)}
            mid = np.zeros(C, int)
            for _ in range(n_devices - 2 * k):
                best_c, best_sc = 0, None
                for c in range(C):
                    mid[c] += 1
                    sc = fast_score({s: own[s] + mid for s in directions})
                    mid[c] -= 1
                    if best_sc is None or sc > best_sc:
                        best_c, best_sc = c, sc
                mid[best_c] += 1
            if fast_score({s: own[s] + mid for s in directions})[0] == -math.inf:
                continue
            order = _order_from(list(bot), list(mid), list(topr))
            e = result.evaluate(_link_from_order(pair, chs, [chs[c] for c in order], b0, shared))
            key = tuple(tuple(sorted((kind_of[chs.index(parse_chpid(c))], u) for c, u in e.used_per_channel[s].items()))
                        for s in directions)
            if key not in found or e.score > found[key].score:
                found[key] = e

    # 3. rank: the best distinct searched layouts, plus straight and striped for comparison
    ranked = sorted(found.values(), key=lambda e: e.score, reverse=True)[:max(1, top)]
    for i, e in enumerate(ranked):
        e.name = "planned" if i == 0 else f"alternative{i}"
    entries = ranked + [result.evaluate(striped_layout(pair, chs, n_devices, base, shared), "striped"),
                        result.evaluate(straight_layout(pair, chs, n_devices, base, shared), "straight")]
    entries.sort(key=lambda e: e.score[:2], reverse=True)       # stable: searched layouts first on ties
    result.entries = entries
    if verify:
        for i, s in enumerate(directions):
            result.verification[s] = simulate_link(result.best.link, s, params, ios_per_device=ios_per_device,
                                                   replications=replications, seed=seed + 1 + i,
                                                   simulate_fn=simulate_fn)
    return result


__all__ = ["IsfcParams", "DEFAULT_PARAMS", "SEED_000", "fit_to_seed", "IsfcLink", "simulate_link", "build_isfc",
           "assemble", "summary", "straight_layout", "striped_layout", "channel_throughput_mva",
           "parse_senders", "direction_shares", "ci95", "plan", "Plan", "PlanEntry", "channel_table"]
