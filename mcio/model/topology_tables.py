"""A parsed ``[topology]`` (:func:`mcio.model.topology.parse`) compiled to
:class:`mcio.engine.tables.Tables`, its aggregate "legacy view" (the model's [channels],
[devices], [workload], [[io]] figures a topology implies) and its capacity check (per station
utilisation from mean demands, as :meth:`mcio.model.Model.open_bottleneck` does for one path).

Links and routes (docs/topology.md): a channel has one link per direction (full duplex) or one for
both (half); an ISL group of n ISLs between directors A and B is 2n links, one per ISL and
physical direction; a transfer between a channel on A and a control unit on B crosses ISL
``channel index mod n`` of the group (port-based routing: a channel's traffic always takes the
same ISL); a control unit's ports are one link per direction (``port_mb_s``); a card's data limit
is one link both directions share. A route is [channel link, ISL, CU port, card], those present.
Units: ms, KB, KB/ms (1 MB/s = 1 KB/ms).
"""
from __future__ import annotations

import numpy as np

from .costs import MODES, mp_us

READ, WRITE = 0, 1


def device_weights(topo: dict) -> list:
    """Per workload: (device indices, weights summing to 1) by its skew over its LCUs' devices."""
    start = np.cumsum([0] + [lc["devices"] for lc in topo["lcus"]])
    out = []
    for w in topo["workloads"]:
        dev = np.concatenate([np.arange(start[i], start[i + 1]) for i in w["lcu_index"]]).astype(np.int64)
        n = len(dev)
        if w["skew"] == "zipf":
            wt = 1.0 / np.arange(1, n + 1) ** w["zipf_s"]
        elif w["skew"] == "hotset":
            n_hot = max(1, int(round(w["hot_fraction"] * n)))
            wt = np.full(n, (1.0 - w["hot_share"]) / max(1, n - n_hot))
            wt[:n_hot] = w["hot_share"] / n_hot
            if n_hot == n:
                wt[:] = 1.0 / n
        else:
            wt = np.ones(n)
        out.append((dev, wt / wt.sum()))
    return out


def classes(topo: dict) -> list:
    """Kernel I/O classes: each [[io]] of each workload split into its read and write parts
    (a part with no share is left out). Dicts: name, workload, dir, share (within the workload,
    summing to 1), kb, records, miss."""
    out = []
    for wi, w in enumerate(topo["workloads"]):
        tot = sum(c["share"] for c in w["io"])
        for c in w["io"]:
            for d, part, miss in ((READ, 1.0 - c["write_share"], c["miss_ratio"]),
                                  (WRITE, c["write_share"], c["write_miss_ratio"])):
                if part > 0:
                    out.append({"name": f"{w['name']}.{c['name']}.{'read' if d == READ else 'write'}",
                                "workload": wi, "dir": d, "share": c["share"] / tot * part, "kb": c["kb"],
                                "records": c["records"], "miss": miss})
    return out


def workload_loads(topo: dict) -> tuple[np.ndarray, np.ndarray]:
    """(open rates in I/Os per second, closed populations) per workload, after load_scale."""
    s = topo["load_scale"]
    rate = np.array([w["rate_iops"] * s if w["rate_iops"] is not None else 0.0 for w in topo["workloads"]])
    pop = np.array([max(1, int(round(w["population"] * s))) if w["population"] is not None else 0
                    for w in topo["workloads"]], np.int64)
    return rate, pop


def workload_mix(topo: dict) -> np.ndarray:
    """Each workload's fraction of all I/Os: by rate (open) or by population (closed)."""
    rate, pop = workload_loads(topo)
    x = rate if topo["kind"] == "open" else pop.astype(float)
    return x / x.sum()


def legacy_view(topo: dict) -> dict:
    """The aggregate figures the legacy sections hold for a topology: channels.count,
    devices.count, workload.type / rate_iops / population, and [[io]] (the kernel classes, with
    shares of all I/Os)."""
    rate, pop = workload_loads(topo)
    mix = workload_mix(topo)
    io = [{"name": c["name"], "share": float(c["share"] * mix[c["workload"]]), "kb": c["kb"],
           "records": c["records"], "miss_ratio": c["miss"]} for c in classes(topo)]
    return {"channels.count": len(topo["channels"]), "devices.count": topo["n_devices"],
            "workload.type": topo["kind"], "workload.rate_iops": float(rate.sum()),
            "workload.population": int(pop.sum()), "io": io}


def all_device_weights(topo: dict) -> np.ndarray:
    """Every device's share of all I/Os (the workloads' skews, weighted by their mix)."""
    out = np.zeros(topo["n_devices"])
    for (dev, wt), m in zip(device_weights(topo), workload_mix(topo)):
        np.add.at(out, dev, m * wt)
    return out


def channel_protocol_ms(chs, cls, sections: dict):
    """The connect-time work (ms) of an I/O of class k on channel c by mode (0 CCW, 1 z/HPF),
    float64[C, NC, 2]: the ``channels.protocol_us_*`` settings times the channel's
    ``protocol_scale``, plus the control unit's work per command (``control_unit.cu_us_per_command_*``,
    not scaled). None when no channel's differs from the settings' own (every scale 1, or no
    protocol time): the kernels then take the class's (``cls_proto``), as before issue 30."""
    c_, cu = sections["channels"], sections["control_unit"]
    ccw, io_z, cmd_z = (c_["protocol_us_per_command_ccw"], c_["protocol_us_per_io_zhpf"],
                        c_["protocol_us_per_command_zhpf"])
    if all(ch["protocol_scale"] == 1.0 for ch in chs) or ccw == io_z == cmd_z == 0.0:
        return None
    out = np.zeros((len(chs), len(cls), 2))
    for c, ch in enumerate(chs):
        s = ch["protocol_scale"]
        for k, cl in enumerate(cls):
            rec = float(cl["records"])
            # (the expressions of engine/units.py's cls_proto, each protocol setting x s)
            out[c, k, 0] = (ccw * s + cu["cu_us_per_command_ccw"]) * rec / 1000.0
            out[c, k, 1] = (io_z * s + (cmd_z * s + cu["cu_us_per_command_zhpf"]) * rec) / 1000.0
    return out


def compile_tables(topo: dict, sections: dict):
    """The :class:`mcio.engine.tables.Tables` of a parsed topology (``sections``: the model's
    legacy sections, for nothing but what they alone hold)."""
    from ..engine.tables import Tables, path_groups   # (late: engine.tables imports mcio.model's leaves)
    chs, cus, lcus, isls, cards = topo["channels"], topo["cus"], topo["lcus"], topo["isls"], topo["cards"]
    C, U = len(chs), len(cus)
    ln_name, ln_kind, ln_dir, ln_rate = [], [], [], []

    def link(name, kind, d, rate):
        ln_name.append(name), ln_kind.append(kind), ln_dir.append(d), ln_rate.append(float(rate))
        return len(ln_name) - 1

    ch_link = np.zeros((C, 2), np.int64)
    for c, ch in enumerate(chs):
        if ch["duplex"] == "half":
            ch_link[c] = link(ch["name"], "channel", "both", ch["link_mb_s"])
        else:
            ch_link[c, READ] = link(f"{ch['name']}.read", "channel", "read", ch["link_mb_s"])
            ch_link[c, WRITE] = link(f"{ch['name']}.write", "channel", "write", ch["link_mb_s"])
    dname = [d["name"] for d in topo["directors"]]
    isl_ln = {}       # (from director, to director) -> [link per ISL]
    for s in isls:
        for a, b in ((s["a"], s["b"]), (s["b"], s["a"])):
            isl_ln[(a, b)] = [link(f"{s['name']}.{j}:{dname[a]}>{dname[b]}", "isl", "", s["mb_s"])
                              for j in range(s["count"])]
    port = [(link(f"{u['name']}.port.read", "cu_port", "read", u["port_mb_s"]),
             link(f"{u['name']}.port.write", "cu_port", "write", u["port_mb_s"])) if u["port_mb_s"] else None
            for u in cus]
    card_ln = [link(k["name"], "card", "both", k["max_mb_s"]) if k["max_mb_s"] else -1 for k in cards]
    # a card's per-direction data limits (reads and writes have their own paths through it, issue 30)
    card_dir_ln = [tuple(link(f"{k['name']}.{dn}", "card", dn, k[f"max_{dn}_mb_s"]) if k.get(f"max_{dn}_mb_s") else -1
                         for dn in ("read", "write")) for k in cards]
    # a channel's own data path (reads + writes together), below its two links on some generations
    path_ln = [link(f"{ch['name']}.path", "ch_path", "both", ch["path_mb_s"]) if ch.get("path_mb_s") else -1
               for ch in chs]
    rt_ptr, rt_ln, isl_dirs = [0], [], {}
    for c, ch in enumerate(chs):
        for u, cu in enumerate(cus):
            for d in (READ, WRITE):
                route = [int(ch_link[c, d])]
                if path_ln[c] >= 0:
                    route.append(path_ln[c])
                a, b = ch["director"], cu["director_index"]
                if a >= 0 and b >= 0 and a != b and (a, b) in isl_ln:
                    group = isl_ln[(b, a) if d == READ else (a, b)]      # reads flow CU -> channel
                    route.append(group[c % len(group)])
                    isl_dirs.setdefault(route[-1], set()).add(d)
                if port[u] is not None:
                    route.append(port[u][d])
                if ch["card"] >= 0 and card_dir_ln[ch["card"]][d] >= 0:
                    route.append(card_dir_ln[ch["card"]][d])
                if ch["card"] >= 0 and card_ln[ch["card"]] >= 0:
                    route.append(card_ln[ch["card"]])
                rt_ln += route
                rt_ptr.append(len(rt_ln))
    for li, k in enumerate(ln_kind):      # an ISL's directions: those of the I/Os routed over it
        if k == "isl":
            ds = isl_dirs.get(li, set())
            ln_dir[li] = "both" if len(ds) != 1 else ("read" if READ in ds else "write")
    dev_lcu = np.repeat(np.arange(len(lcus), dtype=np.int64), [lc["devices"] for lc in lcus])
    lcu_cu = np.array([lc["cu"] for lc in lcus], np.int64)
    groups, dev_grp = path_groups([lc["path"] for lc in lcus for _ in range(lc["devices"])], len(dev_lcu), C)
    rate, pop = workload_loads(topo)
    dw = device_weights(topo)
    cls = classes(topo)
    # each class's share of its workload's I/Os (the workloads' own loads weigh them: engine/units.py)
    share = np.array([k["share"] for k in cls], float)
    wl_of = np.array([k["workload"] for k in cls], np.int64)
    share = share / np.bincount(wl_of, weights=share)[wl_of]
    mp_ms = np.zeros((C, len(cls), 2))
    for c, ch in enumerate(chs):
        for k, cl in enumerate(cls):
            for m, mode in enumerate(MODES):
                mp_ms[c, k, m] = mp_us(ch[f"mp_us_per_io_{mode}"], ch[f"mp_us_per_command_{mode}"],
                                       ch[f"mp_us_per_kb_{mode}"], cl["records"], cl["kb"]) / 1000.0
    return Tables(
        ch_proto_ms=channel_protocol_ms(chs, cls, sections),
        ch_name=[ch["name"] for ch in chs], ch_oe_cap=np.array([ch["max_open_exchanges"] for ch in chs], np.int64),
        ch_card=np.array([ch["card"] for ch in chs], np.int64), ch_link=ch_link, mp_ms=mp_ms,
        ln_name=ln_name, ln_kind=ln_kind, ln_dir=ln_dir, ln_kb_per_ms=np.array(ln_rate, float),
        rt_ptr=np.array(rt_ptr, np.int64), rt_ln=np.array(rt_ln, np.int64),
        card_name=[k["name"] for k in cards],
        card_start_ms=np.array([1000.0 / k["max_iops"] if k["max_iops"] else 0.0 for k in cards], float),
        cu_name=[u["name"] for u in cus], cu_ha_servers=np.array([u["ha_servers"] for u in cus], np.int64),
        cu_ha_service_ms=[u["ha_service_us"].scaled(1e-3) for u in cus],
        cu_be_servers=np.array([u["backend_servers"] for u in cus], np.int64),
        cu_be_service_ms=[u["backend_service_ms"] for u in cus],
        lcu_name=[lc["name"] for lc in lcus], lcu_cu=lcu_cu, dev_lcu=dev_lcu, dev_cu=lcu_cu[dev_lcu],
        groups=groups, dev_grp=dev_grp,
        wl_name=[w["name"] for w in topo["workloads"]], wl_rate_iops=rate, wl_population=pop,
        wl_dev_ptr=np.cumsum([0] + [len(d) for d, _ in dw]).astype(np.int64),
        wl_dev=np.concatenate([d for d, _ in dw]).astype(np.int64),
        wl_dev_weight=np.concatenate([w for _, w in dw]),
        cls_name=[k["name"] for k in cls], cls_wl=np.array([k["workload"] for k in cls], np.int64),
        cls_dir=np.array([k["dir"] for k in cls], np.int64), cls_share=share,
        cls_kb=np.array([k["kb"] for k in cls], float), cls_records=np.array([k["records"] for k in cls], np.int64),
        cls_miss=np.array([k["miss"] for k in cls], float), legacy=False)


# ---- capacity: mean demands and per-station utilisation ----------------------------------------

def class_channel_rates(t, topo: dict) -> np.ndarray:
    """rates[c, u, k]: I/Os per ms of class k on channel c to control unit u, by the workloads'
    shares of all I/Os (x the total open rate: per ms; closed: fractions of all I/Os), spread
    evenly over each path group's channels (selection 'rotate'; 'least_busy' is close to it)."""
    C, U, NC = t.n_channels, t.n_cus, len(t.cls_name)
    total = t.wl_rate_iops.sum() / 1000.0 if topo["kind"] == "open" else 1.0
    mix = workload_mix(topo)
    out = np.zeros((C, U, NC))
    for w, (dev, wt) in enumerate(device_weights(topo)):
        within = t.cls_share[t.cls_wl == w]
        within = within / within.sum()
        ks = np.flatnonzero(t.cls_wl == w)
        for g, grp in enumerate(t.groups):
            for u in range(U):
                sel = (t.dev_grp[dev] == g) & (t.dev_cu[dev] == u)
                p = wt[sel].sum()
                if p > 0:
                    out[np.array(grp)[:, None], u, ks[None, :]] += total * mix[w] * p * within[None, :] / len(grp)
    return out


def utilisations(t, topo: dict, sections: dict) -> dict:
    """Station -> utilisation (per server) of an open topology from mean demands (no queueing): a
    necessary stability condition, as :meth:`mcio.model.Model.open_bottleneck`'s."""
    r = class_channel_rates(t, topo)
    z = sections["channels"]["zhpf_share"]
    mp = (1 - z) * t.mp_ms[:, :, 0] + z * t.mp_ms[:, :, 1]           # [C, NC]
    util = {}
    for c, name in enumerate(t.ch_name):
        util[f"channel {name} MP"] = float((r[c].sum(axis=0) * mp[c]).sum())
    busy = np.zeros(len(t.ln_name))
    starts = np.zeros(len(t.card_name))
    for c in range(t.n_channels):
        for u in range(t.n_cus):
            for d in (READ, WRITE):
                kb_ms = float((r[c, u] * t.cls_kb * (t.cls_dir == d)).sum())
                busy[t.route(c, u, d)] += kb_ms / t.ln_kb_per_ms[t.route(c, u, d)]
        if t.ch_card[c] >= 0:
            starts[t.ch_card[c]] += r[c].sum() * t.card_start_ms[t.ch_card[c]]
    for i, name in enumerate(t.ln_name):
        util[f"{t.ln_kind[i]} link {name}"] = float(busy[i])
    for i, name in enumerate(t.card_name):
        if t.card_start_ms[i] > 0:
            util[f"card {name} starts"] = float(starts[i])
    per_cu = r.sum(axis=(0, 2))
    miss_cu = (r * t.cls_miss).sum(axis=(0, 2))
    for u, name in enumerate(t.cu_name):
        util[f"control unit {name} host adapter"] = float(per_cu[u] * t.cu_ha_service_ms[u].mean / t.cu_ha_servers[u])
        util[f"control unit {name} back end"] = float(miss_cu[u] * t.cu_be_service_ms[u].mean / t.cu_be_servers[u])
    return util


def mean_demands_ms(t, topo: dict, sections: dict) -> dict:
    """Mean service demand per I/O at each kind of station (ms), over all I/Os: the keys of
    :meth:`mcio.model.Model.mean_demands_ms` (mp, link, protocol, ha, backend)."""
    r = class_channel_rates(t, topo)
    tot = r.sum()
    c_, cu = sections["channels"], sections["control_unit"]
    z = c_["zhpf_share"]
    mp = (1 - z) * t.mp_ms[:, :, 0] + z * t.mp_ms[:, :, 1]
    rate_ck = r.sum(axis=1)
    link = sum(float(rate_ck[c, k] * t.cls_kb[k] / t.ln_kb_per_ms[t.ch_link[c, t.cls_dir[k]]])
               for c in range(t.n_channels) for k in range(len(t.cls_name)))
    share_k = rate_ck.sum(axis=0) / tot
    rec = t.cls_records
    if t.ch_proto_ms is not None:      # a channel's own protocol time (its generation's scale)
        proto = float((rate_ck * ((1 - z) * t.ch_proto_ms[:, :, 0] + z * t.ch_proto_ms[:, :, 1])).sum() / tot)
    else:
        proto = float((share_k * ((1 - z) * (c_["protocol_us_per_command_ccw"] + cu["cu_us_per_command_ccw"]) * rec
                                  + z * (c_["protocol_us_per_io_zhpf"]
                                         + (c_["protocol_us_per_command_zhpf"] + cu["cu_us_per_command_zhpf"])
                                         * rec))).sum() / 1000.0)
    per_cu = r.sum(axis=(0, 2)) / tot
    miss_cu = (r * t.cls_miss).sum(axis=(0, 2)) / tot
    return {"mp": float((rate_ck * mp).sum() / tot), "link": float(link / tot), "protocol": proto,
            "ha": float(sum(per_cu[u] * t.cu_ha_service_ms[u].mean for u in range(t.n_cus))),
            "backend": float(sum(miss_cu[u] * t.cu_be_service_ms[u].mean for u in range(t.n_cus)))}


__all__ = ["compile_tables", "legacy_view", "all_device_weights", "utilisations", "mean_demands_ms",
           "device_weights", "classes", "workload_loads", "class_channel_rates"]
