"""Headroom to a service target: the largest growth (a factor on the load, or a field's value)
at which every target still holds, with a 95 % confidence interval, found by stochastic root
finding on common random numbers; or, for a field that relieves the load (channels, aliases),
the fewest that meet the targets.

Method (docs/planner.md): every evaluation simulates the model at one growth ``g`` with the same
root seed, so replication r sees the same random numbers at every ``g`` and its figures are a
smooth function ``m_r(g)``. The margin of the targets, ``F_r(g) = max_k (m_rk(g) - T_k) / |T_k|``
(a ``>=`` target with the sign turned), is <= 0 where all hold. Regula falsi (Illinois) on the
mean margin over replications brackets the crossing; two more evaluations either side of it,
a few standard deviations of the replications' own crossings apart, cover where those lie.
Each replication's own crossing ``g_r`` is interpolated between the evaluated points where its
margin changes sign; the ``g_r`` are independent (one per replication), so the answer is their
mean with the Student-t 95 % interval over replications.
"""
from __future__ import annotations

import math
import operator
import re
import time
from dataclasses import dataclass, field

import numpy as np

from ..errors import McioError

#: evaluations a search makes at most, by default (then two more either side of the crossing,
#: and for a closed load one run to measure its rate: MAX_EVALS + 3 simulations in all)
MAX_EVALS = 24
_OPS = {"<=": operator.le, "<": operator.lt, ">=": operator.ge, ">": operator.gt}
#: resource -> busy variable of a simulate() Dataset (the highest names the binding resource)
RESOURCES = {"channel MP": "channel_busy", "link": "link_busy", "control-unit host adapters": "cu_ha_busy",
             "back end": "backend_busy", "device": "device_busy"}
#: figures a target may name (plus response_pNN_ms for a stored quantile)
FIGURES = ("response_ms", "iosq_ms", "pend_ms", "cmr_ms", "disconnect_ms", "connect_ms", "throughput_iops",
           "device_busy", "device_busy_zvm", "channel_busy", "link_busy", "cu_ha_busy", "backend_busy",
           "open_exchanges_mean", "in_system_mean", "iosq_queue_mean", "deferred_iops")


@dataclass(frozen=True)
class Target:
    """``figure op threshold``, e.g. ``response_ms <= 3``."""
    figure: str
    op: str
    threshold: float

    def __str__(self):
        return f"{self.figure} {self.op} {self.threshold:g}"


def parse_target(text: str) -> Target:
    """``"response_ms <= 3"`` -> Target; several may share a string, comma- or 'and'-separated."""
    m = re.fullmatch(r"\s*([A-Za-z_][A-Za-z0-9_.]*)\s*(<=|>=|<|>)\s*([-+0-9.eE]+)\s*", text)
    if not m:
        raise McioError("--target", text, "must read FIGURE OP NUMBER, e.g. 'response_ms <= 3' "
                        "(OP one of <=, <, >=, >)")
    fig, op, num = m.groups()
    try:
        thr = float(num)
    except ValueError:
        raise McioError("--target", text, "the threshold must be a number") from None
    if fig not in FIGURES and not re.fullmatch(r"response_p\d+(\.\d+)?_ms", fig):
        raise McioError("--target", fig, f"not a figure a target can name; allowed: {', '.join(FIGURES)}, "
                        "response_pNN_ms (NN a stored quantile: 50, 90, 95, 99)")
    if not math.isfinite(thr) or thr == 0:
        raise McioError("--target", text, "the threshold must be a finite, non-zero number")
    return Target(fig, op, thr)


def parse_targets(texts) -> list[Target]:
    out = []
    for t in texts:
        for part in re.split(r",|\band\b", t):
            if part.strip():
                out.append(parse_target(part))
    if not out:
        raise McioError("--target", "", "give at least one target, e.g. 'response_ms <= 3'")
    return out


def figure_reps(ds, fig: str) -> np.ndarray:
    """Per-replication values of ``fig`` in a simulate() Dataset (channel figures: the busiest
    channel, or the sum of a rate over channels)."""
    m = re.fullmatch(r"response_p(\d+(?:\.\d+)?)_ms", fig)
    if m:
        q = float(m.group(1)) / 100.0
        levels = np.asarray(ds["quantile"].values, float)
        k = np.flatnonzero(np.isclose(levels, q))
        if not k.size:
            raise McioError("--target", fig, "no such stored quantile; allowed: "
                            + ", ".join(f"response_p{100 * v:g}_ms" for v in levels))
        da = ds["response_quantile_rep_ms"].isel(quantile=int(k[0]))
        return np.asarray(da.transpose("replication").values, float)
    da = ds[fig]
    if "channel" in da.dims:
        vals = np.asarray(da.transpose("replication", "channel").values, float)
        return vals.sum(axis=1) if fig == "deferred_iops" else vals.max(axis=1)
    return np.asarray(da.values, float).reshape(-1)


def margins(ds, targets: list[Target]) -> np.ndarray:
    """(target, replication) relative margins: <= 0 where the target holds."""
    rows = []
    for t in targets:
        v = figure_reps(ds, t.figure)
        sign = 1.0 if t.op in ("<=", "<") else -1.0
        rows.append(sign * (v - t.threshold) / abs(t.threshold))
    out = np.vstack(rows)
    return np.where(np.isfinite(out), out, np.inf)   # an unstable point meets no target


@dataclass
class Evaluation:
    g: float
    margin: np.ndarray          # (target, replication)
    ds: object = None

    @property
    def f_reps(self) -> np.ndarray:
        return self.margin.max(axis=0)

    @property
    def f_mean(self) -> float:
        m = self.margin.mean(axis=1)
        return float(m.max())


@dataclass
class Headroom:
    """The answer: ``estimate`` (growth factor or field value), its 95 % CI, each replication's
    own crossing, the target that breaks first, the binding resource (highest busy at the
    answer) and the targets' values there."""
    grow: str
    kind: str                   # "factor" (on the load) or "value" (of the field)
    direction: str              # "largest" or "fewest"/"smallest"
    estimate: float
    ci95: tuple[float, float]
    per_replication: np.ndarray
    first_to_break: str
    binding_resource: str
    busy_at_answer: dict
    at_answer: dict             # target text -> (mean, CI half-width) at the estimate
    evaluations: int
    ios_simulated: int
    seconds: float
    status: str = "found"       # "found", "holds over the range", "fails over the range"
    notes: list[str] = field(default_factory=list)
    check: dict | None = None   # --at G: the targets there, and whether G is within the headroom


def _t975(dof: int) -> float:
    from scipy import special
    return float(special.stdtrit(dof, 0.975))


def open_at_rate(model, rate_iops: float):
    """``model`` with its closed load replaced by an open load of ``rate_iops`` (SSCH/s)."""
    from ..model import Model
    d = model.to_dict()
    closed_only = ("population", "think_ms", "binding")   # (no effect on an open load: refused there)
    d["workload"] = {**{k: v for k, v in d["workload"].items() if k not in closed_only},
                     "type": "open", "rate_iops": float(rate_iops)}
    user = {k: v for k, v in getattr(d, "user_set", {}).items() if k not in {f"workload.{f}" for f in closed_only}}
    return Model.from_dict(d, user_set=user)


class _Problem:
    """The model at growth g, simulated on the same seeds at every g."""

    def __init__(self, base, grow: str, targets, ios: int, replications: int, seed: int,
                 warmup: int | None):
        from ..engine import simulate
        self.simulate, self.base, self.targets = simulate, base, targets
        self.ios, self.reps, self.seed, self.warmup = ios, replications, seed, warmup
        self.evals: list[Evaluation] = []
        self.ios_simulated = 0
        self.notes: list[str] = []
        self.grow = grow
        if grow == "load":
            w = base.workload
            if w["type"] == "closed":
                # a closed population grows by whole I/Os: the load of a planner's question is the
                # I/O rate, so the point runs as an open load at its own measured rate
                ds = self._run(base)
                rate = float(np.nanmean(ds["throughput_iops"].values))
                self.base = open_at_rate(base, rate)
                self.notes.append(f"the closed load (population {w['population']}) runs as an open load at "
                                  f"its measured rate, {rate:.1f} SSCH/s, growing by the factor")
            self.key, self.kind, self.integer = "workload.rate_iops", "factor", False
            self.base_value = float(self.base.workload["rate_iops"])
        else:
            from .fields import get_value
            self.key = grow
            cur = get_value(base, grow)
            self.kind, self.integer = "value", isinstance(cur, int)
            self.base_value = cur

    def model(self, g: float):
        from .fields import set_value
        if self.kind == "factor":
            return self.base.replace(self.key, float(self.base_value * g))
        return set_value(self.base, self.key, int(round(g)) if self.integer else float(g))

    def capacity(self) -> float:
        """The growth at which an open load reaches a station's capacity (inf: none)."""
        if self.kind != "factor":
            return math.inf
        _, util, _ = self.base.open_bottleneck()
        return 1.0 / float(util) if util > 0 else math.inf

    def _run(self, model):
        ds = self.simulate(model, ios=self.ios, replications=self.reps, seed=self.seed, warmup=self.warmup,
                           allow_unstable=True)
        self.ios_simulated += int(np.nansum(ds["ios_measured"].values)) if "ios_measured" in ds else 0
        return ds

    def __call__(self, g: float) -> Evaluation:
        for e in self.evals:
            if e.g == g:
                return e
        try:
            m = self.model(g)
        except McioError as err:
            raise McioError(err.field, err.value, f"{err.allowed} (at --grow {self.grow} = {g:g})") from None
        ds = self._run(m)
        e = Evaluation(g, margins(ds, self.targets), ds)
        self.evals.append(e)
        return e


def _crossing(gs: np.ndarray, fs: np.ndarray, increasing: bool) -> float:
    """Where margin ``fs`` (over sorted ``gs``) crosses 0: the largest g still <= 0 (increasing
    margin) or the smallest (decreasing), interpolated linearly; clipped to the range."""
    ok = fs <= 0
    fin = np.where(np.isfinite(fs), fs, 1e6)
    if increasing:
        if ok.all():
            return float(gs[-1])
        if not ok[0]:
            return float(gs[0])
        i = int(np.flatnonzero(~ok)[0])     # first failing point; the one before holds
    else:
        if ok.all():
            return float(gs[0])
        if not ok[-1]:
            return float(gs[-1])
        i = int(np.flatnonzero(~ok)[-1]) + 1   # first holding point after the last failure
        # between i-1 (fails) and i (holds)
    a, b = gs[i - 1], gs[i]
    fa, fb = fin[i - 1], fin[i]
    if fb == fa:
        return float(0.5 * (a + b))
    return float(a + (0.0 - fa) * (b - a) / (fb - fa))


def headroom(base, targets, grow: str = "load", limit: tuple[float, float] | None = None,
             ios: int = 20_000, replications: int = 8, seed: int = 0, warmup: int | None = None,
             rel_tol: float = 0.002, max_evals: int = MAX_EVALS, at: float | None = None) -> Headroom:
    """The headroom of model ``base`` to ``targets`` (Target or text) as ``grow`` grows.

    ``grow``: "load" (a factor on the open rate; a closed load runs open at its measured rate)
    or a numeric model field (its value; an integer field is searched over integers). ``limit``:
    the range searched (default: factor 0.05 .. just under the open capacity, at most 20; a
    field: its value / 10 .. x 10, an integer field 1 .. 4 x value + 8). Whether the answer is
    the largest value (figures worsen as it grows) or the fewest (they improve) is read from the
    two ends of the range. ``at``: also evaluate the targets at this growth (e.g. 1.4: +40 %).
    """
    t0 = time.perf_counter()
    targets = [parse_target(t) if isinstance(t, str) else t for t in targets]
    if replications < 3:
        raise McioError("replications", replications, "a CI over replications needs at least 3")
    prob = _Problem(base, grow, targets, ios, replications, seed, warmup)
    lo, hi = _range(prob, limit)
    if prob.integer:
        return _integer_search(prob, lo, hi, t0, at)
    e_lo, e_hi = prob(lo), prob(hi)
    increasing = not (e_lo.f_mean > 0 and e_hi.f_mean <= 0)
    if e_lo.f_mean <= 0 and e_hi.f_mean <= 0:
        return _finish(prob, hi, increasing, t0, "holds over the range", at)
    if e_lo.f_mean > 0 and e_hi.f_mean > 0:
        return _finish(prob, lo, increasing, t0, "fails over the range", at)
    # Illinois regula falsi on the mean margin (finite stand-in for an unstable end)
    a, b = (e_lo, e_hi) if increasing else (e_hi, e_lo)      # a holds, b fails
    fa, fb = a.f_mean, min(b.f_mean, 10.0)
    side = 0
    while len(prob.evals) < max_evals and abs(b.g - a.g) > rel_tol * max(abs(a.g), abs(b.g)):
        g = b.g + fb * (a.g - b.g) / (fb - fa) if fb != fa else 0.5 * (a.g + b.g)
        lo_g, hi_g = min(a.g, b.g), max(a.g, b.g)
        if not lo_g < g < hi_g or (hi_g - lo_g) > 0.25 * max(abs(hi_g), 1e-12) and side == 0 and len(prob.evals) < 4:
            g = 0.5 * (a.g + b.g)   # a wide bracket: halve it first (the margin is far from linear)
        e = prob(g)
        f = min(e.f_mean, 10.0)
        if f <= 0:
            a, fa = e, f
            if side == -1:
                fb /= 2
            side = -1
        else:
            b, fb = e, f
            if side == 1:
                fa /= 2
            side = 1
        g_hat, hw = _estimate(prob, increasing)
        if hw > 0 and abs(b.g - a.g) < 0.25 * hw:
            break
    g_hat, hw = _estimate(prob, increasing)
    # cover where the replications' own crossings lie (their spread, not the bracket's width)
    sd = hw / _t975(replications - 1) * math.sqrt(replications)
    for k in (-2.0, 2.0):
        g = g_hat + k * max(sd, rel_tol * abs(g_hat))
        if lo < g < hi and len(prob.evals) < max_evals + 2:
            prob(g)
    prob(g_hat)
    return _finish(prob, None, increasing, t0, "found", at)


def _range(prob: _Problem, limit) -> tuple[float, float]:
    cap = prob.capacity()
    if limit is not None:
        lo, hi = float(limit[0]), float(limit[1])
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise McioError("--limit", f"{limit[0]},{limit[1]}", "must be LOW,HIGH with LOW < HIGH")
        if prob.kind == "factor" and lo <= 0:
            raise McioError("--limit", f"{limit[0]},{limit[1]}", "a growth factor must be > 0")
    elif prob.kind == "factor":
        lo, hi = 0.05, 20.0
    elif prob.integer:
        lo, hi = 1, 4 * int(prob.base_value) + 8
    else:
        lo, hi = prob.base_value / 10.0, prob.base_value * 10.0
    if prob.kind == "factor" and hi >= cap:
        hi = 0.995 * cap    # beyond a station's capacity no steady state exists: no target holds
        prob.notes.append(f"searched up to {hi:.4g}, just under the open capacity (x{cap:.4g})")
    if prob.integer:
        lo, hi = int(math.ceil(lo)), int(math.floor(hi))
    return lo, hi


def _estimate(prob: _Problem, increasing: bool) -> tuple[float, float]:
    """Mean of the replications' own crossings and its 95 % half-width."""
    ev = sorted(prob.evals, key=lambda e: e.g)
    gs = np.array([e.g for e in ev])
    F = np.array([e.f_reps for e in ev])       # (g, replication)
    roots = np.array([_crossing(gs, F[:, r], increasing) for r in range(F.shape[1])])
    n = roots.size
    return float(roots.mean()), float(_t975(n - 1) * roots.std(ddof=1) / math.sqrt(n))


def _finish(prob: _Problem, g_fixed, increasing: bool, t0: float, status: str, at) -> Headroom:
    ev = sorted(prob.evals, key=lambda e: e.g)
    gs = np.array([e.g for e in ev])
    F = np.array([e.f_reps for e in ev])
    if g_fixed is None:
        roots = np.array([_crossing(gs, F[:, r], increasing) for r in range(F.shape[1])])
        est = float(roots.mean())
        hw = _t975(roots.size - 1) * roots.std(ddof=1) / math.sqrt(roots.size)
        ci = (est - hw, est + hw)
    else:
        roots = np.full(F.shape[1], float(g_fixed))
        est, ci = float(g_fixed), (float(g_fixed), float(g_fixed))
    near = min(ev, key=lambda e: abs(e.g - est))
    return _describe(prob, est, ci, roots, near, increasing, t0, status, at)


def _describe(prob, est, ci, roots, near: Evaluation, increasing, t0, status, at) -> Headroom:
    # the target that breaks first: the one whose margin is largest just past the answer
    past = [e for e in prob.evals if (e.g > est if increasing else e.g < est)]
    probe = min(past, key=lambda e: abs(e.g - est)) if past else near
    first = prob.targets[int(np.argmax(probe.margin.mean(axis=1)))]
    busy = {}
    model = prob.model(est if not prob.integer else round(est))
    for name, var in RESOURCES.items():
        if var in near.ds:
            v = figure_reps(near.ds, var)
            if var == "device_busy":   # per exposure: a device with PAV aliases serves 1 + aliases at once
                d = model.devices
                v = v / (1 + (d["aliases"] if d["alias_mode"] == "static" else d["aliases"] / d["count"]))
            if np.isfinite(v).any():
                busy[name] = float(np.nanmean(v))
    binding = max(busy, key=busy.get) if busy else "-"
    at_answer = {}
    n = near.margin.shape[1]
    for t in prob.targets:
        v = figure_reps(near.ds, t.figure)
        at_answer[str(t)] = (float(np.mean(v)), float(_t975(n - 1) * np.std(v, ddof=1) / math.sqrt(n)))
    check = None
    if at is not None:
        e = prob(float(at))
        vals = {}
        for t in prob.targets:
            v = figure_reps(e.ds, t.figure)
            vals[str(t)] = (float(np.mean(v)), float(_t975(n - 1) * np.std(v, ddof=1) / math.sqrt(n)))
        if increasing:
            verdict = "within" if at < ci[0] else ("beyond" if at > ci[1] else "inside the CI of")
        else:
            verdict = "within" if at > ci[1] else ("beyond" if at < ci[0] else "inside the CI of")
        check = {"at": float(at), "holds": bool(e.f_mean <= 0), "verdict": verdict, "values": vals}
    h = Headroom(prob.grow, prob.kind, "largest" if increasing else "fewest" if prob.integer else "smallest",
                 est, ci, roots, str(first), binding, busy, at_answer, len(prob.evals), prob.ios_simulated,
                 time.perf_counter() - t0, status, list(prob.notes), check)
    return h


def _integer_search(prob: _Problem, lo: int, hi: int, t0: float, at) -> Headroom:
    """Bisection over the integers of an integer field; each replication's own answer from the
    evaluated integers (every one between the replications' answers is evaluated)."""
    e_lo, e_hi = prob(lo), prob(hi)
    increasing = not (e_lo.f_mean > 0 and e_hi.f_mean <= 0)
    if (e_lo.f_mean <= 0) == (e_hi.f_mean <= 0):
        status = "holds over the range" if e_lo.f_mean <= 0 else "fails over the range"
        g = (hi if increasing else lo) if e_lo.f_mean <= 0 else (lo if increasing else hi)
        return _describe(prob, float(g), (float(g), float(g)), np.full(prob.reps, float(g)), prob(g),
                         increasing, t0, status, at)
    a, b = (lo, hi) if increasing else (hi, lo)      # a holds, b fails
    while abs(b - a) > 1:
        m = (a + b) // 2
        if prob(m).f_mean <= 0:
            a = m
        else:
            b = m
    ans = a
    # each replication's own answer: evaluate outwards until every replication's is bracketed
    for _ in range(8):
        ev = {e.g: e for e in prob.evals}
        roots = _int_roots(prob, increasing)
        need = [g for g in range(int(min(roots)) - 1, int(max(roots)) + 2) if lo <= g <= hi and g not in ev]
        if not need:
            break
        for g in need:
            prob(g)
    roots = _int_roots(prob, increasing)
    lo_r, hi_r = float(np.percentile(roots, 2.5)), float(np.percentile(roots, 97.5))
    return _describe(prob, float(ans), (lo_r, hi_r), roots, prob(ans), increasing, t0, "found", at)


def _int_roots(prob: _Problem, increasing: bool) -> np.ndarray:
    ev = sorted(prob.evals, key=lambda e: e.g)
    gs = np.array([e.g for e in ev])
    F = np.array([e.f_reps for e in ev])
    out = []
    for r in range(F.shape[1]):
        ok = F[:, r] <= 0
        if increasing:
            i = np.flatnonzero(~ok)
            out.append(gs[i[0] - 1] if i.size and i[0] > 0 else (gs[-1] if not i.size else gs[0]))
        else:
            i = np.flatnonzero(~ok)
            out.append(gs[i[-1] + 1] if i.size and i[-1] + 1 < len(gs) else (gs[0] if not i.size else gs[-1]))
    return np.array(out, float)


def format_headroom(h: Headroom, targets) -> str:
    """The answer as an analyst reads it."""
    ts = " and ".join(str(t) for t in targets)
    if h.kind == "factor":
        what = "the load can grow by a factor of"

        def fmt(g):
            return f"{g:.4g} ({100 * (g - 1):+.1f} %)"
    else:
        what = f"{h.grow}: the {h.direction} value meeting the targets is"

        def fmt(g):
            return f"{g:.4g}"
    lines = [f"mcio headroom: {ts}"]
    if h.status != "found":
        lines.append(f"the targets {'hold' if h.status.startswith('holds') else 'fail'} over the whole range "
                     f"searched (answer at its end: {fmt(h.estimate)}); widen --limit")
    elif h.kind == "factor" or not float(h.estimate).is_integer():
        lines.append(f"{what} {fmt(h.estimate)}, 95 % CI {fmt(h.ci95[0])} .. {fmt(h.ci95[1])}")
    else:
        lines.append(f"{what} {h.estimate:g} (the replications' own answers: 95 % between "
                     f"{h.ci95[0]:g} and {h.ci95[1]:g})")
    lines.append(f"first target to break: {h.first_to_break}")
    if h.busy_at_answer:
        busy = ", ".join(f"{k} {100 * v:.1f} %" for k, v in sorted(h.busy_at_answer.items(), key=lambda kv: -kv[1]))
        lines.append(f"binding resource: {h.binding_resource} (busy at the answer: {busy})")
    for t, (v, ci) in h.at_answer.items():
        lines.append(f"  at the answer: {t.split()[0]} = {v:.4g} ±{ci:.2g}  (target {t})")
    if h.check is not None:
        c = h.check
        where = fmt(c["at"])
        lines.append(f"at {where}: the targets {'hold' if c['holds'] else 'do not hold'}; it is {c['verdict']} "
                     "the headroom")
        for t, (v, ci) in c["values"].items():
            lines.append(f"  at {where}: {t.split()[0]} = {v:.4g} ±{ci:.2g}  (target {t})")
    lines += [f"note: {n}" for n in h.notes]
    lines.append(f"{h.evaluations} evaluations on common random numbers, {h.ios_simulated:,} I/Os simulated, "
                 f"{h.seconds:.1f} s")
    return "\n".join(lines)


__all__ = ["Target", "Headroom", "headroom", "open_at_rate", "parse_target", "parse_targets", "format_headroom",
           "margins"]
