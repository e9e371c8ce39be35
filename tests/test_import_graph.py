"""The package's imports form a DAG: no module imports another that (directly or not) imports it
back, eager or late (inside a function) alike, and none imports upward from ``mcio/__init__.py``.

The graph is built from the source with ``ast`` (every ``import`` / ``from ... import`` of an mcio
module, at any depth of the file); then every module is imported in turn with no mcio module
loaded, so an import that works only because another module happened to be loaded first fails.
"""
import ast
import os
import subprocess
import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "mcio"

# mcio/engine.py reads the version with ``from . import __version__`` (an upward import, so
# mcio -> mcio.engine -> mcio); it belongs to the kernel work, which switches it to
# ``from ._version import __version__``. Until then that one edge is known, and listed here.
KNOWN_UPWARD: set = set()  # none left (mcio.engine took __version__ from mcio; now from mcio._version)


def modules() -> dict[str, tuple[Path, bool]]:
    out = {}
    for f in sorted(PKG.rglob("*.py")):
        parts = list(f.relative_to(ROOT).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_pkg else parts)] = (f, is_pkg)
    return out


def import_graph() -> dict[str, set[str]]:
    """module -> the mcio modules it imports (a name imported from a package that is itself a
    submodule counts as that submodule)."""
    mods = modules()
    graph = {}
    for name, (f, is_pkg) in mods.items():
        pkg = name if is_pkg else name.rpartition(".")[0]
        targets = set()
        for node in ast.walk(ast.parse(f.read_text(), str(f))):
            if isinstance(node, ast.Import):
                targets |= {a.name for a in node.names if a.name.split(".")[0] == "mcio"}
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = pkg.split(".")[: len(pkg.split(".")) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if target.split(".")[0] != "mcio":
                    continue
                for a in node.names:
                    sub = f"{target}.{a.name}"
                    targets.add(sub if sub in mods else target)
        graph[name] = {t for t in targets if t != name}
    return graph


def find_cycle(graph):
    state, stack = {}, []

    def visit(u):
        state[u] = 1
        stack.append(u)
        for v in sorted(graph.get(u, ())):
            if state.get(v) == 1:
                return stack[stack.index(v):] + [v]
            if not state.get(v):
                c = visit(v)
                if c:
                    return c
        stack.pop()
        state[u] = 2
        return None

    for m in sorted(graph):
        if not state.get(m):
            c = visit(m)
            if c:
                return c
    return None


def test_every_import_resolves_to_a_module():
    mods = modules()
    for name, targets in import_graph().items():
        for t in targets:
            assert t in mods, (name, t)


def test_import_graph_is_acyclic():
    graph = import_graph()
    for a, b in KNOWN_UPWARD:
        graph[a].discard(b)
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph))


def test_the_graph_sees_a_cycle_when_there_is_one():
    # the check itself can fail: a planted back edge is found
    graph = import_graph()
    graph["mcio.errors"].add("mcio.cli")
    assert find_cycle(graph) is not None


def test_no_module_imports_upward_from_the_package_init():
    upward = {(name, "mcio") for name, t in import_graph().items() if name != "mcio" and "mcio" in t}
    assert upward <= KNOWN_UPWARD, upward - KNOWN_UPWARD


def test_the_former_cycles_are_gone():
    g = import_graph()
    cal = {t for n, ts in g.items() if n == "mcio.calibrate" or n.startswith("mcio.calibrate.") for t in ts}
    assert "mcio.calibrate.fit" in g and not {t for t in cal if t == "mcio.cli" or t.startswith("mcio.cli.")}
    # the Dask hand-off is given the point task: it imports nothing of the batch package
    assert not {t for t in g["mcio.batch.cluster"] if t == "mcio.sweep" or t.startswith("mcio.batch")}


def test_batch_imports_no_cli_and_nothing_inside_mcio_imports_the_sweep_alias():
    """mcio.batch is below the CLI (the CLI calls it, never the reverse); ``mcio.sweep`` is the
    batch API's older name, kept for users: inside mcio, modules import mcio.batch."""
    g = import_graph()
    batch = {n: t for n, t in g.items() if n == "mcio.batch" or n.startswith("mcio.batch.")}
    assert len(batch) >= 8, sorted(batch)
    up = {(n, t) for n, ts in batch.items() for t in ts if t == "mcio.cli" or t.startswith("mcio.cli.")}
    assert not up, up
    alias = {n for n, ts in g.items() if "mcio.sweep" in ts}
    assert not alias, alias


# Numba's runtime (thread count, its configuration, its version for a file's attributes) may be used
# anywhere; Numba code (a jit decorator, a Numba type, a compile or extension API) only in mcio/kernels/.
NUMBA_RUNTIME = {"set_num_threads", "get_num_threads", "config", "__version__"}


def numba_uses(mods=None) -> dict[str, set[str]]:
    """module outside mcio/kernels/ -> what of Numba it uses: the attributes read from an
    ``import numba`` (``numba.set_num_threads`` -> "set_num_threads"), the names of a
    ``from numba... import``, "<bare>" where the module itself is passed around."""
    out = {}
    for name, (f, _) in (modules() if mods is None else mods).items():
        if name == "mcio.kernels" or name.startswith("mcio.kernels."):
            continue
        tree = ast.parse(f.read_text(), str(f))
        aliases, used = set(), set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.split(".")[0] == "numba":
                        aliases.add(a.asname or "numba")
                        if "." in a.name and not a.asname:
                            used.add(a.name.split(".", 1)[1])
                        elif "." in a.name:
                            used.add(a.name)
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "numba":
                used |= {f"{node.module}.{a.name}" for a in node.names}
        if not aliases and not used:
            continue
        attrs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)
                 and isinstance(n.value, ast.Name) and n.value.id in aliases}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
                used.add(node.attr)
            elif isinstance(node, ast.Name) and node.id in aliases and id(node) not in attrs \
                    and isinstance(node.ctx, ast.Load):
                used.add("<bare>")
        out[name] = used
    return out


def test_numba_code_lives_only_in_the_kernels():
    uses = numba_uses()
    assert "mcio.batch.run" in uses   # (the check sees a use: a worker's thread count)
    code = {n: u - NUMBA_RUNTIME for n, u in uses.items() if u - NUMBA_RUNTIME}
    assert not code, code


def test_the_numba_check_sees_a_kernel_outside_kernels(tmp_path):
    # the check itself can fail: a jit decorator planted outside kernels/ is found, a thread count not
    f = tmp_path / "planted.py"
    f.write_text("import numba as nb\n\n@nb.njit(cache=True)\ndef k(x):\n    nb.set_num_threads(1)\n    return x\n")
    g = tmp_path / "typed.py"
    g.write_text("from numba.typed import List\n")
    assert numba_uses({"mcio.planted": (f, False), "mcio.typed": (g, False)}) == {
        "mcio.planted": {"njit", "set_num_threads"}, "mcio.typed": {"numba.typed.List"}}


def test_each_module_imports_alone_in_a_fresh_interpreter():
    """One fresh interpreter; before each module's import every mcio module is dropped from
    sys.modules (third-party packages stay loaded: that keeps this cheap)."""
    names = sorted(n for n in modules() if not n.endswith("__main__"))
    code = ("import importlib, sys, traceback\n"
            f"names = {names!r}\n"
            "bad = []\n"
            "for n in names:\n"
            "    for m in [m for m in sys.modules if m == 'mcio' or m.startswith('mcio.')]:\n"
            "        del sys.modules[m]\n"
            "    try:\n"
            "        importlib.import_module(n)\n"
            "    except Exception as e:\n"
            "        bad.append((n, repr(e)))\n"
            "print(len(names), bad)\n"
            "sys.exit(1 if bad else 0)\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                       cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert p.returncode == 0, p.stdout + p.stderr
    assert int(p.stdout.split()[0]) == len(names)
