"""The tidy table itself as one CSV file (mcio's own format): any :class:`Measured` written and
read back unchanged, e.g. a synthetic day (``mcio.measured.synthetic``) or readers' output kept
for later.

Format: a first line ``# mcio measured table v1``, then a CSV whose first column is ``level``
(device, channel, lcu, lcu_path, cache) and whose other columns are the union of the levels'
(:func:`~mcio.measured.table.columns`); a row leaves the other levels' columns empty.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from .table import COLUMNS, KEYS, LEVELS, Measured, bad_file, columns, frame

MAGIC = "# mcio measured table v1"



def sniff(head: bytes) -> bool:
    """True if the file starts with the format's first line."""
    return head.lstrip(b"\xef\xbb\xbf").startswith(MAGIC.encode())


def write(measured: Measured, path) -> None:
    """Write ``measured`` (every level) to ``path``."""
    cols: list[str] = []
    for lv in LEVELS:
        cols += [c for c in columns(lv) if c not in cols]
    parts = []
    for lv in LEVELS:
        f = measured[lv]
        if len(f):
            parts.append(f.assign(level=lv))
    df = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["level"] + cols)
    df = df.reindex(columns=["level"] + cols)
    with open(path, "w", newline="") as fh:
        fh.write(MAGIC + "\n")
        df.to_csv(fh, index=False, float_format="%.10g", date_format="%Y-%m-%d %H:%M:%S")


def read(path) -> Measured:
    """Read a file :func:`write` wrote."""
    p = Path(path)
    with open(p) as fh:
        if fh.readline().strip() != MAGIC:
            raise bad_file(p, "line 1", repr(MAGIC))
        try:
            df = pd.read_csv(fh, dtype=str, keep_default_na=False)
        except (pd.errors.ParserError, ValueError) as e:
            raise bad_file(p, "line 2 on", f"a CSV table ({e})") from None
    if "level" not in df.columns:
        raise bad_file(p, "line 2", "a CSV heading starting with 'level'")
    frames = {}
    for lv in LEVELS:
        sub = df[df["level"] == lv]
        if len(sub):
            cols = [c for c in columns(lv) if c in sub.columns]
            text = {c for c in cols if {**KEYS, **COLUMNS[lv]}[c][0] == "str"}
            part = sub[cols].copy()
            for c in cols:
                if c not in text:       # an empty cell of a number or time column: not stated
                    part[c] = part[c].replace("", None)
            rows = part.to_dict("records")
            try:
                frames[lv] = frame(lv, rows)
            except (ValueError, TypeError) as e:
                raise bad_file(p, f"level {lv}", f"numbers and times in its columns ({e})") from None
    bad = sorted(set(df["level"]) - set(LEVELS))
    if bad:
        raise bad_file(p, f"level {bad[0]!r}", f"one of {', '.join(LEVELS)}")
    return Measured(frames, [f"{p} (mcio measured table)"], {})


__all__ = ["MAGIC", "sniff", "write", "read"]
