"""A planner's I/O configuration as data: the ``[topology]`` section of a model (issue 28).

Parsed and validated here (:func:`parse`: every error names the field path, e.g.
``topology.channel[3].card``, the value and what is allowed, with close matches for names);
compiled to :class:`mcio.engine.tables.Tables` by :mod:`.topology_tables`. docs/topology.md
describes the format. Elements (TOML arrays of tables under ``[topology]``):

- ``[[topology.card]]``: a FICON feature card: ``name``, optional ``max_iops``, ``max_mb_s`` and
  per direction ``max_read_mb_s`` / ``max_write_mb_s``;
- ``[[topology.channel]]``: one channel (``name``), a group (``name`` + ``count``, or ``chpids``),
  with a ``generation`` from :mod:`.hardware` and/or explicit figures, ``duplex``, ``card``,
  ``director``;
- ``[[topology.director]]``: ``name``; ``[[topology.isl]]``: ``name``, ``between`` (two
  directors), ``count``, ``mb_s`` per direction;
- ``[[topology.control_unit]]`` with ``[[topology.control_unit.lcu]]`` (``devices``, ``channels``:
  the path group, at most 8);
- ``[[topology.workload]]`` with ``[[topology.workload.io]]``; ``topology.load_scale``.

The legacy sections give defaults (see :data:`DEFAULTS`); the fields a topology replaces are
refused (:data:`CONFLICTS`).
"""
from __future__ import annotations

import difflib

from ..errors import McioError
from . import hardware
from .checks import MAX_RATE_IOPS, choice, dist, integer, num, optional_list, text

MAX_CHANNELS = 256       # CHPIDs of one channel subsystem (the kernel's channels.count bound)
MAX_PATHS = 8            # channels in one path group (z/Architecture: 8 paths per device)
MAX_LCU_DEVICES = 256    # unit addresses of one LCU
REQUIRED = object()
#: the slowest rate of I/O starts (a card's max_iops, a workload's rate_iops): one start per
#: 1e6 ms, within the clock's MAX_DURATION (a card at 5e-324 crashed the kernels)
MIN_RATE_IOPS = 1e-3

#: Each element's fields: name -> (checker, default, doc). Default None: unset (inherits from the
#: generation or the legacy section named in DEFAULTS); REQUIRED: must be given.
_MP = {f"mp_us_per_{p}_{m}": (num(hi=1e6), None, f"MP work per {dict(io='I/O', kb='KB').get(p, p)} in "
                              f"{'command' if m == 'ccw' else 'transport'} mode (us)")
       for m in ("ccw", "zhpf") for p in ("io", "command", "kb")}
FIELDS: dict[str, dict] = {
    "card": {"name": (text, REQUIRED, "card name"),
             "max_iops": (num(lo=MIN_RATE_IOPS, hi=MAX_RATE_IOPS), None, "I/O starts per second the card sustains (all its channels); unset: no limit"),
             "max_mb_s": (num(lo=0.01, hi=1e6), None, "data rate of the card, MB/s, reads + writes of all its channels; unset: no limit"),
             "max_read_mb_s": (num(lo=0.01, hi=1e6), None, "data rate of the card's reads (control unit -> host), MB/s, all its channels; unset: no limit"),
             "max_write_mb_s": (num(lo=0.01, hi=1e6), None, "data rate of the card's writes (host -> control unit), MB/s, all its channels; unset: no limit")},
    "channel": {"name": (text, None, "channel name (CHPID), or the group's name with count / chpids"),
                "chpids": (optional_list(text), None, "names of a group's channels"),
                "count": (integer(1, MAX_CHANNELS), None, "channels in the group (named name.0, name.1, ...)"),
                "generation": (text, None, "FICON generation from the catalogue (mcio.model.hardware): 2, 4, 8, 8S, 16S, 16S+, 16SA, 32S"),
                "link_mb_s": (num(lo=0.01, hi=1e6), None, "link data rate per direction, MB/s"),
                "max_open_exchanges": (integer(1, 100_000), None, "open exchanges (concurrent I/Os)"),
                "path_mb_s": (num(lo=0.01, hi=1e6), None, "data rate of the channel's own data path, reads + writes together, MB/s; unset: the generation's, else no limit beyond its links"),
                **_MP,
                "protocol_scale": (num(lo=0.0, hi=1e3), None, "its connect-time protocol time (the channels.protocol_us_* settings, given for FICON Express8S) times this; unset: the generation's (mcio.model.hardware), else 1"),
                "duplex": (choice("full", "half"), "full", "full: reads and writes each have the link's rate; half: they share it"),
                "card": (text, None, "the feature card it sits on (a topology.card name)"),
                "director": (text, None, "the FICON director its link enters (a topology.director name); unset: direct attached")},
    "director": {"name": (text, REQUIRED, "director name")},
    "isl": {"name": (text, REQUIRED, "ISL group name"),
            "between": (optional_list(text), REQUIRED, "the two directors it joins"),
            "count": (integer(1, 1024), 1, "ISLs in the group"),
            "mb_s": (num(lo=0.01, hi=1e6), REQUIRED, "data rate of each ISL per direction, MB/s")},
    "control_unit": {"name": (text, REQUIRED, "control unit (storage subsystem) name"),
                     "director": (text, None, "the director its host ports are on; unset: direct attached"),
                     "ha_servers": (integer(1, 100_000), None, "host-adapter processors"),
                     "ha_service_us": (dist, None, "host-adapter work per I/O (us)"),
                     "backend_servers": (integer(1, 1_000_000), None, "back-end servers"),
                     "backend_service_ms": (dist, None, "back-end service per disconnected I/O (ms)"),
                     "port_mb_s": (num(lo=0.01, hi=1e6), None, "data rate of its host ports together, per direction, MB/s; unset: no limit"),
                     "lcu": (None, REQUIRED, "its LCUs ([[topology.control_unit.lcu]])")},
    "lcu": {"name": (text, REQUIRED, "LCU name"),
            "devices": (integer(1, MAX_LCU_DEVICES), REQUIRED, "devices (unit addresses)"),
            "channels": (optional_list(text), REQUIRED, "its path group: channel or channel-group names, at most 8 channels"),
            "aliases": (integer(0, 255), None, "PAV aliases (as devices.aliases, which is the default)")},
    "workload": {"name": (text, REQUIRED, "workload (LPAR, application) name"),
                 "rate_iops": (num(lo=MIN_RATE_IOPS, hi=MAX_RATE_IOPS), None, "open: arrival rate (SSCH/s) before load_scale"),
                 "population": (integer(1, 1_000_000), None, "closed: I/Os kept outstanding before load_scale"),
                 "lcus": (optional_list(text), None, "the LCUs whose devices it uses; default: all"),
                 "skew": (choice("uniform", "zipf", "hotset"), None, "how its I/Os spread over its devices"),
                 "zipf_s": (num(hi=100.0), None, "zipf exponent"),
                 "hot_fraction": (num(lo=0.0, lo_open=True, hi=1.0), None, "hotset: fraction of its devices that are hot"),
                 "hot_share": (num(hi=1.0), None, "hotset: fraction of its I/Os to the hot devices"),
                 "io": (None, REQUIRED, "its I/O classes ([[topology.workload.io]])")},
    "io": {"name": (text, "io", "class name"),
           "share": (num(lo=0.0, lo_open=True, hi=1e9), 1.0, "relative frequency within the workload"),
           "kb": (num(hi=1e6), 4.0, "data per I/O, KB"),
           "records": (integer(1, 1_000_000), 1, "commands (CCWs; DCWs in z/HPF) per I/O"),
           "miss_ratio": (num(hi=1.0), 0.0, "fraction of its reads that miss the cache (disconnect)"),
           "write_share": (num(hi=1.0), 0.0, "fraction of its I/Os that write (data host -> control unit)"),
           "write_miss_ratio": (num(hi=1.0), 0.0, "fraction of its writes that disconnect (0: DASD fast write, in cache)")},
}
TOP = ("card", "channel", "director", "isl", "control_unit", "workload", "load_scale")

#: element field -> the legacy field that gives its default (when neither the element nor its
#: generation sets it).
DEFAULTS = {
    ("channel", "link_mb_s"): "channels.link_mb_s",
    ("channel", "max_open_exchanges"): "channels.max_open_exchanges",
    **{("channel", k): f"channels.{k}" for k in _MP},
    ("control_unit", "ha_servers"): "control_unit.ha_servers",
    ("control_unit", "ha_service_us"): "control_unit.ha_service_us",
    ("control_unit", "backend_servers"): "control_unit.backend_servers",
    ("control_unit", "backend_service_ms"): "control_unit.backend_service_ms",
    ("lcu", "aliases"): "devices.aliases",
    ("workload", "skew"): "devices.skew", ("workload", "zipf_s"): "devices.zipf_s",
    ("workload", "hot_fraction"): "devices.hot_fraction", ("workload", "hot_share"): "devices.hot_share",
}
#: legacy fields a topology replaces: refused when a topology is present (what replaces each).
CONFLICTS = {
    "channels.count": "the channels are topology.channel's",
    "devices.count": "the devices are the LCUs' (topology.control_unit.lcu.devices)",
    "devices.paths": "path groups are the LCUs' (topology.control_unit.lcu.channels)",
    "devices.weights": "each workload spreads its I/Os by its own skew (topology.workload.skew)",
    "workload.rate_iops": "each workload's rate is topology.workload.rate_iops (x topology.load_scale)",
    "workload.population": "each workload's population is topology.workload.population (x topology.load_scale)",
    "workload.arrival_trace_ms": "a topology's workloads arrive at rates (topology.workload.rate_iops)",
}


def _near(name, known) -> str:
    near = difflib.get_close_matches(str(name), [str(k) for k in known], n=1, cutoff=0.5)
    return f"did you mean {near[0]!r}? " if near else ""


def _known(known) -> str:
    names = list(known)
    return ", ".join(map(repr, names[:20])) + (f" ... ({len(names)} in all)" if len(names) > 20 else "")


def _element(kind: str, raw, where: str) -> dict:
    """One element's fields checked; unset optional fields are None (REQUIRED ones raise)."""
    fields = FIELDS[kind]
    if not isinstance(raw, dict):
        raise McioError(where, raw, "must be a TOML table")
    for k in raw:
        if k not in fields:
            raise McioError(f"{where}.{k}", raw[k], f"unknown key; {_near(k, fields)}allowed: {', '.join(fields)}")
    out = {}
    for k, (check, default, _doc) in fields.items():
        if k in raw and not (raw[k] is None and default is REQUIRED):
            out[k] = raw[k] if check is None else check(f"{where}.{k}", raw[k])
        elif default is REQUIRED:     # (None from the Python API: unset, as TOML has no null)
            raise McioError(f"{where}.{k}", None, f"is required ({fields[k][2]})")
        else:
            out[k] = None if default is None else check(f"{where}.{k}", default)
    return out


def _list(raw, key: str, where: str, required: bool = True) -> list:
    v = raw.get(key, [])
    if isinstance(v, dict):
        v = [v]
    if not isinstance(v, list) or (required and not v):
        raise McioError(where, v, f"must be a{' non-empty' if required else 'n'} array of tables ([[{where}]])")
    return v


class _Names:
    """A kind's names -> index, with duplicate and unknown-name errors."""

    def __init__(self, kind: str):
        self.kind, self.index, self.where = kind, {}, {}

    def add(self, name: str, where: str, i: int) -> None:
        if name in self.index:
            raise McioError(where, name, f"duplicate {self.kind} name: {self.where[name]} has it already")
        self.index[name], self.where[name] = i, where

    def ref(self, name, where: str) -> int:
        if name not in self.index:
            raise McioError(where, name, f"unknown {self.kind}; {_near(name, self.index)}known: {_known(self.index)}"
                            if self.index else f"unknown {self.kind}: the topology has none")
        return self.index[name]


def parse(raw, sections: dict, user_set: dict) -> dict:
    """The validated topology: a dict of resolved element lists (every default filled in) and
    ``spec`` (the cleaned input, for to_toml). ``sections``: the model's legacy sections
    (defaults); ``user_set``: the fields its user set (a default no element takes is refused)."""
    if not isinstance(raw, dict):
        raise McioError("topology", raw, "must be a TOML table ([topology])")
    for k in raw:
        if k not in TOP:
            raise McioError(f"topology.{k}", raw[k], f"unknown key; {_near(k, TOP)}allowed: {', '.join(TOP)}")
    used: set = set()

    def default(kind: str, key: str):
        legacy = DEFAULTS[(kind, key)]
        used.add(legacy)
        sec, f = legacy.split(".")
        return sections[sec][f]

    load_scale = num(lo=0.0, lo_open=True, hi=1e6)("topology.load_scale", raw.get("load_scale", 1.0))
    # ---- cards, directors ----
    cards, card_names = [], _Names("card")
    for i, c in enumerate(_list(raw, "card", "topology.card", required=False)):
        e = _element("card", c, f"topology.card[{i}]")
        card_names.add(e["name"], f"topology.card[{i}].name", i)
        cards.append(e)
    directors, dir_names = [], _Names("director")
    for i, d in enumerate(_list(raw, "director", "topology.director", required=False)):
        e = _element("director", d, f"topology.director[{i}]")
        dir_names.add(e["name"], f"topology.director[{i}].name", i)
        directors.append(e)
    # ---- channels (groups expanded) ----
    channels, ch_names, groups = [], _Names("channel"), {}
    for i, c in enumerate(_list(raw, "channel", "topology.channel")):
        w = f"topology.channel[{i}]"
        e = _element("channel", c, w)
        if e["chpids"] is not None:
            if e["count"] is not None:
                raise McioError(f"{w}.count", e["count"], "give chpids or count, not both")
            if not e["chpids"] or len(set(e["chpids"])) != len(e["chpids"]):
                raise McioError(f"{w}.chpids", e["chpids"], "must be a non-empty list of distinct channel names")
            members = list(e["chpids"])
        elif e["name"] is None:
            raise McioError(f"{w}.name", None, "is required (a channel's name, or a group's with count or chpids)")
        elif e["count"] is not None:
            members = [f"{e['name']}.{j}" for j in range(e["count"])]
        else:
            members = [e["name"]]
        gen = hardware.channel_parameters(e["generation"], f"{w}.generation") if e["generation"] else {}
        fig = {}
        for key in ("link_mb_s", "max_open_exchanges", *_MP):
            fig[key] = (e[key] if e[key] is not None else gen[key].value if key in gen
                        else default("channel", key))
        # (no legacy default: a channel's data path limits it only where set or published)
        fig["path_mb_s"] = e["path_mb_s"] if e["path_mb_s"] is not None else (
            gen["path_mb_s"].value if "path_mb_s" in gen else None)
        # (no legacy default: the protocol_us_* settings are the reference generation's, issue 30)
        fig["protocol_scale"] = float(e["protocol_scale"] if e["protocol_scale"] is not None else (
            gen["protocol_scale"].value if "protocol_scale" in gen else 1.0))
        card = -1 if e["card"] is None else card_names.ref(e["card"], f"{w}.card")
        director = -1 if e["director"] is None else dir_names.ref(e["director"], f"{w}.director")
        if e["name"] is not None and (e["count"] is not None or e["chpids"] is not None):
            if e["name"] in groups:
                raise McioError(f"{w}.name", e["name"], f"duplicate channel group name: {groups[e['name']][1]} has it already")
            groups[e["name"]] = (members, f"{w}.name")
        for j, name in enumerate(members):
            where = f"{w}.chpids[{j}]" if e["chpids"] is not None else f"{w}.name"
            ch_names.add(name, where, len(channels))
            channels.append({"name": name, "element": i, "duplex": e["duplex"], "card": card,
                             "director": director, "generation": e["generation"], **fig})
    if len(channels) > MAX_CHANNELS:
        raise McioError("topology.channel", f"{len(channels)} channels", f"at most {MAX_CHANNELS} channels")
    for g, (members, where) in groups.items():
        if g in ch_names.index and members != [g]:
            raise McioError(where, g, f"a channel group may not share its name with a channel ({ch_names.where[g]})")
    # ---- ISLs ----
    isls, isl_names, pairs = [], _Names("ISL group"), {}
    for i, s in enumerate(_list(raw, "isl", "topology.isl", required=False)):
        w = f"topology.isl[{i}]"
        e = _element("isl", s, w)
        isl_names.add(e["name"], f"{w}.name", i)
        if len(e["between"]) != 2:
            raise McioError(f"{w}.between", e["between"], "must name exactly two directors")
        a, b = (dir_names.ref(d, f"{w}.between[{j}]") for j, d in enumerate(e["between"]))
        if a == b:
            raise McioError(f"{w}.between", e["between"], "must name two different directors")
        key = (min(a, b), max(a, b))
        if key in pairs:
            raise McioError(f"{w}.between", e["between"], f"{pairs[key]} joins these directors already: give one ISL "
                                                          "group per pair of directors (its count says how many ISLs)")
        pairs[key] = w
        isls.append({**e, "a": a, "b": b})
    # ---- control units and their LCUs ----
    cus, cu_names, lcus, lcu_names = [], _Names("control unit"), [], _Names("LCU")
    for u, c in enumerate(_list(raw, "control_unit", "topology.control_unit")):
        w = f"topology.control_unit[{u}]"
        e = _element("control_unit", c, w)
        cu_names.add(e["name"], f"{w}.name", u)
        director = -1 if e["director"] is None else dir_names.ref(e["director"], f"{w}.director")
        for key in ("ha_servers", "ha_service_us", "backend_servers", "backend_service_ms"):
            if e[key] is None:
                e[key] = default("control_unit", key)
        for j, lc in enumerate(_list(e, "lcu", f"{w}.lcu")):
            wl = f"{w}.lcu[{j}]"
            le = _element("lcu", lc, wl)
            lcu_names.add(le["name"], f"{wl}.name", len(lcus))
            path = _path_group(le["channels"], f"{wl}.channels", ch_names, groups)
            for ch in path:
                _reach(channels[ch], director, isls, pairs, ch_names, directors, f"{wl}.channels", e["name"])
            if le["aliases"] is None:
                le["aliases"] = default("lcu", "aliases")
            elif le["aliases"] != sections["devices"]["aliases"]:
                raise McioError(f"{wl}.aliases", le["aliases"], f"must equal devices.aliases "
                                f"({sections['devices']['aliases']}) for now: the engine has one alias count for "
                                "every device; set devices.aliases instead")
            lcus.append({**le, "cu": u, "path": path})
        cus.append({**{k: v for k, v in e.items() if k != "lcu"}, "director_index": director})
    _refuse_unused(channels, ch_names, cards, card_names, directors, dir_names, isls, cus, lcus)
    n_dev = sum(lc["devices"] for lc in lcus)
    # ---- workloads and their I/O classes ----
    workloads, wl_names, kinds = [], _Names("workload"), set()
    for i, wr in enumerate(_list(raw, "workload", "topology.workload")):
        w = f"topology.workload[{i}]"
        e = _element("workload", wr, w)
        wl_names.add(e["name"], f"{w}.name", i)
        if (e["rate_iops"] is None) == (e["population"] is None):
            raise McioError(w, e["name"], "give rate_iops (an open load) or population (a closed one), exactly one")
        kinds.add(("open" if e["rate_iops"] is not None else "closed", w))
        names = e["lcus"] if e["lcus"] is not None else [lc["name"] for lc in lcus]
        if not names:
            raise McioError(f"{w}.lcus", names, "must name at least one LCU")
        idx = [lcu_names.ref(n, f"{w}.lcus[{j}]") for j, n in enumerate(names)]
        if len(set(idx)) != len(idx):
            raise McioError(f"{w}.lcus", names, "must name distinct LCUs")
        if e["skew"] is None:
            e["skew"] = default("workload", "skew")
            if e["skew"] == "weights":
                raise McioError(f"{w}.skew", None, "devices.skew = 'weights' cannot be a topology's default (its weights "
                                                   "are per device); give this workload a skew")
        for key, skew in (("zipf_s", "zipf"), ("hot_fraction", "hotset"), ("hot_share", "hotset")):
            if e["skew"] != skew and e[key] is not None:
                raise McioError(f"{w}.{key}", e[key], f"has no effect with skew = {e['skew']!r}: it counts only "
                                                      f"with skew = {skew!r}; remove it")
            if e["skew"] == skew and e[key] is None:
                e[key] = default("workload", key)
        classes = [_element("io", c, f"{w}.io[{j}]") for j, c in enumerate(_list(e, "io", f"{w}.io"))]
        workloads.append({**{k: v for k, v in e.items() if k != "io"}, "lcu_index": idx, "io": classes})
    if len({k for k, _ in kinds}) > 1:
        w = next(w for k, w in sorted(kinds) if k == "open")
        raise McioError(w, "rate_iops", "every workload is open (rate_iops) or every one closed (population): "
                                        "the engine runs one kind of load")
    # (devices.aliases is also every device's alias count: never unused)
    unused = [f for f in set(DEFAULTS.values()) if f in user_set and f not in used and f != "devices.aliases"]
    if unused:
        f = sorted(unused)[0]
        where, value = user_set[f]
        raise McioError(where, value, "has no effect with this [topology]: every element that could take it as its "
                                      "default sets its own; remove it")
    return {"load_scale": load_scale, "cards": cards, "directors": directors, "channels": channels,
            "isls": isls, "cus": cus, "lcus": lcus, "workloads": workloads, "n_devices": n_dev,
            "kind": next(iter(kinds))[0]}


def _refuse_unused(channels, ch_names, cards, card_names, directors, dir_names, isls, cus, lcus) -> None:
    """Nothing declared is ignored in silence: a channel in no path group, a card no channel sits
    on, a director nothing is attached to, an ISL group no path crosses are errors."""
    used_ch = {c for lc in lcus for c in lc["path"]}
    for c, ch in enumerate(channels):
        if c not in used_ch:
            raise McioError(ch_names.where[ch["name"]], ch["name"], "no LCU's path group uses this channel "
                            "(topology.control_unit.lcu.channels); remove it or add it to a path group")
    on_card = {ch["card"] for ch in channels}
    for i, k in enumerate(cards):
        if i not in on_card:
            raise McioError(card_names.where[k["name"]], k["name"], "no channel sits on this card "
                                                                    "(topology.channel.card); remove it")
    attached = {ch["director"] for ch in channels} | {u["director_index"] for u in cus}
    for i, d in enumerate(directors):
        if i not in attached:
            raise McioError(dir_names.where[d["name"]], d["name"], "no channel or control unit is attached to "
                                                                   "this director; remove it")
    crossed = {(channels[c]["director"], cus[lc["cu"]]["director_index"]) for lc in lcus for c in lc["path"]}
    for i, s in enumerate(isls):
        if (s["a"], s["b"]) not in crossed and (s["b"], s["a"]) not in crossed:
            raise McioError(f"topology.isl[{i}].name", s["name"], "no path group crosses this ISL group (no LCU "
                            "behind one of its directors has a channel on the other); remove it")


def _path_group(names, where: str, ch_names: _Names, groups: dict) -> list:
    """An LCU's path group: channel indices (group names expanded), distinct, at most 8."""
    if not names:
        raise McioError(where, names, "an LCU needs at least one channel")
    out = []
    for j, n in enumerate(names):
        if n in groups and n not in ch_names.index:
            out += [ch_names.index[m] for m in groups[n][0]]
        else:
            if n not in ch_names.index:
                raise McioError(f"{where}[{j}]", n, f"unknown channel or channel group; "
                                f"{_near(n, list(ch_names.index) + list(groups))}known: {_known(ch_names.index)}")
            out.append(ch_names.index[n])
    if len(set(out)) != len(out):
        raise McioError(where, names, "names a channel twice (directly or through its group)")
    if len(out) > MAX_PATHS:
        raise McioError(where, names, f"a path group holds at most {MAX_PATHS} channels; this one has {len(out)}")
    return out


def _reach(ch: dict, cu_dir: int, isls: list, pairs: dict, ch_names, directors, where: str, cu: str) -> None:
    """Refuse a channel that cannot reach its control unit (directors without an ISL between)."""
    a = ch["director"]
    if (a < 0) != (cu_dir < 0):
        side = "the channel" if a >= 0 else f"control unit {cu!r}"
        raise McioError(where, ch["name"], f"channel {ch['name']!r} cannot reach control unit {cu!r}: only {side} is "
                        "on a director (give both a director, or neither for a direct link)")
    if a >= 0 and a != cu_dir and (min(a, cu_dir), max(a, cu_dir)) not in pairs:
        raise McioError(where, ch["name"], f"channel {ch['name']!r} (director {directors[a]['name']!r}) cannot reach "
                        f"control unit {cu!r} (director {directors[cu_dir]['name']!r}): no topology.isl between them")


def clean_spec(raw: dict) -> dict:
    """The topology as given, values checked (Dists as TOML), for :meth:`Model.to_dict`."""
    from .dist import Dist

    def plain(v):
        if isinstance(v, Dist):
            return v.to_toml()
        if isinstance(v, dict):     # (None from the Python API: unset, as TOML has no null)
            return {k: plain(x) for k, x in v.items() if x is not None}
        if isinstance(v, list):
            return [plain(x) for x in v]
        return v
    return plain(raw)


class Topology:
    """A model's validated ``[topology]``: ``spec`` (as given, checked: what to_toml writes),
    ``parsed`` (every element with its defaults resolved, from :func:`parse`)."""

    def __init__(self, raw: dict, sections: dict, user_set: dict):
        self.parsed = parse(raw, sections, user_set)
        self.spec = clean_spec(raw)
        self._sections = sections
        self._tables = None

    def __eq__(self, other) -> bool:
        return isinstance(other, Topology) and self.spec == other.spec

    __hash__ = None

    def __repr__(self) -> str:
        p = self.parsed
        return (f"Topology({len(p['channels'])} channels, {len(p['cus'])} control units, {len(p['lcus'])} LCUs, "
                f"{p['n_devices']} devices, {len(p['workloads'])} workloads, load_scale {p['load_scale']:g})")

    def tables(self, model=None):
        """The configuration as :class:`mcio.engine.tables.Tables` (compiled once; a fresh
        copy each call, so a caller may change it)."""
        import copy

        from .topology_tables import compile_tables
        if self._tables is None:
            self._tables = compile_tables(self.parsed, self._sections)
        return copy.deepcopy(self._tables)

    def to_dict(self) -> dict:
        return clean_spec(self.spec)


__all__ = ["Topology", "parse", "FIELDS", "DEFAULTS", "CONFLICTS", "MAX_CHANNELS", "MAX_PATHS", "MAX_LCU_DEVICES", "clean_spec"]


def markdown_fields() -> str:
    """The element fields as Markdown tables (docs/topology.md's reference; a test keeps it current)."""
    heads = {"card": "[[topology.card]]", "channel": "[[topology.channel]]", "director": "[[topology.director]]",
             "isl": "[[topology.isl]]", "control_unit": "[[topology.control_unit]]",
             "lcu": "[[topology.control_unit.lcu]]", "workload": "[[topology.workload]]",
             "io": "[[topology.workload.io]]"}
    lines = []
    for kind, head in heads.items():
        lines += [f"### `{head}`", "", "| field | default | meaning |", "|---|---|---|"]
        for k, (_check, default, doc) in FIELDS[kind].items():
            legacy = DEFAULTS.get((kind, k))
            d = ("required" if default is REQUIRED else f"`{legacy}`" if legacy
                 else "unset" if default is None else f"`{default!r}`".replace("'", '"'))
            if kind == "channel" and k in ("link_mb_s", "max_open_exchanges") or k.startswith("mp_us_per_io"):
                d = f"the generation's, else {d}"
            lines.append(f"| `{k}` | {d} | {doc} |")
        lines.append("")
    return "\n".join(lines)
