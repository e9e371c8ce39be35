"""What-ifs of a base model (or any ``[topology]`` spec) as edits of its TOML text, so that every
comment of the base stays and every changed value says how it was changed (docs/base.md, "What-ifs"):

- :func:`generation`: channels (all, or listed CHPIDs) moved to a catalogue generation: the
  generation named, its open exchanges, data path and feature-card limits from the catalogue
  (mcio/model/hardware.py), and the spec's own MP work per I/O (the base's fitted figure, the
  anchor) multiplied by the catalogue's ratio of the two generations' figures; a link rate the
  spec states (a base derives one from connect where the data have no MB/s) multiplied by the
  ratio of the catalogue's link rates;
- :func:`growth`: ``topology.load_scale`` x (1 + PCT / 100);
- :func:`zhpf`: ``channels.zhpf_share``;
- :func:`add_channels`: N channels added to each path group (or one LCU's), copies of the
  group's last channel.

:func:`apply` runs them in that order and returns the new text and one line per change. Each bad
value is one McioError (the option, the value, what is allowed). Values are edited on their own
line (``key = value   # comment``, as a base spec writes them); a multi-line value is refused.
"""
from __future__ import annotations

import json
import math
import re
import tomllib

from ..errors import McioError

_HEADER = re.compile(r"^\s*\[\[?\s*([A-Za-z0-9_.\-\"]+)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^(\s*)([A-Za-z0-9_\-]+)\s*=")
#: the most channels a path group holds (docs/topology.md)
MAX_PATHS = 8


def _v(x) -> str:
    from .spec import _v as v
    return v(x)


class _Spec:
    """The spec's lines, its parsed data and its tables' line ranges (header line, end)."""

    def __init__(self, text: str, where: str):
        self.where = where
        try:
            self.data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise McioError(where, "", f"not TOML: {e}") from None
        self.lines = text.splitlines()
        self.blocks = []                      # (table name, first line (the header), end line excl.)
        heads = [(i, m.group(1)) for i, ln in enumerate(self.lines) if (m := _HEADER.match(ln))]
        for j, (i, name) in enumerate(heads):
            end = heads[j + 1][0] if j + 1 < len(heads) else len(self.lines)
            while end > i + 1 and (not self.lines[end - 1].strip() or self.lines[end - 1].startswith("#")):
                end -= 1
            self.blocks.append((name, i, end))

    def tables(self, name: str) -> list:
        return [(i, e) for n, i, e in self.blocks if n == name]

    def elements(self, name: str, items: list, what: str) -> list:
        """[(item dict, (first line, end))] for an array of tables written as [[name]] blocks."""
        t = self.tables(name)
        if len(t) != len(items):
            raise McioError(self.where, what, f"the what-ifs edit [[{name}]] tables written one per element "
                            "(not inline tables)")
        return list(zip(items, t))

    def key_line(self, rng, key: str) -> int | None:
        i0 = rng[0]
        for i in range(i0 + 1, len(self.lines)):     # to the next header (a line added since moved the end)
            if _HEADER.match(self.lines[i]):
                break
            m = _KEY.match(self.lines[i])
            if m and m.group(2) == key:
                line = self.lines[i]
                try:
                    tomllib.loads(line.strip())
                except tomllib.TOMLDecodeError:
                    raise McioError(self.where, line.strip()[:60], "the what-ifs edit values on one line each") from None
                return i
        return None

    def put(self, rng, key: str, value, note: str) -> None:
        """Set ``key`` in the table at ``rng`` (its line replaced, or a new line after the header)."""
        i = self.key_line(rng, key)
        indent = _KEY.match(self.lines[i]).group(1) if i is not None else (
            "  " if self.lines[rng[0]].startswith(" ") else "")
        s = f"{indent}{key} = {_v(value)}   # what-if: {note}"
        if i is None:
            self.lines.insert(rng[0] + 1, s)
        else:
            self.lines[i] = s

    def drop(self, rng, key: str, note: str) -> None:
        i = self.key_line(rng, key)
        if i is not None:
            self.lines[i] = f"# {self.lines[i].strip().split('#')[0].strip()}   (removed by the what-if: {note})"

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def _table(s: _Spec, name: str):
    """The line range of table [name], added (before its first sub-table, else at the end) if the
    spec has none."""
    t = s.tables(name)
    if not t:
        at = next((i for n, i, _e in s.blocks if n.startswith(name + ".")), len(s.lines))
        s.lines[at:at] = [f"[{name}]", ""]
        s.__init__(s.text(), s.where)
        t = s.tables(name)
    return t[0]


def _topology(s: _Spec, opt: str, value) -> dict:
    t = s.data.get("topology")
    if not isinstance(t, dict):
        raise McioError(opt, value, f"needs a [topology] model (a base model from mcio base); {s.where} has none")
    return t


def _channel_names(ch: dict) -> list:
    if ch.get("chpids"):
        return [str(c) for c in ch["chpids"]]
    if ch.get("count"):
        return [f"{ch['name']}.{j}" for j in range(int(ch["count"]))]
    return [str(ch.get("name"))]


def _fig(params: dict, key: str) -> float:
    return float(params[key].value)


# ---- a newer channel generation ------------------------------------------------------------------

def parse_generation(item: str) -> tuple:
    """``GEN`` or ``CHPID,CHPID,...=GEN`` -> (list of CHPIDs or None, catalogue key)."""
    from ..model.hardware import generation as catalogue
    chp, _, gen = str(item).rpartition("=")
    g = catalogue(gen.strip(), "--generation")
    if "=" in str(item):
        names = [c.strip() for c in chp.split(",") if c.strip()]
        if not names:
            raise McioError("--generation", item, "CHPID,CHPID,...=GEN or GEN (every channel)")
        return names, g.name
    return None, g.name


def generation(s: _Spec, item: str) -> list:
    """Move every channel (or the listed ones) to a catalogue generation; returns the change lines."""
    from ..model.hardware import CATALOGUE, card_limits, channel_parameters
    names, new = parse_generation(item)
    t = _topology(s, "--generation", item)
    chans = s.elements("topology.channel", t.get("channel", []), "[[topology.channel]]")
    known = [n for ch, _r in chans for n in _channel_names(ch)] + [str(ch["name"]) for ch, _r in chans
                                                                  if ch.get("name") and (ch.get("count") or ch.get("chpids"))]
    if names:
        bad = [n for n in names if n not in known]
        if bad:
            raise McioError("--generation", ",".join(bad), "unknown channel; the spec's channels: " + ", ".join(known))
    pn = channel_parameters(new)
    moved, cards = {}, {}
    for ch, rng in chans:
        own = _channel_names(ch)
        if names is not None:
            hit = [n for n in own if n in names] if ch.get("name") not in names else own
            if not hit:
                continue
            if len(hit) != len(own):
                raise McioError("--generation", item, f"channel group {ch.get('name')!r} ({', '.join(own)}) is one "
                                "[[topology.channel]] table: list all its channels or its name")
        old = ch.get("generation")
        if old is None:
            raise McioError("--generation", ", ".join(own), "states no generation in the spec: the catalogue's "
                            "ratio needs the old one (set the channel's generation first)")
        po = channel_parameters(old, f"topology.channel {own[0]} generation")
        old_t, new_t = CATALOGUE[_key(old)].title, CATALOGUE[new].title
        s.put(rng, "generation", new, f"{new_t} (was {old!r}, {old_t})")
        # a base's command-mode figure is fitted (its z/HPF one derived from it) or, without channel
        # busy in the data, the catalogue's (assumed): the comment says which was scaled
        i = s.key_line(rng, "mp_us_per_io_ccw")
        was = s.lines[i].split("#", 1)[1].strip() if i is not None and "#" in s.lines[i] else ""
        kind = "fitted" if was.startswith("fitted") else "the spec's"
        for k in ("mp_us_per_io_ccw", "mp_us_per_io_zhpf"):
            if k in ch:
                ratio = _fig(pn, k) / _fig(po, k)
                s.put(rng, k, float(ch[k]) * ratio,
                      f"derived: {kind} x catalogue ratio: {ch[k]!r} us (generation {old}) x {_fig(pn, k):.6g} / "
                      f"{_fig(po, k):.6g} (the catalogue's {k} of {new} / {old}) = x {ratio:.6g}")
        if "link_mb_s" in ch:
            ratio = _fig(pn, "link_mb_s") / _fig(po, "link_mb_s")
            s.put(rng, "link_mb_s", float(ch["link_mb_s"]) * ratio,
                  f"derived: the spec's {ch['link_mb_s']!r} MB/s x {ratio:.6g} (the catalogue's link rates of "
                  f"{new} / {old}: the base's figure, derived from connect, stays the anchor)")
        if "max_open_exchanges" in ch:
            s.put(rng, "max_open_exchanges", int(pn["max_open_exchanges"].value), f"the catalogue's, {new_t}")
        if "path_mb_s" in ch:
            if "path_mb_s" in pn:
                s.put(rng, "path_mb_s", float(pn["path_mb_s"].value), f"the catalogue's, {new_t}")
            else:
                s.drop(rng, "path_mb_s", f"{new_t} publishes no data path below its links")
        if ch.get("card"):
            cards.setdefault(str(ch["card"]), set()).update(own)
        moved.setdefault(str(old), []).extend(own)
    out = [f"channel{'s' if len(v) > 1 else ''} {', '.join(v)}: generation {o} -> {new}" for o, v in moved.items()]
    if not out:
        raise McioError("--generation", item, "moves no channel")
    card_out = []
    if cards:
        on_card = {}
        for ch, _r in chans:
            if ch.get("card"):
                on_card.setdefault(str(ch["card"]), set()).update(_channel_names(ch))
        # bottom up: a limit added to one card's table shifts the lines of those below it
        for cd in reversed(s.elements("topology.card", t.get("card", []), "[[topology.card]]")):
            c, rng = cd
            if c["name"] not in cards:
                continue
            rest = on_card[c["name"]] - cards[c["name"]]
            if rest:
                raise McioError("--generation", item, f"card {c['name']!r} holds one generation: move its other "
                                f"channels too ({', '.join(sorted(rest))})")
            lim = card_limits(new)
            for k in ("max_read_mb_s", "max_write_mb_s", "max_mb_s"):
                if k in lim:
                    s.put(rng, k, float(lim[k]), f"the catalogue's {CATALOGUE[new].title} feature card")
                else:
                    s.drop(rng, k, f"the catalogue has no {k} for {CATALOGUE[new].title}'s card")
            card_out.insert(0, f"card {c['name']}: the catalogue's {new} card limits {lim or '(none published)'}")
    return out + card_out


def _key(name: str) -> str:
    from ..model.hardware import generation as catalogue
    return catalogue(name).name


# ---- growth, z/HPF --------------------------------------------------------------------------------

def parse_growth(pct) -> float:
    try:
        p = float(pct)
    except (TypeError, ValueError):
        p = float("nan")
    if not math.isfinite(p) or p <= -100.0:
        raise McioError("--growth", pct, "a percentage above -100 (40 = 40 % more I/O; -20 = 20 % less)")
    return p


def growth(s: _Spec, pct) -> list:
    """``topology.load_scale`` x (1 + pct / 100)."""
    p = parse_growth(pct)
    t = _topology(s, "--growth", pct)
    old = float(t.get("load_scale", 1.0))
    f = 1.0 + p / 100.0
    rng = _table(s, "topology")
    s.put(rng, "load_scale", old * f, f"{p:+g} % growth: {old!r} x {f!r}")
    return [f"load_scale {old!r} -> {old * f!r} ({p:+g} %)"]


def parse_zhpf(share) -> float:
    try:
        z = float(share)
    except (TypeError, ValueError):
        z = float("nan")
    if not (0.0 <= z <= 1.0):
        raise McioError("--zhpf", share, "the share of I/Os in z/HPF (transport mode), 0 to 1")
    return z


def zhpf(s: _Spec, share, estimates: dict | None = None) -> list:
    """``channels.zhpf_share`` = share (0..1)."""
    z = parse_zhpf(share)
    old = s.data.get("channels", {}).get("zhpf_share")
    kind = ((estimates or {}).get("estimates", {}).get("channels.zhpf_share") or {}).get("kind")
    caveat = ("; the base measured no z/HPF counts: its MP work is the unknown mix's, so this what-if has no "
              "measured basis" if kind == "assumed" else "")
    s.put(_table(s, "channels"), "zhpf_share", z, f"z/HPF share (was {'unset' if old is None else repr(old)}){caveat}")
    return [f"zhpf_share {old!r} -> {z!r}" + (" (no measured basis: see the spec's comment)" if caveat else "")]


# ---- more channels --------------------------------------------------------------------------------

def parse_add(item: str) -> tuple:
    """``N`` or ``LCU=N`` -> (LCU name or None, N)."""
    lcu, _, n = str(item).rpartition("=")
    try:
        k = int(n)
    except ValueError:
        k = 0
    if k < 1:
        raise McioError("--add-channels", item, "N (channels added to every path group) or LCU=N (to that LCU's "
                        "path group), N a whole number >= 1")
    return (lcu.strip() or None) if "=" in str(item) else None, k


def _new_name(last: str, used: set) -> str:
    """The next unused CHPID after ``last`` (hexadecimal, as RMF prints them), else ``last+k``."""
    try:
        v, w = int(last, 16), len(last)
        for x in list(range(v + 1, 256)) + list(range(0, v)):
            c = format(x, "X").rjust(w, "0") if last.upper() == last else format(x, "x").rjust(w, "0")
            if c not in used:
                return c
    except ValueError:
        pass
    k = 1
    while f"{last}+{k}" in used:
        k += 1
    return f"{last}+{k}"


def add_channels(s: _Spec, item: str) -> list:
    """N channels added to every path group (or to ``LCU``'s): copies of its last channel."""
    target, n = parse_add(item)
    t = _topology(s, "--add-channels", item)
    chans = s.elements("topology.channel", t.get("channel", []), "[[topology.channel]]")
    lcus = [lc for cu in t.get("control_unit", []) for lc in cu.get("lcu", [])]
    lblocks = s.elements("topology.control_unit.lcu", lcus, "[[topology.control_unit.lcu]]")
    groups = {}
    for lc, _r in lblocks:
        groups.setdefault(tuple(str(c) for c in lc["channels"]), []).append(str(lc["name"]))
    if target is not None:
        hit = [g for g, ls in groups.items() if target in ls]
        if not hit:
            raise McioError("--add-channels", item, "unknown LCU; the spec's LCUs: "
                            + ", ".join(str(lc["name"]) for lc, _r in lblocks))
        groups = {hit[0]: groups[hit[0]]}
    by_name = {str(ch.get("name")): (ch, r) for ch, r in chans}
    used = {n_ for ch, _r in chans for n_ in _channel_names(ch)} | set(by_name)
    added, out = {}, []
    for g, ls in groups.items():
        if len(g) + n > MAX_PATHS:
            raise McioError("--add-channels", item, f"a path group holds at most {MAX_PATHS} channels; LCU "
                            f"{', '.join(ls)}'s has {len(g)}")
        tmpl = by_name.get(g[-1])
        if tmpl is None or tmpl[0].get("count") or tmpl[0].get("chpids"):
            raise McioError("--add-channels", item, f"path group {list(g)}: its last entry {g[-1]!r} is not one "
                            "channel's table (a copy needs one channel to copy)")
        new = []
        for _k in range(n):
            c = _new_name(g[-1], used)
            used.add(c)
            new.append(c)
        added[g] = (new, tmpl[1])
        out.append(f"LCU {', '.join(ls)}: path group + {', '.join(new)} (copies of channel {g[-1]})")
    # the LCUs' path groups, then the new channels' tables after the last channel's (line numbers
    # are edited from the bottom up, so the earlier ones stay valid)
    for lc, rng in reversed(lblocks):
        g = tuple(str(c) for c in lc["channels"])
        if g in added:
            s.put(rng, "channels", list(g) + added[g][0], f"+ {len(added[g][0])} channel(s): {', '.join(added[g][0])}")
    last_end = chans[-1][1][1]
    text = []
    for g, (new, (i0, e)) in added.items():
        for c in new:
            text.append("")
            for ln in s.lines[i0:e]:
                m = _KEY.match(ln)
                if m and m.group(2) == "name":
                    ln = (f"{m.group(1)}name = {json.dumps(c)}   # what-if: added to the path group of LCU "
                          f"{', '.join(groups[g])}, a copy of channel {g[-1]!r}")
                text.append(ln)
    s.lines[last_end:last_end] = text
    return out


def set_fields(text: str, sets: dict, where: str = "spec") -> str:
    """``--set SECTION.FIELD=value`` changes written into the spec's text (a what-if file that
    ``mcio compare`` runs as replayed); a deeper name (an element's field) is refused."""
    s = _Spec(text, where)
    for name, v in sets.items():
        sec, _, key = str(name).rpartition(".")
        t = s.tables(sec)
        if not sec or "." in sec and sec != "topology" or not isinstance(s.data.get(sec.split(".")[0]), dict) or len(t) != 1:
            raise McioError("--set", name, "with -o only SECTION.FIELD changes (e.g. topology.load_scale, "
                            "channels.zhpf_share) are written into the spec; use the what-if options, or edit the "
                            "written spec")
        s.put(t[0], key, v, f"--set {name}")
        s = _Spec(s.text(), where)
    return s.text()


# ---- all of them ----------------------------------------------------------------------------------

def check(*, generations=(), growth_pct=None, zhpf_share=None, add=()) -> None:
    """Each what-if value checked before any file is read (McioError naming the option)."""
    for g in generations:
        parse_generation(g)
    for a in add:
        parse_add(a)
    if growth_pct is not None:
        parse_growth(growth_pct)
    if zhpf_share is not None:
        parse_zhpf(zhpf_share)


def apply(text: str, *, generations=(), growth_pct=None, zhpf_share=None, add=(), where: str = "spec",
          title: str | None = None) -> tuple:
    """(the changed spec's text, one line per change). Order: generations, added channels (copies
    of the moved channels), growth, z/HPF."""
    from .spec import read_estimates
    s = _Spec(text, where)
    changes = []
    steps = [(generation, g) for g in generations] + [(add_channels, a) for a in add]
    if growth_pct is not None:
        steps.append((growth, growth_pct))
    if zhpf_share is not None:
        steps.append((lambda sp, z: zhpf(sp, z, read_estimates(text)), zhpf_share))
    for f, arg in steps:
        changes += f(s, arg)
        s = _Spec(s.text(), where)
    if changes:
        s.lines[0:0] = [f"# what-if of {title or where} (mcio.basemodel.whatif; every changed value says 'what-if'):"] + [
            f"#   {c}" for c in changes] + ["#"]
    return s.text(), changes


__all__ = ["apply", "check", "set_fields", "generation", "growth", "zhpf", "add_channels", "parse_generation", "parse_add", "MAX_PATHS"]
