"""Seed 002's ESAMON rows (shared/seeds/002_8dfc2cfae6c848b2.txt, screen ESADSD2), as data, and
the per-phase figures taken from them.

A phase's figure is the I/O-rate-weighted mean of its rows: ESAMON's rows are one-minute
per-volume means, so sum(rate x component) / sum(rate) is the mean per SSCH over the phase —
what one interval covering the phase would report. Unweighted means are within 0.5 ms of these
for every phase.
"""
from __future__ import annotations

#: (time, device, serial, %dev busy, avg SSCH/s, response, service, pend, disconnect, connect)
ROWS: tuple[tuple, ...] = (
    ("11:15:23", "1007", "LIN501", 95.6, 36.2, 26.4, 26.4, 0.2, 15.4, 10.8),
    ("11:15:23", "1008", "LIN502", 21.1, 7.5, 28.2, 28.2, 0.2, 17.0, 11.1),
    ("11:15:23", "1009", "LIN503", 20.5, 8.3, 24.6, 24.6, 0.2, 13.8, 10.6),
    ("11:16:23", "1007", "LIN501", 80.8, 31.0, 26.1, 26.1, 0.2, 15.1, 10.8),
    ("11:16:23", "1008", "LIN502", 98.7, 36.1, 27.3, 27.3, 0.2, 16.1, 11.0),
    ("11:16:23", "1009", "LIN503", 45.5, 18.9, 24.1, 24.1, 0.2, 13.4, 10.5),
    ("11:17:23", "1008", "LIN502", 96.8, 36.3, 26.7, 26.7, 0.2, 15.6, 10.9),
    ("11:18:23", "1008", "LIN502", 99.2, 37.1, 26.8, 26.8, 0.2, 15.7, 10.8),
    ("11:19:23", "1008", "LIN502", 98.5, 37.5, 26.2, 26.2, 0.2, 15.3, 10.7),
    ("11:20:23", "1007", "LIN501", 28.8, 13.4, 22.7, 21.5, 0.2, 12.1, 9.1),
    ("11:20:23", "1008", "LIN502", 41.7, 17.0, 24.5, 24.5, 0.2, 14.0, 10.3),
    ("11:30:23", "1007", "LIN501", 26.7, 10.7, 24.9, 24.9, 0.3, 14.3, 10.3),
    ("11:31:23", "1007", "LIN501", 8.0, 5.2, 15.3, 15.3, 0.2, 3.5, 11.5),
    ("11:31:23", "1008", "LIN502", 10.7, 20.6, 5.2, 5.2, 0.2, 1.3, 3.6),
    ("11:50:23", "1007", "LIN501", 2.2, 6.1, 3.7, 3.7, 0.2, 0.2, 3.3),
    ("11:52:23", "1007", "LIN501", 3.2, 9.0, 3.5, 3.5, 0.2, 0.4, 2.9),
    ("11:58:23", "1007", "LIN501", 5.3, 16.7, 3.2, 3.2, 0.2, 0.1, 2.9),
    ("12:00:23", "1007", "LIN501", 35.1, 114.8, 3.1, 3.1, 0.2, 0.1, 2.7),
    ("12:00:23", "1008", "LIN502", 21.6, 64.8, 3.3, 3.3, 0.2, 0.3, 2.8),
    ("12:00:23", "1009", "LIN503", 22.4, 37.7, 5.9, 5.9, 0.2, 0.1, 5.6),
    ("12:01:23", "1007", "LIN501", 4.5, 13.0, 3.5, 3.5, 0.2, 0.7, 2.6),
    ("12:01:23", "1008", "LIN502", 35.6, 160.0, 2.2, 2.2, 0.2, 0.1, 1.9),
    ("12:06:23", "1007", "LIN501", 9.4, 10.9, 8.6, 8.6, 0.2, 0.3, 8.2),
    ("12:41:23", "1007", "LIN501", 24.3, 20.3, 12.0, 12.0, 0.2, 1.4, 10.4),
    ("12:42:23", "1007", "LIN501", 61.0, 47.1, 13.0, 13.0, 0.2, 1.8, 10.9),
    ("12:42:23", "1008", "LIN502", 81.8, 65.2, 12.5, 12.5, 0.2, 1.3, 11.0),
    ("12:42:23", "1009", "LIN503", 30.0, 27.0, 11.1, 11.1, 0.2, 0.3, 10.7),
    ("12:43:23", "1008", "LIN502", 95.9, 74.1, 12.9, 12.9, 0.2, 1.9, 10.9),
    ("12:44:23", "1008", "LIN502", 34.8, 27.3, 13.4, 12.7, 0.2, 2.0, 10.6),
    ("12:49:23", "100A", "LINMST", 49.2, 46.8, 15.1, 10.5, 0.2, 7.6, 2.7),
    ("12:50:23", "100A", "LINMST", 96.8, 66.6, 14.5, 14.5, 0.2, 11.0, 3.3),
    ("12:51:23", "100A", "LINMST", 47.3, 40.4, 13.8, 11.7, 0.2, 8.0, 3.5),
    ("12:53:23", "100A", "LINMST", 24.3, 59.3, 5.5, 4.1, 0.2, 1.1, 2.8),
    ("12:54:23", "100A", "LINMST", 40.5, 91.1, 5.2, 4.5, 0.2, 1.1, 3.2),
    ("12:56:23", "100A", "LINMST", 60.9, 144.6, 4.6, 4.2, 0.2, 1.0, 3.0),
    ("12:57:23", "100A", "LINMST", 10.6, 27.8, 5.6, 3.8, 0.2, 1.1, 2.5),
    ("13:00:23", "100A", "LINMST", 6.9, 21.5, 3.2, 3.2, 0.2, 1.1, 1.9),
    ("13:03:23", "100A", "LINMST", 6.4, 21.3, 3.0, 3.0, 0.2, 1.1, 1.7),
    ("13:04:23", "100A", "LINMST", 6.3, 20.3, 3.1, 3.1, 0.2, 0.9, 2.0),
    ("13:08:23", "100A", "LINMST", 7.0, 7.5, 9.3, 9.3, 0.2, 0.0, 9.1),
    ("13:10:23", "100A", "LINMST", 0.5, 7.5, 0.7, 0.7, 0.2, 0.0, 0.4),
    ("13:10:23", "100B", "LINRO", 0.3, 5.4, 0.5, 0.5, 0.2, 0.0, 0.3),
)
COLUMNS = ("time", "device", "serial", "busy_pct", "rate_ssch_s", "response_ms", "service_ms", "pend_ms",
           "disconnect_ms", "connect_ms")

#: phase -> (first row time, last row time, why these rows)
PHASES: dict[str, tuple[str, str, str]] = {
    "phase1_mdc_track": ("11:15:23", "11:30:23", "step 1, MDC on (full-track): the rows up to 11:30; the "
                         "11:31 rows are the boot ending (the seed: 'this ended at 11:31'), half-idle"),
    "phase2_mdc_off": ("11:50:23", "12:01:23", "step 2, MDC off: 11:50-12:01; 12:06 (8.6 ms, one row) is "
                       "after the boot and unlike the rest"),
    "phase3_mdc_track_again": ("12:41:23", "12:44:23", "step 3, MDC re-enabled: 12:41-12:44"),
    "phase4_alt_linux_mdc_off": ("12:49:23", "12:51:23", "step 4, the alternate Linux's boot: 12:49-12:51, the "
                                 "rows the seed describes ('disconnect times were high, but the connect time "
                                 "was very low'); from 12:53 on (disconnect ~1 ms) the booted system re-reads "
                                 "what its boot brought into the CU cache: another regime, listed as a note"),
}


def phase_rows(phase: str) -> list[dict]:
    lo, hi, _ = PHASES[phase]
    return [dict(zip(COLUMNS, r)) for r in ROWS if lo <= r[0] <= hi]


def phase_mean(phase: str, column: str) -> float:
    """Rate-weighted mean of ``column`` over the phase's rows."""
    rows = phase_rows(phase)
    w = sum(r["rate_ssch_s"] for r in rows)
    return sum(r["rate_ssch_s"] * r[column] for r in rows) / w


def phase_range(phase: str, column: str) -> tuple[float, float]:
    vals = [r[column] for r in phase_rows(phase)]
    return (min(vals), max(vals))


def phase_ssch_per_volume(phase: str) -> int:
    """SSCHs one volume issued in the phase: sum(rate x 60 s) over its rows / volumes in them."""
    rows = phase_rows(phase)
    vols = len({r["device"] for r in rows})
    return int(round(sum(r["rate_ssch_s"] for r in rows) * 60.0 / vols))
