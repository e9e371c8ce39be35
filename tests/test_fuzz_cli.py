"""A fuzzer over every option and argument of every command, derived from the command-line
parser itself (the click group :data:`mcio.cli.main`, subgroups included): an option or command
added later is fuzzed without a change here (a command with no base invocation below fails the
coverage test).

Each parameter is tried, one at a time, in a small valid invocation of its command (:data:`BASE`),
with edge values of its type (integers: 0, -1, huge, 2**63, not a number; floats: nan, inf,
1e308, 5e-324; text: empty, NUL, escape codes, a directory, a device, a missing path; choices: one
not offered; flags: given). Every invocation must end in one of two ways: a clean error (exit 2,
one line ``mcio: error: ...`` on stderr, no traceback) or a sensible run (exit 0, or 1 where the
command's exit code means a figure out of tolerance; a run estimated beyond
:data:`ANNOUNCE_AFTER_S` is announced, and not run here); no traceback, no "internal error", no
hang (a run past :data:`HANG_GUARD_S`: its estimate was far too short).

``MCIO_FUZZ_EXAMPLES`` >= 1000 tries every edge value of every parameter (a few thousand
invocations); the default (CI) tries :data:`CI_EDGES` per parameter, rotating over the list.
``python tests/test_fuzz_cli.py`` prints the outcome figures of the full run.
"""
from __future__ import annotations

import collections
from pathlib import Path
import os
import sys
import threading
import warnings

import click
import pytest
from click.testing import CliRunner

from mcio import interrupt
from mcio.cli import main
from mcio.errors import McioWarning

EXAMPLES = int(os.environ.get("MCIO_FUZZ_EXAMPLES", "300"))
FULL = EXAMPLES >= 1000
CI_EDGES = 2
HANG_GUARD_S = 120.0
ANNOUNCE_AFTER_S = 20.0
OUTCOMES: collections.Counter = collections.Counter()

SPEC = '''title = "fuzz"
scenario = "mm1-demo"
[run]
replications = 2
ios = 300
warmup = 100
seed = 1
'''
UNCERTAIN = SPEC + '[uncertain]\nsamples = 4\n"control_unit.backend_service_ms.mean" = {low = 1.0, high = 1.2}\n'
MEASURED = "iops,channel_busy,response_ms\n300,0.3,1.4\n600,0.6,2.5\n"

#: a small valid invocation of each command; {spec}, {uncertain}, {results}, {measured}, {out}
#: (a new path each time) are filled in
BASE = {
    "sweep": ["{spec}", "-o", "{out}.h5", "-q"],
    "run": ["{spec}"],
    "plot": ["{results}", "-o", "{out}.png"],
    "info": ["{results}"],
    "scenarios": [],
    "reproduce": ["mm1-demo", "--ios", "500", "--replications", "2"],
    "validate": ["{spec}"],
    "compare": ["mm1-demo", "mm1-demo:rho90", "--ios", "500", "--replications", "3"],
    "schema": [],
    "table": ["{results}"],
    "report": ["{results}", "-o", "{out}.html"],
    "headroom": ["mm1-demo", "--target", "response_ms <= 3", "--ios", "500", "--replications", "3",
                 "--samples", "0"],
    "uncertain": ["{uncertain}", "--ios", "300", "--replications", "2", "--samples", "4"],
    "calibrate": ["--scenario", "mm1-demo", "--measured", "{measured}", "--params", "none", "--ios", "500",
                  "--replications", "2", "--noise-seeds", "0", "--max-evals", "2", "-q"],
    "isfc plan": ["--chpids", "3C,3D", "--devices", "4", "--systems", "LPAR1,LPAR2", "--ios-per-device", "200",
                  "--replications", "2", "--no-verify"],
    "isfc run": ["--systems", "LPAR1,LPAR2", "--layout", "3C=D000-D002", "--ios-per-device", "200",
                 "--replications", "2"],
    "isfc generations": [],
    "hardware": [],
    "base": ["{esamon}", "--ios", "300", "--replications", "2", "-o", "{out}.toml"],
}
#: commands whose exit code 1 means a result (a figure out of tolerance), not a failure
EXIT_1_IS_A_RESULT = {"reproduce"}

INT_EDGES = ["0", "-1", "1", "2147483648", "9223372036854775808", "10" * 15, "x", "1.5", ""]
FLOAT_EDGES = ["0", "-1", "nan", "inf", "-inf", "1e308", "5e-324", "x", ""]
TEXT_EDGES = ["", "x", "a\x00b", "\x1b[2J", "-1", "nan", "{dir}", "/dev/null", "{dir}/missing/x", "mm1-demo",
              "é" * 3, "x" * 5000]
#: --dask: only values that must be refused (a valid one starts a cluster: tests/test_dask_sweep.py)
DASK_EDGES = ["", "x", "local:0", "local:-1", "local:99999999", "local:x", "tcp://", "tls://[::1"]


def commands(group=main, path=()):
    """(command path, click command) of every command of ``group``, subgroups included."""
    for name, cmd in sorted(group.commands.items()):
        if isinstance(cmd, click.Group):
            yield from commands(cmd, path + (name,))
        else:
            yield " ".join(path + (name,)), cmd


def edges(param) -> list:
    """The edge values of ``param`` (None: a flag, given)."""
    if isinstance(param, click.Option) and param.is_flag:
        return [None]
    if param.name == "dask":
        return DASK_EDGES
    t = param.type
    if isinstance(t, click.Choice):
        return list(t.choices) + ["not-a-choice", ""]
    if isinstance(t, click.types.IntParamType):
        return INT_EDGES
    if isinstance(t, click.types.FloatParamType):
        return FLOAT_EDGES
    return TEXT_EDGES


def cases() -> list:
    out = []
    for path, cmd in commands():
        for k, p in enumerate(cmd.params):
            if isinstance(p, click.Option) and p.name == "help":
                continue
            vals = edges(p)
            if not FULL and len(vals) > CI_EDGES:
                vals = [vals[(k * CI_EDGES + j) % len(vals)] for j in range(CI_EDGES)]
            out += [(path, p.name, i, v) for i, v in enumerate(vals)]
    return out


def _option_name(p) -> str:
    longs = [o for o in p.opts if o.startswith("--")]
    return longs[0] if longs else p.opts[0]


def invocation(path: str, pname: str, value, files: dict) -> list[str]:
    """The base invocation of ``path`` with parameter ``pname`` set to ``value``."""
    cmd = dict(commands())[path]
    param = next(p for p in cmd.params if p.name == pname)
    fill = {k: str(v) for k, v in files.items()}
    fill["out"] = str(files["dir"] / f"out{next(_COUNTER)}")
    args = [a.format(**fill) for a in BASE[path]]
    value = None if value is None else value.format(**fill) if "{" in value else value
    if isinstance(param, click.Argument):
        positions = [i for i, a in enumerate(args) if not a.startswith("-") and (i == 0 or not args[i - 1].startswith("-")
                                                                                 or _is_flag(cmd, args[i - 1]))]
        k = [p for p in cmd.params if isinstance(p, click.Argument)].index(param)
        if k < len(positions):
            args[positions[k]] = value
        else:
            args.insert(0, value)     # (an optional argument the base leaves out)
        return args
    # an option: drop the base's own occurrences (and their values), then give it
    names = set(param.opts) | set(param.secondary_opts)
    kept, i = [], 0
    while i < len(args):
        if args[i] in names:
            i += 1 if (param.is_flag or _is_flag(cmd, args[i])) else 2
            continue
        kept.append(args[i])
        i += 1
    return kept + ([_option_name(param)] if value is None else [_option_name(param), value])


def _is_flag(cmd, opt: str) -> bool:
    for p in cmd.params:
        if isinstance(p, click.Option) and (opt in p.opts or opt in p.secondary_opts):
            return p.is_flag
    return False


_COUNTER = iter(range(10**9))


class _Announced(BaseException):
    """A run estimated beyond a few minutes: announced (McioWarning), not run by the fuzzer."""


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    from mcio.batch import sweep
    d = tmp_path_factory.mktemp("fuzzcli")
    (d / "spec.toml").write_text(SPEC)
    (d / "uncertain.toml").write_text(UNCERTAIN)
    (d / "measured.csv").write_text(MEASURED)
    sweep(str(d / "spec.toml"), out=str(d / "results.h5"))
    esamon = Path(__file__).parent / "data" / "measured" / "esamon_seed002.txt"
    return {"dir": d, "esamon": esamon, "spec": d / "spec.toml", "uncertain": d / "uncertain.toml", "measured": d / "measured.csv",
            "results": d / "results.h5"}


def _fresh_dir(files):
    """A new empty directory for one case to run in (what it writes by a relative name, e.g. an
    output called "mm1-demo", must not become the next case's input)."""
    d = files["dir"] / f"cwd{next(_COUNTER)}"
    d.mkdir()
    return d


@pytest.fixture
def announced_is_not_run(monkeypatch):
    """A McioWarning that a run is large stops the command (raised past the CLI's handlers); a
    run is "large" here from :data:`ANNOUNCE_AFTER_S` on, so that one that runs past the hang
    guard was estimated at least HANG_GUARD_S / ANNOUNCE_AFTER_S times too short."""
    from mcio.batch import estimates
    monkeypatch.setattr(estimates, "WARN_AFTER_S", ANNOUNCE_AFTER_S)
    real = warnings.warn

    def warn(message, category=None, stacklevel=1, **kw):
        m = message if isinstance(message, Warning) else None
        if (isinstance(m, McioWarning) or (category is McioWarning)) and " is large: " in str(message):
            raise _Announced(str(message))
        return real(message, category, stacklevel + 1, **kw)
    monkeypatch.setattr(warnings, "warn", warn)


def run_case(path: str, pname: str, value, files: dict) -> str:
    """'refused', 'ran' or 'announced'; anything else raises. (Run from the cases' own directory:
    a relative output name such as "x" is written there.)"""
    import numba
    threads = numba.get_num_threads()
    args = path.split() + invocation(path, pname, value, files)
    box = {}

    def go():
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                box["r"] = CliRunner().invoke(main, args)
            box["numeric"] = sorted({f"{w.category.__name__}: {w.message}" for w in caught
                                     if issubclass(w.category, RuntimeWarning)})
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            box["e"] = e
    t = threading.Thread(target=go, daemon=True)
    t.start()
    t.join(HANG_GUARD_S)
    try:
        if t.is_alive():
            interrupt.request()
            raise AssertionError(f"hung: mcio {' '.join(map(repr, args))}")
    finally:
        numba.set_num_threads(threads)       # (--threads changes the process's thread count)
    if isinstance(box.get("e"), _Announced):
        return "announced"
    if "e" in box:
        raise box["e"]
    r = box["r"]
    what = f"mcio {' '.join(map(repr, args))}: exit {r.exit_code}\n{r.stderr[-2000:]}"
    if isinstance(r.exception, _Announced):
        return "announced"
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, what
    assert r.exception is None or isinstance(r.exception, SystemExit), (what, repr(r.exception))
    if r.exit_code == 2:
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("mcio: error: "), what
        return "refused"
    assert r.exit_code == 0 or (r.exit_code == 1 and path in EXIT_1_IS_A_RESULT), what
    if box.get("numeric"):   # (NumPy's overflow / invalid-value warnings: a figure may be nonsense)
        NUMERIC_WARNINGS.append((" ".join(map(repr, args)), box["numeric"]))
    return "ran"


#: runs that ended normally with NumPy warnings on the way (counted among the sensible, shown)
NUMERIC_WARNINGS: list = []
CASES = cases()


def test_every_command_has_a_base_invocation_and_every_parameter_is_fuzzed():
    paths = [p for p, _ in commands()]
    assert sorted(paths) == sorted(BASE), set(paths) ^ set(BASE)
    fuzzed = {(p, n) for p, n, _, _ in CASES}
    every = {(p, q.name) for p, c in commands() for q in c.params if q.name != "help"}
    assert fuzzed == every


@pytest.mark.parametrize("path", sorted(BASE))
def test_each_base_invocation_runs(path, files, monkeypatch):
    """(else every fuzzed case of the command would be refused for another reason)"""
    monkeypatch.chdir(_fresh_dir(files))
    fill = {k: str(v) for k, v in files.items()}
    fill["out"] = str(files["dir"] / f"base{next(_COUNTER)}")
    r = CliRunner().invoke(main, path.split() + [a.format(**fill) for a in BASE[path]])
    assert r.exit_code == 0 or (r.exit_code == 1 and path in EXIT_1_IS_A_RESULT), (r.exit_code, r.stderr[-2000:])


@pytest.mark.parametrize("path, pname, i, value", CASES, ids=[f"{p}:{n}:{i}" for p, n, i, _ in CASES])
def test_every_option_of_every_command_is_refused_in_one_line_or_runs(path, pname, i, value, files,
                                                                       announced_is_not_run, monkeypatch):
    monkeypatch.chdir(_fresh_dir(files))
    try:
        OUTCOMES[run_case(path, pname, value, files)] += 1
    except BaseException:
        OUTCOMES["other"] += 1
        raise


def figures() -> str:
    return (f"{sum(OUTCOMES.values())} tried: {OUTCOMES['refused']} clean errors, "
            f"{OUTCOMES['ran'] + OUTCOMES['announced']} sensible ({OUTCOMES['ran']} ran, of which "
            f"{len(NUMERIC_WARNINGS)} with NumPy warnings, {OUTCOMES['announced']} "
            f"announced as large), {OUTCOMES['other']} anything else; "
            f"{len({(p, n) for p, n, _, _ in CASES})} parameters of {len(BASE)} commands")


def test_fuzz_cli_figures():
    print(f"\nfuzz cli: {figures()}")
    for args, warned in NUMERIC_WARNINGS:
        print(f"  with NumPy warnings: mcio {args}: {'; '.join(warned)[:300]}")
    assert OUTCOMES["other"] == 0


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q", "-s", "-p", "no:cacheprovider"] + sys.argv[1:]))
