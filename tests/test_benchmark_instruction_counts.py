"""The parsers behind benchmarks/instructions.py (and profile_lines.py --instructions), on
Valgrind's own output formats (no Valgrind needed)."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import instructions  # noqa: E402

CACHEGRIND = """\
==6645== 
==6645== I   refs:      6,106,655,354
==6645== 
==6645== Branches:        812,345,678  (801,234,567 cond + 11,111,111 ind)
==6645== Mispredicts:      23,456,789  ( 22,345,678 cond +  1,111,111 ind)
==6645== Mispred rate:            2.9% (        2.8%     +       10.0%   )
"""

CALLGRIND = """\
version: 1
positions: instr line
events: Ir
ob=/usr/lib/libc.so.6
fl=???
fn=memset
0x22d0 0 5
0x22d7 0 1
ob=???
fl=???
fn=0x0000000004a1b000
0x4a1b000 0 10
calls=1 0x22d0 0
0x4a1b004 0 6
0x4a1b008 0 3
0x4a1b000 0 2
"""


def test_cachegrind_summary_gives_instructions_and_conditional_branches():
    got = instructions.parse_summary(CACHEGRIND)
    assert got == {"I": 6_106_655_354, "Bc": 801_234_567, "Bcm": 22_345_678}
    assert instructions.parse_summary(CACHEGRIND.split("Branches")[0]) == {"I": 6_106_655_354}


def test_a_cachegrind_output_without_a_count_is_an_error():
    with pytest.raises(SystemExit, match="no instruction count"):
        instructions.parse_summary("==1== Cachegrind, a cache and branch-prediction profiler\n")


def test_callgrind_costs_each_address_once_without_the_calls_inclusive_cost(tmp_path):
    f = tmp_path / "callgrind.out"
    f.write_text(CALLGRIND)
    events, got = instructions.callgrind_costs(str(f))
    assert events == ["Ir"]
    # the line after calls= is the call's inclusive cost (memset's 6): not the caller's own
    assert got == {(0x22d0, "libc.so.6"): [5], (0x22d7, "libc.so.6"): [1],
                   (0x4a1b000, ""): [12], (0x4a1b008, ""): [3]}


def test_callgrind_costs_by_line_with_branch_events(tmp_path):
    f = tmp_path / "callgrind.out"
    f.write_text("positions: line\nevents: Ir Bc Bcm Bi Bim\nob=???\nfn=0x1\n"
                 "12 10 2 1 0 0\n13 5 1 0 0 0\nob=/lib/libm.so.6\nfn=log\n7 100 9 3 0 0\n"
                 "ob=???\nfn=0x1\n12 1 0 0 0 0\n")
    events, got = instructions.callgrind_costs(str(f))
    assert events == ["Ir", "Bc", "Bcm", "Bi", "Bim"]
    assert got == {(12, ""): [11, 2, 1, 0, 0], (13, ""): [5, 1, 0, 0, 0],
                   (7, "libm.so.6"): [100, 9, 3, 0, 0]}


def test_the_fastpath_ceilings_child_runs_the_hand_loop_natively():
    """``--fastpath``'s hand-written case is a script Valgrind runs: it must run as it is."""
    import subprocess
    root = Path(__file__).resolve().parent.parent
    p = subprocess.run([sys.executable, "-c", instructions._CHILD, "lindley", "0", "2000", ""],
                       cwd=root, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]


def test_measure_names_the_cases_and_takes_the_difference_per_io(monkeypatch):
    """``measure`` (behind issue29.py's ``instructions`` part): the fast path's cases are this tree
    and the hand loop, and a case's count per I/O is (long run - short run) / (REPS * ios)."""
    import subprocess as sp
    per_io_true = {"fast": 70.0, "lindley": 59.0}

    def fake_counts(engine, tree, n, ios, anchor, branches, jit_only=False):
        return {"I": 1_000_000 + per_io_true[engine] * instructions.REPS * ios}

    monkeypatch.setattr(instructions, "_counts", fake_counts)
    monkeypatch.setattr(instructions.subprocess, "run",
                        lambda *a, **k: sp.CompletedProcess(a, 0, "", ""))
    names, res = instructions.measure("fast", [5, 26], 1000, jit_only=True, jobs=1)
    assert names == ["this tree", "lindley"]
    assert set(res) == {("this tree", 0), ("lindley", 0)}
    assert res[("this tree", 0)]["I"] == pytest.approx(70.0)
    assert res[("lindley", 0)]["I"] == pytest.approx(59.0)


def test_measure_counts_each_channel_count_compiled_natively_first(monkeypatch):
    """``measure("channels", ...)`` (``--channels``, issue29.py's 256 / 1 track): one case per
    channel count, each compiled natively before Valgrind runs it (a model of another shape may
    need kernels of its own: compiling those under Valgrind would take minutes)."""
    import subprocess as sp
    per_io_true = {1: 2100.0, 256: 2700.0}
    native = []

    def fake_counts(engine, tree, n, ios, anchor, branches, jit_only=False):
        assert engine == "channels" and anchor == ""
        return {"I": 1_000_000 + per_io_true[n] * instructions.REPS * ios}

    def fake_run(cmd, *a, **k):
        native.append((cmd[3], cmd[4]))
        return sp.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(instructions, "_counts", fake_counts)
    monkeypatch.setattr(instructions.subprocess, "run", fake_run)
    names, res = instructions.measure("channels", [1, 256], 1000, anchor="/x", jit_only=True, jobs=1)
    assert names == ["this tree"]
    assert native == [("channels", "1"), ("channels", "256")]
    assert res[("this tree", 256)]["I"] / res[("this tree", 1)]["I"] == pytest.approx(2700 / 2100)


def test_code_valgrind_runs_is_compiled_without_avx512(monkeypatch):
    # Valgrind does not decode AVX-512 (SIGILL on a Zen 4): the children compile without it
    import llvmlite.binding as ll
    monkeypatch.delenv("NUMBA_CPU_NAME", raising=False)
    monkeypatch.delenv("NUMBA_CPU_FEATURES", raising=False)
    got = instructions.valgrind_cpu()
    assert got["NUMBA_CPU_NAME"] == ll.get_host_cpu_name()
    feats = got["NUMBA_CPU_FEATURES"].split(",")
    assert not [f for f in feats if f.startswith("+avx512")]
    host_on = {k for k, v in ll.get_host_cpu_features().items() if v and not k.startswith("avx512")}
    assert host_on == {f[1:] for f in feats if f.startswith("+")}      # the rest is the host's
    monkeypatch.setenv("NUMBA_CPU_NAME", "znver3")
    monkeypatch.setenv("NUMBA_CPU_FEATURES", "+avx2,-avx512f")
    assert instructions.valgrind_cpu() == {"NUMBA_CPU_NAME": "znver3", "NUMBA_CPU_FEATURES": "+avx2,-avx512f"}


def test_anchor_copy_rewrites_each_named_constant_once():
    import anchor_copy
    src = ("MP_US_PER_IO = 76.401\nMP_SCV = 10.627                 # SCV\nMP_W = MP_US_PER_IO / 1000.0\n"
           "    MP_SCV = 3.0\n")
    out = anchor_copy.rewrite(src, {"MP_US_PER_IO": 75.912, "MP_SCV": 11.383})
    assert out == ("MP_US_PER_IO = 75.912\nMP_SCV = 11.383                 # SCV\nMP_W = MP_US_PER_IO / 1000.0\n"
                   "    MP_SCV = 3.0\n")
    with pytest.raises(ValueError, match="MP_WAKE_US found 0 times"):
        anchor_copy.rewrite(src, {"MP_WAKE_US": 7.9573})
    values = anchor_copy.scenario_values()
    assert set(values) == set(anchor_copy.CONSTANTS)
    assert values["MP_US_PER_IO"] > 0
