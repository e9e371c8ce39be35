"""Read measured files of any known format: each file is sniffed by every reader module present
(:data:`READERS`) and read by the first that recognises it; the results are merged.

The reader list is one tuple of module names under ``mcio.measured``, imported lazily; a module not
(yet) present is skipped, so adding a format is one line.
"""
from __future__ import annotations

import importlib
from pathlib import Path

from ..errors import McioError
from .table import Measured

#: reader modules (mcio.measured.<name>), sniffed in this order
READERS: tuple[str, ...] = ("tidy", "esamon", "rmf_xml", "rmf_text", "perfkit", "smf")

#: bytes each reader's ``sniff`` sees
SNIFF_BYTES = 4096


def readers() -> list:
    """The reader modules present, in :data:`READERS` order."""
    out = []
    for name in READERS:
        try:
            out.append(importlib.import_module(f"{__package__}.{name}"))
        except ModuleNotFoundError as e:
            if e.name != f"{__package__}.{name}":
                raise          # a present module whose own import fails: a bug, not an absent format
    return out


def reader_for(path):
    """The reader module that recognises ``path`` (McioError naming the file and the formats if none)."""
    p = Path(path)
    try:
        with open(p, "rb") as f:
            head = f.read(SNIFF_BYTES)
    except OSError as e:
        raise McioError("INPUT", str(p), f"cannot be read ({e})") from None
    mods = readers()
    for mod in mods:
        if mod.sniff(head):
            return mod
    names = ", ".join(m.__name__.rsplit(".", 1)[-1] for m in mods)
    raise McioError("INPUT", str(p), f"is no measured-data format mcio reads (tried: {names})")


def read(paths) -> Measured:
    """Every file of ``paths`` (one path or several) read by its format's reader, merged. Every row
    must have its interval start (the key of a base model's intervals): a file whose rows state none
    (a Performance Toolkit screen such as FCX110 prints times but no date) is an error here; its own
    reader (``perfkit.read``) still reads it, with ``interval`` NaT."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    paths = list(paths)
    if not paths:
        raise McioError("INPUT", "(none)", "give at least one measured file")
    out = Measured()
    for p in paths:
        got = reader_for(p).read(p)
        for level in got.frames:
            if got[level]["interval"].isna().any():
                raise McioError("INPUT", str(p), "rows stating their interval start; this file states "
                                "none (a Performance Toolkit screen prints times but no date): give the "
                                "printed report, whose heading has 'From yyyy/mm/dd hh:mm:ss'")
        out = out.merge(got)
    return out


__all__ = ["READERS", "read", "reader_for", "readers"]
