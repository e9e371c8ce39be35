"""The hardware catalogue: FICON channel generations, feature cards, per-command costs by
command type, control-unit constants and host work per channel program; published figures, each
with its source, and the parameters mcio derives from them (issues 28 and 30; ``mcio hardware``).

Every figure is a :class:`Fig`: a value (None: not published in the sources searched) and where it
comes from: a document (and page or passage), "assumed, because ...", "fitted to ..." or
"derived: ..." (arithmetic on cited or fitted figures). Units: MB/s (1 MB/s = 1 KB/ms), I/Os per
second, us.

- :data:`CATALOGUE`: per generation (FICON Express2 .. Express32S) the link rate, z/HPF and
  command-mode maximum 4 KB I/O rates, maximum MB/s per channel, open exchanges, channels per
  feature, the channel's own data path where it is below its two links (``path_mb_s``) and the
  feature card's read / write / read + write data limits (:func:`card_limits`);
- :func:`channel_parameters`: a channel's link rate, open exchanges, MP work per 4 KB I/O in both
  modes, data path and connect-time protocol scale (its protocol time over FICON Express8S's,
  :data:`PROTOCOL_REFERENCE`; assumed to follow the link rate), for ``[[topology.channel]] generation``;
- :data:`COMMAND_COSTS`, :data:`RELOCATE_US`, :data:`CU_CONSTANTS`, :data:`HOST_US_PER_PROGRAM`:
  what one command of each type costs (MP, protocol, control unit), a Locate Record + TIC re-issued
  inside a program, the control unit's command response, the z/VM host's work per channel program.

The MP work per I/O is measured nowhere (domain.md §4): the only reference is the ficon-channel
calibration, FICON Express4 on a z9 in command mode (:data:`REFERENCE_MP_US_CCW`, fitted to seed
001 by ``mcio calibrate``). A generation's MP work per 4 KB I/O is that reference scaled by the
ratio of published maximum 4 KB I/O rates (a channel that starts k times as many I/Os spends 1/k
the MP time on each): :func:`channel_parameters`, marked "derived". One reading of IBM's "2.2
times the FICON protocol" (Express4, z10) for every scenario: at its maximum I/O rate a channel is
MP-bound in either mode, so the MP work of a small z/HPF I/O is the command mode's / 2.2
(:data:`ZHPF_OVER_CCW_FEX4`). Which catalogue figure was fitted to which published measurement,
and how the rest predict the others: docs/validation.md.
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
DS6000_BW = ("IBM Redbook 'IBM TotalStorage DS6000 Series: Performance Monitoring and Tuning' (ISBN 0738494119), "
             "p. 48: 'Channel and link bandwidth: 170 MB/s for FICON Express and 270 MB/s for FICON Express2'")
SYSMAG_Z13 = ("IBM Systems Magazine, 'DS8870 Innovations In Support of the z13 Platform' "
              "(archive.ibmsystemsmag.com/mainframe/administrator/systemsmanagement/ds8870-z13/)")
SEED001 = "seed 001 (shared/seeds/001_*), mcio/scenarios/ficon_channel.py: 'ports capable of 64 OE each'"
FITTED = "fitted to seed 001 by mcio calibrate (mcio/scenarios/ficon_channel_fitted.toml: mp_us_per_io)"

#: The fitted reference: FICON Express4 (z9), command mode, 4 KB, one CCW: MP work per I/O (us).
#: (The scenario's MP also has a fitted wake-up work, channels.mp_wake_us, kept out of this figure.)
REFERENCE_MP_US_CCW = 75.912
#: Published: on FICON Express4 (z10) z/HPF reaches 2.2 times the command-mode 4 KB I/O rate.
ZHPF_OVER_CCW_FEX4 = 2.2


_NOT_FOUND = "not found in the sources searched"


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
    #: the channel's own data path, reads + writes together (MB/s), where it is below its two links
    path_mb_s: Fig = field(default=None)
    #: the feature card's data limits (MB/s, all its channels): reads, writes, reads + writes
    card_read_mb_s: Fig = field(default=None)
    card_write_mb_s: Fig = field(default=None)
    card_mb_s: Fig = field(default=None)
    #: the channel's connect-time protocol time relative to the reference generation's (the
    #: ``channels.protocol_us_*`` settings are the reference's, :data:`PROTOCOL_REFERENCE`)
    protocol_scale: Fig = field(default=None)

    def __post_init__(self):
        for k in ("path_mb_s", "card_read_mb_s", "card_write_mb_s", "card_mb_s"):
            if getattr(self, k) is None:
                object.__setattr__(self, k, Fig(None, _NOT_FOUND))
        if self.protocol_scale is None:
            object.__setattr__(self, "protocol_scale", _protocol_scale(self.link_mb_s))


#: The generation the ``channels.protocol_us_*`` settings (connect-time protocol: command and
#: status IUs, handshakes) are given for: FICON Express8S, on which zhpf-dump fitted them (seed 003).
PROTOCOL_REFERENCE = "8S"
_PROTOCOL_REF_MB_S = 800.0


def _protocol_scale(link: Fig) -> Fig:
    """A generation's protocol time over the reference's: the reference link rate / its link rate."""
    return Fig(_PROTOCOL_REF_MB_S / link.value,
               f"assumed, because no protocol time per I/O or per command is published for any generation: the "
               f"connect-time protocol (command and status IUs, their turnarounds) taken to scale with the link's "
               f"data rate, {_PROTOCOL_REF_MB_S:.0f} / {link.value:,.0f} MB/s (the reference, FICON Express8S, "
               f"over this generation); the frames' serialisation alone is < 1 us at 4 Gbit/s and above, so "
               f"this reads the rest (channel and host-adapter handling of each IU) as keeping pace with the link")


_LINK = "derived: 100 MB/s per Gbit/s per direction, the nominal FICON data rate (" + DS6000 + ")"
_OE = Fig(64, "assumed, because it is the only figure found: FICON's 64 open exchanges per channel (" + SEED001
          + "); later generations' limits were not found in the sources searched")

CATALOGUE: dict[str, Generation] = {g.name: g for g in (
    Generation("2", "FICON Express2", ("express2", "fex2", "ficon express2"),
               Fig(2, Z10BC + " (only FICON Express4 supports 4 Gbps)"), Fig(200, _LINK),
               Fig(31_000, IBM_PERF + ": 'In October of 2008 we made the initial zHPF announcement on System z10 "
                   "with FICON Express4 and FICON Express2 channels - Maximum of 31k zHPF IOs/sec'"),
               Fig(round(31_000 / ZHPF_OVER_CCW_FEX4), "derived: 31,000 / 2.2 (" + IBM_PERF + ")"),
               Fig(None, _NOT_FOUND), _OE, Fig(4, Z10BC),
               "z/HPF in firmware (no data router); the same z/HPF maximum as Express4 on z10",
               path_mb_s=Fig(270, "fitted (identity) to the validation figure it is: " + DS6000_BW),
               card_mb_s=Fig(1000, IBM_MAIN_FEX4 + ": 'the FICON Express2 feature which had a 1GB/sec STI bus' (the "
                             "feature's path to memory, reads + writes of its four channels)")),
    Generation("4", "FICON Express4", ("express4", "fex4", "ficon express4"),
               Fig(4, Z10BC), Fig(400, _LINK),
               Fig(31_000, IBM_PERF + ": z10, 'Maximum of 31k zHPF IOs/sec, 2.2 times the FICON protocol'"),
               Fig(round(31_000 / ZHPF_OVER_CCW_FEX4), "derived: 31,000 / 2.2 (" + IBM_PERF + ")"),
               Fig(None, _NOT_FOUND + " per channel; per feature (4 channels): 1,230 read, 1,150 write, 1,300 "
                   "read + write MB/s (" + IBM_MAIN_FEX4 + ")"),
               _OE, Fig(4, Z10BC), "z/HPF in firmware (no data router); the ficon-channel reference",
               card_read_mb_s=Fig(1230, "fitted (identity) to the validation figure it is: " + IBM_MAIN_FEX4
                                  + ": 'a maximum of 1230 READ MB/sec' (all four channels of one feature)"),
               card_write_mb_s=Fig(1150, "fitted (identity): " + IBM_MAIN_FEX4 + ": '1150 WRITE MB/sec'"),
               card_mb_s=Fig(1300, "fitted (identity): " + IBM_MAIN_FEX4 + ": '1300 READ+WRITE MB/sec'")),
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
               Fig(16, "the generation's name (16 Gbit/s); " + DOMAIN),
               Fig(1600, SYSMAG_Z13 + ": 'the DS8870 storage and 16GFC Host Adapter (HA) for a true end-to-end "
                                    "link speed of 1,600 MB/second'"),
               Fig(98_000, SYSMAG_Z13 + ": 'the modestly increased start rate of about 6.5 percent makes the "
                   "maximum I/O start rate about 98,000 per second'"), Fig(None, _NOT_FOUND),
               Fig(2560, BROCADE_Z14 + ": '2560 MB/sec for the same test on z13 and FICON Express16S' "
                   "(" + SYSMAG_Z13 + ": 'Channel bandwidth is substantially improved to 2,600 MB/second, "
                   "bidirectional')"),
               _OE, Fig(None, _NOT_FOUND),
               path_mb_s=Fig(2560, "fitted (identity) to the validation figure it is: " + BROCADE_Z14 + ": '2560 "
                             "MB/sec ... on z13 and FICON Express16S', below its two 1,600 MB/s links")),
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
    ``max_open_exchanges``, ``mp_us_per_io_ccw`` and ``mp_us_per_io_zhpf`` (us per 4 KB I/O),
    ``protocol_scale`` (its connect-time protocol over the reference generation's) and, where
    published, ``path_mb_s``, each as a :class:`Fig` whose source says how it was derived.

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
    out = {"link_mb_s": g.link_mb_s, "max_open_exchanges": g.max_open_exchanges,
           "mp_us_per_io_ccw": ccw, "mp_us_per_io_zhpf": zhpf, "protocol_scale": g.protocol_scale}
    if g.path_mb_s.value is not None:
        out["path_mb_s"] = g.path_mb_s
    return out


def card_limits(name: str, where: str = "generation") -> dict:
    """The ``[[topology.card]]`` data limits of generation ``name``'s feature card where published
    (``max_read_mb_s``, ``max_write_mb_s``, ``max_mb_s``; absent: no limit known)."""
    g = generation(name, where)
    return {k: f.value for k, f in (("max_read_mb_s", g.card_read_mb_s), ("max_write_mb_s", g.card_write_mb_s),
                                    ("max_mb_s", g.card_mb_s)) if f.value is not None}


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
                         ("channels per feature", g.channels_per_feature),
                         ("channel data path MB/s (reads + writes)", g.path_mb_s),
                         ("feature card: max read MB/s", g.card_read_mb_s),
                         ("feature card: max write MB/s", g.card_write_mb_s),
                         ("feature card: max read + write MB/s", g.card_mb_s)):
            out.append(f"  {label:40s} {'-' if f.value is None else format(f.value, ',.0f'):>9s}  [{f.source}]")
        out.append(f"  {'protocol time / Express8S protocol time':40s} {g.protocol_scale.value:9.3f}  "
                   f"[{g.protocol_scale.source}]")
        out.append("  (mcio's MP work per 4 KB I/O, one command:)")
        for k, f in channel_parameters(g.name).items():
            if k.startswith("mp_"):
                out.append(f"  {k:40s} {f.value:9.2f}  [{f.source}]")
        out.append("")
    if name is None:     # the whole catalogue: per-command costs, CU constants and host work too
        out.append(command_listing())
    return "\n".join(out)


__all__ = ["CATALOGUE", "Fig", "Generation", "generation", "channel_parameters", "card_limits", "listing",
           "REFERENCE_MP_US_CCW", "ZHPF_OVER_CCW_FEX4", "PROTOCOL_REFERENCE"]


# ---- per-command costs by command type, control-unit constants, host work ----------------------
# No IBM document publishes a FICON channel's, link's or control unit's time per command; every
# value below is mcio's one reading, used by every scenario that prices commands (zhpf-dump, the
# validation set's erase jobs), with where it comes from. us per command.
SEED003 = "seed 003 (zhpf-dump: z/VM dump, 4 KB records, FICON Express8S)"
ZHPF_DESIGN = ("z/OS 'zHPF channel program' docs and FC-SB-4: a TCW points at one TCCB carrying every DCW; the "
               "whole chain goes to the control unit as one unit, one exchange")


@dataclass(frozen=True)
class CommandCost:
    """The cost of one command of a type: channel MP work, link protocol (command / data IUs and
    responses) and the control unit's work (us), each a :class:`Fig`."""

    command: str
    mode: str                      # "ccw" (command mode) or "zhpf" (transport mode)
    mp_us: Fig
    protocol_us: Fig
    cu_us: Fig

    @property
    def total_us(self) -> float:
        return sum(f.value or 0.0 for f in (self.mp_us, self.protocol_us, self.cu_us))


_IN_PROGRAM = ("in the per-program cost: the channel MP's start and end work of the program (mp_us_per_io_*), "
               "as zhpf-dump prices a program of DX, LR and Writes")
COMMAND_COSTS: dict[str, CommandCost] = {c.command: c for c in (
    CommandCost("Define Extent (DX)", "ccw", Fig(0.0, _IN_PROGRAM), Fig(0.0, _IN_PROGRAM), Fig(0.0, _IN_PROGRAM)),
    CommandCost("Locate Record (LR) / Locate Record Extended (LRE)", "ccw", Fig(0.0, _IN_PROGRAM),
                Fig(0.0, _IN_PROGRAM), Fig(0.0, _IN_PROGRAM + "; re-issued inside a program: RELOCATE_US")),
    CommandCost("Write (one record, chained)", "ccw",
                Fig(2.0, "assumed, because no MP time per command is published: its IDAW list and command IU, "
                         "small beside the per-I/O work (" + SEED003 + ")"),
                Fig(19.5, "fitted to " + SEED003 + ", classic run's 4.59 ms per 114-record program"),
                Fig(13.19, "fitted to " + SEED003 + ", z/HPF run's 2.06 ms per 110-record program (the CU's write "
                           "of one 4 KB record into cache and NVS, the same in both modes)")),
    CommandCost("Read (one record, chained)", "ccw",
                Fig(2.0, "assumed as a Write: no figure per command type is published"),
                Fig(19.5, "assumed as a Write (" + SEED003 + " measured writes only)"),
                Fig(13.19, "assumed as a Write (" + SEED003 + " measured writes only)")),
    CommandCost("Locate Record and Erase (one LRE, its domain erased)", "ccw",
                Fig(2.0, "assumed as a Write's"), Fig(19.5, "assumed as a Write's (a command IU and its response)"),
                Fig(13.19, "assumed as a Write's CU work: the CU's time to erase a track is not published; the "
                           "validation set's HCPFER figure (z/VM 7.1 Fast Minidisk Erase) misses with this "
                           "(21 s against 36); priced as a re-issued Locate Record (RELOCATE_US) it would take 65 s: "
                           "the two bracket it (docs/validation.md)")),
    CommandCost("TIC (transfer in channel)", "ccw", Fig(0.0, "assumed: resolved inside the channel, no IU (with a "
                                                            "re-issued LR: in RELOCATE_US)"),
                Fig(0.0, "assumed: no IU on the link"), Fig(0.0, "assumed: the CU never sees it")),
    CommandCost("TCW + TCCB (one transport-mode program)", "zhpf",
                Fig(0.0, "in the per-program cost (mp_us_per_io_zhpf)"),
                Fig(5.0, "assumed (" + SEED003 + "): the TCCB's one command IU and its status, a few us"),
                Fig(0.0, "in the CU's command response (CMR)")),
    CommandCost("DCW (one record in a TCCB)", "zhpf", Fig(0.0, ZHPF_DESIGN + ": the channel does not track each DCW"),
                Fig(0.0, ZHPF_DESIGN + ": no command IU or response per DCW"),
                Fig(13.19, "fitted to " + SEED003 + " (as a Write's CU work)")),
)}

#: A Locate Record and a TIC re-issued before a Write inside a program (a new locate domain per
#: record: the pre-VM65989 dump chain "Locate record, TIC, Write record n"), us for the pair, all
#: parts together (MP, protocol, the control unit's new orientation: "orientation is reset and
#: must be reestablished before the second record can be transferred", IBM 3390 / ECKD reference,
#: Locate Record). Fitted to the z/VM 6.4 VM65989 report's "improved the speed of dump writing by
#: about 260%" (3.6 x; 2.6 x would give 76.1): the validation figure it comes from.
RELOCATE_US = Fig(123.95, "fitted to the z/VM 6.4 report 'Dump Channel Program Changes' "
                          "(vm.ibm.com/perf/reports/zvm/html/640500.html): dump rate 3.6 x without an LR + TIC per "
                          "record (90- and 255-record chains, zhpf-dump's other costs)")

#: Control-unit constants (DS8000 class). Published: none of these in the sources searched.
CU_CONSTANTS: dict[str, Fig] = {
    "command response (CMR) per I/O, us": Fig(30.0, "assumed: tens of us on a DS8000-class control unit with no "
                                                    "contention (zhpf-dump); not changed by the channel generation "
                                                    "(the link's share of it, a command IU and its response of a "
                                                    "few hundred bytes, is < 1 us at 4 Gbit/s and above)"),
    "host-adapter work per I/O, us (ficon-channel)": Fig(None, "fitted to seed 001 (ficon-channel's ha_service_us)"),
}

#: The host's (z/VM CP and the utility's) work per channel program issued from a CMS utility, us:
#: fitted to the validation set's CMS FORMAT elapsed time (z/VM 7.1 Fast Minidisk Erase, 399 s
#: for 491,505 programs of 12 Writes): 811.80 us per program less the channel, CU and link parts
#: priced above. FORMAT identifies it best (its programs are short: a third of its time).
HOST_US_PER_PROGRAM = Fig(280.16, "fitted to the z/VM 7.1 Fast Minidisk Erase report's CMS FORMAT time (399 s; "
                                 "vm.ibm.com/perf/reports/zvm/html/4q9s2.html): (399 s / 491,505 programs) - "
                                 "MP 23.91 - CMR 30 - 12 x 34.69 - 48 KB at 800 MB/s")


def command_listing() -> str:
    """The per-command costs, control-unit constants and host work, every figure with its source."""
    out = ["Per-command costs by command type (us): MP / protocol / control unit"]
    for c in COMMAND_COSTS.values():
        out.append(f"  {c.command} [{c.mode}]: {c.total_us:.2f} us")
        for label, f in (("MP", c.mp_us), ("protocol", c.protocol_us), ("control unit", c.cu_us)):
            out.append(f"    {label:14s} {'-' if f.value is None else format(f.value, '.2f'):>7s}  [{f.source}]")
    out.append("Control-unit constants")
    for k, f in CU_CONSTANTS.items():
        out.append(f"  {k:45s} {'-' if f.value is None else format(f.value, '.2f'):>7s}  [{f.source}]")
    out.append(f"Locate Record + TIC re-issued inside a program, us  {RELOCATE_US.value:.2f}  [{RELOCATE_US.source}]")
    out.append(f"Host work per channel program (z/VM CMS utility), us  {HOST_US_PER_PROGRAM.value:.1f}  "
               f"[{HOST_US_PER_PROGRAM.source}]")
    return "\n".join(out)


__all__ += ["CommandCost", "COMMAND_COSTS", "CU_CONSTANTS", "HOST_US_PER_PROGRAM", "RELOCATE_US", "command_listing"]
