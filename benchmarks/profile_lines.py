"""Where a kernel spends its time, per source line: Linux ``perf`` on the compiled code.

    python benchmarks/profile_lines.py event            # the FICON model on the event engine
    python benchmarks/profile_lines.py fast --ios 2e7   # M/M/1 on the fast path
    python benchmarks/profile_lines.py event --top 50
    python benchmarks/profile_lines.py event --channels 256   # channel_scaling.py's model on 256 channels
    python benchmarks/profile_lines.py event --population 5   # the FICON model at population 5
    python benchmarks/profile_lines.py event --instructions --anchor ../shared/bench  # the anchor

Runs itself under ``perf record`` with ``NUMBA_DEBUGINFO=1`` and an empty Numba cache, so the
machine code carries line numbers. The child runs one replication by calling the kernel itself
(``run_one`` / ``fast_one``, one thread: ``run_kernels`` calls them in the calling thread),
saves the compiled object and its load address; the parent maps every sample that fell in it to
the source line ``objdump -dl`` names and prints the hottest lines. Lines of code LLVM inlined
(samplers, heap, histogram) appear under their own files. Samples outside that object (libm's log
and cos, Python, other compiled functions) are counted apart. Needs ``perf`` and ``objdump``
(Debian: linux-perf, binutils). Debug info changes the code a little: use this for proportions,
``throughput.py`` for rates. After the lines, the same counts by Python function (inlined
functions under their own names) and by file.

``--anchor DIR``: the same for the same-work anchor (``DIR/ficon_same_work.py``'s
``simulate_full`` at ``--population``, its constants checked against the scenario's model by
``DIR/same_work.py``; never copied into the project), so that mcio's lines and the anchor's can
be set side by side.

``--instructions``: instead of perf's samples, the instructions each line executes, counted by
Valgrind (callgrind, one count per instruction address): the same on any host and load, where
samples move with both; a count is not a time (a cache miss costs no instruction). The kernels
are compiled natively first (Numba's CPU pinned to the host's, so Valgrind's CPU does not miss the
cache), then run from that cache under Valgrind (~50x slower: ``--ios 5e5`` takes ~1 minute).
"""
from __future__ import annotations

import argparse
import bisect
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)


def _anchor_child(anchor: str, ios: int, out: str, population: int) -> None:
    """The child for ``--anchor``: the same-work anchor's ``simulate_full`` at ``population``."""
    sys.path.insert(0, anchor)
    import ficon_same_work as A
    import same_work as sw
    sw.check_model(sw.build_model(population, A), A, population)
    kernel = A.simulate_full
    kernel(population, 1_000, 100, A.seed_state(1, 0))                # compile
    t = time.perf_counter()
    kernel(population, ios, 1_000, A.seed_state(2, 0))
    _save(kernel, out, (ios + 1_000) / (time.perf_counter() - t))


def _save(kernel, out: str, rate: float) -> None:
    """The kernel's compiled object (a native compile; None when loaded from the cache) and its
    load address into ``out``."""
    cres = kernel.overloads[kernel.signatures[0]]
    lib = cres.library
    try:
        obj = lib._get_compiled_object()
    except RuntimeError:    # loaded from the cache (--instructions): the native compile's object
        obj = None
    if obj is not None:
        with open(os.path.join(out, "kernel.o"), "wb") as f:
            f.write(obj)
    json.dump({"name": cres.fndesc.llvm_func_name,
               "addr": lib.get_pointer_to_function(cres.fndesc.llvm_func_name),
               "rate": rate}, open(os.path.join(out, "kernel.json"), "w"))


def _child(kind: str, ios: int, out: str, channels: int = 0, population: int = 26) -> None:
    import numba
    from mcio.engine import run_kernels
    from mcio.kernels import fastpath, iopath
    from benchmarks.models import ficon_model, mmc_model

    kernel = iopath.run_one if kind == "event" else fastpath.fast_one
    model = ficon_model(population)[0] if kind == "event" else mmc_model(1)
    if channels:
        from benchmarks.channel_scaling import scaled_model
        model = scaled_model(abs(channels), "unbounded" if channels < 0 else "scaled")

    numba.set_num_threads(1)          # run_kernels then calls the kernel in this thread
    run_kernels(model, 1_000, 1, 1, 100, 0, kind == "fast")          # compile
    t = time.perf_counter()
    run_kernels(model, ios, 1, 1, 1_000, 0, kind == "fast")
    _save(kernel, out, (ios + 1_000) / (time.perf_counter() - t))


def _parse_objdump(path: str):
    """(offsets, [(function, (file, line), instruction text)]) of every instruction in ``objdump
    -dl`` order, and {function: offset}."""
    dis = subprocess.run(["objdump", "-dl", "--no-show-raw-insn", path], capture_output=True,
                         text=True, check=True).stdout
    offs, where, funcs = [], [], {}
    func, src = None, None
    for line in dis.splitlines():
        m = re.match(r"^([0-9a-f]+) <(.*)>:", line)
        if m:
            func = m.group(2)
            funcs[func] = int(m.group(1), 16)
            src = None
            continue
        m = re.match(r"^(/\S+\.py):(\d+)", line.strip())
        if m:
            src = (m.group(1), int(m.group(2)))
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(.*)$", line)
        if m:
            offs.append(int(m.group(1), 16))
            where.append((func, src, m.group(2).strip()))
    return offs, where, funcs


_DEFS: dict = {}
_STACK = re.compile(r"-?(0x)?[0-9a-f]*\(%[re](sp|bp)\)")


def _insn_class(text: str) -> str:
    """What kind of x86-64 instruction ``text`` (objdump's AT&T syntax: source first) is: stack
    traffic (a spilled value reloaded or saved: what register pressure costs), other memory
    traffic, a branch, or computation."""
    op, _, args = text.partition(" ")
    args = args.strip()
    if op.startswith("j"):
        return "jump" if op.startswith("jmp") else "conditional branch"
    if op.startswith("call"):
        return "call"
    if _STACK.search(args):
        if op.startswith(("mov", "vmov")):
            return "stack reload" if _STACK.match(args) else "stack spill"
        return "stack operand (compute)"
    if "(" in args:
        if op.startswith(("mov", "vmov")):
            return "memory load" if args.index("(") < args.index(",") else "memory store"
        return "memory operand (compute)"
    return "register compute"


def _function_of(src) -> str:
    """``file:function`` of a source line (the innermost def around it; ``file:(module)``
    outside any), read from the file with ``ast``."""
    if src is None:
        return "(no line)"
    path, ln = src
    if path not in _DEFS:
        import ast
        spans = []
        try:
            for node in ast.walk(ast.parse(open(path).read())):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    spans.append((node.lineno, node.end_lineno, node.name))
        except (OSError, SyntaxError):
            pass
        _DEFS[path] = spans
    inner = min((s for s in _DEFS[path] if s[0] <= ln <= s[1]), key=lambda s: s[1] - s[0],
                default=None)
    return f"{os.path.basename(path)}:{inner[2] if inner else '(module)'}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("kind", choices=("event", "fast"))
    ap.add_argument("--ios", type=float, default=None, help="measured I/Os (default 5e6 event, 3e7 fast)")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--channels", type=int, default=0,
                    help="event: benchmarks/channel_scaling.py's open model on this many channels "
                         "(negative: its control unit never queues)")
    ap.add_argument("--population", type=int, default=26,
                    help="event: the FICON model's closed population (default 26)")
    ap.add_argument("--instructions", action="store_true",
                    help="instructions executed per line (Valgrind's callgrind), not perf's samples")
    ap.add_argument("--anchor", default="",
                    help="event: the same-work anchor's simulation instead (its directory, "
                         "../shared/bench or a copy with the scenario's constants)")
    ap.add_argument("--classes", action="store_true",
                    help="also the share of each kind of instruction (stack reloads and spills, "
                         "other memory traffic, branches, computation)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.anchor and (a.kind != "event" or a.channels):
        ap.error("--anchor: the anchor simulates the main job only (event, no --channels)")
    ios = int(a.ios or ((5e5 if a.instructions else 5e6) if a.kind == "event" else 3e7))
    if a.child:
        if a.anchor:
            _anchor_child(a.anchor, ios, a.child, a.population)
        else:
            _child(a.kind, ios, a.child, a.channels, a.population)
        return 0
    with tempfile.TemporaryDirectory(prefix="mcio-prof-") as d:
        env = {**os.environ, "NUMBA_DEBUGINFO": "1", "NUMBA_CACHE_DIR": os.path.join(d, "cache")}
        child = [sys.executable, __file__, a.kind, "--channels", str(a.channels),
                 "--population", str(a.population), "--child", d]
        if a.anchor:
            child += ["--anchor", os.path.abspath(a.anchor)]
        if a.instructions:
            from instructions import valgrind_cpu
            env.update(valgrind_cpu(), PYTHONHASHSEED="0")
            subprocess.run(child + ["--ios", "1000"], env=env, check=True)      # compiled natively
            out = os.path.join(d, "callgrind.out")
            subprocess.run(["valgrind", "-q", "--tool=callgrind", "--dump-instr=yes",  # (per address)
                            "--compress-pos=no", "--compress-strings=no",
                            f"--callgrind-out-file={out}"] + child + ["--ios", str(ios)],
                           env=env, check=True)
            from instructions import callgrind_costs
            events, costs = callgrind_costs(out)
            ir = events.index("Ir")
            hits = collections.Counter({key: c[ir] for key, c in costs.items()})
        else:
            subprocess.run(["perf", "record", "-q", "-o", os.path.join(d, "perf.data")] + child
                           + ["--ios", str(ios)], env=env, check=True)
            script = subprocess.run(["perf", "script", "-i", os.path.join(d, "perf.data"), "-F", "ip,dso"],
                                    capture_output=True, text=True).stdout
            hits = collections.Counter()
            for line in script.splitlines():
                parts = line.split()
                if len(parts) >= 2:
                    hits[(int(parts[0], 16), parts[1].strip("()"))] += 1
        info = json.load(open(os.path.join(d, "kernel.json")))
        offs, where, funcs = _parse_objdump(os.path.join(d, "kernel.o"))
    base = info["addr"] - funcs.get(info["name"], 0)
    end = offs[-1] + 16 if offs else 0
    per_line, per_dso, per_class = collections.Counter(), collections.Counter(), collections.Counter()
    inside = 0
    for (ip, dso), n in hits.items():
        off = ip - base
        if 0 <= off < end and not (a.instructions and dso):
            i = bisect.bisect_right(offs, off) - 1
            per_line[where[i][1]] += n
            if a.classes:
                per_class[_insn_class(where[i][2])] += n
            inside += n
        else:
            per_dso["JIT, other compiled code" if "perf-" in dso or not dso else os.path.basename(dso)] += n
    total = inside + sum(per_dso.values())
    what = "instructions" if a.instructions else "samples"
    print(f"{a.kind}: {info['rate'] / 1e6:.2f} M I/O/s under {'valgrind' if a.instructions else 'perf'} "
          f"with debug info; {total} {what}, {inside} ({100 * inside / max(total, 1):.0f} %) in the kernel"
          + (f", {inside / ios:.1f} per measured I/O (warm-up and the compile run's included)"
             if a.instructions else ""))
    print(f"\n{'share':>6}  {'file:line':28s} source   (share of the kernel's {what})")
    texts: dict = {}
    for (src, n) in per_line.most_common(a.top):
        if src is None:
            print(f"{100 * n / inside:5.1f}%  {'(no line)':28s}")
            continue
        path, ln = src
        if path not in texts:
            try:
                texts[path] = open(path).read().splitlines()
            except OSError:
                texts[path] = []
        text = texts[path][ln - 1].strip() if ln <= len(texts[path]) else ""
        print(f"{100 * n / inside:5.1f}%  {os.path.basename(path) + ':' + str(ln):28s} {text[:90]}")
    per_func = collections.Counter()
    for src, n in per_line.items():
        per_func[_function_of(src)] += n
    print(f"\nby function (share of the kernel's {what}; inlined functions under their own names):")
    for f, n in per_func.most_common(a.top):
        print(f"{100 * n / inside:5.1f}%  {f}")
    if a.classes:
        print(f"\nby kind of instruction (share of the kernel's {what}):")
        for k, n in per_class.most_common():
            print(f"{100 * n / inside:5.1f}%  {k}")
    per_file = collections.Counter()
    for src, n in per_line.items():
        per_file[os.path.basename(src[0]) if src else "(no line)"] += n
    print(f"\nby file (share of the kernel's {what}; inlined code under its own file):")
    for f, n in per_file.most_common():
        print(f"{100 * n / inside:5.1f}%  {f}")
    print(f"\noutside the kernel (share of all {what}; includes start-up and compiling):")
    for k, n in per_dso.most_common(8):
        print(f"{100 * n / total:5.1f}%  {k}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
