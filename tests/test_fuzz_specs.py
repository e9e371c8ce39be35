"""A fuzzer over sweep specs built from the declared model fields (mcio.model.spec.SECTIONS: each
Field's checker carries its JSON Schema bounds) and every registered scenario's parameters
(mcio.scenarios.SCENARIO_OBJECTS: each Param's default, bounds and choices): in-range, boundary,
out-of-range, edge (0, tiny, huge, nan, inf, negative, NUL text) and ill-typed values for random
fields, scenario parameters, run sizes and sweep axes, given as a Python dict. Each variant must
end in one of two ways: refused with one McioError naming a field (one line: a clean error), or
run to results (sensible) that are finite and within physics' bounds (busy per server in [0, 1],
components summing to the response) where the point is stable and flagged (``unstable`` with its
reason, NaN steady-state figures) where it is not. Anything else (another exception, a non-finite
or impossible stable figure, a run that hangs) fails the test, and hypothesis shrinks it
to a minimal spec.

``MCIO_FUZZ_EXAMPLES`` sets the number of variants (default 300: well under a minute on 2 cores);
``python tests/test_fuzz_specs.py N`` runs N and prints the outcome figures.
"""
from __future__ import annotations

import collections
import os
import sys
import threading
import time

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis") if __name__ != "__main__" else __import__("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from mcio import interrupt  # noqa: E402
from mcio.engine import physics  # noqa: E402
from mcio.errors import McioError  # noqa: E402
from mcio.model.spec import SECTIONS  # noqa: E402
from mcio.sweep import STEADY_STATE_ONLY, WARN_AFTER_S, estimate, load_spec, sweep  # noqa: E402

EXAMPLES = int(os.environ.get("MCIO_FUZZ_EXAMPLES", "300"))
HANG_GUARD_S = 120.0        # one variant's sweep (tiny ios) not returned by then has hung (not a speed check)
from mcio.scenarios import SCENARIO_OBJECTS  # noqa: E402
OUTCOMES: collections.Counter = collections.Counter()
COVERED: set = set()        # model fields and scenario parameters drawn (the figures' coverage)
FIELDS = [(sec, k, f) for sec, fs in SECTIONS.items() for k, f in fs.items()]

# ---- values from a field's schema ----------------------------------------------------------------

ILL_TYPED = st.sampled_from(["x", "", "a\x00b", "\x1b[2J", True, False, [], [1.0], {}, {"a": 1}, float("nan"),
                             float("inf"), -float("inf"), -1, -1e300, 1e300, 2**64, -(2**63) - 1])
#: edge values of a number: zero, the smallest and largest floats, non-finite, negative
EDGES = st.sampled_from([0, 0.0, -0.0, 5e-324, 1e-300, 1e-12, 1e-6, 1e12, 1e300, 1.7976931348623157e308,
                         float("nan"), float("inf"), -float("inf"), -1, -1e-300, 2**62, 2**63, -(2**63)])


def _number(sch: dict, valid: bool):
    lo = sch.get("minimum", sch.get("exclusiveMinimum", 0.0))
    hi = sch.get("maximum", sch.get("exclusiveMaximum", 1e6))
    open_lo, open_hi = "exclusiveMinimum" in sch, "exclusiveMaximum" in sch
    inside = st.floats(min_value=lo, max_value=hi, allow_nan=False, exclude_min=open_lo, exclude_max=open_hi)
    small = st.floats(min_value=max(lo, 1e-3) if open_lo else lo, max_value=min(hi, 10.0))
    ends = st.sampled_from([x for x, ok in ((lo, not open_lo), (hi, not open_hi)) if ok] or [min(hi, 1.0)])
    if valid:
        return st.one_of(small, small, inside, ends)
    edges = st.sampled_from([lo - 1e-9 * max(1.0, abs(lo)), hi * (1 + 1e-9) + 1e-12, -abs(hi) - 1, hi * 10])
    return st.one_of(small, inside, ends, edges, EDGES, ILL_TYPED)


def _integer(sch: dict, valid: bool):
    lo, hi = sch.get("minimum", 0), sch.get("maximum", 10**6)
    ok = st.one_of(st.integers(lo, min(hi, lo + 8)), st.integers(lo, min(hi, 1000)), st.sampled_from([lo, hi]))
    if valid:
        return ok
    return st.one_of(ok, st.sampled_from([lo - 1, hi + 1, 2.0 + lo, 2.5, 2**63]), EDGES, ILL_TYPED)


def _dist(sch: dict, valid: bool):
    kinds = sch["oneOf"][1]["properties"]["dist"]["enum"]
    if valid:
        mean, scv = st.one_of(st.floats(0, 5), st.just(1e9)), st.one_of(st.floats(0, 4), st.just(1e4))
        vals = st.lists(st.floats(0, 5), min_size=1, max_size=4)
        emp = vals.flatmap(lambda v: st.fixed_dictionaries({
            "dist": st.just("empirical"), "values": st.just(v),
            "weights": st.lists(st.floats(0.01, 3), min_size=len(v), max_size=len(v))}))
        param = st.fixed_dictionaries({"dist": st.sampled_from([k for k in kinds if k != "empirical"]),
                                       "mean": mean}, optional={"scv": scv})
        return st.one_of(st.floats(0, 5), st.just(1e9), param, emp)
    mean = st.one_of(st.floats(0, 5), st.sampled_from([0.0, 1e9, 1e9 * 1.01, -1.0, float("nan")]), EDGES)
    scv = st.one_of(st.floats(0, 4), st.sampled_from([0.0, 1e4, 1e4 + 1, -0.5, 5e-324, 1e-300]), EDGES)
    vals = st.lists(st.one_of(st.floats(0, 5), st.sampled_from([-1.0, 2e9, 5e-324, 1e308])), min_size=0, max_size=4)
    as_dict = st.fixed_dictionaries({"dist": st.one_of(st.sampled_from(kinds), st.just("weibull"))},
                                    optional={"mean": mean, "scv": scv, "values": vals, "weights": vals,
                                              "low": st.one_of(st.floats(0, 5), EDGES),
                                              "high": st.one_of(st.floats(0, 20), EDGES), "shape": st.just(2.0)})
    return st.one_of(st.floats(0, 5), mean, as_dict, ILL_TYPED)


def value_for(check, valid: bool = False):
    """Values for a field with checker ``check``: ``valid`` ones within its schema (edges
    included), else a mix of those, just-outside values and ill-typed ones."""
    sch = getattr(check, "schema", {})
    if "enum" in sch:
        ok = st.sampled_from(sch["enum"])
        return ok if valid else st.one_of(ok, st.sampled_from(["bogus", 1, None]))
    if "oneOf" in sch:
        return _dist(sch, valid)
    t = sch.get("type")
    if t == "number":
        return _number(sch, valid)
    if t == "integer":
        return _integer(sch, valid)
    if t == "string":
        return st.text(max_size=8) if valid else st.one_of(st.text(max_size=8), ILL_TYPED,
                                                              st.sampled_from(["a\x00", "\ud800", "x" * 20_000]))
    if t == "array":
        item = sch.get("items", {})
        if item.get("type") == "array":      # device paths: lists of channel indices
            elem = st.lists(st.integers(0 if valid else -1, 2), min_size=1 if valid else 0, max_size=3,
                            unique=valid)
        elif valid:                          # arrival traces (increasing) and device weights
            return st.lists(st.floats(0.01, 50), min_size=2, max_size=6).map(lambda v: list(np.cumsum(v)))
        else:
            elem = st.one_of(st.floats(0, 10), st.sampled_from([-1.0, float("nan")]))
        return st.lists(elem, min_size=0, max_size=5) if valid else \
            st.one_of(st.lists(elem, min_size=0, max_size=5), ILL_TYPED)
    return ILL_TYPED


# ---- specs -----------------------------------------------------------------------------------------


def param_value(p, valid: bool):
    """Values for scenario parameter ``p`` (a :class:`mcio.scenarios.base.Param`): of its kind,
    within its bounds and choices when ``valid``, else a mix of those, edges and ill-typed ones."""
    v = p.value
    if p.choices is not None:
        ok = st.sampled_from(list(p.choices))
    elif isinstance(v, bool):
        ok = st.booleans()
    elif isinstance(v, (int, float)) or v is None:
        lo, hi = p.bounds or (None, None)
        lo = 0.0 if lo is None else lo
        top = hi if hi is not None else (10.0 * v if isinstance(v, (int, float)) and v > 0 else 1e3)
        ints = isinstance(v, int)
        ok = (st.integers(int(lo), int(max(lo, min(top, lo + 50)))) if ints else
              st.one_of(st.floats(lo, max(lo, top), allow_nan=False), st.sampled_from([lo, top])))
        if v is not None:
            ok = st.one_of(ok, st.just(v))
    elif isinstance(v, str):
        ok = st.just(v)
    else:
        ok = st.just(v if not isinstance(v, tuple) else list(v))
    if valid:
        return ok
    return st.one_of(ok, EDGES, ILL_TYPED, st.sampled_from(["a\x00b", "", "bogus"]))


SCENARIO_PARAMS = [(name, p) for name, sc in SCENARIO_OBJECTS.items() for p in sc.params]


@st.composite
def scenario_specs(draw):
    """A scenario spec: a few of its parameters set (or variants of them), a small run."""
    name = draw(st.sampled_from(sorted(SCENARIO_OBJECTS)))
    sc = SCENARIO_OBJECTS[name]
    valid = draw(st.booleans())
    params = {}
    for _ in range(draw(st.integers(0, 3))):
        p = draw(st.sampled_from(sc.params))
        params[p.name] = draw(param_value(p, valid))
        COVERED.add(f"{name}:{p.name}")
    if draw(st.integers(0, 9)) == 0:
        params[draw(st.sampled_from(["nosuch", "rate", "workload.rate_iops", "devices.zipf_s"]))] = 1.0
    spec = {"title": draw(st.sampled_from(["fuzz", "fuzz\x1b[31m", "a\x00b"])) if not valid else "fuzz",
            "scenario": name, "run": {"replications": 2, "ios": draw(st.integers(1, 200)),
                                      "warmup": draw(st.integers(0, 50)), "seed": draw(st.integers(0, 2**63 - 1))}}
    if params:
        spec["scenario_params"] = params
    if draw(st.integers(0, 3)) == 0:
        p = draw(st.sampled_from(sc.params))
        spec["variants"] = {"a": {}, "b": {p.name: draw(param_value(p, valid))}}
    return spec


@st.composite
def specs(draw):
    if draw(st.integers(0, 2)) == 0:   # a third: a scenario and its parameters
        return draw(scenario_specs())
    open_load = draw(st.booleans())
    workload = ({"type": "open", "rate_iops": draw(st.sampled_from([50.0, 500.0, 5000.0]))} if open_load else
                {"type": "closed", "population": draw(st.integers(1, 16))})
    model = {"workload": workload,
             "io": [{"kb": 4.0}],
             "devices": {"count": draw(st.integers(1, 8))},
             "channels": {"count": draw(st.integers(1, 3))},
             "control_unit": {"ha_service_us": 20.0}}
    if draw(st.booleans()):
        model["io"].append({"kb": 16.0, "share": 0.3, "miss_ratio": 0.2})
    valid = draw(st.booleans())  # half the variants draw only in-schema values (extremes included)
    for _ in range(draw(st.integers(1, 4))):
        sec, key, field = draw(st.sampled_from(FIELDS))
        value = draw(value_for(field.check, valid))
        COVERED.add(f"{sec}.{key}")
        if sec == "io":
            model["io"][draw(st.integers(0, len(model["io"]) - 1))][key] = value
        else:
            model[sec][key] = value
    if draw(st.integers(0, 9)) == 0:  # a misspelt key
        sec = draw(st.sampled_from(list(model)))
        target = model[sec][0] if sec == "io" else model[sec]
        target[draw(st.sampled_from(["count_", "rate", "kbs", "populaton"]))] = 1
    run = {"replications": draw(st.integers(2, 3)), "ios": draw(st.integers(30, 300)),
           "warmup": draw(st.integers(0, 100)), "seed": draw(st.integers(0, 2**63 - 1))}
    if draw(st.integers(0, 4)) == 0:  # an extreme or ill-typed run size
        key = draw(st.sampled_from(sorted(run)))
        run[key] = draw(st.sampled_from([0, 1, -1, 10_001, 2**62, 2**63 - 1, 2**63, 2.5, "10", True, None,
                                         np.int64(40), np.float64(50.0)]))
    spec = {"title": "fuzz", "model": model, "run": run}
    axes = {}
    for _ in range(draw(st.integers(0, 2))):
        sec, key, field = draw(st.sampled_from([f for f in FIELDS if getattr(f[2].check, "schema", {}).get("type")
                                                 in ("number", "integer")] + [("workload", "nosuch", None)]))
        dotted = f"io.0.{key}" if sec == "io" else f"{sec}.{key}"
        if draw(st.booleans()) and field is not None:
            axes[dotted] = draw(st.lists(value_for(field.check, valid), min_size=0 if not valid else 1, max_size=3,
                                         unique_by=repr))
        else:
            axes[dotted] = {"start": draw(st.sampled_from([0, 1, 2.5, -1, float("nan")])),
                            "stop": draw(st.sampled_from([0, 3, 10, 1e9])),
                            "num": draw(st.sampled_from([1, 2, 3, 0, -2, 2.5, 10**9])),
                            "log": draw(st.sampled_from([False, True, "yes"]))}
    if axes:
        spec["sweep"] = axes
    return spec


# ---- the check -------------------------------------------------------------------------------------


def _sweep_or_hung(s):
    """sweep(s) in a thread; one still running after HANG_GUARD_S fails the variant as hung."""
    box = {}

    def run():
        try:
            box["ds"] = sweep(s)
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = e

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(HANG_GUARD_S)
    if worker.is_alive():
        interrupt.request()          # let the kernels return, if they poll
        raise AssertionError(f"hung: the sweep did not return within {HANG_GUARD_S:.0f} s")
    if "error" in box:
        raise box["error"]
    return box["ds"]


def check_variant(spec: dict) -> str:
    """'refused' or 'ran'; anything else raises."""
    try:
        s = load_spec(spec)
    except McioError as e:
        assert isinstance(e.field, str) and e.field, repr(e)
        assert "\n" not in str(e), str(e)
        return "refused"
    assert s.n_points <= 9, s.n_points  # the fuzzer's own bound (lists of <= 3 values, <= 2 axes)
    if spec["run"].get("ios", 0) is None and s.run["ios"] > 20_000:
        s.run["ios"] = 300  # the default run size (ios = None): ordinary, so run, at the fuzzer's size
    if s.run["ios"] > 20_000:  # an accepted extreme run size (e.g. ios = 2**62): announced, not run here
        assert estimate(s).seconds > WARN_AFTER_S, s.run
        return "warned"
    try:
        ds = _sweep_or_hung(s)
    except McioError as e:  # refused at run time: validate should have caught it
        raise AssertionError(f"run refused what load accepted: {e}") from None
    unstable = np.asarray(ds["unstable"].values).astype(bool)
    reason = np.asarray(ds["unstable_reason"].values)
    assert ((reason != "") == unstable).all(), (unstable, reason)
    for name in ("response_ms", "throughput_iops", "response_ci95_ms", "device_busy", "ios_measured"):
        v = np.asarray(ds[name].values, dtype=float)
        stable = v[~unstable] if v.shape[:unstable.ndim] == unstable.shape else v
        assert np.isfinite(stable).all(), (name, v)
    for name in ("response_ms", "response_quantile_ms") + STEADY_STATE_ONLY[:1]:
        assert np.isnan(np.asarray(ds[name].values)[unstable]).all(), name
    # physics at a stable point: busy per server in [0, 1], components summing to the response
    def stable_of(name):
        v = np.asarray(ds[name].values, dtype=float)
        return v[~unstable] if v.shape[:unstable.ndim] == unstable.shape else v
    for name in ("channel_busy", "link_busy", "cu_ha_busy", "backend_busy"):
        v = stable_of(name)
        # (NaN: a channel this point does not have, in a grid over channels.count)
        assert ((v >= -1e-9) & (v <= 1 + physics.MAX_EDGE + 1e-9) | np.isnan(v)).all(), (name, v)
    total = sum(stable_of(c) for c in ("iosq_ms", "pend_ms", "disconnect_ms", "connect_ms"))
    assert np.allclose(total, stable_of("response_ms"), rtol=1e-6, atol=1e-12, equal_nan=True), "components"
    return "ran"


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(specs())
def test_every_variant_is_refused_by_field_or_runs_to_flagged_finite_results(spec):
    try:
        OUTCOMES[check_variant(spec)] += 1
    except BaseException:
        OUTCOMES["other"] += 1
        raise


# ---- every field and scenario parameter at its edges (systematic) --------------------------------

#: the edge values every field and parameter is tried with: zero, tiny, huge, non-finite,
#: negative, wrong type, NUL text
EDGE_VALUES = (0, 5e-324, 1e-300, 1e300, 1.7976931348623157e308, float("nan"), float("inf"), -float("inf"),
               -1, "x", True, [1.0], {}, "a\x00b")
DIST_EDGES = ({"dist": "uniform", "low": 0.0, "high": 1e308}, {"dist": "uniform", "low": 0.0, "high": 5e-324},
              {"dist": "gamma", "mean": 1.0, "scv": 5e-324}, {"dist": "lognormal", "mean": 5e-324, "scv": 1e4},
              {"dist": "empirical", "values": [0.0, 1e9], "weights": [1e300, 5e-324]},
              {"dist": "exponential", "mean": 1e9}, {"dist": "empirical", "values": [5e-295], "weights": [0.72]},
              {"dist": "empirical", "values": [1.0, 2.0], "weights": [1e308, 1e308]})
#: edges per field in CI (rotating over the list by the field's place); all with MCIO_FUZZ_EXAMPLES >= 1000
CI_EDGES = 3
FULL = EXAMPLES >= 1000


def _edges(i: int, dist: bool) -> list:
    vals = list(EDGE_VALUES) + (list(DIST_EDGES) if dist else [])
    if FULL:
        return vals
    return [vals[(i * CI_EDGES + k) % len(vals)] for k in range(CI_EDGES)]


def _field_spec(sec: str, key: str, value) -> dict:
    """A small model where field ``sec.key`` counts (mcio/model/effect.py), set to ``value``."""
    from mcio.model import effect
    frag: dict = {"workload": {"type": "open", "rate_iops": 200.0}, "io": [{"kb": 4.0, "miss_ratio": 0.5}],
                  "devices": {"count": 2}, "channels": {"count": 1}, "control_unit": {"ha_service_us": 20.0}}
    for c in effect.EFFECT[f"{sec}.{key}"]:
        for s, sub in c.counts_under.items():
            if s == "io":
                frag["io"][0].update(sub[0])
            else:
                frag.setdefault(s, {}).update(sub)
    if frag["workload"]["type"] == "closed":
        frag["workload"].pop("rate_iops", None)
    if frag["devices"].get("geometry", "emulated") != "emulated":
        frag["workload"]["rate_iops"] = 20.0
    target = frag["io"][0] if sec == "io" else frag.setdefault(sec, {})
    target[key] = value
    return {"title": "edge", "model": frag, "run": {"replications": 2, "ios": 50, "warmup": 10, "seed": 1}}


def _param_spec(scenario: str, name: str, value) -> dict:
    """Scenario ``scenario`` with parameter ``name`` set to ``value`` (and the option it counts under)."""
    sc = SCENARIO_OBJECTS[scenario]
    params = {name: value}
    for c in sc.param_effect.get(name, ()):
        params.setdefault(c.param, c.counts_with)
    if scenario == "ficon-channel" and params.get("load") == "open":
        params.setdefault("rate_iops", 1000.0)
    return {"title": "edge", "scenario": scenario, "scenario_params": params,
            "run": {"replications": 2, "ios": 50, "warmup": 10, "seed": 1}}


EDGE_CASES = ([("field", f"{sec}.{key}", i) for i, (sec, key, _) in enumerate(FIELDS)]
              + [("param", f"{sc}:{p.name}", i) for i, (sc, p) in enumerate(SCENARIO_PARAMS)])


@pytest.mark.parametrize("kind, name, i", EDGE_CASES, ids=[n for _, n, _ in EDGE_CASES])
def test_every_field_and_scenario_parameter_at_its_edges_is_refused_by_field_or_runs(kind, name, i):
    if kind == "field":
        sec, key = name.split(".")
        dist = "oneOf" in getattr(SECTIONS[sec][key].check, "schema", {})
        specs_ = [_field_spec(sec, key, v) for v in _edges(i, dist)]
    else:
        sc, key = name.split(":")
        specs_ = [_param_spec(sc, key, v) for v in _edges(i, False)]
    for spec in specs_:
        COVERED.add(name)
        try:
            OUTCOMES[check_variant(spec)] += 1
        except BaseException:
            OUTCOMES["other"] += 1
            raise


def figures() -> str:
    """tried / clean error / sensible (ran, or accepted with a size warning) / anything else, and
    the coverage of model fields and scenario parameters."""
    n_fields = sum(len(fs) for fs in SECTIONS.values())
    got_f = sum(1 for c in COVERED if ":" not in c)
    got_p = sum(1 for c in COVERED if ":" in c)
    return (f"{sum(OUTCOMES.values())} tried: {OUTCOMES['refused']} clean errors, "
            f"{OUTCOMES['ran'] + OUTCOMES['warned']} sensible ({OUTCOMES['ran']} ran, {OUTCOMES['warned']} "
            f"accepted with a size warning), {OUTCOMES['other']} anything else; drew {got_f} of {n_fields} model "
            f"fields, {got_p} of {len(SCENARIO_PARAMS)} scenario parameters")


def test_fuzz_figures():
    """The outcome figures of the run above (printed with -s); both kinds occur, nothing else."""
    if sum(OUTCOMES.values()) == 0:
        # run on its own (e.g. -k fuzz_figures): run the fuzz test here, so the figures exist
        test_every_variant_is_refused_by_field_or_runs_to_flagged_finite_results()
    print(f"\nfuzz: {figures()}")
    assert OUTCOMES["other"] == 0
    assert OUTCOMES["refused"] > 0 and OUTCOMES["ran"] > 0


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else EXAMPLES
    t0 = time.perf_counter()
    other = []

    @settings(max_examples=n, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(specs())
    def _run(spec):
        try:
            OUTCOMES[check_variant(spec)] += 1
        except Exception as e:  # noqa: BLE001 - counted and shown, not shrunk
            OUTCOMES["other"] += 1
            other.append((spec, f"{type(e).__name__}: {e}"))

    _run()
    print(f"in {time.perf_counter() - t0:.0f} s: {figures()}")
    for spec, err in other[:10]:
        print(" ", err[:300], "\n   ", spec)
