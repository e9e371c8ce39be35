"""A damaged Numba cache of compiled kernels (a ``*.nbi`` index or ``*.nbc`` data file under the
kernels' ``__pycache__`` that Numba cannot read) recognised from the exception it raised, and
turned into one clear :class:`DamagedCache` (a :class:`~mcio.McioError`) naming the cache
directory and the command that clears it: the same text from the CLI (exit 2) and from the
Python API (:func:`mcio.simulate`, :func:`mcio.sweep`, ``run_point``: :func:`cache_errors`).
"""
from __future__ import annotations

import functools
import os
import shlex

from .errors import McioError


def numba_cache_dirs(e: BaseException) -> list[str] | None:
    """The cache directories involved if ``e`` (or an exception it was raised from) was raised
    while Numba read its on-disk cache of compiled kernels (``numba/core/caching.py`` in the
    traceback: a damaged index ``*.nbi`` or data file ``*.nbc``), else None."""
    seen, dirs, found = set(), [], False
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        tb = e.__traceback__
        while tb is not None:
            frame = tb.tb_frame
            if frame.f_code.co_filename.replace(os.sep, "/").endswith("numba/core/caching.py"):
                found = True
                path = getattr(frame.f_locals.get("self"), "_cache_path", None)
                if isinstance(path, str) and path not in dirs:
                    dirs.append(path)
            tb = tb.tb_next
        e = e.__cause__ or e.__context__
    if not found:
        return None
    if not dirs:   # (frames without their locals: every place mcio's kernels may be cached)
        from pathlib import Path
        from .kernels import cache_dirs
        dirs = [str(d) for d in cache_dirs(Path(__file__).resolve().parent / "kernels")]
    return dirs


def damage_text(e: BaseException, dirs: list[str]) -> str:
    """What failed, where, and the command that clears it (the kernels are compiled again at the
    next run)."""
    what = f"{type(e).__name__}: {' '.join(str(e).split())}" if str(e) else type(e).__name__
    rm = " ".join(f"{shlex.quote(d)}/*.{ext}" for d in dirs for ext in ("nbi", "nbc"))
    return (f"Numba's cache of compiled kernels is damaged ({what}) in {', '.join(dirs)}; "
            f"clear it with: rm -f {rm} (the kernels are compiled again at the next run)")


class DamagedCache(McioError):
    """A damaged Numba cache: ``dirs`` (the cache directories) and ``text`` (what failed, where,
    the command that clears it: :func:`damage_text`)."""

    def __init__(self, dirs, text: str):
        super().__init__("numba cache", list(dirs), text)
        self.dirs, self.text = list(dirs), text

    def __str__(self):
        return self.text

    def __reduce__(self):
        return (type(self), (self.dirs, self.text))


def as_damaged_cache(e: BaseException) -> DamagedCache | None:
    """``e`` as a :class:`DamagedCache` if it was raised while Numba read its cache, else None."""
    if isinstance(e, (McioError, KeyboardInterrupt)):
        return None
    dirs = numba_cache_dirs(e)
    return None if dirs is None else DamagedCache(dirs, damage_text(e, dirs))


def cache_errors(f):
    """``f`` raising :class:`DamagedCache` (from the original exception) instead of whatever
    Numba raised while reading a damaged cache; every other exception unchanged."""
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        try:
            return f(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - only re-raised as another type when recognised
            d = as_damaged_cache(e)
            if d is None:
                raise
            raise d from e
    return wrapper


__all__ = ["numba_cache_dirs", "damage_text", "DamagedCache", "as_damaged_cache", "cache_errors"]
