"""What ``mcio reproduce NAME`` prints: the table of figures (each beside the model's value, with
what it tests, its kind), and the summary: the figures counted by kind, how many of the judged
ones (those with a measured value) are within tolerance, and how many predictions are.

A figure's kind (:data:`FIGURE_KINDS`, set on :class:`~.base.Figure`) says what agreeing with it
shows: ``fitted`` (it is in a calibration loss or a parameter was set from it: agreement shows the
fit worked), ``imposed`` (set by the load or an input: agreement shows nothing), ``identity`` (it
follows from other figures by a law, e.g. Little's or a sum: no test of its own), ``predicted``
(no parameter was set from it: the model's test). "" is a figure not yet judged.
"""
from __future__ import annotations

from typing import Sequence

#: the kinds a figure can be, in the order reports count them
FIGURE_KINDS = ("fitted", "imposed", "identity", "predicted")
#: a note shared by more figures than this names the first and the last only
NOTE_NAMES = 6


def summary(rows: Sequence) -> dict:
    """The counts of ``rows`` (:class:`~.base.FigureResult` s): ``figures``; ``kinds`` (kind ->
    figures, every kind of FIGURE_KINDS, and "" if any figure is not judged yet); ``judged`` (the
    figures with a measured value) and ``within`` (of those, within tolerance); ``predicted``:
    the same three counts of the ``predicted`` figures (``figures``, ``judged``, ``within``)."""
    kinds = {k: 0 for k in FIGURE_KINDS}
    for r in rows:
        kinds[r.kind] = kinds.get(r.kind, 0) + 1
    pred = [r for r in rows if r.kind == "predicted"]

    def judged(rs):
        return [r for r in rs if r.within is not None]

    return {"figures": len(rows), "kinds": kinds,
            "judged": len(judged(rows)), "within": sum(1 for r in judged(rows) if r.within),
            "predicted": {"figures": len(pred), "judged": len(judged(pred)),
                          "within": sum(1 for r in judged(pred) if r.within)}}


def summary_line(rows: Sequence) -> str:
    """One line: the figures by kind, the judged ones within tolerance, the predictions within
    tolerance (e.g. ``predicted: 1 of 12 judged figures, 1 within tolerance``)."""
    s = summary(rows)
    kinds = ", ".join(f"{n} {k or 'not judged'}" for k, n in s["kinds"].items() if n)
    p = s["predicted"]
    more = p["figures"] - p["judged"]
    return (f"summary: {s['figures']} figures ({kinds}); {s['within']} of {s['judged']} judged within tolerance; "
            f"predicted: {p['judged']} of {s['judged']} judged figures, {p['within']} within tolerance"
            + (f" ({more} more without a measurement)" if more else ""))


def format_table(rows: Sequence) -> str:
    """The reproduce table an analyst reads: one row per figure (its kind beside it), the notes,
    and the summary line."""
    def num(x):
        if x is None:
            return "-"
        if isinstance(x, list):
            return f"{num(x[0])}-{num(x[1])}"
        return f"{x:.4g}"
    head = ("figure", "kind", "measured", "model", "95% CI", "error", "tolerance", "ok")
    body = []
    for r in rows:
        ok = "-" if r.within is None else ("yes" if r.within else "NO")
        err = "-" if r.error is None else f"{100 * r.error:+.1f} %"
        body.append((r.figure + (f" [{r.unit}]" if r.unit else ""), r.kind or "?", num(r.measured), num(r.model),
                     "-" if not r.ci95 or r.ci95 <= 1e-9 * max(1.0, abs(r.model or 0.0)) else f"±{r.ci95:.3g}",
                     err, r.tolerance or "-", ok))
    widths = [max(len(str(x[i])) for x in [head] + body) for i in range(len(head))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip() for row in [head] + body]
    by_note: dict[str, list[str]] = {}
    for r in rows:
        if r.note:
            by_note.setdefault(r.note, []).append(r.figure)
    notes = [f"  note ({'; '.join(figs) if len(figs) <= NOTE_NAMES else f'{figs[0]} ... {figs[-1]}: {len(figs)} figures'}): "
             f"{note}" for note, figs in by_note.items()]
    return "\n".join(lines + notes + [summary_line(rows)])


__all__ = ["FIGURE_KINDS", "summary", "summary_line", "format_table"]
