"""The tidy table every reader of measured data returns (RMF, SMF, z/VM monitors).

One :class:`Measured` holds a pandas DataFrame per *level*; a row is one interval x one object
(a device, a channel path, an LCU, an LCU's path, a cache subsystem). Columns carry RMF's names
translated to mcio's unit-bearing vocabulary (:data:`COLUMNS`: name -> (dtype, unit, RMF heading,
meaning)). Every reader fills what its format states and leaves the rest NaN / empty, never
guessed. Percentages stay percentages (``_pct``), times are ms, rates per second.

Keys common to every level: ``interval`` (start, ``datetime64[ns]``, local time as the report
prints it), ``interval_s`` (length, s), ``system`` (SMF system id / z/VM node, "" if not stated).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import McioError


#: key columns present on every level
KEYS: dict[str, tuple[str, str, str, str]] = {
    "interval": ("datetime64[ns]", "", "DATE/TIME", "interval start"),
    "interval_s": ("float64", "s", "INTERVAL", "interval length"),
    "system": ("str", "", "SYSTEM ID", "SMF system id or z/VM node; '' if not stated"),
}

F, S = "float64", "str"

#: level -> column -> (dtype, unit, RMF heading (or z/VM name), meaning)
COLUMNS: dict[str, dict[str, tuple[str, str, str, str]]] = {
    "device": {
        "devnum": (S, "", "DEV NUM", "device number, 4 (or 5 with subchannel set) hex digits, upper case"),
        "volser": (S, "", "VOLUME SERIAL", "volume serial; '' if not stated"),
        "lcu": (S, "", "LCU", "logical control unit, hex, upper case; '' if not stated"),
        "dev_type": (S, "", "DEVICE TYPE", "e.g. 3390"),
        "ssch_per_s": (F, "1/s", "DEVICE ACTIVITY RATE", "start subchannels per second"),
        "resp_ms": (F, "ms", "AVG RESP TIME", "mean response time"),
        "iosq_ms": (F, "ms", "AVG IOSQ TIME", "mean IOS queue time"),
        "cmr_ms": (F, "ms", "AVG CMR DLY", "mean command response delay (part of pend)"),
        "db_ms": (F, "ms", "AVG DB DLY", "mean device busy delay (part of pend)"),
        "pend_ms": (F, "ms", "AVG PEND TIME", "mean pend time (includes CMR and DB)"),
        "disc_ms": (F, "ms", "AVG DISC TIME", "mean disconnect time"),
        "conn_ms": (F, "ms", "AVG CONN TIME", "mean connect time"),
        "dev_conn_pct": (F, "%", "% DEV CONN", "device connected, % of interval"),
        "dev_util_pct": (F, "%", "% DEV UTIL", "device busy (connect + disconnect), % of interval"),
        "int_dly_ms": (F, "ms", "AVG INT DLY", "mean interrupt delay"),
        "serv_ms": (F, "ms", "Serv", "z/VM service time (pend + disconnect + connect)"),
        "cu_wait_ms": (F, "ms", "CUWt", "z/VM control-unit wait"),
        "queued": (F, "1", "Qued", "z/VM mean I/Os queued on the device"),
        "pav": (S, "", "PAV", "PAV exposures as printed, e.g. '1.0H' (SMF74NUX)"),
        "mb_s": (F, "MB/s", "", "data rate if the format states it"),
        "read_share": (F, "1", "", "fraction of I/Os that read, if stated"),
    },
    "channel": {
        "chpid": (S, "", "ID", "channel path id, 2 hex digits, upper case"),
        "chpid_type": (S, "", "TYPE", "e.g. FC, FC_S, FCP, CNC"),
        "generation": (S, "", "G", "channel generation / speed code as the report prints it"),
        "speed": (S, "", "SPEED", "link speed as printed, e.g. '16G'"),
        "shared": (S, "", "SHR", "'Y' if shared by partitions, 'N' if not, '' if not stated"),
        "util_part_pct": (F, "%", "UTILIZATION(%) PART", "channel MP busy for this partition"),
        "util_total_pct": (F, "%", "UTILIZATION(%) TOTAL", "channel MP busy, all partitions"),
        "bus_pct": (F, "%", "UTILIZATION(%) BUS", "link (bus) busy"),
        "read_mb_s_part": (F, "MB/s", "READ(MB/SEC) PART", ""),
        "read_mb_s_total": (F, "MB/s", "READ(MB/SEC) TOTAL", ""),
        "write_mb_s_part": (F, "MB/s", "WRITE(MB/SEC) PART", ""),
        "write_mb_s_total": (F, "MB/s", "WRITE(MB/SEC) TOTAL", ""),
        "ficon_ops_per_s": (F, "1/s", "FICON OPS RATE", "command-mode operations per second"),
        "ficon_active": (F, "1", "FICON OPS ACTIVE", "mean open exchanges, command mode"),
        "ficon_defer_per_s": (F, "1/s", "FICON OPS DEFER", "deferred operations per second"),
        "zhpf_ops_per_s": (F, "1/s", "ZHPF OPS RATE", "transport-mode operations per second"),
        "zhpf_active": (F, "1", "ZHPF OPS ACTIVE", "mean open exchanges, zHPF"),
        "zhpf_defer_per_s": (F, "1/s", "ZHPF OPS DEFER", ""),
    },
    "lcu": {
        "lcu": (S, "", "LCU", "logical control unit, hex"),
        "cu": (S, "", "CONTROL UNITS", "control unit numbers, blank-separated"),
        "ssch_per_s": (F, "1/s", "", "I/O rate of the LCU (sum over its paths)"),
        "cont_per_s": (F, "1/s", "CONTENTION RATE", "I/O requests queued per second"),
        "delay_q_length": (F, "1", "DELAY Q LNGTH", "mean queue of delayed requests"),
        "all_paths_busy_pct": (F, "%", "% ALL CH PATH BUSY", ""),
        "hpav_wait": (F, "1", "HPAV WAIT", "ratio of requests that waited for an alias"),
        "hpav_max": (F, "1", "HPAV MAX", "most aliases in use"),
        "css_dly_ms": (F, "ms", "AVG CSS DLY", "mean channel subsystem delay"),
    },
    "lcu_path": {
        "lcu": (S, "", "LCU", "logical control unit, hex"),
        "chpid": (S, "", "CHAN PATHS", "channel path id, hex"),
        "taken_per_s": (F, "1/s", "CHPID TAKEN", "I/Os started on this path per second"),
        "dp_busy_pct": (F, "%", "% DP BUSY", "director port busy, % of attempts"),
        "cu_busy_pct": (F, "%", "% CU BUSY", "control unit busy, % of attempts"),
        "cub_dly_ms": (F, "ms", "AVG CUB DLY", "mean control unit busy delay"),
        "cmr_ms": (F, "ms", "AVG CMR DLY", "mean command response delay"),
    },
    "cache": {
        "ssid": (S, "", "SSID", "subsystem id, hex"),
        "cu": (S, "", "CU-ID", "control unit id"),
        "devnum": (S, "", "DEV NUM", "'' for subsystem totals, else one device"),
        "volser": (S, "", "VOLSER", ""),
        "io_per_s": (F, "1/s", "I/O RATE", "cache-eligible I/Os per second"),
        "read_per_s": (F, "1/s", "READ I/O REQUESTS RATE", ""),
        "write_per_s": (F, "1/s", "WRITE I/O REQUESTS RATE", ""),
        "read_hit_ratio": (F, "1", "READ HIT RATIO", "fraction in [0, 1]"),
        "write_hit_ratio": (F, "1", "WRITE HIT RATIO", "fraction in [0, 1]"),
        "hit_ratio": (F, "1", "TOTAL H/R", "fraction in [0, 1]"),
        "staging_per_s": (F, "1/s", "STAGING RATE", "tracks staged (read misses) per second"),
        "seq_read_per_s": (F, "1/s", "SEQUENTIAL READ RATE", ""),
        "read_pct": (F, "%", "% READ", "reads, % of the device's cache I/Os"),
    },
}

LEVELS = tuple(COLUMNS)


def columns(level: str) -> tuple[str, ...]:
    """Every column of ``level`` in order: the keys first."""
    return tuple(KEYS) + tuple(COLUMNS[level])


def empty_frame(level: str) -> pd.DataFrame:
    """A frame with ``level``'s columns and dtypes and no rows."""
    spec = {**KEYS, **COLUMNS[level]}
    return pd.DataFrame({c: pd.Series([], dtype=object if d == S else d) for c, (d, *_r) in spec.items()})


def frame(level: str, rows: list[dict]) -> pd.DataFrame:
    """A frame of ``level`` from row dicts: missing columns become NaN / '', unknown ones are an error
    (a reader's bug, not the user's)."""
    known = set(columns(level))
    for r in rows:
        extra = set(r) - known
        if extra:
            raise ValueError(f"measured.{level}: unknown column(s) {sorted(extra)}")
    df = pd.DataFrame(rows, columns=list(columns(level)))
    spec = {**KEYS, **COLUMNS[level]}
    for c, (d, *_r) in spec.items():
        if d == S:
            df[c] = df[c].astype(object).fillna("")
        elif d.startswith("datetime"):
            df[c] = pd.to_datetime(df[c]).astype("datetime64[ns]")
        else:
            df[c] = pd.to_numeric(df[c]).astype(d)
    return df


@dataclass
class Measured:
    """What a reader returns: one DataFrame per level (absent levels are empty frames), where the
    data came from, and what was skipped (record or report kind -> count)."""

    frames: dict[str, pd.DataFrame] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)

    def __getitem__(self, level: str) -> pd.DataFrame:
        if level not in COLUMNS:
            raise KeyError(f"no level {level!r}; levels are {', '.join(LEVELS)}")
        return self.frames.get(level, empty_frame(level))

    def intervals(self) -> np.ndarray:
        """The distinct interval starts over every level, sorted."""
        parts = [f["interval"].to_numpy() for f in self.frames.values() if len(f)]
        return np.unique(np.concatenate(parts)) if parts else np.array([], dtype="datetime64[ns]")

    def merge(self, other: "Measured") -> "Measured":
        """Both readers' rows together (e.g. a device report and a channel report of one day)."""
        frames = {}
        for lv in LEVELS:
            a, b = self.frames.get(lv), other.frames.get(lv)
            got = [f for f in (a, b) if f is not None and len(f)]
            if got:
                frames[lv] = pd.concat(got, ignore_index=True) if len(got) > 1 else got[0]
        skipped = dict(self.skipped)
        for k, n in other.skipped.items():
            skipped[k] = skipped.get(k, 0) + n
        return Measured(frames, self.sources + other.sources, skipped)


def bad_file(path, where: str, expected: str) -> McioError:
    """The one error for a bad or foreign file: names the file, the record or line, what was expected."""
    return McioError(str(path), where, f"expected {expected}")
