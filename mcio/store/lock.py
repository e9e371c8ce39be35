"""``OUT.lock``: one sweep at a time writes an output."""
from __future__ import annotations

import os
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
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as e:
                raise McioError("output", str(self.out), f"cannot create the lock file {str(self.path)!r} "
                                                         f"({e.strerror or e})") from None
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
