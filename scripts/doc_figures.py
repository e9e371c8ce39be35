"""The figures README.md and docs/*.md quote from model runs, computed from those runs.

A quoted figure sits between markers, ``<!-- fig:NAME -->12,180<!-- /fig -->`` (a number) or the
same around several lines (a table or a command's output, a *block*). ``FIGURES``
(figure_registry.py, figure_registry_seeds.py) maps each NAME to the run it comes from (``RUNS``:
the spec, scenario or command, its size and seed) and the function that formats it; a run is made
once however many figures it gives.

    python scripts/doc_figures.py            # every figure: quoted text, fresh text, verdict
    python scripts/doc_figures.py --write    # rewrite the quoted text in README.md and docs/*.md
    python scripts/doc_figures.py --list     # the registry (name, run, where quoted) without running

The check (``tests/test_docs_figures.py``, slow tier): a quoted figure passes when its text is the
freshly formatted one, or, for a number with a 95 % CI, when the quoted number lies within the
fresh value +- (that run's CI half-width + half a unit of the quoted last digit), so a result that
moves less than its own noise, e.g. on another CPU, does not fail; anything more does. Blocks and
numbers without a CI (counts, the shipped calibration's values, ratios of CIs) must match exactly,
word for word, except numbers apart by no more than floating-point rounding (``ROUNDING``): an
identity's residual printed as -2.776e-17 on one CPU is 0 on another (the dasd-mdc block, a Zen 3
and a Zen 4 host). Every run is seeded, so on this machine the fresh text is the quoted text, bit
for bit.
"""
from __future__ import annotations

import argparse
import math
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import figure_registry_seeds  # noqa: E402,F401  (adds seeds 002-004 to the registry)
from figure_registry import FIGURES, ROOT, RUNS, Value, result  # noqa: E402,F401

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MARKER = re.compile(r"<!-- fig:([a-z0-9_]+) -->(.*?)<!-- /fig -->", re.S)


# ---------------------------------------------------------------------------------------- docs

def quoted(paths=None) -> list[tuple[Path, str, str]]:
    """Every marker in the docs: (file, name, quoted text)."""
    return [(p, m.group(1), m.group(2)) for p in (paths or DOCS) for m in MARKER.finditer(p.read_text())]


def fresh(name: str) -> Value:
    fig = FIGURES[name]
    return fig.get(result(fig.run))


def _number(text: str) -> float | None:
    try:
        return float(text.replace(",", "").replace("+", "").replace("~", "").strip())
    except ValueError:
        return None


# Two printed numbers that differ by rounding only: |a - b| <= ROUNDING * max(1, |a|, |b|). A
# simulation's figures differ by more than this on any real change; a quantity that is zero by
# definition (an identity's residual) comes out as 0 or a few 1e-17 depending on the order the
# host's libraries (BLAS, NumPy's SIMD loops) sum in.
ROUNDING = 1e-12


def same_but_rounding(a: str, b: str) -> bool:
    """``a`` and ``b`` the same words (whitespace runs aside: a column's width follows its widest
    entry), where each pair of differing words is two numbers apart by rounding only."""
    wa, wb = a.split(), b.split()
    if len(wa) != len(wb):
        return False
    for x, y in zip(wa, wb):
        if x == y:
            continue
        try:
            fx, fy = float(x), float(y)         # (a word as printed: no separators stripped)
        except ValueError:
            return False
        if not (math.isfinite(fx) and math.isfinite(fy)
                and abs(fx - fy) <= ROUNDING * max(1.0, abs(fx), abs(fy))):
            return False
    return True


def verdict(text: str, v: Value) -> bool:
    """The check's rule: the fresh text (up to rounding, ``same_but_rounding``), or a number within
    the fresh value +- (its run's CI half-width + half a unit of the quoted text's last digit, the
    rounding it was printed with)."""
    if text == v.text or same_but_rounding(text, v.text):
        return True
    q = _number(text)
    if v.ci is None or q is None:
        return False
    decimals = len(text.strip().split(".")[1]) if "." in text else 0
    return abs(q - v.value) <= v.ci + 0.5 * 10.0 ** -decimals


def difference(text: str, v: Value) -> str:
    """What a stale figure's check prints: the two texts, or a block's first differing line."""
    if "\n" not in text and "\n" not in v.text:
        return f"quoted {text!r}, the run gives {v.text!r}" + (f" +- {v.ci:.3g}" if v.ci is not None else "")
    a, b = text.splitlines(), v.text.splitlines()
    i = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return (f"block line {i + 1}: quoted {a[i] if i < len(a) else '(none)'!r}, "
            f"the run gives {b[i] if i < len(b) else '(none)'!r}")


def write(paths=None) -> list[str]:
    """Rewrite every marker's text with its fresh value; the names whose text changed."""
    changed = []
    for p in paths or DOCS:
        src = p.read_text()

        def sub(m):
            v = fresh(m.group(1))
            if m.group(2) != v.text:
                changed.append(f"{p.relative_to(ROOT)}: {m.group(1)}")
            return f"<!-- fig:{m.group(1)} -->{v.text}<!-- /fig -->"

        out = MARKER.sub(sub, src)
        if out != src:
            p.write_text(out)
    return changed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="rewrite the docs' quoted figures in place")
    ap.add_argument("--list", action="store_true", help="the registry and where each figure is quoted")
    a = ap.parse_args(argv)
    where: dict[str, list[str]] = {}
    for p, name, _ in quoted():
        where.setdefault(name, []).append(p.name)
    if a.list:
        for name, fig in FIGURES.items():
            print(f"{name:<36} {fig.run:<26} {', '.join(sorted(set(where.get(name, [])))) or '(not quoted)'}")
        return 0
    if a.write:
        changed = write()
        print("\n".join(changed) if changed else "every quoted figure is current")
        return 0
    bad = 0
    for p, name, text in quoted():
        if name not in FIGURES:
            print(f"{p.name}: {name}: no such figure")
            bad += 1
            continue
        v = fresh(name)
        ok = verdict(text, v)
        bad += not ok
        short = (lambda s: s if "\n" not in s else f"<block of {s.count(chr(10))} lines>")
        print(f"{'ok ' if ok else 'BAD'} {p.name:<16} {name:<36} quoted {short(text)!s:<14} fresh {short(v.text)}"
              + (f" +- {v.ci:.3g}" if v.ci is not None else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
