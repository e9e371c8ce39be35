"""Precision targets (``[run] precision``): the README main job's model at a 2 % target against
fixed-length runs long enough for its worst point, in I/Os simulated and in time (asv tracks
both; ``benchmarks/precision.py`` measures the 1 % case in one run and prints the table)."""
import tomllib

from .common import ROOT


def _spec(**run):
    with open(f"{ROOT}/examples/ficon_knee.toml", "rb") as f:
        raw = tomllib.load(f)
    raw["run"] = {**raw["run"], **run}
    raw["run"].pop("warmup", None)
    return raw


class Precision:
    timeout = 900
    number = 1
    repeat = 2
    warmup_time = 0

    def setup(self):
        from mcio.sweep import sweep
        sweep(_spec(ios=2_000, replications=2))          # compile / load the kernels
        self.rule = sweep(_spec(ios=5_000, replications=6, precision=0.02))
        self.fixed_ios = int(self.rule.ios_used.max())

    def time_precision_rule(self):
        from mcio.sweep import sweep
        sweep(_spec(ios=5_000, replications=6, precision=0.02))

    def time_fixed_for_the_worst_point(self):
        from mcio.sweep import sweep
        sweep(_spec(ios=self.fixed_ios, replications=6))

    def track_io_ratio_rule_over_fixed(self):
        spent = float(self.rule.ios_spent.sum())
        return spent / (self.fixed_ios * self.rule.ios_spent.size)
