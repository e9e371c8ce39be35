"""The checkpoint of a running sweep: ``OUT.parts/points.log`` (one part record per finished point,
:mod:`.record`) and ``OUT.parts/spec.toml``."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tomllib
from typing import Callable

from ..errors import McioError
from .paths import check_writable, parts_dir, tmp_path, write_bytes
from .record import (UNIFORM_DIMS, PartError, _record_layout, _record_point, encode_part, is_layout_record,
                     log_layouts, part_signature, read_log, read_part, split_log)

SPEC_FILE = "spec.toml"


def spec_hash(text: str) -> str:
    """SHA-256 of a spec's TOML content (parsed: comments and layout do not count)."""
    try:
        canon = json.dumps(tomllib.loads(text), sort_keys=True, default=str)
    except tomllib.TOMLDecodeError:
        canon = text
    return hashlib.sha256(canon.encode()).hexdigest()



class PartStore:
    """The sidecar directory of one sweep's finished points: ``spec.toml`` and ``points.log``, an
    append-only log of part records (:func:`part_bytes`), one os.write per finished point.

    A record reaches the file system's page cache when the write returns, so it survives the
    process being killed (kill -9) at any later moment; one cut short (killed mid-write, disk
    full) fails its length or checksum and is recomputed on resume. One log, not a file per point:
    creating and renaming a file per point cost more than 5 % of a fast point."""

    LOG = "points.log"

    def __init__(self, out, spec_text: str, resume: bool = False, same_spec: Callable[[str], bool] | None = None):
        self.out = check_writable(out)
        self.dir = parts_dir(self.out)
        self.log = self.dir / self.LOG
        self.spec_sha256 = spec_hash(spec_text)
        self._fd = None
        self._layouts: set = set()   # IDs of the layout records in the log
        self._read_layouts: dict = {}   # the log's layouts as validate read them (for read)
        spec_file = self.dir / SPEC_FILE
        if self.dir.is_symlink():
            raise McioError("output", str(self.out), f"{str(self.dir)!r} is a symbolic link, where the sweep keeps "
                                                     "its finished points; remove it or choose another output")
        if self.dir.exists() and not self.dir.is_dir():
            raise McioError("output", str(self.out), f"{str(self.dir)!r} is a file, where the sweep keeps its "
                                                     "finished points; remove it or choose another output")
        if tmp_path(self.out).is_dir() and not tmp_path(self.out).is_symlink():
            raise McioError("output", str(self.out), f"{str(tmp_path(self.out))!r} is a directory in the way of "
                                                     "the final file; remove it")
        if self.dir.exists() and not (self.log.is_file() and self.log.stat().st_size > 0):
            shutil.rmtree(self.dir, ignore_errors=True)  # interrupted before any point finished: nothing to keep
        if self.dir.exists():
            if not resume:
                raise McioError("output", str(self.out),
                                f"an interrupted sweep left {str(self.dir)!r}: add --resume to continue it "
                                "(or delete that directory to start over)")
            try:
                stored = spec_file.read_text() if spec_file.exists() else ""
            except (OSError, UnicodeDecodeError):
                stored = ""
            same = same_spec(stored) if same_spec else stored == spec_text
            if not same:
                raise McioError("--resume", str(self.dir),
                                "was started from a different spec (its spec.toml differs); "
                                "run the same spec, or delete that directory to start over")
            for stale in self.dir.glob("*.tmp"):  # a write cut short by the interruption
                stale.unlink(missing_ok=True)
        else:
            try:
                self.dir.mkdir()
            except OSError as e:
                raise McioError("output", str(self.out), f"cannot create {str(self.dir)!r} ({e.strerror or e})") from None
            tmp = spec_file.with_name(SPEC_FILE + ".tmp")
            try:
                tmp.write_text(spec_text)   # in the directory just made by us: nothing planted there
                os.replace(tmp, spec_file)
            except OSError as e:
                tmp.unlink(missing_ok=True)
                raise McioError("output", str(self.out), f"cannot write {str(spec_file)!r} ({e.strerror or e})") from None

    def finished(self, total: int) -> set[int]:
        """Points with a whole record in the log (not checked against the spec: see :meth:`validate`)."""
        return {p for p in stored_points(self.out) if p < total}

    def validate(self, total: int, coords: Callable[[int], dict],
                 expected: Callable[[int], dict] | None = None) -> tuple[dict, dict]:
        """Read and check every record: ``(good, bad)`` with ``good`` {point: its record's bytes, a
        memoryview of the log's}
        (:meth:`read` makes the Part: one at a time, so a resumed sweep never holds every
        point's Part) and ``bad``
        {point, or "bytes A-B" where no point can be read: reason}. With anything bad the log is
        rewritten (atomically) with the good records only, so the bad points are recomputed.

        Besides each record on its own (:func:`read_part`), the points must agree with each other
        as one sweep's do: a variable's dims and dtype the same wherever it is held, and the same sizes of
        :data:`~.record.UNIFORM_DIMS` (the reference: what most points hold, the earliest on a
        tie); ``expected(p)``, if given, is {dim: size} point ``p`` must have (e.g. the spec's
        replications). A record that differs is damaged (recomputed), not merged."""
        bad, used = {}, {}
        try:
            data = self.log.read_bytes() if self.log.exists() else b""
        except OSError as e:
            raise McioError("--resume", str(self.log), f"cannot be read ({e.strerror or e})") from None
        if not data and self.log.exists():
            bad[f"{self.LOG}"] = "empty"
        layouts = log_layouts(split_log(data))
        cands = {}   # point: (offset, length) of its record, the first whole copy of each
        sigs, lids, by_layout = {}, {}, {}
        for off, rec, why in split_log(data):   # (one record at a time: none kept but the layouts)
            where = f"{self.LOG} bytes {off}-{off + len(rec)}"
            if is_layout_record(rec):
                if why:
                    bad[where] = f"{why} (a layout record)"   # its points fail below: recomputed
                continue
            p = _record_point(rec)
            key = p if p is not None and 0 <= p < total else where
            if why:
                if p not in cands:
                    bad[key] = why
                continue
            if p is not None and p >= total:
                bad[key] = f"point {p} is beyond this sweep's {total} points"
                continue
            if p in cands:
                continue  # a point stored twice (recomputed after a damaged copy): the first whole one
            try:
                part = read_part(rec, self.spec_sha256, p, coords(p) if p is not None else None, layouts)
            except PartError as e:
                bad[key] = e.reason
                continue
            bad.pop(p, None)
            cands[p] = (off, len(rec))
            lids[p] = lid = _record_layout(rec)
            if lid is None:
                sigs[p] = part_signature(part)
            else:   # (a format-2 part's variables are its layout's: one signature per layout)
                sigs[p] = by_layout.get(lid) or by_layout.setdefault(lid, part_signature(part))
            del part
        self._read_layouts = layouts
        good, keep = {}, []
        for p, why in _unlike_the_others(dict.fromkeys(cands), expected, sigs).items():
            bad[p] = why
        view = memoryview(data)   # (each good record a view of the log's bytes: no copy of each)
        for p, (off, n) in cands.items():
            if p in bad:
                continue
            good[p] = view[off:off + n]
            keep.append(good[p])
            lid = lids[p]
            if lid is not None:
                used[lid] = layouts[lid][1]
        if bad:  # atomically: the layouts still used, then the good records
            write_bytes(b"".join(list(used.values()) + keep), self.log)
            self._layouts = set(used)
        else:
            self._layouts = set(layouts)
        return good, bad

    def read(self, p: int, rec: bytes):
        """The Part of a record :meth:`validate` found good for point ``p``."""
        return read_part(bytes(rec), self.spec_sha256, p, layouts=self._read_layouts)

    def _open(self):
        if self._fd is None:
            try:
                self._fd = os.open(self.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0)
                                   | getattr(os, "O_CLOEXEC", 0), 0o644)
            except OSError as e:
                raise McioError("output", str(self.out), f"cannot write {str(self.log)!r} ({e.strerror or e})") from None
        return self._fd

    def write(self, p: int, ds, coords: dict | None = None) -> None:
        """Append point ``p`` (a Part or Dataset) as a format-2 record, with its layout record
        first if the log has none for its layout yet (one write: both or, cut short, neither
        usable)."""
        data, lid = encode_part(ds, self.spec_sha256, p, coords or {}, self._layouts)
        self.write_bytes(p, data)
        if lid is not None:
            self._layouts.add(lid)

    def write_bytes(self, p: int, data: bytes) -> None:
        """Append a part record made here or elsewhere (:func:`part_bytes` on a Dask worker)."""
        fd = self._open()
        try:
            view = memoryview(data)
            while view:
                n = os.write(fd, view)
                view = view[n:]
        except OSError as e:
            raise McioError("output", str(self.out), f"cannot write {str(self.log)!r} "
                                                     f"({e.strerror or e}); finished points are kept: "
                                                     "free space and run again with --resume") from None

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def remove(self) -> None:
        self.close()
        try:  # the two files it holds, then the directory: a third of rmtree's time
            for f in (self.log, self.dir / SPEC_FILE):
                f.unlink(missing_ok=True)
            self.dir.rmdir()
        except OSError:  # something else in it (or already gone)
            shutil.rmtree(self.dir, ignore_errors=True)


def _unlike_the_others(parts: dict, expected: Callable[[int], dict] | None, sigs: dict | None = None) -> dict:
    """{point: reason} of the parts holding a variable whose dims or dtype differ from what most
    parts holding it have (the earliest on a tie; a variable some points lack is no difference:
    the stacking pads it), whose :data:`UNIFORM_DIMS` sizes differ likewise, or whose dim sizes
    differ from ``expected(point)``. ``sigs``: their :func:`~.record.part_signature`, if made already."""
    sigs = sigs if sigs is not None else {p: part_signature(q) for p, q in parts.items()}
    out = {}
    if expected is not None:
        for p, (_, sizes) in sigs.items():
            for d, n in (expected(p) or {}).items():
                if d in sizes and sizes[d] != n:
                    out[p] = f"dimension {d} has size {sizes[d]}, this sweep's points have {n}"
                    break
    rest = {p: sig for p, sig in sigs.items() if p not in out}
    held: dict = {}
    for structure, _ in rest.values():
        for name, *kind in structure:
            held.setdefault(name, []).append(tuple(kind))
    ref = {name: _most_common(kinds) for name, kinds in held.items()}
    for p, (structure, _) in rest.items():
        diff = [name for name, *kind in structure if tuple(kind) != ref[name]]
        if diff:
            out[p] = f"its variables differ from the other points' in dims or dtype ({', '.join(diff[:5])})"
    for d in UNIFORM_DIMS:
        held = {p: sizes[d] for p, (_, sizes) in rest.items() if p not in out and d in sizes}
        if held:
            n = _most_common(list(held.values()))
            for p, m in held.items():
                if m != n:
                    out[p] = f"dimension {d} has size {m}, the other points' {n}"
    return out


def _most_common(values: list):
    """The value held most often in ``values`` (the earliest on a tie)."""
    counts = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return max(counts, key=counts.get)   # (max keeps the first of equal counts, in first-seen order)


def stored_points(out) -> list[int]:
    """Point indices with a whole, checksummed, readable record in ``OUT.parts/points.log``
    (its layout record too, for format 2), in log order."""
    log = parts_dir(out) / PartStore.LOG
    if not log.exists():
        return []
    pts = []
    layouts, records = read_log(log.read_bytes())
    for _, rec, why in records:
        if not why and not is_layout_record(rec):
            try:
                pts.append(read_part(rec, layouts=layouts).point)
            except PartError:
                pass
    return pts
