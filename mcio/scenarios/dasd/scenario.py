"""Seed 002: DASD response components of 3390-3 volumes behind a read-through controller (ESCON
era) while Linux guests boot, with z/VM minidisk cache (MDC) full-track caching on and off.

The chain, from the application to the engine (every step generic, in :mod:`mcio.dasd`):

1. **The guest's reads.** ``streams`` request streams per volume (Linux keeps a few requests
   queued in its DASD driver and starts one channel program at a time per device), each
   thinking ``app_think_ms`` (exponential) before a read of ``request_blocks`` 4 KB blocks; the
   next read continues the previous one with probability ``p_sequential``, else jumps to a
   uniform block of the ``span_cylinders`` the Linux system's data occupies.
2. **MDC** (``mdc_mode``): a read whose tracks (track mode) or blocks (block mode) are cached
   issues no SSCH; a miss issues a full-track read (track mode) or a read of the request (block
   mode, or MDC off) and caches what it read. MDC starts empty (it is purged when disabled).
3. **The CU cache**, by track: warm with ``cu_resident_fraction`` of the span at the phase's start
   (0: the data's first access), and every track read from the disk stays (read-through CUs
   keep what they read). The walk (:func:`mcio.dasd.walk`) runs steps 1-3 for the phase's
   length in SSCHs (the seed's rows: rate x 60 s), tracking the arm, and yields the MDC hit
   ratio, the CU miss ratio, the seek distances of the misses and the requests per SSCH.
4. **Service.** A miss: seek (3390-3 curve) + rotational latency, and on this read-through CU
   its data at media speed (connect); a hit: its data from cache at ``cu_hit_transfer_mb_s``.
   Pend = channel MP start work + CMR. :func:`mcio.dasd.service_map` writes these as I/O
   classes, the per-record protocol time and the back-end distribution.
5. **The engine** runs the SSCH stream closed: ``streams`` customers whose think between SSCHs
   is the application's thinks (and MDC hits) between them (:func:`mcio.dasd.think_per_ssch`).

Approximation of the walk-based variants: the engine draws each miss's disconnect i.i.d. from
the distance distribution the walk measured, not from the arm position of the previous I/O
(variant ``phase1_on_seam``, ``device_service = 'seam'``, runs phase 1 on the engine's positional
device instead: the arm tracked per I/O, seek + latency and media pacing in the device-service
seam, the walk only deciding MDC and the CU cache); hit and miss are i.i.d. with the walk's ratio (no runs); the think between
SSCHs is a gamma with the exact mean and SCV of the walk's compound. ESAMON's response is
service + CP's queue; the guest's own driver queue (the engine's IOSQ here) is invisible to it,
so the model's ESAMON response is its service time and the engine's IOSQ is reported as
``guest_queue_ms``.
"""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

import numpy as np

from ...dasd import (AccessPattern, ControlUnitCache, SschKind, geometry, seek_curve_for_average, service_map,
                     think_per_ssch, walk)
from ...dasd.geometry import GEOMETRIES, Geometry
from ...errors import McioError
from ...model import Dist, Model
from ..base import Figure, Param, ParamCondition, RunSize, Scenario, Tolerance, headline
from .measured import PHASES, phase_mean, phase_range, phase_ssch_per_volume

P = Param
PARAMS = (
    # ---- the device ---------------------------------------------------------------------------
    P("device_type", "3390", "1", "seed", "3390-3 volumes (the screen's Device Type column)"),
    P("volume_cylinders", 3339, "1", "IBM", "a 3390-3 has 3,339 cylinders (domain.md §2)", (1, 65520)),
    P("block_bytes", 4096, "byte", "assumed", "Linux formats its DASD with 4 KB blocks by default: 12 per "
      "3390 track (49,152 bytes), 180 per cylinder", (512, 56664)),
    P("revolution_ms", 14.2, "ms", "IBM", "3390 average rotational delay 7.1 ms = half a revolution (domain.md §2)",
      (1.0, 100.0)),
    P("media_mb_s", 4.2, "Mbyte s-1", "IBM", "3390 data rate off the head; domain.md derives 4.0-4.2 from the track and "
      "the revolution; the seed says 'disk speed, between 4 and 5 MB per second'", (0.1, 1000.0)),
    P("seek_settle_ms", 2.0, "ms", "assumed", "the fixed part of any arm move (start, settle); not published "
      "(domain.md §2): a round value for drives of the era", (0.0, 20.0)),
    P("seek_average_ms", 12.5, "ms", "assumed", "the average seek over random accesses to the whole 3390-3 "
      "(3390-era literature quotes 9.5 ms for models 1/2 and 12.5 ms for model 3; not in domain.md's sources); "
      "sets the sqrt(distance) coefficient", (0.0, 50.0)),
    # ---- the guest and its access pattern -----------------------------------------------------------
    P("streams", 3, "1", "assumed", "requests a booting Linux keeps queued per volume (readahead, init "
      "processes); Linux starts one channel program at a time per device, so they queue in the guest, "
      "which is why ESAMON shows response = service", (1, 64)),
    P("app_think_ms", 24.0, "ms", "fitted", "guest CPU between its reads (exponential); fitted by hand to the "
      "MDC-off rates: phase 2's busiest LIN501 minute (114.8/s at 12:00) and phase 4's boot rows (40-67/s); 22 ms "
      "gives 116 and 68/s, 24 ms 108 and 66/s",
      (0.0, 10_000.0)),
    P("request_blocks", 3, "1", "fitted", "blocks per Linux read request: phase 2's connect 2.7 ms (cache hits "
      "sent at device speed) is ~12 KB at 4.2 MB/s", (1, 12)),
    P("p_sequential", 0.5, "1", "fitted", "share of reads that continue the previous one; picked with "
      "span_cylinders from a 3 x 3 grid (p 0.3/0.5/0.7, span 1113/2226/3339) as the point nearest phase 1's and "
      "phase 4's disconnect (15.1 and 9.2 ms)", (0.0, 1.0)),
    P("span_cylinders", 2226, "1", "fitted", "cylinders the Linux system's data is spread over (the random jumps' "
      "range: their seek distances and how soon a read returns to a track already read); see p_sequential",
      (1, 65520)),
    P("write_share", 0.0, "1", "assumed", "a boot reads; the seed gives no write figures (writes would be fast "
      "writes: no disconnect)", (0.0, 1.0)),
    P("mdc_hit_us", 50.0, "us", "assumed", "CP's path for a read MDC serves (no SSCH): guest CPU-side delay "
      "added to the think time", (0.0, 10_000.0)),
    # ---- MDC -----------------------------------------------------------------------------------
    P("mdc_mode", "track", "1", "seed", "z/VM MDC's default for CKD minidisks: full-track caching (domain.md §3)"),
    P("mdc_capacity_mb", 256.0, "MB", "assumed", "MDC in host storage: large enough for a boot's data "
      "(hits then come from the access pattern, not from the size)", (0.0, 1e9)),
    # ---- the control unit ------------------------------------------------------------------------
    P("cu_policy", "read_through", "1", "seed", "'it appears that this storage controller does a read through'"),
    P("cu_hit_transfer_mb_s", 4.2, "Mbyte s-1", "seed", "the rate this CU sends cached data: phase 3 (track reads that "
      "mostly hit, disconnect 0.3-2.0 ms) still had connect 10.4-11.0 ms, as phase 1's misses: a full track at ~4.5 "
      "MB/s, so hits go no faster than the disk here; set to the media rate. 0 means channel speed", (0.0, 1000.0)),
    P("emulated_miss_ms", 1.0, "ms", "assumed", "back-end service of a miss on an emulated 3390 (a modern "
      "controller's rank; exponential); used only with device_type = 'emulated-3390'", (0.0, 1000.0)),
    P("cu_resident_fraction", 0.0, "1", "seed", "phase 1 is the data's first access ('the first time data is "
      "accessed, disconnect time will be in the 10-20 ms range'): cold. Phases 2 and 3 override it", (0.0, 1.0)),
    # ---- channel and pend ---------------------------------------------------------------------------
    P("link_mb_s", 17.0, "Mbyte s-1", "seed", "ESCON: 'up to 17MB/sec'", (0.01, 1e6)),
    P("max_open_exchanges", 1, "1", "IBM", "ESCON runs one I/O at a time per channel", (1, 100_000)),
    P("ccw_protocol_us", 20.0, "us", "assumed", "ESCON handshake per CCW beside the data; below the seed's "
      "0.1 ms resolution for a few records", (0.0, 1000.0)),
    P("mp_start_us", 100.0, "us", "assumed", "channel start work; with cmr_us it makes the seed's pend 0.2 ms "
      "(every row); the split is not identified", (0.0, 10_000.0)),
    P("cmr_us", 100.0, "us", "assumed", "CU command response (host adapter); see mp_start_us", (0.0, 10_000.0)),
    # ---- the phase ---------------------------------------------------------------------------------
    P("phase_ssch", phase_ssch_per_volume("phase1_mdc_track"), "1", "seed",
      "SSCHs one volume issued in the phase (sum of rate x 60 s over its rows / volumes): how long the walk runs, "
      "so how far MDC and the CU warm up", (100, 10_000_000)),
    P("phase_requests", 0, "1", "derived", "0: the walk runs phase_ssch SSCHs; -1: as many application reads as "
      "phase 1's walk made (the what-ifs replay phase 1's boot, whatever their SSCHs); n > 0: n reads",
      (-1, 10_000_000)),
    P("walk_seed", 2026, "1", "assumed", "seed of the access-pattern walk", (0, 2**62)),
    # ---- where the positional service is computed -----------------------------------------------------
    P("device_service", "walk", "1", "assumed", "walk: each miss's seek + latency drawn i.i.d. from the walk's "
      "distances (service_map's back-end distribution); seam: the engine's positional device "
      "(devices.geometry 3390, the arm tracked per I/O; kernels/stages.positional_miss), its p_sequential "
      "derived from the walk (the share of misses within one cylinder of the previous one)"),
)

#: phase 2's and 3's warm CU: fitted to their disconnect (the only figure that sees them)
VARIANTS = {
    "phase1_mdc_track": {},
    "phase2_mdc_off": {"mdc_mode": "off", "cu_resident_fraction": 0.982,
                       "phase_ssch": phase_ssch_per_volume("phase2_mdc_off")},
    "phase3_mdc_track_again": {"cu_resident_fraction": 0.895,
                               "phase_ssch": phase_ssch_per_volume("phase3_mdc_track_again")},
    "phase4_alt_linux_mdc_off": {"mdc_mode": "off", "cu_resident_fraction": 0.0,
                                 "phase_ssch": phase_ssch_per_volume("phase4_alt_linux_mdc_off")},
    # phase 1 with seek, latency and media pacing in the engine's device-service seam
    "phase1_on_seam": {"device_service": "seam"},
    # the seed's recommendations, on phase 1's conditions (first boot, cold CU)
    "whatif_mdc_block": {"mdc_mode": "block", "phase_requests": -1},
    "whatif_staging_cu": {"cu_policy": "staging", "phase_requests": -1, "cu_hit_transfer_mb_s": 0.0},
    "whatif_block_and_staging": {"mdc_mode": "block", "phase_requests": -1, "cu_policy": "staging", "cu_hit_transfer_mb_s": 0.0},
    # phase 3 with a read-through CU that sends hits at channel speed (as IBM's 3990-6 on ESCON did)
    "whatif_phase3_hits_at_channel_speed": {"cu_resident_fraction": 0.895, "cu_hit_transfer_mb_s": 0.0,
                                            "phase_ssch": phase_ssch_per_volume("phase3_mdc_track_again")},
    # phase 1's boot on today's hardware: an emulated 3390 (no seek, no rotation) on FICON
    "whatif_phase1_emulated_ficon": {"device_type": "emulated-3390", "phase_requests": -1, "link_mb_s": 800.0, "max_open_exchanges": 64,
                                     "cu_hit_transfer_mb_s": 0.0, "ccw_protocol_us": 5.0},
}
VARIANT_REASON = {
    "phase2_mdc_off": "cu_resident_fraction 0.982 fitted to phase 2's disconnect 0.16 ms: the same boot re-reads "
                      "what phase 1's track reads left in the CU cache",
    "phase3_mdc_track_again": "cu_resident_fraction 0.895 fitted to phase 3's disconnect 1.54 ms (third access; some "
                              "tracks aged out in the 40 minutes since)",
}

WHATIF_NOTE = {
    "whatif_mdc_block": "phase 1's boot with MDC in block mode (CP SET MDCACHE): reads of the request, not tracks",
    "whatif_staging_cu": "phase 1's boot behind a cache-staging CU: stage, then send at ESCON speed",
    "whatif_block_and_staging": "both of the seed's remedies on phase 1's boot",
    "whatif_phase3_hits_at_channel_speed": "phase 3 if this CU sent cache hits at channel speed (17 MB/s)",
    "whatif_phase1_emulated_ficon": "phase 1's boot on an emulated 3390 over FICON (no seek or rotation; "
                                    "emulated_miss_ms is assumed)",
}

_COMPONENTS = (("service", "service_ms"), ("pend", "pend_ms"), ("disconnect", "disconnect_ms"),
               ("connect", "connect_ms"), ("ESAMON response", "esamon_response_ms"))


#: what each figure of a phase tests, by quantity (a phase's own exceptions: _PHASE_KIND)
_KIND = {"service_ms": "identity", "pend_ms": "fitted", "disconnect_ms": "fitted", "connect_ms": "predicted",
         "esamon_response_ms": "identity", "throughput_iops": "predicted", "device_busy_zvm": "identity",
         "busy_identity_gap": "identity", "app_read_rate": "identity", "channel_connect_busy": "identity",
         "mdc_hit_ratio": "predicted", "cu_read_miss_ratio": "predicted"}
_PHASE_KIND = {("phase2_mdc_off", "connect_ms"): "fitted", ("phase3_mdc_track_again", "connect_ms"): "fitted",
               ("phase2_mdc_off", "throughput_iops"): "fitted", ("phase4_alt_linux_mdc_off", "throughput_iops"): "fitted"}
#: why a quantity has its kind (appended to the figure's note)
_KIND_NOTE = {"service_ms": "= pend + disconnect + connect",
              "esamon_response_ms": "= service: the guest starts one SSCH at a time, CP queues nothing",
              "device_busy_zvm": "= rate x service (ESAMON's definition)",
              "app_read_rate": "= SSCH rate / SSCHs per read (the MDC walk's)",
              "channel_connect_busy": "= rate x connect"}


def _figures() -> tuple[Figure, ...]:
    out = []
    src = "seed 002 rows {}-{}, I/O-rate-weighted mean"

    def kind(ph, q):
        return _PHASE_KIND.get((ph, q), _KIND[q])

    def why(q, note=""):
        return "; ".join(x for x in (note, _KIND_NOTE.get(q, "")) if x)

    for ph, (lo, hi, _) in PHASES.items():
        tag = ph.split("_")[0]
        for label, q in _COMPONENTS:
            col = "response_ms" if q == "esamon_response_ms" else q
            tol = Tolerance(abs=0.05) if q == "pend_ms" else Tolerance(rel=0.2)
            note = ""
            if q == "pend_ms":
                note = ("set by mp_start_us + cmr_us (no channel contention on one volume): tests nothing (they were "
                        "set to the seed's 0.2 ms)")
            if ph == "phase2_mdc_off" and q in ("connect_ms",):
                note = "request_blocks is fitted to it"
            if ph == "phase3_mdc_track_again" and q == "connect_ms":
                note = "cu_hit_transfer_mb_s (hits at the media rate) was read off it"
            if ph == "phase1_mdc_track" and q == "connect_ms":
                note = ("a track at the media rate (IBM's 4.2 MB/s): no parameter was set from it (the CU's hits, "
                        "few when cold, go at cu_hit_transfer_mb_s, read off phase 3's connect)")
            if ph == "phase4_alt_linux_mdc_off" and q == "connect_ms":
                note = "the request size fitted to phase 2's connect, another Linux's misses at the media rate"
            if ph in ("phase2_mdc_off", "phase3_mdc_track_again") and q == "disconnect_ms":
                note = "cu_resident_fraction is fitted to it"
            if ph in ("phase1_mdc_track", "phase4_alt_linux_mdc_off") and q == "disconnect_ms":
                note = "span_cylinders and p_sequential were picked on a coarse grid against it"
            if ph == "phase4_alt_linux_mdc_off" and q == "esamon_response_ms":
                note = "the seed shows ~2 ms CP queue here (more than one SSCH queued); the model's guest starts one at a time"
            out.append(Figure(f"{tag}: {label}", ph, q, round(phase_mean(ph, col), 3), tol, "ms",
                              src.format(lo[:5], hi[:5]), why(q, note) if q != "esamon_response_ms" or not note
                              else note, kind(ph, q)))
        rng = phase_range(ph, "rate_ssch_s")
        rate_note = "app_think_ms is fitted to it" if ph in ("phase2_mdc_off", "phase4_alt_linux_mdc_off") else ""
        if ph == "phase1_mdc_track":
            rng = (31.0, 37.0)
            rate_note = ("the seed's range for the saturated volume-minutes (busy 81-99 %); the guest's pace fitted at "
                         "MDC off, the MDC hits from the walk")
        if ph == "phase3_mdc_track_again":
            rate_note = "the guest's pace fitted at MDC off"
        if ph == "phase2_mdc_off":
            rng = (65.0, 160.0)
            rate_note = "the seed's range for the busy minutes (below 65/s the guest was mostly idle); " + rate_note
        out.append(Figure(f"{tag}: I/O rate per volume", ph, "throughput_iops", rng, Tolerance(), "SSCH s-1",
                          f"seed 002 rows {lo[:5]}-{hi[:5]}, range of the avg column", rate_note,
                          kind(ph, "throughput_iops")))
        busy_meas = (0.90, 0.99) if ph == "phase1_mdc_track" else None
        out.append(Figure(f"{tag}: device busy (ESAMON: rate x service)", ph, "device_busy_zvm", busy_meas,
                          Tolerance(), "1", "seed 002 %Dev Busy (95.6 % = 36.2/s x 26.4 ms)",
                          why("device_busy_zvm", "the saturated minutes: 80.8-99.2 %" if busy_meas else "not measured "
                              f"(the phase's rows range {phase_range(ph, 'busy_pct')[0]:g}-"
                              f"{phase_range(ph, 'busy_pct')[1]:g} % with the guests' pace)"), "identity"))
        out.append(Figure(f"{tag}: busy - rate x service", ph, "busy_identity_gap", 0.0, Tolerance(abs=0.01), "1",
                          "ESAMON's definition (95.6 % = 36.2/s x 26.4 ms) must hold in the output", kind="identity"))
        out.append(Figure(f"{tag}: application reads per s", ph, "app_read_rate", None, Tolerance(), "s-1", "",
                          why("app_read_rate", "what the guest gets done (MDC hits issue no SSCH)"
                              if ph == "phase1_mdc_track" else ""), "identity"))
        out.append(Figure(f"{tag}: channel connect busy (rate x connect)", ph, "channel_connect_busy", None,
                          Tolerance(), "1", kind="identity"))
        out.append(Figure(f"{tag}: MDC hit ratio", ph, "mdc_hit_ratio", None, Tolerance(), "1", kind="predicted"))
        out.append(Figure(f"{tag}: CU read-miss ratio", ph, "cu_read_miss_ratio", None, Tolerance(), "1",
                          kind="predicted"))
    # phase 1 once more with the engine's positional service: the same measurements, the same tolerances
    seam_q = {q for _, q in _COMPONENTS} | {"throughput_iops", "device_busy_zvm", "busy_identity_gap"}
    for f in [f for f in out if f.variant == "phase1_mdc_track" and f.quantity in seam_q]:
        out.append(replace(f, name=f.name.replace("phase1:", "phase1 on the seam:"), variant="phase1_on_seam",
                           note=("the arm tracked per I/O in the engine (device_service = 'seam'); " + f.note).strip("; ")))
    for wi in [v for v in VARIANTS if v.startswith("whatif_")]:
        for label, q in _COMPONENTS[:4] + (("I/O rate", "throughput_iops"), ("device busy", "device_busy_zvm"),
                                           ("application reads per s", "app_read_rate"),
                                           ("MDC hit ratio", "mdc_hit_ratio"),
                                           ("channel connect busy (rate x connect)", "channel_connect_busy")):
            out.append(Figure(f"{wi}: {label}", wi, q, None, Tolerance(), "", "",
                              WHATIF_NOTE[wi] if q == "service_ms" else "",
                              "predicted" if q in ("pend_ms", "disconnect_ms", "connect_ms", "throughput_iops",
                                                   "mdc_hit_ratio") else "identity"))
    return tuple(out)


_PEND = tuple(f"{ph.split('_')[0]}: pend" for ph in PHASES) + ("phase1 on the seam: pend",)
#: parameter (or variant override) -> the figures it was set from (docs/dasd_mdc.md, "What is
#: fitted to what"); the seam's copies of phase 1 reuse phase 1's measurements
FIT_TARGETS = {
    "app_think_ms": ("phase2: I/O rate per volume", "phase4: I/O rate per volume"),
    "request_blocks": ("phase2: connect",),
    **{k: ("phase1: disconnect", "phase4: disconnect", "phase1 on the seam: disconnect")
       for k in ("p_sequential", "span_cylinders")},
    "cu_resident_fraction": ("phase2: disconnect", "phase3: disconnect"),
    "cu_hit_transfer_mb_s": ("phase3: connect",),
    "mp_start_us": _PEND, "cmr_us": _PEND,
}


# Where a parameter counts (Scenario.param_effect). A name not among GEOMETRIES holds, so that
# geometry() gives its own error rather than this table a misleading one.
#: revolution, media rate and seek: read only by a positional geometry (DasdMdc.geometry and
#: service_map's positional branch; the seam needs a positional device)
_POSITIONAL = (ParamCondition("a positional device_type ('3390' or '3380')", "device_type",
                              lambda v: v not in GEOMETRIES or GEOMETRIES[v].positional, "3390", "emulated-3390"),)
#: MDC's capacity and CP's path for a hit: with MDC off no read hits (every request is one SSCH)
_MDC_ON = (ParamCondition("mdc_mode = 'track' or 'block'", "mdc_mode", lambda v: v != "off", "track", "off"),)
PARAM_EFFECT = {
    **{k: _POSITIONAL for k in ("revolution_ms", "media_mb_s", "seek_settle_ms", "seek_average_ms",
                                "volume_cylinders")},
    # service_map's miss service on an emulated device only
    "emulated_miss_ms": (ParamCondition("device_type = 'emulated-3390'", "device_type",
                                        lambda v: v in GEOMETRIES and not GEOMETRIES[v].positional,
                                        "emulated-3390", "3390"),),
    "mdc_capacity_mb": _MDC_ON,
    "mdc_hit_us": _MDC_ON,
    # with phase_requests the walk runs that many reads: its SSCH count is not a limit
    "phase_ssch": (ParamCondition("phase_requests = 0", "phase_requests", lambda v: v == 0, 0, -1),),
}


@lru_cache(maxsize=64)
def _walk_cached(**kw):
    return walk(**kw)


class DasdMdc(Scenario):
    name = "dasd-mdc"
    description = "3390-3 volumes behind a read-through ESCON controller, MDC track mode on/off (seed 002)"
    params = PARAMS
    variants = VARIANTS
    param_effect = PARAM_EFFECT
    figures = _figures()
    fit_targets = FIT_TARGETS
    run_size = RunSize(ios=20_000, replications=4, seed=2)

    # ---- the chain ----
    def geometry(self, p) -> Geometry:
        g = geometry(p["device_type"])
        return replace(g, revolution_ms=p["revolution_ms"], media_mb_s=p["media_mb_s"]) if g.positional else g

    def walk(self, p):
        g = self.geometry(p)
        n_req = p["phase_requests"]
        if n_req == -1:           # the same boot as phase 1: its number of application reads
            n_req = self.walk(self.resolve(None, "phase1_mdc_track")).requests
        requests = n_req if n_req > 0 else None
        pattern = AccessPattern(p["p_sequential"], p["span_cylinders"], p["request_blocks"])
        return _walk_cached(blocks_per_track=g.blocks_per_track(p["block_bytes"]),
                            tracks_per_cylinder=g.tracks_per_cylinder, **pattern.walk_kwargs(),
                            mdc_mode=p["mdc_mode"], mdc_capacity_mb=p["mdc_capacity_mb"],
                            block_bytes=p["block_bytes"], cu_resident_fraction=p["cu_resident_fraction"],
                            write_share=p["write_share"], ssch=p["phase_ssch"], requests=requests,
                            seed=p["walk_seed"])

    def service(self, p):
        g = self.geometry(p)
        w = self.walk(p)
        bpt = g.blocks_per_track(p["block_bytes"])
        read_blocks = bpt if p["mdc_mode"] == "track" else p["request_blocks"]
        n = w.read_ssch + w.write_ssch
        r_share = w.read_ssch / n
        kinds = [SschKind("read_hit", r_share * (1 - w.cu_read_miss_ratio), read_blocks),
                 SschKind("read_miss", r_share * w.cu_read_miss_ratio, read_blocks, miss=True),
                 SschKind("write", w.write_ssch / n, p["request_blocks"], write=True)]
        kinds = [k for k in kinds if k.share > 0]
        seek = seek_curve_for_average(p["seek_average_ms"], p["seek_settle_ms"], p["volume_cylinders"])
        cu = ControlUnitCache(p["cu_policy"], p["cu_hit_transfer_mb_s"] or None)
        sm = service_map(kinds, geom=g, seek=seek, cu=cu, link_mb_s=p["link_mb_s"], block_bytes=p["block_bytes"],
                         distance_pmf=w.distance_pmf if w.distance_pmf.sum() > 0 else np.ones(1),
                         ccw_protocol_us=p["ccw_protocol_us"],
                         emulated_backend=Dist("exponential", p["emulated_miss_ms"], 1.0))
        think = think_per_ssch(w.requests_per_ssch_pmf, p["app_think_ms"], p["mdc_hit_us"] / 1000.0)
        return w, sm, think

    def seam_devices(self, p, w) -> tuple[dict, list]:
        """The engine's positional device for ``device_service = 'seam'``: the [devices] fields and
        the I/O classes (a miss's media pacing is the engine's, so only a hit's slower-than-link
        transfer stays in its protocol time), and the protocol per record (us)."""
        from ...dasd.control_unit import QUANTUM_US
        g = self.geometry(p)
        if not g.positional or p["cu_policy"] not in ("read_through", "staging"):
            raise McioError("device_service", "seam", "needs a positional device_type (3390, 3380) and "
                            "cu_policy read_through or staging")
        _, sm, _ = self.service(p)
        seek = seek_curve_for_average(p["seek_average_ms"], p["seek_settle_ms"], p["volume_cylinders"])
        link = p["link_mb_s"] * 1000.0
        hit_rate = link if not p["cu_hit_transfer_mb_s"] else min(p["cu_hit_transfer_mb_s"] * 1000.0, link)
        io, fixed = [], []
        for cl in sm.io:
            nbytes = cl["kb"] * 1000.0
            blocks = round(nbytes / p["block_bytes"])
            paced = 0.0 if cl["miss_ratio"] > 0 else nbytes / hit_rate - nbytes / link
            fixed.append(paced + blocks * p["ccw_protocol_us"] / 1000.0)
            io.append(dict(cl))
        for cl, f in zip(io, fixed):
            cl["records"] = max(1, int(round(f * 1000.0 / QUANTUM_US)))
        p_seq = float(w.distance_pmf[:2].sum()) if w.distance_pmf.sum() > 0 else 0.0
        devices = {"count": 1, "geometry": g.name, "cylinders": p["volume_cylinders"],
                   "rotation_ms": p["revolution_ms"], "media_mb_s": p["media_mb_s"],
                   "cylinder_kb": g.blocks_per_cylinder(p["block_bytes"]) * p["block_bytes"] / 1000.0,
                   "seek_settle_ms": p["seek_settle_ms"], "seek_ms_per_sqrt_cyl": float(seek.sqrt_coeff_ms),
                   "p_sequential": p_seq, "span_cylinders": p["span_cylinders"]}
        return devices, io, QUANTUM_US

    def build(self, p) -> Model:
        w, sm, think = self.service(p)
        if p["device_service"] == "seam":
            devices, io, proto_us = self.seam_devices(p, w)
            return Model.from_dict({
                "workload": {"type": "closed", "population": p["streams"], "think_ms": think.to_toml()},
                "io": io,
                "devices": devices,
                "channels": {"count": 1, "link_mb_s": p["link_mb_s"], "max_open_exchanges": p["max_open_exchanges"],
                             "mp_us_per_io_ccw": p["mp_start_us"], "mp_start_fraction": 1.0,
                             "mp_us_per_io_zhpf": 0.0, "protocol_us_per_command_ccw": proto_us},
                "control_unit": {"ha_service_us": p["cmr_us"], "miss_policy": p["cu_policy"]},
            }, where=f"scenario {self.name}", user_set={})
        return Model.from_dict({
            "workload": {"type": "closed", "population": p["streams"], "think_ms": think.to_toml()},
            "io": sm.io,
            "devices": {"count": 1},
            "channels": {"count": 1, "link_mb_s": p["link_mb_s"], "max_open_exchanges": p["max_open_exchanges"],
                         "mp_us_per_io_ccw": p["mp_start_us"], "mp_start_fraction": 1.0,
                         "mp_us_per_io_zhpf": 0.0, "protocol_us_per_command_ccw": sm.protocol_us_per_command_ccw},
            "control_unit": {"ha_service_us": p["cmr_us"], "backend_servers": 1,
                             "backend_service_ms": sm.backend_service_ms.to_toml()},
        }, where=f"scenario {self.name}", user_set={})

    def evaluate(self, variant, run):
        from ...engine import simulate
        p = self.resolve(None, variant)
        ds = simulate(self.model(variant), ios=run.ios, replications=run.replications, seed=run.seed)
        out = self.derive(variant, ds)
        w = self.walk({k: v for k, v in p.items() if "." not in k})
        out["mdc_hit_ratio"] = (w.mdc_hit_ratio, 0.0)
        out["cu_read_miss_ratio"] = (w.cu_read_miss_ratio, 0.0)
        out["ssch_per_request"] = (w.ssch_per_request, 0.0)
        rate, ci = out["throughput_iops"]
        out["app_read_rate"] = (rate / w.ssch_per_request, ci / w.ssch_per_request)
        return out

    def derive(self, variant, ds):
        from ...engine import ci95_halfwidth
        out = headline(ds)
        service = (ds.pend_ms + ds.disconnect_ms + ds.connect_ms).values
        gap = ds.device_busy_zvm.values - ds.throughput_iops.values * service / 1000.0
        out["busy_identity_gap"] = (float(gap.mean()), float(ci95_halfwidth(gap)))
        out["esamon_response_ms"] = out["service_ms"]
        conn_busy = ds.throughput_iops.values * ds.connect_ms.values / 1000.0
        # ESCON holds the channel for the whole connect (one I/O at a time): its occupancy
        out["channel_connect_busy"] = (float(conn_busy.mean()), float(ci95_halfwidth(conn_busy)))
        out["guest_queue_ms"] = out["iosq_ms"]
        return out


SCENARIO = DasdMdc()
