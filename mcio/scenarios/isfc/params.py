"""Physics of ISFC relocation traffic over FCTC devices, with the provenance of every figure.

:class:`IsfcParams` holds the per-I/O demands (data, channel data rate, channel-MP work, partner
latency) and says for each default whether it is read off seed 000, a public IBM figure or fitted
to the seed; :data:`SEED_000` holds the seed's figures and :func:`fit_to_seed` derives the fitted
defaults from them by exact MVA (:func:`channel_throughput_mva`), the oracle the simulation of one
channel must match. The scenario as a whole is described in :mod:`mcio.scenarios.isfc`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import McioError
from .rules import is_real

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

    # Data rate of one FICON channel's data mover (memory <-> link) for ONE end of an FCTC transfer,
    # MB/s. Every end on a channel moves the SSCH's data through it once: the sender's write
    # fetches it from the sender's memory, the receiver's read stores it into the receiver's. On a
    # shared channel (a "straight" FCTC connection, both LPARs on the one CHPID) both ends are on
    # it, so relocation data moves at half this rate; on a non-shared channel only the sender's end.
    # fitted: the seed's one-channel saturation (~206 MB/s of relocation data through a shared
    # channel "with enough FCTCs", 270 SSCH/s x 0.75 MB with three) needs ~2 x 205 MB/s here.
    # public: IBM's command-mode (CCW) FICON throughput maxima are a few hundred MB/s per channel
    # (full duplex, FICON Express4 to 8S), the same magnitude; FCTC traffic is always command mode.
    channel_mb_s: float = 407.0

    # Channel-processor (MP) work per I/O end, us (FIFO): one FCTC I/O's start and end work at one
    # end, the sender's write or the receiver's read (the same chained CCW program, read instead of
    # write). fitted: the seed's 2-device channels (2 x 128 SSCH/s) are slower than a pure
    # bandwidth share allows; ~0.46 ms per end (~0.9 ms per SSCH on a shared channel, which does
    # both ends) reproduces them. A 0.75 MB CCW-mode FCTC write is a long command chain that the
    # channel's CTC control-unit function pairs with the partner's read, so this is far above the
    # ~80 us of a 4 KB DASD I/O on seed 001's z9 channel (12,100 I/O/s at 96 % MP busy).
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

    def __post_init__(self):
        for name in ("kb_per_io", "channel_mb_s"):
            v = getattr(self, name)
            if not is_real(v) or v <= 0:
                raise McioError(f"isfc.{name}", v, "must be a positive number")
        for name in ("mp_us_per_end", "mp_scv", "partner_latency_ms", "partner_latency_scv"):
            v = getattr(self, name)
            if not is_real(v) or v < 0:
                raise McioError(f"isfc.{name}", v, "must be a number >= 0")

    @staticmethod
    def ends_on_channel(shared: bool) -> int:
        """FCTC ends per relocated SSCH on the sender's channel: 2 on a shared channel (the
        sender's write and the receiver's read both run on it), 1 on a non-shared one (the read
        runs on the partner's channel)."""
        return 2 if shared else 1

    def channel_section(self, shared: bool, count: int) -> dict:
        """The engine's [channels]: every end on the channel puts its MP work and its pass of the
        data on it (as MP work per SSCH x ends, and the data mover's rate / ends for the SSCH's
        data, which keeps the channel's reported MB/s the relocation data's)."""
        e = self.ends_on_channel(shared)
        return {"count": count, "link_mb_s": self.channel_mb_s / e,
                "mp_us_per_io_ccw": self.mp_us_per_end * e, "mp_scv": self.mp_scv,
                "mp_start_fraction": 1.0, "zhpf_share": 0.0, "max_open_exchanges": 64}

    def partner_mp_us(self, shared: bool) -> float:
        """MP work per SSCH at the partner's channel (a queue of its own in the I/O's path: the
        receiver's read end must be done before the next write on the device can be matched);
        0 on a shared channel, where that end is on the sender's own MP."""
        return 0.0 if shared else self.mp_us_per_end

    def demands_ms(self, shared: bool) -> dict:
        """Mean per-I/O demands (ms) of one channel: MP (FIFO), partner MP (FIFO, non-shared
        only), link (PS), partner latency (delay)."""
        e = self.ends_on_channel(shared)
        return {"mp": self.mp_us_per_end * e / 1000.0, "partner_mp": self.partner_mp_us(shared) / 1000.0,
                "link": self.kb_per_io * e / self.channel_mb_s, "partner": self.partner_latency_ms}


DEFAULT_PARAMS = IsfcParams()


def channel_throughput_mva(n_used: int, params: IsfcParams = DEFAULT_PARAMS, shared: bool = True) -> float:
    """Exact SSCH/s of one channel with ``n_used`` always-busy devices, by MVA.

    With exponential MP work the channel is a product-form network (FIFO exponential MP, on a
    non-shared channel the partner channel's FIFO MP too, processor-shared link, delay for the
    partner latency), so this is the oracle the simulation must match.
    """
    if n_used == 0:
        return 0.0
    d = params.demands_ms(shared)
    dem = np.array([d["mp"], d["partner_mp"], d["link"]])
    q = np.zeros(3)
    x = 0.0
    for n in range(1, n_used + 1):
        r = dem * (1.0 + q)
        x = n / (d["partner"] + r.sum())
        q = x * r
    return 1000.0 * x


# ---- channel generations -------------------------------------------------------------------

#: Published per-channel maxima of FICON channel generations, read off the hardware catalogue
#: (mcio/model/hardware.py, every figure with its source; ``mcio hardware``): 4 KB z/HPF I/O per
#: second and MB/s (z/HPF, read + write). Express8's MB/s maximum is not published (None: give the
#: data rate). Express4's per-channel MB/s is not published either: its feature's measured 1,300
#: MB/s read + write over the feature's four channels (325), the rate per channel with all four busy.
def _from_catalogue() -> dict[str, dict]:
    from ...model import hardware as hw
    out = {}
    for key, gen in (("express4", "4"), ("express8", "8"), ("express8s", "8S"), ("express16s", "16S"),
                     ("express16s+", "16S+")):
        g = hw.generation(gen)
        mb = g.max_mb_s.value
        if mb is None and g.card_mb_s.value is not None:
            mb = g.card_mb_s.value / g.channels_per_feature.value
        out[key] = {"name": g.title, "max_iops_4k": int(g.zhpf_iops.value), "max_mb_s": mb}
    return out


CHANNEL_GENERATIONS: dict[str, dict] = _from_catalogue()
#: The generation the fitted defaults describe: the IBM study behind seed 000 used FICON Express4
#: channels ("Initially three FICON channels from a FICON Express4 channel card were available. In
#: a later phase, we could use a second FICON Express4 channel card": IBM, z/VM 6.2 Live Guest
#: Relocation study, topic 'IOCDS configuration for FICON CTCs',
#: ibm.com/docs/en/linuxonibm/liaag/lgr/l0lgr00_iocdsconfig.html). (It was labelled Express8S,
#: assumed from the z/VM 6.2 era, until issue 30.)
REFERENCE_GENERATION = "express4"


def generation_params(generation: str, base: IsfcParams = DEFAULT_PARAMS, *, channel_mb_s: float | None = None,
                      reference: str = REFERENCE_GENERATION) -> IsfcParams:
    """``base`` (fitted on the reference generation's channels) moved to ``generation``: the MP
    work per end scaled by the ratio of the published maximum I/O rates, the data mover's rate by
    that of the published maximum MB/s (or ``channel_mb_s`` if given). assumed: FCTC's command-mode
    work and data rate scale like the published z/HPF maxima (the only per-generation figures
    published); for Express16S+, whose z/HPF rate tripled, this likely overstates the CCW gain."""
    from dataclasses import replace
    key = generation.strip().lower().replace("ficon", "").replace(" ", "").replace("_", "") \
        if isinstance(generation, str) else generation
    if key not in CHANNEL_GENERATIONS:
        raise McioError("--generation", generation, f"unknown channel generation; allowed: {', '.join(CHANNEL_GENERATIONS)}")
    g, r = CHANNEL_GENERATIONS[key], CHANNEL_GENERATIONS[reference]
    if channel_mb_s is None and g["max_mb_s"] is None:
        raise McioError("--generation", generation, f"{g['name']} has no published maximum MB/s here: "
                                                    "give the channel's data rate (--link-mb-s) as well")
    mb = channel_mb_s if channel_mb_s is not None else base.channel_mb_s * g["max_mb_s"] / r["max_mb_s"]
    return replace(base, mp_us_per_end=base.mp_us_per_end * r["max_iops_4k"] / g["max_iops_4k"], channel_mb_s=mb)


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


__all__ = ["IsfcParams", "DEFAULT_PARAMS", "SEED_000", "fit_to_seed", "channel_throughput_mva",
           "CHANNEL_GENERATIONS", "REFERENCE_GENERATION", "generation_params"]
