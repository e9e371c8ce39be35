"""Figures of seeds 002-004 (docs/dasd_mdc.md, docs/zhpf_dump.md, docs/cms_commit.md), added to
figure_registry's ``RUNS`` and ``FIGURES``: the runs are the scenarios' ``mcio reproduce`` and the
scripts' own runs at their defaults."""
from __future__ import annotations

from typing import Callable

import numpy as np

from figure_registry import FIGURES, RUNS, Figure, Value, _fr, _many, _script, num, reproduce_block

def run_zhpf_dump():
    """``python scripts/zhpf_dump.py`` at its defaults (3,000 programs x 4, seed 2026)."""
    return _script("zhpf_dump").build(3000, 4, 2026)


CMS_TIME_CYLINDERS = (10, 1000, 32760, 65520, 262668)


def run_cms():
    """``python scripts/cms_commit.py``'s cells (its defaults: 5,000 I/Os x 4, seed 1) at 4 KB for the
    time table, the counts at every size and block size, the 20 KB-limit variant and the cached CU."""
    from mcio.scenarios.cms import BLOCK_SIZES, CMS_COMMIT, EAV_CYLINDERS, SEED_CYLINDERS
    from mcio.scenarios.cms.table import build_dataset
    cyl = list(SEED_CYLINDERS) + list(EAV_CYLINDERS)
    return {"counts": build_dataset(CMS_COMMIT, cyl, BLOCK_SIZES, timing=False),
            "bytes": build_dataset(CMS_COMMIT, cyl, BLOCK_SIZES, variant="bytes-limit", timing=False),
            "time": build_dataset(CMS_COMMIT, CMS_TIME_CYLINDERS, [4096], ios=5000, replications=4, seed=1),
            "cached": build_dataset(CMS_COMMIT, [32760], [4096], variant="cached", ios=5000, replications=4, seed=1),
            "seed_cylinders": list(SEED_CYLINDERS)}


RUNS.update(zhpf_dump=run_zhpf_dump, cms=run_cms)


DASD_WHATIFS = (("phase 1 as measured: MDC track, read-through", "phase1"), ("MDC block mode", "whatif_mdc_block"),
                ("cache-staging CU", "whatif_staging_cu"), ("block mode + staging CU", "whatif_block_and_staging"),
                ("phase 3 with hits at channel speed", "whatif_phase3_hits_at_channel_speed"),
                ("emulated 3390 on FICON", "whatif_phase1_emulated_ficon"))


def dasd_whatif_table(r) -> Value:
    rows = r[1]
    lines = ["| variant | service ms (disc + conn) | SSCH/s | busy | app reads/s | channel connect busy |",
             "|---|---|---|---|---|---|"]
    for label, v in DASD_WHATIFS:
        g = lambda q: _fr(rows, v, q).model
        lines.append(f"| {label} | {g('service'):.1f} ({g('disconnect'):.1f} + {g('connect'):.1f}) | "
                     f"{g('I/O rate'):.1f} | {100 * g('device busy'):.0f} % | {g('application reads'):.1f} | "
                     f"{100 * g('channel connect busy'):.0f} % |")
    return Value("\n" + "\n".join(lines) + "\n")


def dasd_seam_text(r) -> Value:
    rows = r[1]
    s, w = "phase1 on the seam", "phase1"
    f = lambda v, q: _fr(rows, v, q)
    return Value(f"disconnect {f(s, 'disconnect').model:.2f} ± {f(s, 'disconnect').ci95:.2f} ms on the seam vs "
                 f"{f(w, 'disconnect').model:.2f} ± {f(w, 'disconnect').ci95:.2f} ms from the walk's i.i.d. draws "
                 f"(measured {f(w, 'disconnect').measured:.4g}), connect {f(s, 'connect').model:.2f} vs "
                 f"{f(w, 'connect').model:.2f} ({f(w, 'connect').measured:.4g}), service {f(s, 'service').model:.2f} vs "
                 f"{f(w, 'service').model:.2f} ({f(w, 'service').measured:.4g}), {f(s, 'I/O rate').model:.1f} vs "
                 f"{f(w, 'I/O rate').model:.1f} SSCH/s")


# ---- seed 003 (docs/zhpf_dump.md)

def zhpf_dump_breakdown(ds) -> Value:
    parts = []
    for m, label in (("classic", "Classic"), ("zhpf", "z/HPF")):
        bd = ds.breakdown_ms.sel(mode=m).values
        parts.append(f"{label}: " + " + ".join(f"{x:.3f}" for x in bd) + f" = {bd.sum():.3f} ms.")
    sim = lambda v: " / ".join(f"{float(ds[v].sel(mode=m).mean()):.3f}" for m in ("classic", "zhpf"))
    return Value(" ".join(parts) + f" The simulation gives the same (pend {sim('pend_ms')} ms, connect "
                 f"{sim('connect_ms')} ms)")


ZHPF_DUMP_CHAINS = (1, 8, 32, 90, 114, 128, 255)
ZHPF_DUMP_N = (1, 4, 8, 16, 32, 64)


def zhpf_dump_chain_table(ds) -> Value:
    lines = ["| chain | " + " | ".join(str(k) for k in ZHPF_DUMP_CHAINS) + " |", "|---" * (len(ZHPF_DUMP_CHAINS) + 1) + "|"]
    for m, label in (("classic", "classic"), ("zhpf", "z/HPF")):
        e = ds.chain_elapsed_s.sel(mode=m, chain_records=list(ZHPF_DUMP_CHAINS)).mean("replication").values
        lines.append(f"| {label} | " + " | ".join(f"{x:.1f}" for x in e) + " |")
    return Value("\n" + "\n".join(lines) + "\n")


def zhpf_dump_n_table(ds) -> Value:
    lines = ["| N | " + " | ".join(str(k) for k in ZHPF_DUMP_N) + " |", "|---" * (len(ZHPF_DUMP_N) + 1) + "|"]
    for m, label in (("classic", "classic"), ("zhpf", "z/HPF")):
        d = ds.sel(mode=m, outstanding=list(ZHPF_DUMP_N)).mean("replication")
        cells = [f"{e:.3g} / {100 * lb:.0f} / {100 * cb:.0f}" for e, lb, cb in
                 zip(d.outstanding_elapsed_s.values, d.outstanding_link_busy.values, d.outstanding_channel_busy.values)]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return Value("\n" + "\n".join(lines) + "\n")


def zhpf_dump_share(ds) -> Value:
    e = ds.share_elapsed_s.mean("replication").values
    return Value(", ".join(f"{z:g}: {x:.1f}" + (" s" if i == 0 else "") for i, (z, x) in enumerate(zip(ds.zhpf_share.values, e))))


def zhpf_dump_predicted(r) -> Value:
    rows = r[1]
    p = lambda q: _fr(rows, "z/HPF predicted", q)
    c = _fr(rows, "classic", "ms per I/O")
    ms, wait, rec, el = p("ms per I/O"), p("I/O wait"), p("us per record"), p("elapsed")
    seed_ms = _seed(rows, "z/HPF: ms per I/O")
    return Value(f"It predicts {ms.model:.2f} ms per I/O (seed {seed_ms:g}, **{err_of(ms.model, seed_ms)}**), I/O wait "
                 f"{wait.model:.1f} s ({err_of(wait.model, _seed(rows, 'z/HPF: I/O wait'))}), {rec.model:.1f} us per record "
                 f"({err_of(rec.model, _seed(rows, 'z/HPF: us per record'))}), elapsed {el.model:.1f} s "
                 f"({err_of(el.model, _seed(rows, 'z/HPF: elapsed'))}): the right size of the change "
                 f"({100 * (ms.model / c.model - 1):+.0f} % per I/O against the measured "
                 f"{100 * (seed_ms / c.measured - 1):+.0f} %)")


def _seed(rows, prefix: str) -> float:
    return next(x.measured for x in rows if x.figure.startswith(prefix))


def err_of(model: float, seed: float) -> str:
    return f"{100 * (model / seed - 1):+.0f} %"


# ---- seed 004 (docs/cms_commit.md)

def cms_count_table(r) -> Value:
    t = r["counts"].sel(block_bytes=4096, cylinders=r["seed_cylinders"])
    from mcio.scenarios.cms import COMMANDS, RELEASES
    head = "| cylinders | map blocks | " + " | ".join(
        f"{rel} {c}" if i == 0 else c for rel in RELEASES for i, c in enumerate(COMMANDS)) + " |"
    lines = [head, "|---" * (2 + len(RELEASES) * len(COMMANDS)) + "|"]
    for cyl in r["seed_cylinders"]:
        cells = []
        for rel in RELEASES:
            for cmd in COMMANDS:
                m = int(t.ios_per_batch.sel(release=rel, cylinders=cyl, command=cmd))
                pub = t.published_ios_per_batch.sel(release=rel, cylinders=cyl, command=cmd).item()
                cells.append(f"{m:,}" if m == pub else f"**{m:,} (published {int(pub):,})**")
        maps = int(t.allocation_map_blocks.sel(cylinders=cyl))
        lines.append(f"| {cyl:,} | {maps} | " + " | ".join(cells) + " |")
    return Value("\n" + "\n".join(lines) + "\n")


def cms_matched(r) -> Value:
    t = r["counts"].sel(block_bytes=4096, cylinders=r["seed_cylinders"])
    pub = t.published_ios_per_batch.values
    ok = np.isfinite(pub)
    return Value(f"{int((t.ios_per_batch.values[ok] == pub[ok]).sum())} of the {int(ok.sum())}")


def cms_time_table(r) -> Value:
    d = r["time"].sel(block_bytes=4096)
    lines = ["| ms per command (3390) | " + " | ".join(f"{c:,}" + (" cyl" if i == 0 else "")
                                                      for i, c in enumerate(CMS_TIME_CYLINDERS)) + " |",
             "|---" * (len(CMS_TIME_CYLINDERS) + 1) + "|"]
    fmt = lambda x: f"{x:,.0f}" if x >= 100 else f"{x:.1f}"
    for rel in ("4.2.0", "4.3.0"):
        e = d.elapsed_ms.sel(release=rel)
        lines.append(f"| {rel} CREATE / COPY | " + " | ".join(
            f"{fmt(float(e.sel(cylinders=c, command='CREATE')))} / {fmt(float(e.sel(cylinders=c, command='COPY')))}"
            for c in CMS_TIME_CYLINDERS) + " |")
    return Value("\n" + "\n".join(lines) + "\n")


def cms_figures(r) -> dict[str, Value]:
    t = r["time"].sel(block_bytes=4096, cylinders=32760)
    sat = lambda rel, cmd, ds=t: float(ds.saturation_commands_per_s.sel(release=rel, command=cmd))
    busy = lambda rel: float(t.device_busy.sel(release=rel, command="CREATE"))
    cached = r["cached"].sel(block_bytes=4096, cylinders=32760)
    c = r["counts"].sel(block_bytes=4096, release="4.2.0", command="CREATE")
    b = r["counts"].sel(cylinders=32760, release="4.2.0", command="CREATE")
    bl = r["bytes"].sel(cylinders=32760, release="4.2.0", command="CREATE")
    per = lambda x: f"{float(x) / 50:,.0f}"
    e262 = float(r["time"].elapsed_ms.sel(block_bytes=4096, cylinders=262668, release="4.2.0", command="CREATE"))
    return {
        "cms_busy_420_pct": Value(f"{100 * busy('4.2.0'):.0f}"),
        "cms_busy_430_pct": Value(f"{100 * busy('4.3.0'):.0f}"),
        "cms_sat_420_create": Value(f"{sat('4.2.0', 'CREATE'):.1f}"),
        "cms_sat_420_copy": Value(f"{sat('4.2.0', 'COPY'):.1f}"),
        "cms_sat_430_create": Value(f"{sat('4.3.0', 'CREATE'):.1f}"),
        "cms_cached_sat_420_create": Value(f"{sat('4.2.0', 'CREATE', cached):.0f}"),
        "cms_cached_sat_430_create": Value(f"{sat('4.3.0', 'CREATE', cached):.0f}"),
        "cms_eav_65520_ios": Value(per(c.ios_per_batch.sel(cylinders=65520))),
        "cms_eav_65520_map": Value(f"{int(c.allocation_map_blocks.sel(cylinders=65520)):,}"),
        "cms_eav_262668_ios": Value(per(c.ios_per_batch.sel(cylinders=262668))),
        "cms_eav_262668_map": Value(f"{int(c.allocation_map_blocks.sel(cylinders=262668)):,}"),
        "cms_eav_262668_s": Value(f"{e262 / 1000:.1f}"),
        "cms_blocks_ios": Value(", ".join(f"{per(b.ios_per_batch.sel(block_bytes=k))} ({n})" for k, n in
                                          ((4096, "4 KB"), (2048, "2 KB"), (1024, "1 KB"), (512, "512 B")))),
        "cms_bytes_ios": Value(", ".join(per(bl.ios_per_batch.sel(block_bytes=k)) for k in (4096, 2048, 1024, 512))),
        "cms_512_map": Value(f"{int(b.allocation_map_blocks.sel(block_bytes=512)):,}"),
    }


# ---- seed 002 (docs/dasd_mdc.md): single figures from ``mcio reproduce dasd-mdc``'s rows

def _dasd(variant: str, quantity: str, fmt: str, scale: float = 1.0, of: Callable | None = None):
    def get(r):
        x = _fr(r[1], variant, quantity)
        v = of(x.model) if of else scale * x.model
        return num(v, fmt, None if of or x.ci95 in (None, 0.0) else scale * x.ci95)
    return get


def _dasd_ratio(a: tuple, b: tuple, fmt: str, minus_one: bool = False, diff: bool = False):
    def get(r):
        x, y = _fr(r[1], *a).model, _fr(r[1], *b).model
        return Value(format(x - y if diff else (100 * (x / y - 1) if minus_one else x / y), fmt))
    return get


DASD = {
    "dasd_p1_disconnect_ms": ("phase1", "disconnect", ".1f"), "dasd_p1_connect_ms": ("phase1", "connect", ".1f"),
    "dasd_p1_service_ms": ("phase1", "service", ".1f"), "dasd_p1_busy_pct": ("phase1", "device busy", ".0f", 100),
    "dasd_p1_rate": ("phase1", "I/O rate", ".0f"), "dasd_p1_mdc_hit_pct": ("phase1", "MDC hit", ".0f", 100),
    "dasd_p1_reads": ("phase1", "application reads", ".0f"), "dasd_p1_cu_miss_pct": ("phase1", "CU read-miss", ".1f", 100),
    "dasd_p2_disconnect_ms": ("phase2", "disconnect", ".2f"), "dasd_p2_connect_ms": ("phase2", "connect", ".1f"),
    "dasd_p2_rate": ("phase2", "I/O rate", ".0f"), "dasd_p2_busy_pct": ("phase2", "device busy", ".0f", 100),
    "dasd_p3_connect_ms": ("phase3", "connect", ".1f"), "dasd_p3_disconnect_ms": ("phase3", "disconnect", ".1f"),
    "dasd_p3_busy_pct": ("phase3", "device busy", ".0f", 100),
    "dasd_p4_connect_ms": ("phase4", "connect", ".1f"), "dasd_p4_disconnect_ms": ("phase4", "disconnect", ".1f"),
    "dasd_p4_cu_miss_pct": ("phase4", "CU read-miss", ".0f", 100),
    "dasd_block_busy_pct": ("whatif_mdc_block", "device busy", ".0f", 100),
    "dasd_block_mdc_hit_pct": ("whatif_mdc_block", "MDC hit", ".0f", 100),
    "dasd_p3_channel_speed_busy_pct": ("whatif_phase3_hits_at_channel_speed", "device busy", ".0f", 100),
}


def _dasd_figures() -> list:
    out = [Figure(n, "reproduce:dasd-mdc", _dasd(v, q, f, *rest)) for n, (v, q, f, *rest) in DASD.items()]
    out.append(Figure("dasd_p3_cu_hit_pct", "reproduce:dasd-mdc",
                      _dasd("phase3", "CU read-miss", ".0f", of=lambda m: 100 * (1 - m))))
    out.append(Figure("dasd_p3_cu_lost_pct", "reproduce:dasd-mdc", _dasd("phase3", "CU read-miss", ".0f", 100)))
    out.append(Figure("dasd_block_reads_gain_pct", "reproduce:dasd-mdc",
                      _dasd_ratio(("whatif_mdc_block", "application reads"), ("phase1", "application reads"), ".0f",
                                  minus_one=True)))
    out.append(Figure("dasd_staging_extra_ms", "reproduce:dasd-mdc",
                      _dasd_ratio(("whatif_staging_cu", "service"), ("phase1", "service"), "+.1f", diff=True)))
    return out


_CMS_NAMES = ["cms_busy_420_pct", "cms_busy_430_pct", "cms_sat_420_create", "cms_sat_420_copy", "cms_sat_430_create",
              "cms_cached_sat_420_create", "cms_cached_sat_430_create", "cms_eav_65520_ios", "cms_eav_65520_map",
              "cms_eav_262668_ios", "cms_eav_262668_map", "cms_eav_262668_s", "cms_blocks_ios", "cms_bytes_ios",
              "cms_512_map"]


FIGURES.update({f.name: f for f in [
    Figure("dasd_mdc_reproduce", "reproduce:dasd-mdc", lambda r: reproduce_block(r, judged_only=True)),
    Figure("dasd_mdc_whatifs", "reproduce:dasd-mdc", dasd_whatif_table),
    Figure("dasd_mdc_seam", "reproduce:dasd-mdc", dasd_seam_text),
    Figure("zhpf_dump_breakdown", "zhpf_dump", zhpf_dump_breakdown),
    Figure("zhpf_dump_chain_table", "zhpf_dump", zhpf_dump_chain_table),
    Figure("zhpf_dump_n_table", "zhpf_dump", zhpf_dump_n_table),
    Figure("zhpf_dump_share", "zhpf_dump", zhpf_dump_share),
    Figure("zhpf_dump_predicted", "reproduce:zhpf-dump", zhpf_dump_predicted),
    Figure("cms_count_table", "cms", cms_count_table),
    Figure("cms_matched", "cms", cms_matched),
    Figure("cms_time_table", "cms", cms_time_table),
    *_many("cms", cms_figures, _CMS_NAMES),
    *_dasd_figures(),
    Figure("zhpf_dump_reproduce", "reproduce:zhpf-dump", reproduce_block),
]})
