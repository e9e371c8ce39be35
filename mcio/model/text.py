"""Text a model or spec holds (titles, class names, variant names, scenario text parameters):
what a results file (HDF5, netCDF) can store, and how it is shown on a terminal."""
from __future__ import annotations

import re

from ..errors import McioError

#: Longest text field (characters): titles and names, not documents.
MAX_TEXT = 10_000


def check_text(name: str, v) -> str:
    """``v`` if it is text a results file can store: a string without NUL (HDF5 strings end at
    the first NUL: h5py refuses them), encodable as UTF-8 (no lone surrogates), of at most
    MAX_TEXT characters; else McioError naming ``name``."""
    if not isinstance(v, str):
        raise McioError(name, v, "must be a string")
    if "\x00" in v:
        raise McioError(name, v, "must not contain a NUL character (results files cannot store it)")
    try:
        v.encode("utf-8")
    except UnicodeEncodeError:
        raise McioError(name, v.encode("utf-8", "backslashreplace").decode("ascii", "replace"),
                        "must be valid Unicode text (no lone surrogates)") from None
    if len(v) > MAX_TEXT:
        raise McioError(name, f"{len(v)} characters", f"at most {MAX_TEXT} characters")
    return v


# CSI / OSC / other escape sequences, then any remaining C0/C1 control character but tab
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?|[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def for_terminal(text) -> str:
    """``text`` safe to print on a terminal: escape sequences removed and every other control
    character (but tab) shown as ``\\xNN``, so a title cannot move the cursor, recolour the
    screen or set the window's title."""
    s = str(text)
    return _ESCAPES.sub(lambda m: "" if m.group(0).startswith("\x1b") else f"\\x{ord(m.group(0)):02x}", s)
