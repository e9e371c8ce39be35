"""Results on disk: netCDF-4 (HDF5) final files, and the checkpoint of a running sweep.

A sweep writing ``OUT.h5`` appends each finished point to ``OUT.h5.parts/points.log`` (one part
record per point, one write each: :mod:`.record` owns the format, :mod:`.log` the log), with the
spec text beside it in ``OUT.h5.parts/spec.toml``. When every point is done the combined file is
written to ``OUT.h5.tmp`` and renamed to ``OUT.h5`` (:mod:`.final`): a file under the final name
is always complete. On Dask a worker encodes its points' parts (format 2, each
layout's record sent once a task: :func:`read_sent`) and this process stores them the same way. The final file is written with h5py directly in netCDF-4's
layout (:mod:`.h5writer`), its attributes and encodings as :mod:`.cf` says.
:meth:`PartStore.validate` checks each part on resume (whole, same spec, same point and
coordinates, every variable, a table whose dims, shapes and bytes agree, dims and dtypes like the
other points') so a damaged one is recomputed, not merged. ``OUT.h5.lock`` (an
flock, :mod:`.lock`) keeps two sweeps off one output.

Outputs are regular files only, and the lock and temporary files beside them are created
exclusively, never through a planted symlink (:mod:`.paths`, :mod:`.lock`); reading a file first
bounds what its variables declare by its size and the machine's memory (:mod:`.bounds`).

Modules: :mod:`.paths` (the names beside ``OUT``, atomic writes), :mod:`.lock`, :mod:`.cf`,
:mod:`.h5writer`, :mod:`.final`, :mod:`.record`, :mod:`.log`, :mod:`.bounds`.
"""
# every name other modules, tests and benchmarks take from mcio.store (private ones for tests)
from ..part import Part
from .cf import (CHUNK_BYTES, COMPRESSION, CONVENTIONS, SMALL_BYTES, _attr_value, _chars, _encoding,
                 _for_writing, _local_locks, cf_attrs, encoding_for, global_attrs)
from .final import (dataset_from_bytes, netcdf_bytes, open_results, restore_labels, write_groups,
                    write_netcdf, write_results)
from .h5writer import NOT_A_VARIABLE, _H5Types, _plan, _write_plan, write_netcdf4
from .lock import OutputLock
from .log import SPEC_FILE, PartStore, spec_hash, stored_points
from .paths import _atomic, check_writable, lock_path, parts_dir, tmp_path, write_bytes
from .record import (CORE_VARS, LAYOUT_POINT, MAGIC, PartError, _frame, _json_value, _table, encode_part,
                     is_layout_record, part_bytes, read_layout, read_log, read_part, read_sent, split_log)

__all__ = ["CONVENTIONS", "cf_attrs", "write_groups", "open_results", "write_results", "write_netcdf",
           "netcdf_bytes", "write_bytes", "dataset_from_bytes", "check_writable", "parts_dir", "tmp_path",
           "lock_path", "global_attrs", "PartStore", "Part", "part_bytes", "encode_part", "read_part",
           "read_layout", "read_log", "read_sent", "is_layout_record", "PartError", "OutputLock", "spec_hash",
           "stored_points", "split_log"]
