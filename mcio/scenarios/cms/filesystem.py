"""The CMS file system at the level of DASD blocks: which blocks each command reads and writes,
how they are grouped into channel programs, and what a commit writes in each release.

Every rule below is marked with where it comes from:

- [seed]    seed 004 / its public original (vm.ibm.com/perf/reports/zvm/html/largemd.html);
- [EDF]     the format as IBM's Linux reader implements it (s390-tools cmsfs-fuse: FSTs of
            64 bytes, DIRECTOR and ALLOCMAP are files, pointer blocks, allocation from the
            lowest free block);
- [fitted]  a structural choice the published table identifies (see :data:`RULES_DOC`);
- [assumed] not published; its effect is shown in docs/cms_commit.md.

Rules
-----
1. Layout [assumed]: a freshly formatted minidisk: blocks 1-2 IPL records, 3 the label, then the
   directory (one block), the allocation map's blocks and its pointer blocks; files after them.
2. Allocation [EDF]: the lowest free block first. Blocks a command frees become free only after
   the commit that records it [assumed: the on-disk map must never call a block free that the
   on-disk directory still uses].
3. A file of n > 1 blocks has pointer blocks [EDF]; they are written when the file is closed,
   with the commit's control blocks [fitted], the data blocks before, in channel programs.
4. A channel program moves at most ``blocks_per_program`` blocks [fitted: 5; identified by the
   4.2.0 growth of 36 extra I/Os per commit at 32,760 cylinders]; blocks need not be adjacent
   (``grouping = "any"``) [fitted: "contiguous" gives 5 I/Os per CREATE where the table has 4].
5. A commit writes, in channel programs, the new files' pointer blocks, the changed directory
   blocks (and the directory's pointer blocks if it grew), then the map: **4.2.0** the whole
   ALLOCMAP file (every map block and its pointer blocks) [seed: "the entire file allocation
   map was rewritten ... every time a file was committed"]; **4.3.0** only the map blocks whose
   bits changed since the last commit [seed]. Then the label alone, in its own channel program,
   the commit point [fitted: RENAME's 2 I/Os per 50].
6. Commands [seed: each commits "at end of command"; the counts say when]:
   CREATE writes a new file of ``file_blocks`` blocks and commits. COPY reads the source's
   pointer block and data, writes the copy under a temporary name and commits it, reads the
   replaced target's pointer block to free its blocks, renames the copy and commits again (two
   commits [seed growth: 2 full maps per COPY]; ``copy_replaces_target`` [fitted: 10 I/Os per
   COPY, 9 without]). RENAME changes an FST; ERASE reads the file's pointer block and frees its
   blocks; both leave the directory and map in storage and commit once, at the end of the
   sequence of commands [fitted: their 4.2.0 growth is one full map per 50 commands].
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass, field, replace

from ...errors import McioError
from . import geometry as g

RELEASES = ("4.2.0", "4.3.0")
COMMANDS = ("CREATE", "COPY", "RENAME", "ERASE")
#: block roles a channel program carries (for the dataset's per-role counts)
ROLES = ("data", "file_pointer", "directory", "directory_pointer", "map", "map_pointer", "label")


@dataclass(frozen=True)
class FsRules:
    """The unpublished parameters of the file-system model (see the module docstring)."""

    blocks_per_program: int = 5            # [fitted] blocks per channel program
    program_limit: str = "blocks"          # "blocks": a count; "bytes": program_bytes / block size
    program_bytes: int = 20480             # [assumed] the byte limit if program_limit = "bytes"
    grouping: str = "any"                  # [fitted] "any" or "contiguous" blocks per program
    label_separate: bool = True            # [fitted] the label is its own channel program
    copy_replaces_target: bool = True      # [fitted] COPY replaces an existing target
    deferred: tuple = ("RENAME", "ERASE")  # [fitted] commands whose commit waits for the end

    def __post_init__(self):
        if self.program_limit not in ("blocks", "bytes"):
            raise McioError("program_limit", self.program_limit, "must be 'blocks' or 'bytes'")
        if self.grouping not in ("any", "contiguous"):
            raise McioError("grouping", self.grouping, "must be 'any' or 'contiguous'")
        if not isinstance(self.blocks_per_program, int) or self.blocks_per_program < 1:
            raise McioError("blocks_per_program", self.blocks_per_program, "must be an integer >= 1")
        for c in self.deferred:
            if c not in COMMANDS:
                raise McioError("deferred", c, f"must name commands among {', '.join(COMMANDS)}")

    def limit(self, block_bytes: int) -> int:
        """Blocks one channel program may carry at this block size."""
        if self.program_limit == "blocks":
            return self.blocks_per_program
        return max(1, self.program_bytes // block_bytes)


@dataclass(frozen=True)
class Program:
    """One channel program (one virtual I/O): ``op`` 'read' or 'write', the blocks it moves
    (minidisk block numbers) and the role of each."""

    op: str
    blocks: tuple
    roles: tuple

    @property
    def n_blocks(self) -> int:
        return len(self.blocks)


def group(op: str, items: list, limit: int, grouping: str) -> list:
    """``items`` [(block, role), ...] in write order -> channel programs of <= ``limit`` blocks;
    with ``grouping = "contiguous"`` a program also ends where block numbers stop being
    consecutive."""
    out, cur = [], []
    for blk, role in items:
        if cur and (len(cur) == limit or (grouping == "contiguous" and blk != cur[-1][0] + 1)):
            out.append(cur)
            cur = []
        cur.append((blk, role))
    if cur:
        out.append(cur)
    return [Program(op, tuple(b for b, _ in p), tuple(r for _, r in p)) for p in out]


@dataclass
class _File:
    slot: int
    data: list
    pointers: list


@dataclass
class Minidisk:
    """A freshly formatted CMS minidisk and the I/O a sequence of commands causes on it."""

    cylinders: int
    block_bytes: int
    release: str
    rules: FsRules = field(default_factory=FsRules)

    def __post_init__(self):
        if self.release not in RELEASES:
            raise McioError("release", self.release, f"must be one of {', '.join(RELEASES)}")
        b = g.check_block_size(self.block_bytes)
        self.total_blocks = g.minidisk_blocks(self.cylinders, b)
        self.bits = g.map_bits_per_block(b)
        self.map_n = g.map_blocks(self.cylinders, b)
        self.map_ptr_n = g.pointer_blocks(self.map_n, b)
        self.fsts = g.fsts_per_block(b)
        self.limit = self.rules.limit(b)
        # rule 1: 1-2 IPL, 3 label, 4 directory, then the map and its pointer blocks
        self.label_block = 3
        self.dir_blocks = [4]
        self.dir_ptr_blocks: list = []
        self.map_data_blocks = list(range(5, 5 + self.map_n))
        self.map_ptr_blocks = list(range(5 + self.map_n, 5 + self.map_n + self.map_ptr_n))
        self.next_free = 5 + self.map_n + self.map_ptr_n
        if self.next_free > self.total_blocks:
            raise McioError("cylinders", self.cylinders, "too small for the CMS control files")
        self.free_heap: list = []          # freed and committed blocks, reusable (lowest first)
        self.pending_free: list = []       # freed since the last commit
        self.slots = {0: "DIRECTOR", 1: "ALLOCMAP"}
        self.files: dict = {}
        self.programs: list = []
        self._changed_bits: set = set()    # map blocks whose bits changed since the last commit
        self._changed_slots: set = set()
        self._new_pointers: list = []
        self._dir_grew = False

    # ---- allocation (rule 2) -------------------------------------------------------------
    def _alloc(self) -> int:
        if self.free_heap:
            blk = heapq.heappop(self.free_heap)
        else:
            if self.next_free > self.total_blocks:
                raise McioError("cylinders", self.cylinders, "minidisk full")
            blk = self.next_free
            self.next_free += 1
        self._changed_bits.add((blk - 1) // self.bits)
        return blk

    def _free(self, blk: int) -> None:
        self.pending_free.append(blk)
        self._changed_bits.add((blk - 1) // self.bits)

    def _slot(self) -> int:
        s = 0
        while s in self.slots:
            s += 1
        if s // self.fsts >= len(self.dir_blocks):     # the directory grows by one block
            self.dir_blocks.append(self._alloc())
            self._dir_grew = True
        return s

    # ---- files -------------------------------------------------------------------------------
    def _new_file(self, name: str, n_blocks: int) -> _File:
        slot = self._slot()
        self.slots[slot] = name
        data = [self._alloc() for _ in range(n_blocks)]
        ptrs = [self._alloc() for _ in range(g.pointer_blocks(n_blocks, self.block_bytes))]
        f = _File(slot, data, ptrs)
        self.files[name] = f
        self._changed_slots.add(slot)
        return f

    def _drop_file(self, name: str) -> _File:
        f = self.files.pop(name)
        del self.slots[f.slot]
        for blk in f.data + f.pointers:
            self._free(blk)
        self._changed_slots.add(f.slot)
        return f

    def _emit(self, op: str, items: list) -> None:
        self.programs.extend(group(op, items, self.limit, self.rules.grouping))

    def write_file(self, name: str, n_blocks: int) -> None:
        """Create ``name``: data blocks written now, pointer blocks at the commit (rule 3)."""
        f = self._new_file(name, n_blocks)
        self._emit("write", [(b, "data") for b in f.data])
        self._new_pointers.extend(f.pointers)

    def read_file(self, name: str) -> None:
        f = self.files[name]
        self._emit("read", [(b, "file_pointer") for b in f.pointers])
        self._emit("read", [(b, "data") for b in f.data])

    def read_pointers(self, name: str) -> None:
        """What ERASE needs to free a file's blocks: its pointer blocks (a one-block file has none)."""
        self._emit("read", [(b, "file_pointer") for b in self.files[name].pointers])

    def erase(self, name: str) -> None:
        self.read_pointers(name)
        self._drop_file(name)

    def rename(self, old: str, new: str) -> None:
        f = self.files.pop(old)
        self.files[new] = f
        self.slots[f.slot] = new
        self._changed_slots.add(f.slot)

    # ---- the commit (rule 5) ------------------------------------------------------------------
    def map_blocks_to_write(self) -> list:
        """Map blocks (and map pointer blocks) this commit writes, by release."""
        if self.release == "4.2.0":
            return [(b, "map") for b in self.map_data_blocks] + [(b, "map_pointer") for b in self.map_ptr_blocks]
        return [(self.map_data_blocks[i], "map") for i in sorted(self._changed_bits)]

    def commit(self) -> None:
        items = [(b, "file_pointer") for b in self._new_pointers]
        dir_changed = sorted({s // self.fsts for s in self._changed_slots})
        items += [(self.dir_blocks[i], "directory") for i in dir_changed]
        if self._dir_grew and len(self.dir_blocks) > 1:
            n_ptr = g.pointer_blocks(len(self.dir_blocks), self.block_bytes)
            while len(self.dir_ptr_blocks) < n_ptr:
                self.dir_ptr_blocks.append(self._alloc())
            items += [(b, "directory_pointer") for b in self.dir_ptr_blocks]
        items += self.map_blocks_to_write()
        label = [(self.label_block, "label")]
        if self.rules.label_separate:
            self._emit("write", items)
            self._emit("write", label)
        else:
            self._emit("write", items + label)
        for blk in self.pending_free:
            heapq.heappush(self.free_heap, blk)
        self.pending_free = []
        self._changed_bits = set()
        self._changed_slots = set()
        self._new_pointers = []
        self._dir_grew = False

    def reset_io(self) -> None:
        """Forget the I/O so far (after setting up the files a measurement starts from)."""
        self.programs = []


def run_batch(command: str, release: str, cylinders: int, block_bytes: int = 4096,
              file_blocks: int = 10, n_commands: int = 50, rules: FsRules | None = None) -> list:
    """The channel programs of ``n_commands`` ``command``s on a fresh minidisk [assumed: each
    command's sequence on its own freshly formatted minidisk holding only the files it needs],
    as the seed issued them (in a row, then the end of the sequence)."""
    if command not in COMMANDS:
        raise McioError("command", command, f"must be one of {', '.join(COMMANDS)}")
    if isinstance(n_commands, bool) or not isinstance(n_commands, int) or n_commands < 1:
        raise McioError("n_commands", n_commands, "must be a positive integer")
    if isinstance(file_blocks, bool) or not isinstance(file_blocks, int) or file_blocks < 1:
        raise McioError("file_blocks", file_blocks, "must be a positive integer")
    rules = rules or FsRules()
    d = Minidisk(cylinders, block_bytes, release, rules)
    # setup: the files the command works on, committed, I/O not counted
    if command == "COPY":
        d.write_file("SOURCE", file_blocks)
        if rules.copy_replaces_target:
            d.write_file("TARGET", file_blocks)
        d.commit()
    elif command in ("RENAME", "ERASE"):
        for i in range(n_commands):
            d.write_file(f"F{i}", file_blocks)
        d.commit()
    d.reset_io()
    deferred = command in rules.deferred
    for i in range(n_commands):
        if command == "CREATE":
            d.write_file(f"F{i}", file_blocks)
        elif command == "COPY":
            d.read_file("SOURCE")
            d.write_file("CMSUT1", file_blocks)
            d.commit()
            if rules.copy_replaces_target:
                d.erase("TARGET")
            d.rename("CMSUT1", "TARGET")
        elif command == "RENAME":
            d.rename(f"F{i}", f"R{i}")
        elif command == "ERASE":
            d.erase(f"F{i}")
        if not deferred:
            d.commit()
    if deferred:
        d.commit()
    return d.programs


def ios_per_batch(command: str, release: str, cylinders: int, **kw) -> int:
    """Virtual I/Os (channel programs) of the batch: the quantity of the seed's table."""
    return len(run_batch(command, release, cylinders, **kw))


def role_blocks(programs: list) -> dict:
    """{(op, role): blocks} over ``programs``."""
    out: dict = {}
    for p in programs:
        for r in p.roles:
            out[(p.op, r)] = out.get((p.op, r), 0) + 1
    return out


def with_rules(rules: FsRules | None = None, **changes) -> FsRules:
    return replace(rules or FsRules(), **changes)
