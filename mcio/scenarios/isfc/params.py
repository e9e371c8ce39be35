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
            if not is_real(v) or v <= 0:
                raise McioError(f"isfc.{name}", v, "must be a positive number")
        for name in ("mp_us_per_end", "mp_scv", "partner_latency_ms", "partner_latency_scv"):
            v = getattr(self, name)
            if not is_real(v) or v < 0:
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


__all__ = ["IsfcParams", "DEFAULT_PARAMS", "SEED_000", "fit_to_seed", "channel_throughput_mva"]
