"""Memory must not grow with the number of I/Os simulated (docs/design.md §3: statistics stream).

Target (issue 6): peak memory at 1e8 I/Os within 10 % of the peak at 1e6.

``peakmem_*`` is asv's peak RSS of the whole benchmark process (imports and the compile in
``setup`` included, so it is dominated by them); ``track_*_rss_growth_mb`` isolates the run: the
rise in peak RSS during the big run over a process that already ran a small one.
"""
from .common import ficon_model, maxrss_mb, mmc_model, rate, warm


class _Memory:
    """Peak RSS of runs of ``params`` I/Os of ``make_model()`` on 2 threads; subclasses name the
    model and the asv benchmarks (names kept so the asv history continues)."""

    param_names = ["ios"]
    timeout = 1200
    number = 1
    repeat = 1
    warmup_time = 0

    def setup(self, ios):
        self.model = self.make_model()
        warm(self.model)

    def run(self, ios):
        rate(self.model, ios, replications=2, threads=2)

    def growth_mb(self, ios):
        before = maxrss_mb()
        self.run(ios)
        return maxrss_mb() - before


class FastPathMemory(_Memory):
    params = ([1_000_000, 100_000_000],)

    def make_model(self):
        return mmc_model(1)

    def peakmem_fast_path(self, ios):
        self.run(ios)

    def track_fast_path_rss_growth_mb(self, ios):
        return self.growth_mb(ios)

    track_fast_path_rss_growth_mb.unit = "MB"


class EventPathMemory(_Memory):
    params = ([1_000_000, 10_000_000],)

    def make_model(self):
        return ficon_model()[0]

    def peakmem_ficon_path(self, ios):
        self.run(ios)

    def track_ficon_path_rss_growth_mb(self, ios):
        return self.growth_mb(ios)

    track_ficon_path_rss_growth_mb.unit = "MB"
