"""Store pins: the bytes of points-log records and the content of a final file, made from
deterministic data (a simulated point's buffer refilled with a fixed pattern, volatile attributes
fixed), so they depend on the store's format alone, not on the numerics of a machine.

``tests/golden/store.json`` holds them (regenerate with ``python tests/golden_store.py``, only for
a deliberate change of the format, and say why in the commit); test_golden_store.py compares."""
from __future__ import annotations

import hashlib
import json
import tomllib
from pathlib import Path

import numpy as np

from sweep_specs import FICON_GRID

GOLDEN = Path(__file__).parent / "golden" / "store.json"
FIXED_ATTRS = {"created": "2026-01-01T00:00:00+00:00", "mcio_version": "0.0.0",
               "numba_version": "0.0.0", "numpy_version": "0.0.0"}
VOLATILE_FILE_ATTRS = ("date_created", "history", "mcio_version", "numba_version", "numpy_version")


def _spec():
    from mcio.sweep import parse_spec
    return parse_spec(tomllib.loads(FICON_GRID), FICON_GRID, source="golden")


def _fixed_part(spec, p: int):
    """Point ``p``'s Part with every data variable refilled by a fixed pattern (in its buffer) and volatile attributes fixed."""
    from mcio.sweep import point_part
    part = point_part(spec, p)
    packed = part.packed_prefix()
    assert packed is not None, "a sweep point's Part is packed"
    for i, (name, (dims, a, attrs, is_coord)) in enumerate(part.vars.items()):
        if is_coord or a.dtype.kind not in "fiub":
            continue   # (labels stay: the points must align)
        a[...] = (np.arange(a.size).reshape(a.shape) * 0.375 + i).astype(a.dtype) if a.dtype.kind == "f" \
            else (np.arange(a.size).reshape(a.shape) + i).astype(a.dtype)
    part.attrs.update(FIXED_ATTRS)
    return part


def records() -> dict[str, str]:
    """name -> sha256 of a record's bytes: format 1 and 2 (with and without its layout record) of
    a packed point, and format 1 of a Part made from a Dataset (the general path)."""
    from mcio import store
    from mcio.part import Part
    spec = _spec()
    sha = store.spec_hash(spec.text)
    out = {}
    for p in (0, 3):
        part = _fixed_part(spec, p)
        coords = spec.coords(p)
        out[f"p{p}_format1"] = store.part_bytes(part, sha, p, coords)
        layouts: set = set()
        first, lid = store.encode_part(part, sha, p, coords, layouts=layouts)
        layouts.add(lid)
        again, lid2 = store.encode_part(part, sha, p, coords, layouts=layouts)
        assert lid2 is None
        out[f"p{p}_format2_with_layout"] = first
        out[f"p{p}_format2"] = again
    ds = _fixed_part(spec, 1).to_dataset()
    general = Part.from_dataset(ds, 1, spec.coords(1))
    out["general_format1"] = store.part_bytes(general, sha, 1, spec.coords(1))
    return {k: hashlib.sha256(v).hexdigest() for k, v in out.items()} | {"sizes": {k: len(v) for k, v in out.items()}}


def _fixed_dataset():
    """The FICON grid's Dataset, every point's data refilled by the pattern."""
    from mcio.sweep import assemble
    spec = _spec()
    parts = []
    for p in range(spec.n_points):
        part = _fixed_part(spec, p)
        parts.append(part)
    ds = assemble(spec, parts)
    return ds


def _attr(v):
    if isinstance(v, bytes):
        v = v.decode()
    if isinstance(v, np.ndarray):
        return {"dtype": str(v.dtype), "values": [_attr(x) for x in v.tolist()]} if v.dtype.kind != "O" \
            else [str(x) for x in v.tolist()]
    if isinstance(v, np.generic):
        return {"dtype": str(v.dtype), "value": v.item() if not isinstance(v, np.bytes_) else v.decode()}
    if type(v).__name__ == "Reference" or type(v).__name__ == "RegionReference":
        return "<ref>"
    return v


def final_file(path) -> dict:
    """The content of an HDF5 results file as plain data: per object its kind, dtype, shape,
    chunks, filters, fill value, attributes (volatile ones left out) and a sha256 of its values."""
    import h5py
    content = {}

    def visit(name, obj):
        entry = {"kind": type(obj).__name__,
                 "attrs": {k: _attr(obj.attrs[k]) for k in sorted(obj.attrs)
                           if k not in VOLATILE_FILE_ATTRS and k not in ("DIMENSION_LIST", "REFERENCE_LIST")}}
        if "DIMENSION_LIST" in obj.attrs:
            entry["dims"] = [[obj.file[r].name for r in refs] for refs in obj.attrs["DIMENSION_LIST"]]
        if isinstance(obj, h5py.Dataset):
            a = obj[()]
            entry |= {"dtype": str(obj.dtype), "shape": list(obj.shape), "chunks": obj.chunks,
                      "compression": obj.compression, "compression_opts": obj.compression_opts,
                      "shuffle": obj.shuffle, "fillvalue": _attr(obj.fillvalue),
                      "sha256": hashlib.sha256(np.ascontiguousarray(a).tobytes() if a.dtype.kind != "O"
                                               else "\0".join(map(str, a.ravel().tolist())).encode()).hexdigest()}
        content[name] = entry

    with h5py.File(path, "r") as f:
        content["/"] = {"attrs": {k: _attr(f.attrs[k]) for k in sorted(f.attrs) if k not in VOLATILE_FILE_ATTRS}}
        nc = content["/"]["attrs"].get("_NCProperties", "")   # the library versions in it vary by machine
        content["/"]["attrs"]["_NCProperties"] = ",".join(p for p in nc.split(",") if not p.startswith(("hdf5=", "h5py=")))
        f.visititems(visit)
    return json.loads(json.dumps(content, default=str))


def final_file_content(tmpdir) -> dict:
    from mcio import store
    path = Path(tmpdir) / "golden.h5"
    store.write_results(_fixed_dataset(), path)
    return final_file(path)


def regenerate() -> None:
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        data = {"records": records(), "final_file": final_file_content(d)}
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}")


if __name__ == "__main__":
    regenerate()
