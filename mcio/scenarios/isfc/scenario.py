"""Scenario isfc-link on the contract of :mod:`mcio.scenarios.base`: the link's physics
(:class:`~.params.IsfcParams`) and its layout as Params, the seed's three configurations as
variants, and seed 000's figures (:data:`~.params.SEED_000`) as Figures.

Its figures are a link's, labelled per FCTC connection and per CHPID, so :meth:`IsfcLinkScenario.
evaluate` runs :func:`~.sim.simulate_link` (one engine model per channel kind) instead of one
:func:`~mcio.engine.simulate`; :meth:`~IsfcLinkScenario.build` gives the one-model view a sweep
uses (:func:`build_link_model`). The run size's ``ios`` is per used FCTC device and replication.
"""
from __future__ import annotations

from dataclasses import fields

import numpy as np

from ...errors import McioError
from ...model import Model
from ..base import Figure, Param, RunSize, Scenario, Tolerance
from .link import IsfcLink, check_systems, direction_shares, parse_senders
from .params import DEFAULT_PARAMS, SEED_000, IsfcParams
from .sim import _channel_model, ci95, link_simulations, simulate_link, summary

#: The seed's striped 3 x 3 link: every third device number on the same channel.
STRIPED_3X3 = {"3C": "D000,D003,D006", "3D": "D001,D004,D007", "3E": "D002,D005,D008"}
STRAIGHT_3X3 = {"3C": "D000-D002", "3D": "D003-D005", "3E": "D006-D008"}
ONE_CHANNEL_2FCTC = {"3C": "D050-D051"}   # the seed gives no device numbers: any two will do

_P = DEFAULT_PARAMS


def _check_systems(value, name: str):
    """Two distinct system names (:func:`.link.check_systems`), errors naming ``name``."""
    try:
        return tuple(check_systems(value))
    except McioError as e:
        raise McioError(name, value, e.allowed) from None

#: The physics (IsfcParams' fields, provenance as its comments give it) and the layout.
PARAMS: tuple[Param, ...] = (
    Param("kb_per_io", _P.kb_per_io, "kB", "seed", "data per SSCH: link 565 MB/s / 754 SSCH/s = 0.749 MB "
          "(straight), 590 / 782 = 0.754 MB (striped); ISFC moves guest pages in ~0.75 MB chained writes",
          (1e-6, None)),
    Param("channel_mb_s", _P.channel_mb_s, "Mbyte s-1", "fitted", "data rate of a channel's data mover for "
          "ONE FCTC end (each end on the channel moves the SSCH's data once: the sender's write, and on "
          "a shared channel the receiver's read too): fitted by fit_to_seed() to the seed's shared "
          "channels (~206 MB/s of relocation data with enough FCTCs); IBM's command-mode FICON maxima "
          "are of the same magnitude", (1e-6, None)),
    Param("mp_us_per_end", _P.mp_us_per_end, "us", "fitted", "channel-MP work per FCTC I/O end (the "
          "sender's write or the receiver's read: start and end work, FIFO; a shared channel does both "
          "ends of every SSCH, a non-shared one its own, the partner's channel the other): fitted by "
          "fit_to_seed() to the 1-, 2- and 3-device channels (214, 256, 270 SSCH/s) and the 1 x 2 FCTC "
          "165 MB/s", (0.0, None)),
    Param("mp_scv", _P.mp_scv, "1", "fitted", "SCV of that work: 1 (exponential); deterministic work "
          "would let two devices on a channel overlap and overstate the 2-device channels", (0.0, None)),
    Param("partner_latency_ms", _P.partner_latency_ms, "ms", "assumed", "partner-side latency per I/O "
          "(disconnect): the FCTC handshake, the receiver's read already posted; the seed cannot tell it "
          "from MP work below ~0.1 ms", (0.0, None)),
    Param("partner_latency_scv", _P.partner_latency_scv, "1", "assumed", "exponential partner latency",
          (0.0, None)),
    Param("layout", STRIPED_3X3, "1", "seed", "CHPID -> FCTC device-number ranges (default: the seed's "
          "striped 3 x 3 link)"),
    Param("systems", ("LPAR1", "LPAR2"), "1", "seed", "the two z/VM members (LPAR1 receives, LPAR2 sends)",
          validate=_check_systems),
    Param("sender", "LPAR2", "1", "seed", "the member that relocates (writes); 'auto' = the name that "
              "sorts second"),
    Param("shared", True, "1", "seed", "shared channels: both ends of each connection on the same CHPID "
          "(the seed's); false: each end on its own member's channel, the partner's channel a queue in "
          "the I/O's path (a prediction: the seed measured no non-shared link)"),
)
_PHYSICS = tuple(f.name for f in fields(IsfcParams))

#: The seed's 16-FCTC link on seven channels: D000, D007, D015, D01C (the two lowest and two
#: highest device numbers) on 3C, two devices on each of six other channels. The seed gives neither
#: the other CHPIDs nor the device numbers between D007 and D015: 3D-42 and D008-D013 stand in.
SEVEN_CHANNELS_16FCTC = {"3C": "D000,D007,D015,D01C", "3D": "D008-D009", "3E": "D00A-D00B", "3F": "D00C-D00D",
                         "40": "D00E-D00F", "41": "D010-D011", "42": "D012-D013"}

VARIANTS = {"striped_3x3": {}, "straight_3x3": {"layout": STRAIGHT_3X3},
            "one_channel_2fctc": {"layout": ONE_CHANNEL_2FCTC},
            "seven_channels_16fctc": {"layout": SEVEN_CHANNELS_16FCTC, "systems": ("BOER3739", "BOER3740"),
                                      "sender": "BOER3740"},
            # a prediction: the seed's straight 3 x 3 link on non-shared channels (nothing fitted to it)
            "straight_3x3_non_shared": {"layout": STRAIGHT_3X3, "shared": False}}

_ZERO_NOTE = ("reserved for LPAR1 by z/VM's write-collision rule (the sender leaves its partner the "
              "lowest device(s)): exactly 0 in the model")
_SRC = "seed 000 table"


#: the one connection alone on its channel (fit_to_seed()'s 1-device target, 214 SSCH/s)
_ONE_DEVICE = {"straight_3x3": "D002"}
_SPLIT = ("its channel's SSCH/s (fitted) split evenly over the channel's used devices: an identity of the "
          "model's symmetry")
_FIT_CHANNEL = "fit_to_seed() fits mp_us_per_end and channel_mb_s to the 1-, 2- and 3-device channels"
_SUM = "the sum of the channels' SSCH/s (fitted): nothing couples channels"
_KB = "kb_per_io (750 kB) was read off the links' MB/s / SSCH/s"


def _layout_figures(variant: str, seed: dict) -> list[Figure]:
    name = variant.replace("_3x3", " 3x3")
    out = []
    for devno, x in seed["connection_ssch_iops"].items():
        if x == 0.0:
            out.append(Figure(f"{name}: {devno} SSCH/s", variant, f"connection_ssch_iops.{devno}", 0.0,
                              Tolerance(abs=1.0), "s-1", _SRC, _ZERO_NOTE, "imposed"))
        else:
            one = _ONE_DEVICE.get(variant) == devno
            out.append(Figure(f"{name}: {devno} SSCH/s", variant, f"connection_ssch_iops.{devno}", x,
                              Tolerance(rel=0.10), "s-1", _SRC + " (read off a chart: ~)",
                              _FIT_CHANNEL if one else _SPLIT, "fitted" if one else "identity"))
    for chp, x in seed["channel_ssch_iops"].items():
        out.append(Figure(f"{name}: CHPID {chp} SSCH/s", variant, f"channel_ssch_iops.{chp}", x,
                          Tolerance(rel=0.10), "s-1", _SRC, _FIT_CHANNEL, "fitted"))
    out.append(Figure(f"{name}: link SSCH/s", variant, "link_ssch_iops", seed["link_ssch_iops"],
                      Tolerance(rel=0.10), "s-1", _SRC, _SUM, "identity"))
    out.append(Figure(f"{name}: link MB/s", variant, "link_mb_s", seed["link_mb_s"], Tolerance(rel=0.10),
                      "Mbyte s-1", _SRC, _KB, "fitted"))
    return out


_BUSY_NOTE = ("imposed by the load: the sender keeps one write outstanding on every device it may use, so "
              "z/VM's busy (pend + disconnect + connect) is 1 by construction; it tests only that no used "
              "device idles")
_RESERVED_BUSY = "the reserved devices carry no sender write: 0 by the write-collision rule"


def _busy_figures(variant: str, name: str) -> list[Figure]:
    return [Figure(f"{name}: device busy of the used connections (z/VM, min)", variant, "used_connection_busy_zvm_min",
                   1.0, Tolerance(abs=0.05), "1", "seed 000 text 'device busy ~100 %' on every used one",
                   _BUSY_NOTE, "imposed"),
            Figure(f"{name}: device busy of the reserved connections (max)", variant, "reserved_connection_busy_max",
                   0.0, Tolerance(abs=0.01), "1", "seed 000 text 'device busy percentages stay at 0%'",
                   _RESERVED_BUSY, "imposed")]


_SEVEN = "seed 000 text, 7 channels x 16 FCTC (figure 4)"
_PREDICTION = ("a prediction (the seed measured no non-shared link): the same parameters, each FCTC end on "
               "its own member's channel, the partner channel's MP a queue in each write's path")

#: Seed 000's figures; 10 % as its tests judge them (figures read off charts, '~').
FIGURES: tuple[Figure, ...] = tuple(
    _layout_figures("straight_3x3", SEED_000["straight_3x3"])
    + _layout_figures("striped_3x3", SEED_000["striped_3x3"])
    + [Figure("1 channel x 2 FCTC: D050 (lower devno) SSCH/s", "one_channel_2fctc",
              "connection_ssch_iops.D050", 0.0, Tolerance(abs=1.0), "s-1", "seed 000 text", _ZERO_NOTE, "imposed"),
       Figure("1 channel x 2 FCTC: link MB/s", "one_channel_2fctc", "link_mb_s",
              SEED_000["one_channel_2fctc"]["link_mb_s"], Tolerance(rel=0.10), "Mbyte s-1", "seed 000 text",
              "fit_to_seed() fits mp_us_per_end and channel_mb_s to it (its one used device)", "fitted")]
    + [Figure(f"striping gain: link {what}", "striped_3x3", f"striping_gain_{q}",
              SEED_000["striped_3x3"][q] / SEED_000["straight_3x3"][q] - 1.0, Tolerance(abs=0.015), "1",
              "seed 000 table (+3.7 % SSCH/s, +4.4 % MB/s)",
              "striped / straight - 1 on common random numbers (paired replications); 1.5 points: the "
              "tests' band of +2 to +5 %, about the seed's own reading error. An identity: the ratio of two "
              "links' sums of the fitted channels' figures", "identity") for what, q in
       (("SSCH/s", "link_ssch_iops"), ("MB/s", "link_mb_s"))]
    + _busy_figures("straight_3x3", "straight 3x3") + _busy_figures("striped_3x3", "striped 3x3")
    + [Figure("1 channel x 2 FCTC: D051 carries all", "one_channel_2fctc", "connection_share.D051", 1.0,
              Tolerance(abs=0.001), "1", "seed 000 text 'the other carries all'", _ZERO_NOTE, "imposed"),
       Figure("one channel with enough FCTCs: MB/s (straight 3x3, CHPID 3D)", "straight_3x3", "channel_mb_s.3D",
              SEED_000["channel_max_mb_s"], Tolerance(rel=0.10), "Mbyte s-1",
              "seed 000 text 'about 206 MB/s ... with one FICON channel if sufficient FCTC connections are "
              "used (see Figure 1)': Figure 1's 3D and 3E, three FCTCs each",
              "channel_mb_s is fitted to the shared channels' ~206 MB/s (fit_to_seed(): the 3-device channels' "
              "270 SSCH/s x kb_per_io)", "fitted"),
       Figure("1 channel x 2 FCTC against one channel with enough FCTCs", "one_channel_2fctc",
              "one_device_vs_full_channel_mb_s", SEED_000["one_channel_2fctc"]["link_mb_s"]
              / SEED_000["channel_max_mb_s"] - 1.0, Tolerance(abs=0.05), "1",
              "seed 000 text 'about 20 % less than ... about 206 MB/s'",
              "one_channel_2fctc link MB/s / straight_3x3 CHPID 3D MB/s - 1, paired replications; 5 points: "
              "'about 20 %'. An identity: the ratio of two fitted figures", "identity")]
    + [Figure(f"7 channels x 16 FCTC: {d} SSCH/s", "seven_channels_16fctc", f"connection_ssch_iops.{d}", 0.0,
              Tolerance(abs=1.0), "s-1", _SEVEN, "reserved for BOER3739 (the two lowest device numbers of a "
              "9-16 device link): exactly 0 in the model", "imposed") for d in ("D000", "D007")]
    + [Figure("7 channels x 16 FCTC: D015 and D01C against the others", "seven_channels_16fctc",
              "reserved_channel_used_vs_others", 0.0, Tolerance(abs=0.10), "1", _SEVEN + ": 'used with a similar "
              "I/O rate than the FCTC connections corresponding to the other FICON channels'",
              "mean SSCH/s of D015, D01C over that of the other 12 used connections - 1 (paired replications); "
              "10 % as the chart figures. An identity: every channel has two used devices (the write-collision "
              "rule leaves 3C two of its four), so every used connection runs at the fitted 2-device rate",
              "identity"),
       Figure("7 channels x 16 FCTC: channel SSCH/s spread", "seven_channels_16fctc", "channel_ssch_spread",
              (0.0, 0.10), Tolerance(), "1", _SEVEN + ": 'almost uniform distribution ... over seven FICON "
              "channels'", "max / min channel SSCH/s - 1; 'almost uniform' read as within 10 %. An identity: seven "
              "channels of two used devices each, alike in the model", "identity"),
       Figure("7 channels x 16 FCTC: link SSCH/s over striped 3x3", "seven_channels_16fctc", "link_ssch_gain_vs_striped",
              (0.0, 10.0), Tolerance(), "1", _SEVEN + ": 'the most optimal relocation process achieved in our "
              "project'", "link SSCH/s / the striped 3x3 link's - 1 > 0 (paired replications). An identity: sums of "
              "the fitted per-channel rates (7 x 256 against 782)", "identity"),
       Figure("straight 3x3, non-shared channels: link SSCH/s", "straight_3x3_non_shared", "link_ssch_iops", None,
              Tolerance(), "s-1", "prediction", _PREDICTION, "predicted"),
       Figure("straight 3x3, non-shared channels: link MB/s", "straight_3x3_non_shared", "link_mb_s", None,
              Tolerance(), "Mbyte s-1", "prediction", _PREDICTION + "; = link SSCH/s x kb_per_io", "identity"),
       Figure("straight 3x3, non-shared over shared: link SSCH/s", "straight_3x3_non_shared",
              "non_shared_gain_link_ssch_iops", None, Tolerance(), "1", "prediction",
              _PREDICTION + "; paired with straight_3x3 (an identity of the link SSCH/s above and the "
              "straight link's)", "identity")])

#: parameter -> the figures it was set from: fit_to_seed()'s four targets (the 1-device channel
#: and connection, 214 SSCH/s; the 1 x 2 FCTC's 165 MB/s; the 2- and 3-device channels, 256 and
#: 270 SSCH/s), channel_mb_s also to the ~206 MB/s statement, kb_per_io read off the links' MB/s
_FIT = tuple(f.name for f in FIGURES if f.quantity.startswith("channel_ssch_iops.")) + (
    "straight 3x3: D002 SSCH/s", "1 channel x 2 FCTC: link MB/s")
FIT_TARGETS = {"mp_us_per_end": _FIT, "mp_scv": _FIT,
               "channel_mb_s": _FIT + ("one channel with enough FCTCs: MB/s (straight 3x3, CHPID 3D)",),
               "kb_per_io": ("straight 3x3: link MB/s", "striped 3x3: link MB/s")}


def physics(p: dict) -> IsfcParams:
    """The IsfcParams of a parameter dict (McioError on a bad value)."""
    return IsfcParams(**{k: p[k] for k in _PHYSICS})


def link_of(p: dict) -> IsfcLink:
    """The link of a parameter dict: its layout, members and channel kind."""
    layout = p["layout"]
    if not isinstance(layout, dict) or not layout:
        raise McioError("scenario_params.layout", layout, "must be a table CHPID = \"device-number ranges\"")
    return IsfcLink.from_ranges(list(p["systems"]), layout, shared=p["shared"])


def build_link_model(link: IsfcLink, sender, prm: IsfcParams, shared: bool = True,
                     where: str = "scenario isfc-link") -> Model:
    """The link as one engine model of ``shared`` (or non-shared) channels: channel i is the i-th
    CHPID, device j the j-th lowest device number; devices the sender may not write on get weight 0."""
    used = direction_shares(link, parse_senders(link, sender)).sum(axis=1) > 0
    if not shared and len(link.chpids) > 1:
        raise McioError("shared", False, "a link of several non-shared channels is not one engine model (each "
                                         "channel's partner MP is a queue of its own): simulate it with "
                                         "mcio isfc run --non-shared or simulate_link()")
    if not used.any():
        raise McioError("layout", link.describe(), "the sender may write on none of these devices")
    idx = {c: i for i, c in enumerate(link.chpids)}
    return _channel_model([idx[c] for _, c in link.devices], list(used), len(link.chpids), bool(shared), prm,
                          where=where)


class IsfcLinkScenario(Scenario):
    """Seed 000: an ISFC logical link over FICON CTC devices, live guest relocation, one sender."""

    name = "isfc-link"
    description = "ISFC logical link over FICON CTC devices, one sender (seed 000)"
    params = PARAMS
    variants = VARIANTS
    figures = FIGURES
    fit_targets = FIT_TARGETS
    run_size = RunSize(ios=20_000, replications=4, seed=1)
    ios_meaning = "I/Os per used FCTC device"

    def build(self, p: dict) -> Model:
        return build_link_model(link_of(p), p["sender"], physics(p), p["shared"])

    def simulate(self, variant: str, run: RunSize, **overrides):
        """The labelled link Dataset of ``variant`` (:func:`~.sim.simulate_link`). Every variant
        runs on the same streams (seed, point by channel kind): common random numbers."""
        p = self.resolve(overrides, variant)
        return simulate_link(link_of(p), p["sender"], physics(p), ios_per_device=run.ios,
                             replications=run.replications, seed=run.seed)

    #: the other variants whose link :meth:`evaluate` simulates too (for paired figures)
    PAIRED = {"striped_3x3": ("straight_3x3",), "one_channel_2fctc": ("straight_3x3",),
              "seven_channels_16fctc": ("striped_3x3",), "straight_3x3_non_shared": ("straight_3x3",)}

    def simulations(self, variant: str, run: RunSize) -> list:
        """Every engine run of :meth:`evaluate`: the link's models (``run.ios`` per used device),
        and those of the variants its paired figures compare against."""
        out = []
        for v in (variant,) + self.PAIRED.get(variant, ()):
            p = self.resolve(None, v)
            out += link_simulations(link_of(p), p["sender"], physics(p), ios_per_device=run.ios,
                                    replications=run.replications)
        return out

    def evaluate(self, variant: str, run: RunSize) -> dict[str, tuple[float, float]]:
        ds = self.simulate(variant, run)
        out = self._figures_of(ds)

        def paired(name, a, b):          # a / b - 1, replication by replication
            g = np.asarray(a, float) / np.asarray(b, float) - 1.0
            out[name] = (float(g.mean()), _finite(float(ci95(g))))

        if variant == "striped_3x3":  # the seed's gain over the straight layout, replication by replication
            base = self.simulate("straight_3x3", run)
            for q in ("link_ssch_iops", "link_mb_s"):
                paired(f"striping_gain_{q}", ds[q].values, base[q].values)
        elif variant == "one_channel_2fctc":
            full = self.simulate("straight_3x3", run)
            paired("one_device_vs_full_channel_mb_s", ds.link_mb_s.values, full.channel_mb_s.sel(channel="3D").values)
        elif variant == "seven_channels_16fctc":
            x = ds.connection_ssch_iops
            on3c = ["D015", "D01C"]
            others = [d for d, u in zip(ds.connection.values, ds.connection_used.values) if u and d not in on3c]
            paired("reserved_channel_used_vs_others", x.sel(connection=on3c).mean("connection").values,
                   x.sel(connection=others).mean("connection").values)
            ch = ds.channel_ssch_iops
            paired("channel_ssch_spread", ch.max("channel").values, ch.min("channel").values)
            paired("link_ssch_gain_vs_striped", ds.link_ssch_iops.values,
                   self.simulate("striped_3x3", run).link_ssch_iops.values)
        elif variant == "straight_3x3_non_shared":
            paired("non_shared_gain_link_ssch_iops", ds.link_ssch_iops.values,
                   self.simulate("straight_3x3", run).link_ssch_iops.values)
        return out

    @staticmethod
    def _figures_of(ds) -> dict[str, tuple[float, float]]:
        """The quantities the figures name, of one link Dataset: (mean, 95 % CI half-width)."""
        s = summary(ds)
        ci_conn = dict(zip(ds.connection.values.tolist(), ds.connection_ssch_ci95_iops.values.tolist()))
        ci_chan = dict(zip(ds.channel.values.tolist(), ds.channel_ssch_ci95_iops.values.tolist()))
        out = {f"connection_ssch_iops.{d}": (x, _finite(ci_conn[d])) for d, x in s["connection_ssch_iops"].items()}
        out.update({f"channel_ssch_iops.{c}": (x, _finite(ci_chan[c])) for c, x in s["channel_ssch_iops"].items()})
        out["link_ssch_iops"] = (s["link_ssch_iops"], _finite(s["link_ssch_ci95_iops"]))
        out["link_mb_s"] = (s["link_mb_s"], _finite(s["link_mb_s_ci95"]))
        ci_mb = dict(zip(ds.channel.values.tolist(), ds.channel_mb_s_ci95.values.tolist()))
        out.update({f"channel_mb_s.{c}": (x, _finite(ci_mb[c])) for c, x in s["channel_mb_s"].items()})
        used = ds.connection_used.values == 1

        def per_rep(a):                  # (value, CI) of a per-replication array
            a = np.asarray(a, float)
            return float(a.mean()), _finite(float(ci95(a)))

        share = ds.connection_ssch_iops / ds.link_ssch_iops
        out.update({f"connection_share.{d}": per_rep(share.sel(connection=d).values) for d in ds.connection.values})
        if used.any():
            out["used_connection_busy_zvm_min"] = per_rep(ds.connection_busy_zvm.values[:, used].min(axis=1))
        if (~used).any():
            out["reserved_connection_busy_max"] = per_rep(ds.connection_busy.values[:, ~used].max(axis=1))
        return out


def _finite(x: float) -> float:
    return 0.0 if x != x else float(x)  # one replication: no CI


SCENARIO = IsfcLinkScenario()

__all__ = ["IsfcLinkScenario", "SCENARIO", "PARAMS", "VARIANTS", "FIGURES", "STRIPED_3X3", "STRAIGHT_3X3",
           "ONE_CHANNEL_2FCTC", "SEVEN_CHANNELS_16FCTC", "build_link_model", "link_of", "physics"]
