"""Numba kernels: arrays and scalars in, preallocated arrays out. They trust their inputs.

Numba's on-disk cache re-checks only the file that defines a kernel, but kernels inline code from
their neighbours (rng, dists, heap, histogram): an edit there would leave stale machine code in
use. So the cache is stamped with a hash of every kernel source and cleared when it changes.
"""
import hashlib
from pathlib import Path


def _clear_stale_cache() -> None:
    here = Path(__file__).parent
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sorted(here.glob("*.py")))).hexdigest()
    cache = here / "__pycache__"
    stamp = cache / "mcio_kernels.sha256"
    try:
        if stamp.read_text() == digest:
            return
    except OSError:
        pass
    try:
        for f in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            f.unlink(missing_ok=True)
        cache.mkdir(exist_ok=True)
        stamp.write_text(digest)
    except OSError:      # a read-only install: Numba then falls back to its own cache rules
        pass


_clear_stale_cache()
