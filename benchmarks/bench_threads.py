"""Thread scaling: replications run in parallel (a thread pool over the GIL-free kernels, sized by
``numba.get_num_threads()``) on 1 versus 2 threads.

Target (issue 6): 1 -> 2 threads >= 1.9x. Each run: the FICON model, 4 replications of 1e6
I/Os (2 per thread at 2 threads), and the fast-path M/M/1 with 4 replications of 2.5e7.
"""
import time

from .common import ficon_model, mmc_model, rate, set_threads, warm

# The fast path's run: ~0.75 s on one thread. At 2e7 (its size before the fast path got 3x
# faster) one run lasted 0.15 s and its 1 -> 2 thread ratio wandered 1.7-1.9 with the ~4.5 ms
# of serial Python per call and the machine's noise; the kernels themselves scale 1.9-2.0x.
MM1_IOS = 100_000_000


class ThreadScaling:
    params = ([1, 2],)
    param_names = ["threads"]
    timeout = 900
    number = 1
    repeat = 3
    warmup_time = 0

    def setup(self, threads):
        self.ficon, _ = ficon_model()
        self.mm1 = mmc_model(1)
        warm(self.ficon)
        warm(self.mm1)

    def teardown(self, threads):
        set_threads(2)

    def time_ficon_4_replications(self, threads):
        rate(self.ficon, 4_000_000, replications=4, threads=threads)

    def time_fast_path_4_replications(self, threads):
        rate(self.mm1, MM1_IOS, replications=4, threads=threads)


def _speedup(model, total):
    best = {}
    for th in (1, 2, 1, 2):      # interleaved, best of two: some protection from other load
        t = time.perf_counter()
        rate(model, total, replications=4, threads=th)
        dt = time.perf_counter() - t
        best[th] = min(best.get(th, dt), dt)
    set_threads(2)
    return best[1] / best[2]


class Speedup:
    timeout = 1200

    def setup(self):
        self.ficon, _ = ficon_model()
        self.mm1 = mmc_model(1)
        warm(self.ficon)
        warm(self.mm1)

    def track_ficon_speedup_1_to_2_threads(self):
        return _speedup(self.ficon, 4_000_000)

    track_ficon_speedup_1_to_2_threads.unit = "x"

    def track_fast_path_speedup_1_to_2_threads(self):
        return _speedup(self.mm1, MM1_IOS)

    track_fast_path_speedup_1_to_2_threads.unit = "x"
