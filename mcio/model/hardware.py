"""The catalogue of FICON channel generations: published figures, each with its source, and the
channel parameters mcio derives from them (issue 28; the listing is issue 30's ``mcio hardware``).

Every figure is a :class:`Fig`: a value (None: not published in the sources searched) and where it
comes from: a document (and page or passage), "assumed, because ...", "fitted to ..." or
"derived: ..." (arithmetic on cited or fitted figures). Units: MB/s (1 MB/s = 1 KB/ms), I/Os per
second, us.

The MP work per I/O is measured nowhere (domain.md §4): the only reference is the ficon-channel
calibration, FICON Express4 on a z9 in command mode (:data:`REFERENCE_MP_US_CCW`, fitted to seed
001 by ``mcio calibrate``). A generation's MP work per 4 KB I/O is that reference scaled by the
ratio of published maximum 4 KB I/O rates (a channel that starts k times as many I/Os spends 1/k
the MP time on each): :func:`channel_parameters`, marked "derived".
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import McioError

# ---- sources (cited once; entries name them) ----------------------------------------------------
IBM_PERF = ("IBM, 'FICON performance' (www-03.ibm.com/systems/z/hardware/connectivity/"
            "ficon_performance.html), 'The High Performance FICON for System z journey'")
BROCADE_Z14 = ("S. Guendert, 'IBM z14 New I/O Features Synergy with Brocade Gen 6 FICON SAN Technology' "
               "(community.brocade.com, 2017-08-22), reporting IBM's performance tests")
IBM_MAIN_FEX4 = ("C. Beuselinck (IBM System z Hardware Product Planning), IBM-MAIN, citing 'System z9 I/O and "
                 "FICON Express4 Channel Performance', p. 7 (www.mail-archive.com/ibm-main@bama.ua.edu/msg72623.html)")
DOMAIN = "shared/domain.md §4 (IBM FICON performance pages; IBM z14 I/O announcement)"
DS6000 = ("IBM Redbook 'IBM TotalStorage DS6000 Series: Performance Monitoring and Tuning' (ISBN 0738494119), "
          "p. 48, FICON attachment: a 2 Gbps adapter 'provides a nominal 200 MB/s full-duplex data rate'")
Z10BC = ("IBM System z10 BC guide, 'FICON Express Channels' (manualsdump.com/en/manuals/ibm-z10_bc/116949/20): "
         "'Each of the four independent channels ... is capable of 1, 2, or 4 Gb/sec'")
Z14TG = ("IBM Redbook 'IBM z14 (3906) Technical Guide' (ISBN 9780738457253), §4.1.1: 'The FICON Express16S+ "
         "features two channels per feature'")
Z15TG = ("IBM Redbook 'IBM z15 (8561) Technical Guide' (ISBN 9780738458120), §4.1.1: 'The FICON Express16SA "
         "features two channels per feature'")
SEED001 = "seed 001 (shared/seeds/001_*), mcio/scenarios/ficon_channel.py: 'ports capable of 64 OE each'"
FITTED = "fitted to seed 001 by mcio calibrate (mcio/scenarios/ficon_channel_fitted.toml: mp_us_per_io)"

#: The fitted reference: FICON Express4 (z9), command mode, 4 KB, one CCW: MP work per I/O (us).
#: (The scenario's MP also has a fitted wake-up work, channels.mp_wake_us, kept out of this figure.)
REFERENCE_MP_US_CCW = 76.537
#: Published: on FICON Express4 (z10) z/HPF reaches 2.2 times the command-mode 4 KB I/O rate.
ZHPF_OVER_CCW_FEX4 = 2.2


@dataclass(frozen=True)
class Fig:
    """A figure and where it comes from (None: not published in the sources searched)."""

    value: float | None
    source: str


@dataclass(frozen=True)
class Generation:
    """One FICON channel generation (a feature): its published figures."""

    name: str                      # catalogue key, e.g. "16S+"
    title: str                     # "FICON Express16S+"
    aliases: tuple                 # other accepted spellings
    link_gbps: Fig                 # nominal link rate (Gbit/s)
    link_mb_s: Fig                 # data rate per direction (MB/s)
    zhpf_iops: Fig                 # maximum 4 KB z/HPF I/O rate per channel
    ccw_iops: Fig                  # maximum 4 KB command-mode I/O rate per channel
    max_mb_s: Fig                  # maximum data rate per channel, reads + writes (z/HPF, large blocks)
    max_open_exchanges: Fig        # concurrent I/Os per channel
    channels_per_feature: Fig      # CHPIDs per card
    notes: str = field(default="")


_LINK = "derived: 100 MB/s per Gbit/s per direction, the nominal FICON data rate (" + DS6000 + ")"
_OE = Fig(64, "assumed, because it is the only figure found: FICON's 64 open exchanges per channel (" + SEED001
          + "); later generations' limits were not found in the sources searched")
_NOT_FOUND = "not found in the sources searched"

CATALOGUE: dict[str, Generation] = {g.name: g for g in (
    Generation("2", "FICON Express2", ("express2", "fex2", "ficon express2"),
               Fig(2, Z10BC + " (only FICON Express4 supports 4 Gbps)"), Fig(200, _LINK),
               Fig(31_000, IBM_PERF + ": 'In October of 2008 we made the initial zHPF announcement on System z10 "
                   "with FICON Express4 and FICON Express2 channels - Maximum of 31k zHPF IOs/sec'"),
               Fig(round(31_000 / ZHPF_OVER_CCW_FEX4), "derived: 31,000 / 2.2 (" + IBM_PERF + ")"),
               Fig(None, _NOT_FOUND), _OE, Fig(4, Z10BC),
               "z/HPF in firmware (no data router); the same z/HPF maximum as Express4 on z10"),
    Generation("4", "FICON Express4", ("express4", "fex4", "ficon express4"),
               Fig(4, Z10BC), Fig(400, _LINK),
               Fig(31_000, IBM_PERF + ": z10, 'Maximum of 31k zHPF IOs/sec, 2.2 times the FICON protocol'"),
               Fig(round(31_000 / ZHPF_OVER_CCW_FEX4), "derived: 31,000 / 2.2 (" + IBM_PERF + ")"),
               Fig(None, _NOT_FOUND + " per channel; per feature (4 channels): 1,230 read, 1,150 write, 1,300 "
                   "read + write MB/s (" + IBM_MAIN_FEX4 + ")"),
               _OE, Fig(4, Z10BC), "z/HPF in firmware (no data router); the ficon-channel reference"),
    Generation("8", "FICON Express8", ("express8", "fex8", "ficon express8"),
               Fig(8, IBM_PERF), Fig(800, _LINK),
               Fig(52_000, IBM_PERF + ": z10, 'Maximum of 52k zHPF IOs/sec'"),
               Fig(None, _NOT_FOUND), Fig(None, _NOT_FOUND), _OE, Fig(None, _NOT_FOUND),
               "z/HPF in firmware (no data router)"),
    Generation("8S", "FICON Express8S", ("express8s", "fex8s", "ficon express8s"),
               Fig(8, IBM_PERF + ": 'a link data rate of 2, 4, or 8 Gbps'"), Fig(800, _LINK),
               Fig(92_000, IBM_PERF + ": z196, 'a maximum of 92,000 IOs/sec' (z/HPF, small blocks)"),
               Fig(None, _NOT_FOUND),
               Fig(1600, IBM_PERF + ": z196, z/HPF, 'maximum throughput of 1600 MB/sec (reads + writes)'"),
               _OE, Fig(None, _NOT_FOUND), "first generation with a hardware data router for z/HPF"),
    Generation("16S", "FICON Express16S", ("express16s", "fex16s", "ficon express16s"),
               Fig(16, "the generation's name (16 Gbit/s); " + DOMAIN), Fig(1600, _LINK),
               Fig(98_000, DOMAIN + ": 'Express16S ~98k'"), Fig(None, _NOT_FOUND),
               Fig(2560, BROCADE_Z14 + ": '2560 MB/sec for the same test on z13 and FICON Express16S' "
                   "(domain.md: 2,560-2,600)"),
               _OE, Fig(None, _NOT_FOUND)),
    Generation("16S+", "FICON Express16S+", ("express16s+", "fex16s+", "ficon express16s+", "16splus"),
               Fig(16, "the generation's name (16 Gbit/s); " + BROCADE_Z14), Fig(1600, _LINK),
               Fig(300_000, BROCADE_Z14 + ": z14, zHPF small blocks, 'just over 300,000 IOs/second'"),
               Fig(None, _NOT_FOUND),
               Fig(3200, BROCADE_Z14 + ": 'maximum full duplex throughput of 3200 MB/sec (reads + writes)'"),
               _OE, Fig(2, Z14TG)),
    Generation("16SA", "FICON Express16SA", ("express16sa", "fex16sa", "ficon express16sa"),
               Fig(16, "the generation's name (16 Gbit/s); " + Z15TG), Fig(1600, _LINK),
               Fig(None, _NOT_FOUND + " (IBM, 'IBM z15 FICON Express16SA Performance', Jan. 2020, Figure 2, "
                   "was not readable)"),
               Fig(None, _NOT_FOUND), Fig(None, _NOT_FOUND), _OE, Fig(2, Z15TG)),
    Generation("32S", "FICON Express32S", ("express32s", "fex32s", "ficon express32s"),
               Fig(32, "the generation's name (32 Gbit/s, z16)"), Fig(3200, _LINK),
               Fig(None, _NOT_FOUND), Fig(None, _NOT_FOUND), Fig(None, _NOT_FOUND), _OE, Fig(None, _NOT_FOUND)),
)}

_REF = CATALOGUE["4"]
#: Used where a generation's z/HPF I/O rate is not published: the latest published one (16S+),
#: assumed because a later generation is at least as fast (a conservative choice).
_FALLBACK_ZHPF = "16S+"


def generation(name: str, where: str = "generation") -> Generation:
    """The catalogue entry called ``name`` (its key, title or an alias, any case)."""
    key = str(name).strip().lower()
    for g in CATALOGUE.values():
        if key in (g.name.lower(), g.title.lower(), *g.aliases):
            return g
    import difflib
    names = [g.name for g in CATALOGUE.values()]
    near = difflib.get_close_matches(str(name), names, n=1, cutoff=0.5)
    raise McioError(where, name, ("did you mean " + repr(near[0]) + "? " if near else "")
                    + "allowed: " + ", ".join(repr(n) for n in names) + " (or 'FICON ExpressN' titles)")


def channel_parameters(name: str, where: str = "generation") -> dict:
    """A channel's parameters for generation ``name``: ``link_mb_s`` (per direction),
    ``max_open_exchanges``, ``mp_us_per_io_ccw`` and ``mp_us_per_io_zhpf`` (us per 4 KB I/O), each
    as a :class:`Fig` whose source says how it was derived.

    MP work: the fitted reference (Express4, command mode) scaled by published I/O rates.
    z/HPF: reference / 2.2 (the published z/HPF : command-mode ratio on Express4), then x
    31,000 / the generation's z/HPF rate. Command mode on later generations: no rate is
    published, so the z/HPF ratio is assumed for it too (likely optimistic from 8S on, whose data
    router speeds up z/HPF only)."""
    g = generation(name, where)
    ref_z = REFERENCE_MP_US_CCW / ZHPF_OVER_CCW_FEX4
    z_fig, basis = g.zhpf_iops, g.title
    if z_fig.value is None:
        z_fig, basis = CATALOGUE[_FALLBACK_ZHPF].zhpf_iops, CATALOGUE[_FALLBACK_ZHPF].title
    ratio = _REF.zhpf_iops.value / z_fig.value
    assumed = "" if basis == g.title else (f"assumed as {basis}'s, because no z/HPF rate of {g.title} "
                                           "was found; ")
    if g is _REF:
        ccw = Fig(REFERENCE_MP_US_CCW, FITTED)
    else:
        ccw = Fig(REFERENCE_MP_US_CCW * ratio,
                  f"{assumed}derived: {REFERENCE_MP_US_CCW} us (Express4, {FITTED}) x 31,000 / "
                  f"{z_fig.value:,.0f} (z/HPF I/O rates of Express4 and {basis}); assumed to scale as z/HPF "
                  "because no command-mode rate was found")
    zhpf = Fig(ref_z * ratio, f"{assumed}derived: {REFERENCE_MP_US_CCW} us (Express4 command mode, {FITTED}) / "
                              f"2.2 ({IBM_PERF}) x 31,000 / {z_fig.value:,.0f} (z/HPF I/O rates of Express4 "
                              f"and {basis})")
    return {"link_mb_s": g.link_mb_s, "max_open_exchanges": g.max_open_exchanges,
            "mp_us_per_io_ccw": ccw, "mp_us_per_io_zhpf": zhpf}


def listing(name: str | None = None) -> str:
    """The catalogue (or generation ``name``) as text, one block per generation, every figure
    with its source."""
    out = []
    for g in CATALOGUE.values() if name is None else (generation(name, "generation"),):
        out.append(f"{g.title} (generation = {g.name!r})" + (f": {g.notes}" if g.notes else ""))
        for label, f in (("link rate, Gbit/s", g.link_gbps), ("data rate per direction, MB/s", g.link_mb_s),
                         ("max 4 KB z/HPF I/Os per second", g.zhpf_iops),
                         ("max 4 KB command-mode I/Os per second", g.ccw_iops),
                         ("max MB/s per channel (reads + writes)", g.max_mb_s),
                         ("open exchanges", g.max_open_exchanges),
                         ("channels per feature", g.channels_per_feature)):
            out.append(f"  {label:40s} {'-' if f.value is None else format(f.value, ',.0f'):>9s}  [{f.source}]")
        out.append("  (mcio's MP work per 4 KB I/O, one command:)")
        for k, f in channel_parameters(g.name).items():
            if k.startswith("mp_"):
                out.append(f"  {k:40s} {f.value:9.2f}  [{f.source}]")
        out.append("")
    return "\n".join(out)


__all__ = ["CATALOGUE", "Fig", "Generation", "generation", "channel_parameters", "listing",
           "REFERENCE_MP_US_CCW", "ZHPF_OVER_CCW_FEX4"]
