"""3390 geometry and the CMS minidisk's control-file arithmetic (pure integers, no I/O).

Sources: 3390 tracks per cylinder (15) and blocks per track by CMS block size (4096 B: 12,
2048: 21, 1024: 33, 512: 49) from IBM's 3390 capacity tables (shared/domain.md section 2). The
EDF layout facts (a 64-byte FST per file; the directory ``DIRECTOR`` and the allocation map
``ALLOCMAP`` are themselves files; a file of more than one block is reached through pointer
blocks of 4-byte block numbers, one more level whenever one pointer block is not enough) are
those of IBM's own reader of the format, s390-tools ``cmsfs-fuse/edf.h`` and ``amap.c``. One
map bit per minidisk block: seed 004.
"""
from __future__ import annotations

from ...errors import McioError

TRACKS_PER_CYLINDER = 15
#: CMS block size (bytes) -> blocks per 3390 track
BLOCKS_PER_TRACK = {4096: 12, 2048: 21, 1024: 33, 512: 49}
FST_BYTES = 64        # one file status table entry (cmsfs-fuse edf.h: struct fst_entry)
POINTER_BYTES = 4     # one block number in a pointer block (edf.h: struct fixed_ptr)


def check_block_size(block_bytes) -> int:
    if block_bytes not in BLOCKS_PER_TRACK:
        raise McioError("block_bytes", block_bytes,
                        f"must be a CMS block size: one of {', '.join(map(str, BLOCKS_PER_TRACK))}")
    return int(block_bytes)


def check_cylinders(cylinders) -> int:
    if isinstance(cylinders, bool) or not isinstance(cylinders, int) or cylinders < 1:
        raise McioError("cylinders", cylinders, "must be a positive integer number of cylinders")
    return cylinders


def blocks_per_cylinder(block_bytes: int) -> int:
    """Blocks per 3390 cylinder: 180 (4 KB), 315 (2 KB), 495 (1 KB), 735 (512 B)."""
    return TRACKS_PER_CYLINDER * BLOCKS_PER_TRACK[check_block_size(block_bytes)]


def minidisk_blocks(cylinders: int, block_bytes: int) -> int:
    """Blocks of a minidisk of ``cylinders`` cylinders (every one mapped by one bit)."""
    return check_cylinders(cylinders) * blocks_per_cylinder(block_bytes)


def map_bits_per_block(block_bytes: int) -> int:
    """Minidisk blocks one allocation-map block describes: 8 bits per byte."""
    return 8 * check_block_size(block_bytes)


def map_blocks(cylinders: int, block_bytes: int) -> int:
    """Blocks of the allocation map: ceil(minidisk blocks / bits per map block). 4 KB: 1 up to
    182 cylinders, 6 at 1,000, 19 at 3,338, 56 at 10,020, 180 at 32,760 (domain.md section 5)."""
    n, per = minidisk_blocks(cylinders, block_bytes), map_bits_per_block(block_bytes)
    return -(-n // per)


def pointers_per_block(block_bytes: int) -> int:
    return check_block_size(block_bytes) // POINTER_BYTES


def pointer_blocks(data_blocks: int, block_bytes: int) -> int:
    """Pointer blocks of a file of ``data_blocks`` blocks: none for a one-block file (its FST
    points at the block), else one level of pointer blocks per factor of pointers-per-block, up
    to a single top block. 10 blocks at any CMS size: 1; a 180-block map at 4 KB: 1."""
    if data_blocks < 0:
        raise McioError("data_blocks", data_blocks, "must be >= 0")
    if data_blocks <= 1:
        return 0
    per, total, n = pointers_per_block(block_bytes), 0, data_blocks
    while n > 1:
        n = -(-n // per)
        total += n
    return total


def fsts_per_block(block_bytes: int) -> int:
    """FSTs in one directory block: 64 at 4 KB, 8 at 512 B."""
    return check_block_size(block_bytes) // FST_BYTES
