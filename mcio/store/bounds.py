"""What reading an HDF5 file may allocate: no more than its bytes could hold, nor than the machine has.

An HDF5 dataset declares its shape; chunks never written read back as the fill value, so a file of
a few kB can declare arrays of many GiB that a reader then allocates. Before reading, each
variable's declared size (elements x itemsize) is compared with the file's size times the most
any compression gives (deflate at most ~1,032:1) and the total with the machine's memory."""
from __future__ import annotations

import math
import os

from ..errors import McioError

#: Bytes in memory per byte in the file that a dataset may declare (deflate's limit, rounded up).
MAX_EXPANSION = 1100
#: Declared bytes always allowed, whatever the file's size (a small file's metadata and placeholders).
FLOOR_BYTES = 64 << 20
#: Bytes a variable-length string element takes in memory before its text (a pointer and length).
VLEN_BYTES = 16


def declared_sizes(src) -> list[tuple[str, tuple, int]]:
    """``(name, shape, bytes in memory)`` of every dataset in an HDF5 file (a path or a file
    object), every group's; a scalar counts one element, a null dataspace none."""
    import h5py
    found = []

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            shape = obj.shape
            if shape is None:
                return
            item = VLEN_BYTES if obj.dtype.kind == "O" else obj.dtype.itemsize
            found.append((name, tuple(shape), math.prod(shape) * item))

    with h5py.File(src, "r") as f:
        f.visititems(visit)
    return found


def memory_bytes() -> int | None:
    """Physical memory of this machine in bytes, or None if unknown."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def check_declared_sizes(src, file_bytes: int, name: str, memory: int | None = None) -> None:
    """Raise McioError (field ``file``, ``name``) if a dataset of HDF5 file ``src`` declares more
    bytes than ``file_bytes`` could hold (:data:`MAX_EXPANSION`), or all of them more than the
    machine's memory (``memory``, default :func:`memory_bytes`): a damaged or crafted file, not
    read. OSError if ``src`` is no HDF5 file."""
    bound = max(int(file_bytes) * MAX_EXPANSION, FLOOR_BYTES)
    total = 0
    for var, shape, nbytes in declared_sizes(src):
        if nbytes > bound:
            raise McioError("file", name, f"variable {var!r} declares shape {shape} ({_gib(nbytes)} in memory) "
                                          f"in a file of {file_bytes} bytes, more than any compression holds: "
                                          "a damaged or crafted file; not read")
        total += nbytes
    if total > bound:
        raise McioError("file", name, f"its variables declare {_gib(total)} in memory in a file of {file_bytes} "
                                      "bytes, more than any compression holds: a damaged or crafted file; not read")
    memory = memory_bytes() if memory is None else memory
    if memory is not None and total > memory:
        raise McioError("file", name, f"its variables declare {_gib(total)} in memory, more than this machine's "
                                      f"{_gib(memory)}; not read")


def _gib(nbytes: int) -> str:
    return f"{nbytes / 2**30:.3g} GiB" if nbytes >= 2**30 else f"{nbytes / 2**20:.3g} MiB"
