"""Numba kernels: arrays and scalars in, preallocated arrays out. They trust their inputs.

Numba's on-disk cache re-checks only the file that defines a kernel, but kernels inline code from
their neighbours (rng, dists, heap, histogram, seek, stages): an edit there would leave stale machine
code in use. So the cache is stamped with a hash of every kernel source and cleared when it
changes — in the source tree's ``__pycache__`` and, when ``NUMBA_CACHE_DIR`` is set, in the
directory Numba then uses for this package (``<NUMBA_CACHE_DIR>/kernels_<sha1 of this dir>``,
Numba's ``_CacheLocator.get_suitable_cache_subpath``).
"""
import hashlib
import os
from pathlib import Path


def cache_dirs(here: Path) -> list[Path]:
    """Every directory Numba may keep this package's compiled kernels in."""
    dirs = [here / "__pycache__"]
    user = os.environ.get("NUMBA_CACHE_DIR")
    if user:
        # the same rule as numba.core.caching._CacheLocator.get_suitable_cache_subpath
        sub = str(here.resolve())
        dirs.append(Path(user) / f"{here.name}_{hashlib.sha1(sub.encode()).hexdigest()}")
    return dirs


def _clear_stale_cache() -> None:
    here = Path(__file__).parent
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sorted(here.glob("*.py")))).hexdigest()
    for cache in cache_dirs(here):
        stamp = cache / "mcio_kernels.sha256"
        try:
            if stamp.read_text() == digest:
                continue
        except OSError:
            pass
        try:
            for f in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
                f.unlink(missing_ok=True)
            cache.mkdir(parents=True, exist_ok=True)
            stamp.write_text(digest)
        except OSError:      # a read-only location: Numba then falls back to its own cache rules
            pass


def _require_jit() -> None:
    """The kernels cannot run as Python: they use LLVM intrinsics (``numba.extending.intrinsic``:
    the block generator's lanes, the fused multiply-adds) that Numba has no pure-Python form of.
    So ``NUMBA_DISABLE_JIT=1`` is refused here, in one line, rather than failing deep inside an
    import (a decorator's ``py_func``) or a run (an intrinsic called from Python)."""
    from numba import config

    if config.DISABLE_JIT:
        from ..errors import McioError
        raise McioError("NUMBA_DISABLE_JIT", os.environ.get("NUMBA_DISABLE_JIT", "1"),
                        "mcio's kernels need Numba's compiler (they use LLVM intrinsics, which "
                        "have no Python form): unset it or set it to 0")


_require_jit()
_clear_stale_cache()
