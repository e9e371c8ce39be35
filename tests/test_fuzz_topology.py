"""The fuzzer over ``[topology]`` (issue 33 on issue 28's configuration as data): every field of
every element (mcio.model.topology.FIELDS, so a new field is covered as soon as it is declared)
and ``topology.load_scale``, set on a small valid configuration (2 channels on 1 card, 2
directors joined by 1 ISL, 1 control unit with 1 LCU, 1 workload with 1 I/O class) to edge
values by its type (zero, tiny, huge, negative, nan, inf, wrong type, empty and NUL text, unknown
names, references to missing elements, duplicates), and structural variants (elements missing,
duplicated, not tables, unknown keys). Each case ends in one of two ways: refused with one
McioError on one line naming a ``topology...`` field (the mutated field itself when its own
checker refuses the value), or run (tests/test_fuzz_specs.py's check_variant: a tiny sweep,
finite figures within physics' bounds at stable points, flagged ones otherwise, no hang).

``MCIO_FUZZ_EXAMPLES`` (as tests/test_fuzz_specs.py): below 1000 (CI) a rotating subset of the
edge values per field and that many random multi-field variants / 10; at 1000 or more every edge
value of every field and that many random variants. ``python tests/test_fuzz_topology.py N``
runs them all (N random variants) and prints the outcome figures.
"""
from __future__ import annotations

import collections
import copy
import os
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
hypothesis = pytest.importorskip("hypothesis") if __name__ != "__main__" else __import__("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from mcio.errors import McioError  # noqa: E402
from mcio.model import topology  # noqa: E402
from mcio.model.spec import SECTIONS  # noqa: E402
from test_fuzz_specs import check_variant, value_for  # noqa: E402

EXAMPLES = int(os.environ.get("MCIO_FUZZ_EXAMPLES", "300"))
FULL = EXAMPLES >= 1000
OUTCOMES: collections.Counter = collections.Counter()


def base(closed: bool = False) -> dict:
    """The small valid configuration every case starts from (channel A crosses the ISL); its
    workload open (rate_iops) or ``closed`` (population)."""
    raw = {"topology": {
        "load_scale": 1.0,
        "card": [{"name": "C1", "max_iops": 50_000.0, "max_mb_s": 1300.0}],
        "director": [{"name": "DA"}, {"name": "DB"}],
        "isl": [{"name": "I1", "between": ["DA", "DB"], "count": 1, "mb_s": 800.0}],
        "channel": [{"name": "A", "generation": "8S", "card": "C1", "director": "DA"},
                    {"name": "B", "link_mb_s": 400.0, "card": "C1", "director": "DB"}],
        "control_unit": [{"name": "CU1", "director": "DB", "ha_servers": 4, "ha_service_us": 20.0,
                          "lcu": [{"name": "L1", "devices": 4, "channels": ["A", "B"]}]}],
        "workload": [{"name": "W", "rate_iops": 500.0, "io": [{"name": "r", "kb": 4.0, "miss_ratio": 0.2}]}]}}
    if closed:
        del raw["topology"]["workload"][0]["rate_iops"]
        raw["topology"]["workload"][0]["population"] = 4
    return raw


#: where each element kind's first instance sits in base()
WHERE = {"card": ("card", 0), "channel": ("channel", 0), "director": ("director", 0), "isl": ("isl", 0),
         "control_unit": ("control_unit", 0), "lcu": ("control_unit", 0, "lcu", 0),
         "workload": ("workload", 0), "io": ("workload", 0, "io", 0)}
#: (kind, field) for every declared field (elements' sub-arrays included), and load_scale
FIELDS = [(kind, k) for kind, fs in topology.FIELDS.items() for k in fs] + [(None, "load_scale")]
#: fields that name other elements (or a catalogue entry): edge values include unknown names
REFS = {"card": "C1", "director": "DA", "generation": "8S"}


def path_of(kind, key, index=0) -> str:
    if kind is None:
        return f"topology.{key}"
    parts, s = WHERE[kind], "topology"
    for j in range(0, len(parts), 2):
        s += f".{parts[j]}[{index if j == len(parts) - 2 else parts[j + 1]}]"
    return f"{s}.{key}"


def element(raw: dict, kind, index=0) -> dict:
    node = raw["topology"]
    parts = WHERE[kind]
    for j in range(0, len(parts), 2):
        node = node[parts[j]][index if j == len(parts) - 2 else parts[j + 1]]
    return node


# ---- edge values by the field's type (its checker's schema) ---------------------------------------

NUMBER_EDGES = [0, 0.0, -0.0, 5e-324, 1e-300, 1e-12, 1e-3, 1e6, 1e12, 1e300, 1.7976931348623157e308,
                float("nan"), float("inf"), -float("inf"), -1, -1e-300, 2**63, "1", True, None, [1.0]]
INTEGER_EDGES = [0, 1, 2, 7, 8, 9, 255, 256, 257, 1024, 1025, 100_000, 10**6, 2**31, 2**63, -1, 2.0, 2.5,
                 float("nan"), float("inf"), "2", True, None, [1]]
TEXT_EDGES = ["", " ", "a\x00b", "\ud800", "x" * 20_000, "\x1b[2J", "nosuch", 1, 1.5, True, None, [], ["A"]]
NAME_EDGES = ["A", "B", "C1", "DA", "DB", "CU1", "L1", "W", "A.0"]          # existing names: duplicates
LIST_EDGES = [[], ["nosuch"], ["A", "A"], ["A"] * 9, ["A", "B", "C"], [1, 2], [["A"]], "A", 1, None, {},
              ["a\x00b"], ["DA", "DA"], ["DB", "DA"], ["DA", "nosuch"], ["DA", "DB", "DA"], ["L1", "L1"], ["L1"]]
DIST_EDGES = [0.0, 1e9, 1e9 * 1.01, -1.0, float("nan"), {"dist": "uniform", "low": 0.0, "high": 1e308},
              {"dist": "gamma", "mean": 1.0, "scv": 5e-324}, {"dist": "lognormal", "mean": 5e-324, "scv": 1e4},
              {"dist": "exponential", "mean": 1e9}, {"dist": "empirical", "values": [0.0, 1e9], "weights": [1e300, 5e-324]},
              {"dist": "weibull"}, {"dist": "exponential"}, {}, "x", [1.0]]
TABLES_EDGES = [[], {}, [{}], "x", 1, None, [[]], ["x"]]      # an element's sub-array (lcu, io)


def edges(kind, key) -> list:
    """Every edge value tried for field ``key`` of ``kind`` (None: topology.load_scale)."""
    if kind is None:
        return NUMBER_EDGES + [1e5, 1e6, 1.0000001e6]
    check = topology.FIELDS[kind][key][0]
    sch = getattr(check, "schema", {}) if check is not None else None
    if sch is None:
        return TABLES_EDGES
    if "enum" in sch:
        return list(sch["enum"]) + ["bogus", "", "a\x00b", 1, None, True]
    if "oneOf" in sch:
        return DIST_EDGES
    t = sch.get("type")
    if t == "number":
        hi = sch.get("maximum", sch.get("exclusiveMaximum"))
        return NUMBER_EDGES + ([hi, hi * (1 + 1e-9)] if hi is not None else [])
    if t == "integer":
        return INTEGER_EDGES
    if t == "array":
        return LIST_EDGES
    extra = [REFS[key], "nosuch", REFS[key].lower()] if key in REFS else []
    return TEXT_EDGES + (NAME_EDGES if key == "name" else []) + extra


# ---- structural variants: elements missing, duplicated, not tables, unknown keys ------------------

STRUCT = ["drop", "duplicate", "copy_renamed", "not_table", "unknown_key", "empty_array", "as_table"]


def structural(raw: dict, kind: str, how: str) -> str:
    """Apply structural change ``how`` to the array holding ``kind``'s elements; its path."""
    parts = WHERE[kind]
    node = raw["topology"]
    for j in range(0, len(parts) - 2, 2):
        node = node[parts[j]][parts[j + 1]]
    key = parts[-2]
    arr = node.get(key, [])
    where = f"{path_of(kind, 'x').rsplit('[', 1)[0]}"
    if how == "drop" and arr:
        arr.pop(0)
    elif how == "duplicate" and arr:
        arr.append(copy.deepcopy(arr[0]))
    elif how == "copy_renamed" and arr:
        e = copy.deepcopy(arr[0])
        e["name"] = "Z2"
        arr.append(e)
    elif how == "not_table":
        node[key] = [1] if kind not in ("lcu", "io") else ["x"]
    elif how == "unknown_key" and arr:
        arr[0]["nosuch"] = 1
    elif how == "empty_array":
        node[key] = []
    elif how == "as_table" and arr:
        node[key] = arr[0]
    return where


# ---- the check --------------------------------------------------------------------------------------

RUN = {"replications": 2, "ios": 300, "warmup": 50, "seed": 1}


def own_check_refuses(kind, key, value) -> bool:
    """Whether the field's own checker refuses ``value`` (then the error must name the field)."""
    check = (topology.num(lo=0.0, lo_open=True, hi=1e6) if kind is None else topology.FIELDS[kind][key][0])
    if check is None:
        return False
    try:
        check("f", value)
    except McioError:
        return True
    return False


def check_case(raw: dict, must_name: str | None = None) -> str:
    """'refused' (one McioError naming a topology field; ``must_name`` or below it, when given) or
    'ran' / 'warned' (check_variant's run checks); anything else raises."""
    from mcio.model import Model
    spec = {"title": "fuzz", "model": raw, "run": dict(RUN)}
    model = None
    try:
        model = Model.from_dict(copy.deepcopy(raw))
    except McioError as e:
        sections = tuple(raw)           # ("topology", and the legacy sections a variant set)
        assert isinstance(e.field, str) and e.field.startswith(sections), repr(e)
        assert "\n" not in str(e), str(e)
        if must_name is not None:
            assert e.field == must_name or e.field.startswith((must_name + ".", must_name + "[")), \
                f"error names {e.field!r}, not {must_name!r}: {e}"
    outcome = check_variant(spec)       # (load_spec: a None value is unset, as TOML has no null)
    if model is not None:
        check_levels(model)
    return outcome


LEVELS = ("workload_", "control_unit_", "lcu_", "link_", "card_")


def check_levels(model) -> None:
    """The per-level figures a topology adds (check_variant checks the totals): at a stable run,
    finite (card_max_iops / link_rate_mb_s: inf is 'no limit'), non-negative, busy and
    utilisation within [0, 1], each workload's components summing to its response."""
    import numpy as np

    from mcio import simulate
    from mcio.engine import physics
    ds = simulate(model, ios=RUN["ios"], replications=RUN["replications"],
                  seed=RUN["seed"], warmup=RUN["warmup"], allow_unstable=True)
    if int(ds["unstable"]) or not int(ds["warmup_adequate"]):
        return
    for name, var in ds.data_vars.items():
        if not name.startswith(LEVELS):
            continue
        v = np.asarray(var.values, dtype=float)
        if name in ("card_max_iops", "link_rate_mb_s"):
            assert not np.isnan(v).any() and (v > 0).all(), (name, v)
            continue
        assert np.isfinite(v).all() and (v >= -1e-9).all(), (name, v)
        if "busy" in name or "utilization" in name:
            assert (v <= 1 + physics.MAX_EDGE + 1e-9).all(), (name, v)
    w = "workload_"
    total = sum(np.asarray(ds[w + c + "_ms"].values) for c in ("iosq", "pend", "disconnect", "connect"))
    assert np.allclose(total, ds[w + "response_ms"].values, rtol=1e-6, atol=1e-12), "workload components"


def count(fn, *a, **k):
    try:
        OUTCOMES[fn(*a, **k)] += 1
    except BaseException:
        OUTCOMES["other"] += 1
        raise


def field_cases() -> list:
    """(kind, key, value index) of every systematic case; in CI a rotating 4 values per field."""
    out = []
    for i, (kind, key) in enumerate(FIELDS):
        vals = edges(kind, key)
        idx = range(len(vals)) if FULL else sorted({(i * 4 + k) % len(vals) for k in range(4)})
        out += [(kind, key, j) for j in idx]
    return out


CASES = field_cases()


@pytest.mark.parametrize("kind, key, j", CASES, ids=[f"{path_of(k, f)}-{j}" for k, f, j in CASES])
def test_every_topology_field_at_its_edges_is_refused_by_field_or_runs(kind, key, j):
    value = edges(kind, key)[j]
    raw = base(closed=bool(j % 2))
    if kind is None:
        raw["topology"][key] = value
    else:
        element(raw, kind)[key] = value
    must = path_of(kind, key) if own_check_refuses(kind, key, value) else None
    count(check_case, raw, must)


STRUCT_CASES = [(kind, how) for kind in WHERE for how in STRUCT]


@pytest.mark.parametrize("kind, how", STRUCT_CASES, ids=[f"{k}-{h}" for k, h in STRUCT_CASES])
def test_every_topology_element_structurally_broken_is_refused_or_runs(kind, how):
    raw = base()
    structural(raw, kind, how)
    count(check_case, raw)


#: the legacy fields a topology takes defaults from, refuses, or constrains (topology_model.py),
#: then every other legacy field: set in random variants next to the topology
GLUE = sorted({*topology.DEFAULTS.values(), *topology.CONFLICTS, "workload.type", "workload.binding",
               "devices.geometry", "control_unit.miss_policy", "devices.alias_mode", "workload.arrival_scv"})
LEGACY = GLUE + sorted(f"{sec}.{k}" for sec, fs in SECTIONS.items() for k in fs
                       if sec != "io" and f"{sec}.{k}" not in GLUE)


@st.composite
def variants(draw):
    """The base (open or closed) with 1-4 fields of any elements (either channel) set to edge
    values, sometimes a structural change, sometimes legacy fields set next to the topology."""
    raw = base(closed=draw(st.booleans()))
    for _ in range(draw(st.integers(1, 4))):
        kind, key = draw(st.sampled_from(FIELDS))
        value = draw(st.sampled_from(edges(kind, key)))
        if kind is None:
            raw["topology"][key] = value
        else:
            try:
                element(raw, kind, draw(st.integers(0, 1)) if kind == "channel" else 0)[key] = value
            except (KeyError, IndexError, TypeError):
                pass            # an earlier structural change removed it
    if draw(st.integers(0, 4)) == 0:
        try:
            structural(raw, draw(st.sampled_from(list(WHERE))), draw(st.sampled_from(STRUCT)))
        except (KeyError, IndexError, TypeError, AttributeError):
            pass                # an edge value replaced the array it changes
    if draw(st.integers(0, 2)) == 0:
        for _ in range(draw(st.integers(1, 2))):
            dotted = draw(st.one_of(st.sampled_from(GLUE), st.sampled_from(LEGACY)))
            sec, k = dotted.split(".")
            raw.setdefault(sec, {})[k] = draw(value_for(SECTIONS[sec][k].check, valid=draw(st.booleans())))
    if draw(st.integers(0, 9)) == 0:
        raw["io"] = [{"kb": 4.0}]
    return raw


@settings(max_examples=max(1, EXAMPLES // 10) if not FULL else EXAMPLES, deadline=None, derandomize=True,
          database=None, suppress_health_check=list(HealthCheck))
@given(variants())
def test_random_topology_variants_are_refused_by_field_or_run(raw):
    count(check_case, raw)


# ---- what the fuzzer found (regressions) -----------------------------------------------------------

def test_a_required_field_given_as_none_is_required_by_name():
    raw = base()
    raw["topology"]["isl"][0]["between"] = None     # was: TypeError (len of None)
    with pytest.raises(McioError) as e:
        from mcio.model import Model
        Model.from_dict(raw)
    assert e.value.field == "topology.isl[0].between" and "required" in str(e.value)


def test_an_optional_list_given_as_none_is_unset_and_the_model_describes_itself():
    from mcio.model import Model
    raw = base()
    raw["topology"]["channel"][0]["chpids"] = None  # was: TypeError (None is not TOML serializable)
    m = Model.from_dict(raw)
    assert "chpids" not in m.to_dict()["topology"]["channel"][0]
    import tomllib
    assert Model.from_dict(tomllib.loads(m.to_toml())) == m


def figures() -> str:
    return (f"{sum(OUTCOMES.values())} tried: {OUTCOMES['refused']} clean errors, "
            f"{OUTCOMES['ran'] + OUTCOMES['warned']} sensible, {OUTCOMES['other']} anything else; "
            f"{len(FIELDS)} topology fields")


def test_topology_fuzz_figures():
    print(f"\ntopology fuzz: {figures()}")
    assert OUTCOMES["other"] == 0


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else EXAMPLES
    t0 = time.perf_counter()
    other = []

    import test_fuzz_specs
    test_fuzz_specs.HANG_GUARD_S = float(os.environ.get("MCIO_FUZZ_HANG_S", test_fuzz_specs.HANG_GUARD_S))

    last = os.environ.get("MCIO_FUZZ_LAST")       # the case about to run (a crash's reproducer)

    def one(raw, must=None):
        if last:
            with open(last, "w") as f:
                f.write(repr(raw))
        t = time.perf_counter()
        try:
            OUTCOMES[check_case(raw, must)] += 1
        except Exception as e:  # noqa: BLE001 - counted and shown
            OUTCOMES["other"] += 1
            other.append((raw, f"{type(e).__name__}: {e}"))
        if time.perf_counter() - t > 5:
            print(f"slow ({time.perf_counter() - t:.0f} s): {raw!r}"[:1500], flush=True)

    FULL = True
    for i, (kind, key) in enumerate(FIELDS):
        for j, value in enumerate(edges(kind, key)):
            raw = base(closed=bool(j % 2))
            if kind is None:
                raw["topology"][key] = value
            else:
                element(raw, kind)[key] = value
            one(raw, path_of(kind, key) if own_check_refuses(kind, key, value) else None)
    for kind, how in STRUCT_CASES:
        raw = base()
        structural(raw, kind, how)
        one(raw)

    @settings(max_examples=n, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(variants())
    def _run(raw):
        one(raw)

    _run()
    print(f"in {time.perf_counter() - t0:.0f} s: {figures()}")
    for raw, err in other[:15]:
        print(" ", err[:400], "\n   ", repr(raw)[:600])
