"""``OUT.lock``: one sweep at a time writes an output."""
from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from ..errors import McioError
from .paths import lock_path


class OutputLock:
    """An exclusive lock on output ``OUT`` (``OUT.lock``, flock): a second sweep into the same
    output refuses at once instead of duplicating the work. Released when the process ends,
    however it ends (kill -9 included); the lock file is removed on a clean release."""

    def __init__(self, out):
        self.out = Path(out)
        self.path = lock_path(self.out)
        self.fd = None

    def __enter__(self):
        try:
            import fcntl
        except ImportError:  # no flock (Windows): no lock
            return self
        for _ in range(10):  # the file may be replaced between open and lock: retry on a stale inode
            try:
                # O_NOFOLLOW: a symlink planted at OUT.lock is refused, never followed and truncated
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
                             | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0), 0o644)
            except OSError as e:
                why = "it is a symbolic link; remove it" if e.errno == errno.ELOOP else (e.strerror or e)
                raise McioError("output", str(self.out), f"cannot create the lock file {str(self.path)!r} "
                                                         f"({why})") from None
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1:   # a FIFO, device or hard link planted there
                os.close(fd)
                raise McioError("output", str(self.out), f"the lock file {str(self.path)!r} is not a regular "
                                                         "file of its own (a special file or a hard link); "
                                                         "remove it")
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                try:
                    holder = os.read(fd, 64).decode(errors="replace").strip() or "?"
                finally:
                    os.close(fd)
                raise McioError("output", str(self.out), f"another sweep (pid {holder}) is writing it "
                                                         f"(lock {str(self.path)!r}); wait for it or choose "
                                                         "another output") from None
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                os.ftruncate(fd, 0)
                os.write(fd, str(os.getpid()).encode())
                self.fd = fd
                return self
            os.close(fd)
        raise McioError("output", str(self.out), f"cannot take the lock {str(self.path)!r}")

    def __exit__(self, *exc):
        if self.fd is not None:
            self.path.unlink(missing_ok=True)  # unlinked while held: a waiting opener sees a new inode
            os.close(self.fd)
            self.fd = None
