"""The final file's writer (h5py's low-level API, no Dataset copies) gives the file h5py's
high-level API gave: the same objects in the same order, types, shapes, chunks, compression, fill
values, attributes (names, values, types), dimension scales and netCDF dim ids; and its plan of a
Dataset is what ``_for_writing`` + ``encoding_for`` make of it. Whatever the Dataset holds: string
dimension coordinates, text variables, scalar and auxiliary coordinates, CF flags."""

import h5py
import numpy as np
import pytest
import xarray as xr

from mcio import store


def _dataset():
    """A small Dataset with every kind of variable the results files hold."""
    rng = np.random.default_rng(3)
    v, p, r, q = ["ccw", "zhpf"], [1, 4, 16], 3, [0.5, 0.9]
    ds = xr.Dataset(
        {
            "response_ms": (("variant", "population", "replication"), rng.random((2, 3, r)),
                            {"units": "ms", "long_name": "mean response time"}),
            "response_ci95_ms": (("variant", "population"), rng.random((2, 3)), {"units": "ms", "long_name": "CI"}),
            "quant_ms": (("variant", "population", "quantile"), rng.random((2, 3, 2)), {"units": "ms", "long_name": "q"}),
            "unstable": (("variant", "population"), np.array([[0, 1, 0], [0, 0, 1]], np.int8),
                         {"units": "1", "long_name": "flag", "flag_values": np.array([0, 1]),
                          "flag_meanings": "stable unstable"}),
            "ios_measured": (("variant", "population", "replication"), np.full((2, 3, r), 40000, np.int64),
                             {"units": "1", "long_name": "I/Os", "odd": True, "none": None, "seq": [1, 2]}),
            "unstable_reason": (("variant", "population"), np.array([["", "over capacity: 1.2 x", ""],
                                                                     ["", "", "ünïcode"]], dtype=object),
                                {"units": "1", "long_name": "why"}),
            "scalar_figure": ((), 2.5, {"units": "s", "long_name": "a scalar"}),
        },
        coords={
            "variant": ("variant", np.array(v, dtype=object), {"long_name": "named variant"}),
            "population": ("population", np.array(p), {"long_name": "model field workload.population", "units": "1"}),
            "replication": ("replication", np.arange(r)),
            "quantile": ("quantile", np.array(q)),
            "busy_aux": ("population", np.array([0.1, 0.5, 0.9]), {"units": "1", "long_name": "aux"}),
            "engine_label": ((), "event"),
            "seed_coord": ((), np.int64(7)),
        },
        attrs={"title": "writer test", "seed": 7, "flag": True, "nothing": None, "ratio": 0.25,
               "Conventions": "old"},
    )
    return ds


def _high_level(ds, path, chunk_dims):
    """The writer this one replaced (h5py's high-level API), kept as the reference layout."""
    ds = store._for_writing(ds)
    enc = store.encoding_for(ds, chunk_dims)

    def dataset(f, name, v, e):
        a = np.asarray(v.values)
        kw = {}
        if a.dtype.kind in "OU":
            a = np.array([str(x) for x in a.ravel()], dtype=object).reshape(a.shape)
            kw["dtype"] = h5py.string_dtype()
        if a.ndim and e.get("zlib"):
            kw.update(compression="gzip", compression_opts=e.get("complevel", 4))
            if "chunksizes" in e:
                kw["chunks"] = tuple(e["chunksizes"])
        if a.dtype.kind == "f":
            kw["fillvalue"] = np.nan
        return f.create_dataset(name, data=a, **kw)

    with h5py.File(path, "w", track_order=True, libver="earliest") as f:
        f.attrs["_NCProperties"] = f"version=2,mcio=1,hdf5={h5py.version.hdf5_version},h5py={h5py.__version__}"
        scales = {}
        for dimid, (d, n) in enumerate(ds.sizes.items()):
            if d in ds.variables:
                h = dataset(f, d, ds.variables[d], enc.get(d, {}))
                h.make_scale(d)
            else:
                h = f.create_dataset(d, shape=(n,), dtype=">f4")
                h.make_scale(f"{store.NOT_A_VARIABLE}{n:10d}")
            h.attrs["_Netcdf4Dimid"] = np.int32(dimid)
            scales[d] = h
        aux = [n for n in ds.coords if n not in ds.sizes]
        for name, v in ds.variables.items():
            if name in scales:
                h = scales[name]
            else:
                h = dataset(f, name, v, enc.get(name, {}))
                for i, d in enumerate(v.dims):
                    h.dims[i].attach_scale(scales[d])
            for k, x in v.attrs.items():
                h.attrs[k] = x
            if name not in ds.coords:
                mine = [c for c in aux if set(d for d in ds.variables[c].dims if not d.startswith("strlen"))
                        <= set(v.dims)]
                if mine:
                    h.attrs["coordinates"] = " ".join(mine)
        for k, x in ds.attrs.items():
            f.attrs[k] = x


def _describe(path):
    """Everything a netCDF reader sees of a file, as plain values (object addresses left out)."""
    out = []
    with h5py.File(path, "r") as f:
        out.append(("/", _attrs(f)))
        for name, h in f.items():   # creation order (tracked)
            scales = [[s.name for s in dim.values()] for dim in h.dims]
            out.append((name, h.dtype.str, h.shape, h.chunks, h.compression, h.compression_opts, h.fletcher32,
                        h.shuffle, repr(h.fillvalue), h5py.h5o.get_info(h.id).ctime == 0, h.is_scale,
                        scales, _attrs(h), _data(h)))
    return out


def _attrs(h):
    skip = ("DIMENSION_LIST", "REFERENCE_LIST")   # object references: described through dims above
    out = {}
    for k in sorted(h.attrs):
        if k in skip:
            continue
        a = h.attrs.get_id(k)
        v = h.attrs[k]
        out[k] = (str(a.dtype), a.shape, repr(v.tolist() if isinstance(v, np.ndarray) else v))
    return out


def _data(h):
    if h.attrs.get("CLASS") == b"DIMENSION_SCALE" and str(h.attrs.get("NAME", b"")).find("not a netCDF") >= 0:
        return None   # a placeholder scale holds no data
    a = h[()]
    return a.tolist() if isinstance(a, np.ndarray) else a


@pytest.mark.parametrize("chunk_dims", [(), ("variant", "population")])
def test_low_level_writer_gives_the_high_level_layout(tmp_path, chunk_dims):
    ds = _dataset()
    old, new = tmp_path / "old.h5", tmp_path / "new.h5"
    _high_level(ds, old, chunk_dims)
    store.write_netcdf4(ds, new, chunk_dims)
    a, b = _describe(old), _describe(new)
    assert [x[0] for x in a] == [x[0] for x in b]   # the same objects in the same order
    for x, y in zip(a, b):
        assert x == y, x[0]


def test_plan_is_what_for_writing_and_encoding_for_make():
    ds = _dataset()
    chunk_dims = ("variant", "population")
    ref = store._for_writing(ds)
    enc = store.encoding_for(ref, chunk_dims)
    dims, variables, gattrs = store._plan(ds, chunk_dims)
    assert list(dims.items()) == list(ref.sizes.items())
    assert [v[0] for v in variables] == list(ref.variables)
    for name, vdims, a, attrs, e, is_coord in variables:
        r = ref.variables[name]
        assert vdims == r.dims and a.dtype == r.dtype and is_coord == (name in ref.coords), name
        np.testing.assert_array_equal(a, r.values)
        assert list(attrs) == list(r.attrs), name
        for k, x in attrs.items():
            assert type(x) is type(r.attrs[k]) and np.array_equal(x, r.attrs[k]), (name, k)
            if isinstance(x, np.ndarray):
                assert x.dtype == r.attrs[k].dtype, (name, k)
        assert e == enc.get(name, {}), name
    assert gattrs == ref.attrs and list(gattrs) == list(ref.attrs)


def test_written_file_reads_back_as_the_dataset(tmp_path):
    ds = _dataset()
    out = tmp_path / "r.h5"
    store.write_results(ds, out, chunk_dims=("variant", "population"))
    back = store.open_results(out)
    assert list(back["variant"].values) == ["ccw", "zhpf"]
    assert back["unstable_reason"].values.tolist() == ds["unstable_reason"].values.tolist()
    for name in ("response_ms", "quant_ms", "unstable", "ios_measured", "busy_aux"):
        np.testing.assert_array_equal(back[name].values, ds[name].values)
        assert back[name].dtype == ds[name].dtype, name
    assert back.attrs["Conventions"] == store.CONVENTIONS
    netCDF4 = pytest.importorskip("netCDF4")
    with netCDF4.Dataset(out) as nc:
        assert nc["response_ms"].dimensions == ("variant", "population", "replication")
        assert nc["response_ms"].units == "ms"


def test_a_part_record_holds_its_own_attributes_whatever_the_cached_layout():
    """Point records reuse the table of variables of the last point with the same layout; a point
    whose attributes differ (or do not compare plainly) gets its own."""
    def part(p, units, flags):
        vars_ = {"response_ms": (("replication",), np.arange(3.0) + p, {"units": units, "long_name": "r"}, False),
                 "unstable": ((), np.int8(0), {"units": "1", "flag_values": flags}, False),
                 "throughput_iops": (("replication",), np.ones(3), {"units": "s-1"}, False),
                 "ios_measured": (("replication",), np.ones(3), {"units": "1"}, False),
                 "replication": (("replication",), np.arange(3), {}, True)}
        return store.Part(p, {"rate": float(p)}, {"unstable_reason": ""}, vars_)

    for p, units, flags in [(0, "ms", [0, 1]), (1, "ms", [0, 1]), (2, "s", [0, 1]), (3, "s", np.array([0, 1])),
                            (4, "s", np.array([0, 2]))]:
        back = store.read_part(store.part_bytes(part(p, units, flags), "h", p, {"rate": float(p)}))
        assert back.point == p and back.vars["response_ms"][2]["units"] == units
        assert list(back.vars["unstable"][2]["flag_values"]) == list(flags)
        np.testing.assert_array_equal(back.vars["response_ms"][1], np.arange(3.0) + p)


def test_parts_of_the_same_names_but_other_shapes_or_dtypes_each_get_their_own_table():
    """The cached tables are found by the variables' names and then told apart by dtypes and
    shapes: points alternating between layouts of the same names (two sweeps in one process,
    spec hashes alike or not) each read back with their own shapes, dtypes and spec hash."""
    def part(n, dtype):
        vars_ = {k: (("replication",), np.arange(n, dtype=dtype), {"units": "1"}, False) for k in store.CORE_VARS}
        vars_["replication"] = (("replication",), np.arange(n), {}, True)
        return store.Part(0, {}, {}, vars_)

    for i, (n, dtype, sha) in enumerate([(3, "f8", "a"), (5, "f8", "a"), (3, "i8", "b"), (3, "f8", "b"),
                                         (5, "f8", "a"), (3, "f4", "a"), (3, "i8", "a")] * 2):
        rec = store.part_bytes(part(n, dtype), sha, i, {})
        back = store.read_part(rec, sha, i)
        for k in store.CORE_VARS:
            a = back.vars[k][1]
            assert a.shape == (n,) and a.dtype == np.dtype(dtype)
            np.testing.assert_array_equal(a, np.arange(n))
        with pytest.raises(store.PartError):
            store.read_part(rec, sha + "x", i)


def test_disk_full_in_the_final_file_names_it_leaves_no_tmp_and_keeps_the_points(tmp_path, monkeypatch):
    import errno

    from mcio.errors import McioError
    from mcio.store import parts_dir, stored_points
    from mcio.sweep import sweep
    from sweep_specs import MM1_RATES, write

    spec = write(tmp_path, MM1_RATES.replace("ios = 40000", "ios = 2000").replace("warmup = 4000", "warmup = 200"))
    out = tmp_path / "full.h5"
    real = store._H5Types.dataset
    n = []

    def full(self, *a, **k):   # the file exists, some datasets are in it: then the disk is full
        n.append(1)
        if len(n) == 8:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, *a, **k)

    monkeypatch.setattr(store._H5Types, "dataset", full)
    with pytest.raises(McioError) as e:
        sweep(spec, out=out)
    assert str(out) in str(e.value) and "No space left" in str(e.value)
    assert not out.exists() and not list(tmp_path.glob("*.tmp"))
    assert sorted(stored_points(out)) == [0, 1, 2]
    monkeypatch.setattr(store._H5Types, "dataset", real)
    sweep(spec, out=out, resume=True)
    assert out.exists() and not parts_dir(out).exists()


def test_a_part_record_holds_any_array_layout_in_c_order():
    """A record takes C-contiguous arrays' memory as it is and copies any other layout (strided
    views, Fortran order) to C order: each reads back equal, with its shape."""
    base = np.arange(24.0).reshape(4, 6)
    arrays = {"c": base, "strided": base[:, 1], "fortran": np.asfortranarray(base), "zero_d": np.float64(2.5),
              "flag": np.int8(1), "text": np.array(["a", "bé"]),
              **{k: np.zeros(2) for k in store.CORE_VARS}}
    vars_ = {k: (tuple(f"d{k}{i}" for i in range(np.ndim(a))), a, {"units": "1"}, False) for k, a in arrays.items()}
    back = store.read_part(store.part_bytes(store.Part(0, {}, {}, vars_), "h", 0, {}))
    for k, a in arrays.items():
        np.testing.assert_array_equal(back.vars[k][1], np.asarray(a))
        assert back.vars[k][1].shape == np.shape(a)


def test_a_buffers_record_is_framed_to_the_same_bytes_as_any_other():
    """A packed Part's buffer is framed in one join with a chained CRC: the same record, byte for
    byte, as the general framing of the same header and bytes, for empty and odd-sized ones."""
    rng = np.random.default_rng(3)
    for n in (0, 1, 7, 1862, 65537):
        buf = bytearray(rng.integers(0, 256, n, dtype=np.uint8).tobytes())
        header = b'{"format": 2, "point": 5}'
        as_array = (np.frombuffer(bytes(buf), np.uint8),)   # (framed by the general path: joined)
        assert store._frame(5, header, (buf,)) == store._frame(5, header, as_array)
        assert [why for _, _, why in store.split_log(store._frame(5, header, (buf,)))] == [""]   # whole, CRC right
