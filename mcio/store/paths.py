"""The names a results file ``OUT`` has beside it, and writing a file atomically.

``OUT.parts/`` (a running sweep's checkpoint: :mod:`.log`), ``OUT.tmp`` (the final file being
written, renamed to ``OUT`` once complete: a file under the final name is always whole) and
``OUT.lock`` (:mod:`.lock`)."""
from __future__ import annotations

import contextlib
import os
import stat
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
    """Raise McioError unless a regular file can be written at ``path``: a new name in an existing,
    writable directory, or an existing regular file (a device node, FIFO, socket or directory is
    refused: writing "to" /dev/null would replace it). The one check every writer of an output
    makes, before any simulation."""
    if "\x00" in str(path):
        raise McioError(what, str(path), "a file name cannot hold a NUL character")
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    try:
        st = os.stat(p)   # through a symlink: what a write would reach
    except (FileNotFoundError, NotADirectoryError):
        st = None
    except OSError as e:
        raise McioError(what, str(p), f"cannot be written ({e.strerror or e})") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise McioError(what, str(p), "is a directory; give a file name")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise McioError(what, str(p), f"must be a regular file or a new path (it is a {_kind(st.st_mode)})")
    if not parent.exists():
        raise McioError(what, str(p), f"cannot be written: directory {str(parent)!r} does not exist")
    if not parent.is_dir():
        raise McioError(what, str(p), f"cannot be written: {str(parent)!r} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise McioError(what, str(p), f"cannot be written: no write permission in {str(parent)!r}")
    return p


def _kind(mode: int) -> str:
    """What a non-regular file is, in words."""
    for test, name in ((stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"),
                       (stat.S_ISFIFO, "FIFO"), (stat.S_ISSOCK, "socket")):
        if test(mode):
            return name
    return "special file"


def clear_tmp(tmp, out=None) -> Path:
    """Make way for a temporary file of ours at ``tmp``: whatever is there (a stale file of an
    interrupted run, or a symlink someone planted) is unlinked, never followed; a directory is
    refused. The caller then creates ``tmp`` exclusively (:func:`create_exclusive`, or HDF5's
    ACC_EXCL), so a symlink planted in between fails the creation instead of being written through."""
    tmp = Path(tmp)
    try:
        st = os.lstat(tmp)
    except FileNotFoundError:
        return tmp
    except OSError as e:
        raise McioError("output", str(out or tmp), f"cannot use {str(tmp)!r} ({e.strerror or e})") from None
    if stat.S_ISDIR(st.st_mode):
        raise McioError("output", str(out or tmp), f"{str(tmp)!r} is a directory in the way of the final file; "
                                                   "remove it")
    try:
        os.unlink(tmp)
    except OSError as e:
        raise McioError("output", str(out or tmp), f"cannot remove {str(tmp)!r}, in the way of the "
                                                   f"final file ({e.strerror or e})") from None
    return tmp


def create_exclusive(path, out=None, mode: int = 0o644) -> int:
    """A new regular file at ``path`` (O_CREAT | O_EXCL | O_NOFOLLOW: never an existing file nor
    the target of a symlink), opened for writing; its descriptor."""
    try:
        return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                       | getattr(os, "O_CLOEXEC", 0), mode)
    except OSError as e:
        raise McioError("output", str(out or path), f"cannot create {str(path)!r} ({e.strerror or e}); "
                                                    "something was put there while writing") from None


def write_bytes(data: bytes, path) -> None:
    """Store ``data`` at ``path`` atomically (a new temporary file in the same directory, created
    exclusively, then renamed)."""
    path = check_writable(path)
    tmp = clear_tmp(path.with_name(path.name + f".{os.getpid()}.tmp"), path)
    with _atomic(path, tmp):
        fd = create_exclusive(tmp, path)
        with open(fd, "wb") as f:
            f.write(data)


@contextlib.contextmanager
def _atomic(path: Path, tmp: Path):
    """Write to ``tmp`` inside the block, then rename it to ``path``; on failure remove ``tmp``
    (an OSError becomes one McioError naming the output)."""
    try:
        yield
        if tmp != path:
            os.replace(tmp, path)   # inside: a failed rename removes the temporary too
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise McioError("output", str(path), f"cannot be written ({e})") from None
    except BaseException:
        with contextlib.suppress(OSError):
            if os.path.lexists(tmp) and not os.path.islink(tmp):
                tmp.unlink()
        raise
