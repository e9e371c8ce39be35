"""A running sweep's finished points, held as stacked arrays until assembly: about the point's own
bytes each, not a :class:`~mcio.part.Part` of ~40 array views, entry tuples and attribute dicts
(~12 KB a point; what it cost and what this holds: benchmarks/README.md, "memory per point").

Each variable gets one array over the points ``(P,) + shape`` when the first point arrives; an
engine point whose buffer is laid out by the layout already seen (:class:`mcio.part.Layout`) is
copied as one row into a block, and a full block goes into those arrays one variable at a time;
any other point of the same variables, dims, dtypes and shapes (an unstable point's blanked
figures, a resumed or Dask point read from its record) is copied variable by variable. A point of
another structure is kept as its Part, and the sweep is then assembled by
:func:`~mcio.batch.assembly.assemble` from Parts, as before. Either way the Dataset is the one
:func:`~mcio.batch.assembly.assemble` makes of the Parts in point order.
"""
from __future__ import annotations

import numpy as np

from ..errors import McioError

#: Rows of a block of engine buffers before they go into the per-variable arrays.
BLOCK_ROWS = 256


class Collected:
    """Finished points of ``spec``: :meth:`add` each (any order, once), then :meth:`dataset`.

    What stays per point: its row of every variable, its ``unstable_reason`` if not empty, and a
    flag; point 0 keeps its global and per-variable attributes (the Dataset's come from it)."""

    def __init__(self, spec):
        self.spec = spec
        self.n_points = P = spec.n_points
        self.have = np.zeros(P, dtype=bool)
        self.count = 0
        self.axis_dims = frozenset(spec.dims)
        self.names = None      # the stacked variables (in point 0's order when it is stacked)
        self.kinds = None      # name -> (dims, dtype, shape, is_coord, attrs)
        self.out = None        # name -> array (P,) + shape
        self.layout = None     # the engine layout whose buffers are copied as rows
        self._block = None
        self._rows: list[int] = []
        self.reasons: dict[int, str] = {}
        self.first = None      # point 0: (attrs, {name: (dims, attrs, is_coord)}) of its Part
        self.others: dict = {}  # point -> Part, where its variables are not the stacked ones

    def __contains__(self, p: int) -> bool:
        return bool(self.have[p])

    def __len__(self) -> int:
        return self.count

    # ---- adding points ----------------------------------------------------------------------
    def add(self, p: int, part) -> None:
        """Take point ``p``'s results (a Part); the caller may drop the Part afterwards."""
        if self.have[p]:
            raise McioError("point", p, "was collected twice")
        if p == 0:
            self.first = (part.attrs, {n: (e[0], e[2], e[3]) for n, e in part.vars.items()})
        reason = str(part.attrs.get("unstable_reason", ""))
        if reason:
            self.reasons[p] = reason
        if self.names is None:
            self._start(part)
        if not self._stack(p, part):
            self.others[p] = part
        self.have[p] = True
        self.count += 1

    def _ignorable(self, name: str, entry) -> bool:
        # a sweep coordinate added to the point (no dims, a sweep dim's name): assembly takes the
        # axes' values from the spec and never reads it
        return entry[3] and not entry[0] and name in self.axis_dims

    def _start(self, part) -> None:
        """The variables every point is expected to hold, from the first point to arrive."""
        pre = part.packed_prefix()
        if pre is not None:
            layout = pre[0]
            self.layout = layout
            names = layout.names
            kinds = {n: (m[0], dt, sh, m[2], m[1]) for n, m, dt, sh in zip(names, layout.metas, layout.dtypes,
                                                                          layout.shapes)}
        else:
            kinds = {}
            for name, e in part.vars.items():
                if not self._ignorable(name, e):
                    a = np.asarray(e[1])
                    kinds[name] = (tuple(e[0]), a.dtype, a.shape, bool(e[3]), e[2])
            names = tuple(kinds)
        if any(dt.kind not in "biufU" or dt.itemsize == 0 for _, dt, _, _, _ in kinds.values()):
            self.names, self.kinds, self.out = (), {}, {}   # (nothing stacked: every point kept whole)
            return
        self.names, self.kinds = tuple(names), kinds
        P = self.n_points
        self.out = {n: np.empty((P,) + sh, dtype=dt) for n, (_, dt, sh, _, _) in kinds.items()}

    def _stack(self, p: int, part) -> bool:
        """Copy point ``p`` into the stacked arrays if it holds exactly their variables (and sweep
        coordinates besides); False if not (nothing copied)."""
        if not self.names:
            return False
        pre = part.packed_prefix() if self.layout is not None else None
        if pre is not None and pre[0] is self.layout:
            names = pre[2]
            n = len(self.names)
            if len(names) > n and not all(self._ignorable(k, part.vars[k]) for k in names[n:]):
                return False
            self._row(p, pre[1])
            return True
        vs = part.vars
        names = [k for k, e in vs.items() if k in self.kinds or not self._ignorable(k, e)]
        if tuple(names) != self.names:
            return False
        for k in names:
            dims, a, _, is_coord = vs[k]
            d0, dt, sh, c0, _ = self.kinds[k]
            a = np.asarray(a)
            if a.dtype != dt or a.shape != sh or tuple(dims) != d0 or bool(is_coord) != c0:
                return False
        for k in names:
            self.out[k][p] = vs[k][1]
        return True

    def _row(self, p: int, buf) -> None:
        """Point ``p``'s engine buffer as the next row of the block (8-byte rows: aligned views)."""
        lay = self.layout
        if self._block is None:
            width = -(-lay.nbytes // 8) * 8
            self._block = np.empty((min(BLOCK_ROWS, self.n_points), width), dtype=np.uint8)
        k = len(self._rows)
        self._block[k, :lay.nbytes] = np.frombuffer(buf, dtype=np.uint8, count=lay.nbytes)
        self._rows.append(p)
        if k + 1 == len(self._block):
            self._flush()

    def _flush(self) -> None:
        """The block's rows into the per-variable arrays."""
        k = len(self._rows)
        if not k:
            return
        rows = self._rows
        lay, blk = self.layout, self._block[:k]
        where = slice(rows[0], rows[0] + k) if rows[-1] - rows[0] == k - 1 and rows == list(
            range(rows[0], rows[0] + k)) else np.asarray(rows)
        for name, dt, sh, off in zip(lay.names, lay.dtypes, lay.shapes, lay.offsets):
            nb = dt.itemsize * int(np.prod(sh, dtype=np.int64))
            self.out[name][where] = blk[:, off:off + nb].view(dt).reshape((k,) + sh)
        self._rows = []

    # ---- the Dataset ------------------------------------------------------------------------
    def parts(self) -> list:
        """Every point as a Part, in point order (the stacked ones as views of their rows)."""
        self._flush()
        out = []
        e0 = self.first[1] if self.first is not None else {}
        for p in range(self.n_points):
            q = self.others.get(p)
            if q is None:
                from ..part import Part
                attrs = self.first[0] if p == 0 else {"unstable_reason": self.reasons.get(p, "")}
                vs = {}
                for name in self.names:
                    dims, _, _, is_coord, attrs = self.kinds[name]
                    if p == 0:
                        dims, attrs = e0[name][0], e0[name][1]
                    vs[name] = (dims, self.out[name][p], attrs, is_coord)
                q = Part(p, {}, attrs, vs)
            out.append(q)
        return out

    def dataset(self):
        """The sweep's Dataset: :func:`~mcio.batch.assembly.assemble` of the points in order."""
        from .assembly import assemble, assemble_stacked
        if self.count != self.n_points:
            raise McioError("parts", self.count, f"need all {self.n_points} points")
        if self.others or not self.names or self.first is None:
            return assemble(self.spec, self.parts())
        self._flush()
        attrs0, e0 = self.first
        metas = {n: (e0[n][0], e0[n][1], self.kinds[n][3]) for n in self.names}
        reason = np.full(self.n_points, "", dtype=object)
        for p, r in self.reasons.items():
            reason[p] = r
        out, self.out = self.out, None   # (the Dataset takes the data variables' arrays)
        return assemble_stacked(self.spec, self.names, metas, out, reason, attrs0)
