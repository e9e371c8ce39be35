"""The names a results file ``OUT`` has beside it, and writing a file atomically.

``OUT.parts/`` (a running sweep's checkpoint: :mod:`.log`), ``OUT.tmp`` (the final file being
written, renamed to ``OUT`` once complete: a file under the final name is always whole) and
``OUT.lock`` (:mod:`.lock`)."""
from __future__ import annotations

import contextlib
import os
from pathlib import Path

from ..errors import McioError


def parts_dir(out) -> Path:
    out = Path(out)
    return out.with_name(out.name + ".parts")


def tmp_path(out) -> Path:
    out = Path(out)
    return out.with_name(out.name + ".tmp")


def lock_path(out) -> Path:
    out = Path(out)
    return out.with_name(out.name + ".lock")


def check_writable(path, what: str = "output") -> Path:
    """Raise McioError unless a file can be created at ``path`` (its directory exists and is writable)."""
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    if p.exists() and p.is_dir():
        raise McioError(what, str(p), "is a directory; give a file name")
    if not parent.exists():
        raise McioError(what, str(p), f"cannot be written: directory {str(parent)!r} does not exist")
    if not parent.is_dir():
        raise McioError(what, str(p), f"cannot be written: {str(parent)!r} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise McioError(what, str(p), f"cannot be written: no write permission in {str(parent)!r}")
    return p


def write_bytes(data: bytes, path) -> None:
    """Store ``data`` at ``path`` atomically (temporary name in the same directory, then rename)."""
    path = Path(path)
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    with _atomic(path, tmp):
        with open(tmp, "wb") as f:
            f.write(data)


@contextlib.contextmanager
def _atomic(path: Path, tmp: Path):
    """Write to ``tmp`` inside the block, then rename it to ``path``; on failure remove ``tmp``
    (an OSError becomes one McioError naming the output)."""
    try:
        yield
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise McioError("output", str(path), f"cannot be written ({e})") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if tmp != path:
        os.replace(tmp, path)
