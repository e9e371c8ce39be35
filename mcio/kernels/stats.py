"""The one statistics contract: the accumulator slots both engines fill, and what each becomes.

Both kernels (``iopath.run_one``, ``fastpath.fast_one``) fill three float64 accumulators per
replication: ``acc[N_ACC]`` (scalars), ``chs[C, N_CH]`` (per channel), ``devs[D, N_DEV]`` (per
device), plus the response-time histogram. The slot constants below are their only index; the
table ``OUTPUTS`` is the only place that says which Dataset variable each becomes, with its units,
long name and normalisation (``mcio/engine/results.py`` applies it, in table order, which is the
Dataset's variable order). A new statistic is a slot here, a row in ``OUTPUTS``, and the line in a
kernel that counts it.

Times are ms, sizes KB, as in the kernels. Normalisations (T = the measured interval, ms; n = the
I/Os measured, at least 1):

- ``PER_IO``: slot / n, a mean per I/O, dims (replication); with ``ci``, also the 95 % CI
  half-width over replications, a scalar named by inserting ``_ci95`` before the unit suffix.
- ``STD_PER_IO``: the standard deviation per I/O from a sum of squares (``slot``) and its sum
  (``of``).
- ``PER_MS``: slot / T, optionally divided by a model count (``per``): time fractions (busy ms
  per ms), time averages (area per ms) and KB per ms (= MB/s).
- ``PER_S``: slot / T * 1000, a rate in s-1; ``ci`` as for PER_IO.
- ``COUNT``: as counted. ``INTERVAL_S``: T in s. ``FLAG``: 1 if any replication set it, int8.
- ``QUANTILES``, ``QUANTILES_REP``, ``QUANTILES_CI``: from the histogram (``slot`` unused):
  merged over replications, per replication, CI half-width over replications.
"""
from __future__ import annotations

from dataclasses import dataclass

# ---- per-replication scalar accumulators acc[k]
(A_N, A_TIME_MS, A_SUM_RESP, A_SUM_IOSQ, A_SUM_PEND, A_SUM_CMR, A_SUM_DISC, A_SUM_CONN,
 A_SQ_RESP, A_SQ_IOSQ, A_SQ_PEND, A_SQ_CMR, A_SQ_DISC, A_SQ_CONN,
 A_AREA_SYS, A_AREA_IOSQ, A_AREA_HA, A_AREA_BE, A_DEV_BUSY_MS, A_UNSTABLE, A_EVENTS,
 A_DEFERRED, A_AREA_MPQ, A_DEV_BUSY_ZVM_MS) = range(24)
N_ACC = 24
# A_SQ_IOSQ .. A_SQ_CONN: the components' sums of squares, read by no output (only A_SQ_RESP is:
# response_std_ms). The event engine keeps them (stages.flush_block), as the same-work anchor of
# issue 29 does; the fast path does not (its recursion ~4 % faster on an Intel host) and leaves
# them 0.
#: acc[A_UNSTABLE] when the event engine stalled (its next event at an infinite time) rather than
#: outgrew its pool of I/Os (1.0)
A_STALLED = 2.0
COMPONENTS = ("response", "iosq", "pend", "cmr", "disconnect", "connect")

# ---- per-channel accumulators chs[channel, k]
C_MP_BUSY_MS, C_LINK_BUSY_MS, C_AREA_OE, C_OE_MAX, C_SSCH, C_KB, C_DEFERRED = range(7)
N_CH = 7

# ---- per-device accumulators devs[device, k]
V_SSCH, V_BUSY_MS = range(2)
N_DEV = 2

# ---- normalisations (see the module docstring)
PER_IO, STD_PER_IO, PER_MS, PER_S, COUNT, INTERVAL_S, FLAG = (
    "per_io", "std_per_io", "per_ms", "per_s", "count", "interval_s", "flag")
QUANTILES, QUANTILES_REP, QUANTILES_CI = "quantiles", "quantiles_rep", "quantiles_ci"


@dataclass(frozen=True)
class Stat:
    """One Dataset variable: ``var`` from slot ``slot`` of accumulator ``src`` ("acc", "chs",
    "devs"; "hist" for quantiles), normalised by ``norm``, with CF ``units`` and ``long_name``.
    ``per``: a model field (section.key) the value is divided by; ``of``: the sum slot of a
    STD_PER_IO; ``ci``: the long name of its 95 % CI variable (PER_IO, PER_S); ``per_device``:
    only when per-device results are asked for."""

    var: str
    src: str
    slot: int
    norm: str
    units: str
    long_name: str
    per: str | None = None
    of: int | None = None
    ci: str | None = None
    per_device: bool = False


_COMPONENT_NAMES = {"response": "response time (IOSQ + pend + disconnect + connect)",
                    "iosq": "IOSQ time (queued for the device)", "pend": "pend time (incl. CMR)",
                    "cmr": "command response (CMR) delay", "disconnect": "disconnect time",
                    "connect": "connect time"}
_COMPONENT_SLOTS = (A_SUM_RESP, A_SUM_IOSQ, A_SUM_PEND, A_SUM_CMR, A_SUM_DISC, A_SUM_CONN)

OUTPUTS: tuple[Stat, ...] = tuple(
    Stat(f"{comp}_ms", "acc", k, PER_IO, "ms", "mean " + _COMPONENT_NAMES[comp],
         ci=f"95% CI half-width of mean {comp} over replications")
    for comp, k in zip(COMPONENTS, _COMPONENT_SLOTS)) + (
    Stat("response_std_ms", "acc", A_SQ_RESP, STD_PER_IO, "ms", "standard deviation of response time",
         of=A_SUM_RESP),
    Stat("throughput_iops", "acc", A_N, PER_S, "s-1", "I/O rate (SSCH/s)",
         ci="95% CI half-width of the I/O rate"),
    Stat("response_quantile_ms", "hist", -1, QUANTILES, "ms",
         "response-time quantile (all replications merged)"),
    Stat("response_quantile_rep_ms", "hist", -1, QUANTILES_REP, "ms", "response-time quantile per replication"),
    Stat("response_quantile_ci95_ms", "hist", -1, QUANTILES_CI, "ms",
         "95% CI half-width of the quantile over replications"),
    Stat("in_system_mean", "acc", A_AREA_SYS, PER_MS, "1", "time-average number of I/Os in the system"),
    Stat("iosq_queue_mean", "acc", A_AREA_IOSQ, PER_MS, "1",
         "time-average number of I/Os queued for devices (IOSQ)"),
    Stat("mp_queue_mean", "acc", A_AREA_MPQ, PER_MS, "1",
         "time-average number of I/Os waiting for the channel MP (start work)"),
    Stat("cu_ha_busy", "acc", A_AREA_HA, PER_MS, "1", "control-unit host-adapter utilisation",
         per="control_unit.ha_servers"),
    Stat("backend_busy", "acc", A_AREA_BE, PER_MS, "1", "back-end utilisation", per="control_unit.backend_servers"),
    Stat("device_busy", "acc", A_DEV_BUSY_MS, PER_MS, "1",
         "device busy, RMF definition: (disconnect + connect) / interval, mean over devices", per="devices.count"),
    Stat("device_busy_zvm", "acc", A_DEV_BUSY_ZVM_MS, PER_MS, "1",
         "device busy, z/VM definition: (pend + disconnect + connect) / interval, mean over devices",
         per="devices.count"),
    Stat("ios_measured", "acc", A_N, COUNT, "1", "I/Os measured (after warm-up)"),
    Stat("sim_time_s", "acc", A_TIME_MS, INTERVAL_S, "s", "simulated measurement interval"),
    Stat("channel_busy", "chs", C_MP_BUSY_MS, PER_MS, "1", "channel (MP) busy fraction, RMF channel utilisation"),
    Stat("link_busy", "chs", C_LINK_BUSY_MS, PER_MS, "1", "link (bus) busy fraction"),
    Stat("open_exchanges_mean", "chs", C_AREA_OE, PER_MS, "1", "time-average open exchanges"),
    Stat("open_exchanges_max", "chs", C_OE_MAX, COUNT, "1", "peak open exchanges"),
    Stat("deferred_iops", "chs", C_DEFERRED, PER_S, "s-1",
         "I/Os deferred for lack of an open exchange, per second"),
    Stat("channel_ssch_iops", "chs", C_SSCH, PER_S, "s-1", "I/O rate (SSCH/s) per channel"),
    Stat("channel_mb_s", "chs", C_KB, PER_MS, "Mbyte s-1", "data rate per channel (1 MB = 1000 KB)"),
    Stat("device_ssch_iops", "devs", V_SSCH, PER_S, "s-1", "I/O rate (SSCH/s) per device", per_device=True),
    Stat("device_busy_by_device", "devs", V_BUSY_MS, PER_MS, "1", "device busy per device, RMF definition",
         per_device=True),
    Stat("unstable", "acc", A_UNSTABLE, FLAG, "1", "1 if the open load outgrew the model (run stopped early), else 0"),
)
