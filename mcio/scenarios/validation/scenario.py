"""The validation scenario (issue 30): published measurements no scenario was fitted to, each run
with the hardware catalogue and only the measurement's stated configuration (:mod:`.published`).

``mcio reproduce validation`` prints every figure beside mcio's prediction; a figure whose
measurement set a parameter is marked ``fitted`` (docs/validation.md says which), every other
``predicted``. The blind run (before issue 30's mechanisms) is reproduced with
``mechanisms = "blind"``.
"""
from __future__ import annotations

from ...errors import McioError
from ..base import Figure, Param, RunSize, Scenario, Tolerance
from . import erase as _erase
from .configs import catalogue_protocol, channel_benchmark, data_rate_mb_s, io_rate
from .published import CONFIGS, FIGURES

#: figures a parameter was fitted to (name -> the parameter): see docs/validation.md
FITTED: dict[str, str] = {
    "FICON Express4 feature, 4 channels: read MB/s": "the catalogue's Express4 card_read_mb_s (1,230)",
    "FICON Express4 feature, 4 channels: write MB/s": "the catalogue's Express4 card_write_mb_s (1,150)",
    "FICON Express4 feature, 4 channels: read+write MB/s": "the catalogue's Express4 card_mb_s (1,300)",
    "FICON Express16S z/HPF: max MB/s per channel (reads + writes)": "the catalogue's Express16S path_mb_s (2,560)",
    "FICON Express2: channel bandwidth MB/s": "the catalogue's Express2 path_mb_s (270)",
    "Fast Minidisk Erase: CMS FORMAT of 32,767 cylinders": "hardware.HOST_US_PER_PROGRAM (280.16 us)",
    "z/VM dump, VM65989 (no LR + TIC per record): dump rate with / without": "hardware.RELOCATE_US (123.95 us)",
}

#: the catalogue entry set from each fitted figure ("hardware:GEN.field" or "hardware:CONSTANT"; the
#: scenario's own parameters fit nothing): read by tests/test_figure_kinds.py
FIT_TARGETS: dict[str, tuple[str, ...]] = {
    "hardware:4.card_read_mb_s": ("FICON Express4 feature, 4 channels: read MB/s",),
    "hardware:4.card_write_mb_s": ("FICON Express4 feature, 4 channels: write MB/s",),
    "hardware:4.card_mb_s": ("FICON Express4 feature, 4 channels: read+write MB/s",),
    "hardware:16S.path_mb_s": ("FICON Express16S z/HPF: max MB/s per channel (reads + writes)",),
    "hardware:2.path_mb_s": ("FICON Express2: channel bandwidth MB/s",),
    "hardware:HOST_US_PER_PROGRAM": ("Fast Minidisk Erase: CMS FORMAT of 32,767 cylinders",),
    "hardware:RELOCATE_US": ("z/VM dump, VM65989 (no LR + TIC per record): dump rate with / without",),
}


def _figures() -> tuple[Figure, ...]:
    out = []
    for name, config, quantity, measured, unit, source, rel, note in FIGURES:
        kind = "fitted" if name in FITTED else "predicted"
        tol = Tolerance(rel=rel) if rel is not None else Tolerance()
        out.append(Figure(name, config, quantity, measured, tol, unit, source,
                          note + (f"; {FITTED[name]} fitted to it" if name in FITTED else ""), kind))
    return tuple(out)


PARAMS = (
    Param("config", "fex4_card_read", "", "seed", "the measurement's configuration (published.CONFIGS)",
          choices=tuple(CONFIGS)),
    Param("mechanisms", "catalogue", "", "assumed", "'catalogue': the hardware catalogue and mechanisms as "
          "they stand; 'blind': as they stood before issue 30's changes (the blind run of docs/validation.md)",
          choices=("catalogue", "blind")),
    Param("population", 64, "1", "assumed", "I/Os kept outstanding by the benchmark driver: enough to "
          "saturate the channels (64 open exchanges per channel cap them)", (1, 100_000)),
)


class Validation(Scenario):
    name = "validation"
    description = ("published FICON channel, feature, z/VM erase and ISFC measurements no scenario was fitted "
                   "to, run blind on the hardware catalogue (issue 30)")
    params = PARAMS
    variants = {c: {"config": c} for c in CONFIGS}
    figures = _figures()
    fit_targets = FIT_TARGETS
    run_size = RunSize(ios=20_000, replications=2, seed=30)

    def build(self, p):
        c = CONFIGS[p["config"]]
        if c["kind"] == "bench":
            return self._bench(c, p)
        if c["kind"] == "isfc":
            from ..isfc import build_isfc
            return build_isfc(c["layout"], shared=c["shared"])
        if c["kind"] == "ratio":
            return self.build({**p, "config": c["of"][0]})
        # an erase job is a computation from command counts: its model is one program's I/O path
        return channel_benchmark("8S", 1, kb=4.096, population=1)

    def _bench(self, c, p):
        card = None
        extra = None
        protocol = None
        if p["mechanisms"] == "catalogue":
            protocol = catalogue_protocol()
        if p["mechanisms"] == "catalogue" and c.get("card"):
            from ...model.hardware import card_limits
            card = card_limits(c["card"])
        elif p["mechanisms"] == "blind":
            extra = {"path_mb_s": 1e6}      # no channel data path below the links (as before issue 30)
        return channel_benchmark(c["generation"], c["channels"], kb=c["kb"], records=c["records"],
                                 write_share=c["write_share"], zhpf_share=c["zhpf_share"],
                                 population=c.get("population", p["population"]), card=card,
                                 extra_channel=extra, protocol=protocol)

    def simulations(self, variant, run):
        from ...batch.estimates import Simulation
        c = CONFIGS[variant]
        if c["kind"] in ("erase", "dump"):
            return []
        if c["kind"] == "ratio":
            return [s for v in c["of"] for s in self.simulations(v, run)]
        if c["kind"] == "isfc":
            from ..isfc import link_simulations
            return link_simulations(self._link(c), ios_per_device=run.ios // 5, replications=run.replications)
        return [Simulation.of(self.model(variant), run.ios, run.replications)]

    @staticmethod
    def _link(c):
        from ..isfc import IsfcLink
        return IsfcLink.from_ranges(["LPAR1", "LPAR2"], c["layout"], shared=c["shared"])

    def __init__(self, mechanisms: str = "catalogue"):
        self.mechanisms = mechanisms

    def evaluate(self, variant, run, **overrides):
        overrides = {"mechanisms": self.mechanisms, **overrides}
        p = self.resolve(overrides, variant)
        c = CONFIGS[p["config"]]
        if c["kind"] == "ratio":
            q = c.get("quantity", "mb_s")
            (a, ea), (b, eb) = (self.evaluate(v, run, **overrides)[q] for v in c["of"])
            return {"ratio": (a / b, a / b * ((ea / a) ** 2 + (eb / b) ** 2) ** 0.5)}
        if c["kind"] == "dump":
            from . import dump_chain
            costs = dump_chain.blind_costs() if p["mechanisms"] == "blind" else dump_chain.catalogue_costs()
            return {"speedup": (dump_chain.speedup(costs), 0.0)}
        if c["kind"] == "erase":
            costs = _erase.zhpf_dump_costs() if p["mechanisms"] == "blind" else _erase.catalogue_costs()
            return {"elapsed_s": (_erase.elapsed_s(_erase.jobs()[c["job"]], costs), 0.0)}
        if c["kind"] == "isfc":
            from ..isfc import simulate_link
            ds = simulate_link(self._link(c), ios_per_device=run.ios // 5, replications=run.replications,
                               seed=run.seed)
            return {"link_ssch_iops": (float(ds.link_ssch_iops.mean()), float(ds.link_ssch_ci95_iops)),
                    "link_mb_s": (float(ds.link_mb_s.mean()), float(ds.link_mb_s_ci95))}
        from ...engine import simulate
        ds = simulate(self.model(variant, **overrides), ios=run.ios, replications=run.replications, seed=run.seed)
        if "unstable" in ds and int(ds["unstable"]):
            raise McioError("--ios", run.ios, f"variant {variant!r}: {ds.attrs.get('unstable_reason') or 'unstable'}")
        from ..base import headline
        return {"mb_s": data_rate_mb_s(ds), "iops": io_rate(ds), "response_ms": headline(ds)["response_ms"]}


SCENARIO = Validation()
#: the same figures on the catalogue and mechanisms as they stood before issue 30 (the blind run)
BLIND = Validation("blind")

__all__ = ["Validation", "SCENARIO", "BLIND", "FITTED"]
