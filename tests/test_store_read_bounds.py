"""Reading an HDF5 file allocates no more than the file could hold: a few kB declaring a 32 GiB
variable (chunked, compressed, never written: it reads back as the fill value) is refused with
one error naming the file and the variable, by open_results and by every command that reads
results (info, plot, table, report), before anything is allocated."""
import h5py
import numpy as np
import pytest
from click.testing import CliRunner

from mcio.cli import main
from mcio.errors import McioError
from mcio.store import dataset_from_bytes, open_results
from mcio.store.bounds import check_declared_sizes, declared_sizes


@pytest.fixture
def crafted(tmp_path):
    p = tmp_path / "crafted.h5"
    with h5py.File(p, "w") as f:
        f.create_dataset("x", shape=(2**32,), dtype="f8", chunks=(2**16,), compression="gzip",
                         fillvalue=np.nan)   # 32 GiB declared, no chunk written
        f.create_dataset("ok", data=np.arange(3.0))
    assert p.stat().st_size < 16_000
    return p


def test_crafted_huge_variable_is_refused_by_open_results_naming_file_and_variable(crafted):
    with pytest.raises(McioError, match=r"variable 'x' declares shape \(4294967296,\) \(32 GiB in memory\)") as e:
        open_results(crafted)
    assert e.value.field == "file" and e.value.value == str(crafted)
    with pytest.raises(McioError, match="variable 'x'"):
        dataset_from_bytes(crafted.read_bytes(), "part.h5")


@pytest.mark.parametrize("cmd", [["info"], ["plot"], ["table"], ["report"]])
def test_commands_reading_a_crafted_file_give_one_line_exit_2(crafted, cmd):
    r = CliRunner().invoke(main, cmd + [str(crafted)])
    assert r.exit_code == 2, (r.exit_code, r.output)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "crafted.h5" in lines[0] and "'x'" in lines[0], r.stderr


def test_many_variables_within_the_file_bound_each_but_not_together_are_refused(tmp_path):
    p = tmp_path / "many.h5"
    with h5py.File(p, "w") as f:
        for i in range(40):
            f.create_dataset(f"v{i}", shape=(2**22,), dtype="f8", chunks=(2**16,), compression="gzip", fillvalue=0.0)
    with pytest.raises(McioError, match="its variables declare"):
        check_declared_sizes(p, p.stat().st_size, str(p))


def test_total_beyond_the_machines_memory_is_refused(tmp_path):
    p = tmp_path / "ok.h5"
    with h5py.File(p, "w") as f:
        f.create_dataset("a", data=np.zeros(1000))
    check_declared_sizes(p, p.stat().st_size, str(p))
    with pytest.raises(McioError, match="more than this machine's"):
        check_declared_sizes(p, p.stat().st_size, str(p), memory=4000)


def test_declared_sizes_count_every_group_and_strings(tmp_path):
    p = tmp_path / "g.h5"
    with h5py.File(p, "w") as f:
        f.create_dataset("g1/a", data=np.zeros((2, 3), "f4"))
        f.create_dataset("s", data=np.array(["ab", "c"], dtype=h5py.string_dtype()))
        f.create_dataset("scalar", data=1.0)
    got = {n: (s, b) for n, s, b in declared_sizes(p)}
    assert got == {"g1/a": ((2, 3), 24), "s": ((2,), 32), "scalar": ((), 8)}
