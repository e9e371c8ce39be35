"""A running sweep's finished points, held as stacked arrays until assembly: about the point's own
bytes each, not a :class:`~mcio.part.Part` of ~40 array views, entry tuples and attribute dicts
(~12 KB a point; what it cost and what this holds: benchmarks/README.md, "memory per point").

Each variable gets one array over the points ``(P,) + shape`` when the first point arrives; an
engine point whose buffer layout (:class:`mcio.part.Layout`) holds those variables is copied as
one row into that layout's block, and a full block goes into those arrays one variable at a time;
any other point of the same variables, dims, dtypes and shapes (an unstable point's blanked
figures, a resumed or Dask point read from its record) is copied variable by variable. A point of
another structure is kept as its Part, and the sweep is then assembled by
:func:`~mcio.batch.assembly.assemble` from Parts, as before. Either way the Dataset is the one
:func:`~mcio.batch.assembly.assemble` makes of the Parts in point order.
"""
from __future__ import annotations

import numpy as np

from ..errors import McioError
from ..part import Part

#: Rows of a block of engine buffers before they go into the per-variable arrays.
BLOCK_ROWS = 256
#: Engine layouts given a block (a sweep has a few: one per variant, per structure); points of
#: further layouts are copied variable by variable.
MAX_LAYOUTS = 16


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
        self._plans: dict = {}  # engine layout -> its copies and block (:meth:`_plan`), or None
        self.reasons: dict[int, str] = {}
        self.first = None      # point 0: (attrs, {name: (dims, attrs, is_coord)}) of its Part
        self.others: dict = {}  # point -> Part, where its variables are not the stacked ones

    def __contains__(self, p: int) -> bool:
        return bool(self.have[p])

    def __len__(self) -> int:
        return self.count

    # ---- adding points ----------------------------------------------------------------------
    def add(self, p: int, part) -> None:
        """Take point ``p``'s results (a Part, or a Dataset as :func:`assemble` takes); the caller
        may drop them afterwards."""
        if not isinstance(part, Part):
            part = Part.from_dataset(part)
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

    def _ignorable(self, name: str, dims, is_coord) -> bool:
        # a sweep coordinate the point carries (no dims, a sweep dim's name, e.g. the variant's
        # name, whose text width differs by variant): assembly takes the axes' values from the
        # spec and never reads it, so it is not stacked
        return bool(is_coord) and not dims and name in self.axis_dims

    def _start(self, part) -> None:
        """The variables every point is expected to hold, from the first point to arrive."""
        if part.packed is not None:   # (an engine point, even with blanked figures: its layout)
            lay = part.packed[0]
            entries = [(n, m[0], dt, sh, m[2], m[1]) for n, m, dt, sh in zip(lay.names, lay.metas, lay.dtypes,
                                                                          lay.shapes)]
        else:
            entries = [(n, tuple(e[0]), np.asarray(e[1]).dtype, np.asarray(e[1]).shape, bool(e[3]), e[2])
                       for n, e in part.vars.items()]
        kinds = {n: (tuple(dims), dt, tuple(sh), bool(c), attrs) for n, dims, dt, sh, c, attrs in entries
                 if not self._ignorable(n, dims, c)}
        if any(dt.kind not in "biufU" or dt.itemsize == 0 for _, dt, _, _, _ in kinds.values()):
            self.names, self.kinds, self.out = (), {}, {}   # (nothing stacked: every point kept whole)
            return
        self.names, self.kinds = tuple(kinds), kinds
        P = self.n_points
        self.out = {n: np.empty((P,) + sh, dtype=dt) for n, (_, dt, sh, _, _) in kinds.items()}

    def _plan(self, layout):
        """``[copies, block, rows]`` for the engine points of ``layout`` if its variables (sweep
        coordinates aside) are the stacked ones: ``copies`` (name, dtype, shape, offset, bytes)
        of each, ``block`` its rows not yet copied, ``rows`` their points; else None."""
        got = self._plans.get(layout, False)
        if got is not False:
            return got
        if len(self._plans) >= 4 * MAX_LAYOUTS:   # (layouts remade over and over: no more verdicts kept)
            return None
        got, copies = None, []
        names = [n for n, m in zip(layout.names, layout.metas) if not self._ignorable(n, m[0], m[2])]
        if tuple(names) == self.names and len(self._plans) < MAX_LAYOUTS:
            for n, m, dt, sh, off in zip(layout.names, layout.metas, layout.dtypes, layout.shapes, layout.offsets):
                if n in self.kinds:
                    if self.kinds[n][:4] != (tuple(m[0]), dt, tuple(sh), bool(m[2])):
                        break
                    copies.append((n, dt, sh, off, dt.itemsize * int(np.prod(sh, dtype=np.int64))))
            else:
                width = -(-layout.nbytes // 8) * 8   # (8-byte rows: aligned views)
                got = [copies, np.empty((min(BLOCK_ROWS, self.n_points), width), dtype=np.uint8), []]
        self._plans[layout] = got
        return got

    def _stack(self, p: int, part) -> bool:
        """Copy point ``p`` into the stacked arrays if it holds exactly their variables (and sweep
        coordinates besides); False if not (nothing copied)."""
        if not self.names:
            return False
        vs = part.vars
        pre = part.packed_prefix()
        if pre is not None:
            plan = self._plan(pre[0])
            extra = pre[2][len(pre[0].names):]
            if plan is not None and all(self._ignorable(k, vs[k][0], vs[k][3]) for k in extra):
                copies, block, rows = plan
                block[len(rows), :pre[0].nbytes] = np.frombuffer(pre[1], dtype=np.uint8, count=pre[0].nbytes)
                rows.append(p)
                if len(rows) == len(block):
                    self._flush(plan)
                return True
        names = [k for k, e in vs.items() if not self._ignorable(k, e[0], e[3])]
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

    def _flush(self, plan=None) -> None:
        """A block's rows (every block's, without ``plan``) into the per-variable arrays."""
        for copies, block, rows in ([plan] if plan is not None else [q for q in self._plans.values() if q]):
            k = len(rows)
            if not k:
                continue
            blk = block[:k]
            where = slice(rows[0], rows[0] + k) if rows == list(range(rows[0], rows[0] + k)) else np.asarray(rows)
            for name, dt, sh, off, nb in copies:
                self.out[name][where] = blk[:, off:off + nb].view(dt).reshape((k,) + sh)
            rows.clear()

    # ---- the Dataset ------------------------------------------------------------------------
    def parts(self) -> list:
        """Every point as a Part, in point order (the stacked ones as views of their rows)."""
        self._flush()
        out = []
        e0 = self.first[1] if self.first is not None else {}
        for p in range(self.n_points):
            q = self.others.get(p)
            if q is None:
                vs = {}
                for name in self.names:
                    dims, _, _, is_coord, attrs = self.kinds[name]
                    if p == 0:
                        dims, attrs = e0[name][0], e0[name][1]
                    vs[name] = (dims, self.out[name][p], attrs, is_coord)
                q = Part(p, {}, self.first[0] if p == 0 else {"unstable_reason": self.reasons.get(p, "")}, vs)
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
