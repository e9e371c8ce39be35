"""I/Os simulated per second of wall time, on one Numba thread (one core).

Targets (issue 6): fast path >= 100 M I/O/s per core (aim 150 M); full FICON path >= 10 M I/O/s
per core (aim 20 M). Each figure is measured at 1e7 I/Os (2 replications of 5e6, warm-up
included), after a warm-up run that compiles the kernels.
"""
from .common import ficon_model, mmc_model, rate, set_threads, warm

TOTAL_IOS = 10_000_000


class _PerCore:
    """M I/O/s of ``model()`` on one thread; subclasses name the model, the engine it must take,
    and the asv benchmark (names kept so the asv history continues)."""

    timeout = 600
    engine = "fast"

    def setup(self):
        self.model = self.make_model()
        warm(self.model)

    def teardown(self):
        set_threads(2)

    def mios(self):
        r, _, ds = rate(self.model, TOTAL_IOS, threads=1)
        assert ds.attrs["engine"].startswith(self.engine), ds.attrs["engine"]
        return r / 1e6


class FastPath(_PerCore):
    """Open M/M/1, rho 0.9: one device, every I/O a back-end miss (exponential 1 ms), no channel
    MP work, no data: ``simulate`` takes the G/G/c Lindley recursion."""

    def make_model(self):
        return mmc_model(1)

    def track_fast_path_mios_per_core(self):
        return self.mios()

    track_fast_path_mios_per_core.unit = "M I/O/s"


class FastPathMM4(_PerCore):
    """Open M/M/4, rho 0.9 (three PAV aliases): the Kiefer-Wolfowitz recursion over 4 servers."""

    def make_model(self):
        return mmc_model(4)

    def track_fast_path_mm4_mios_per_core(self):
        return self.mios()

    track_fast_path_mm4_mios_per_core.unit = "M I/O/s"


class FiconPath(_PerCore):
    """The full event engine on a seed-001-like FICON channel (see benchmarks/models.py)."""

    timeout = 900
    engine = "event"

    def make_model(self):
        return ficon_model()[0]

    def track_ficon_path_mios_per_core(self):
        return self.mios()

    track_ficon_path_mios_per_core.unit = "M I/O/s"


class EventFloor:
    """Cost per event: a minimal event engine of the FICON channel's shape (benchmarks/
    event_floor.py) against mcio's full path. Their ratio is how far mcio's engine is from the
    floor; events per I/O x the floor is the ceiling of any one-event-per-station-visit design."""

    timeout = 900

    def setup(self):
        set_threads(1)

    def teardown(self):
        set_threads(2)

    def track_minimal_engine_ns_per_event(self):
        from .event_floor import minimal_ns_per_event
        return minimal_ns_per_event(events=10_000_000, repeat=2)

    track_minimal_engine_ns_per_event.unit = "ns/event"

    def track_ficon_path_ns_per_event(self):
        from .event_floor import ficon_costs
        ns_io, per_io = ficon_costs(ios=2_000_000, repeat=2)
        return ns_io / per_io

    track_ficon_path_ns_per_event.unit = "ns/event"

    def track_ficon_ns_per_event_over_minimal(self):
        """The issue-16 figure: mcio's ns per event / the minimal engine's, measured alternately."""
        from .event_floor import ratio_in_one_run
        return ratio_in_one_run(repeat=2, events=5_000_000, ios=1_000_000)["ratio"]

    track_ficon_ns_per_event_over_minimal.unit = "ratio"

    def track_ficon_ns_per_event_over_lazy_minimal(self):
        """The same against the minimal engine with mcio's lazy heap root (the stricter floor)."""
        from .event_floor import ratio_in_one_run
        return ratio_in_one_run(repeat=2, events=5_000_000, ios=1_000_000)["lazy_ratio"]

    track_ficon_ns_per_event_over_lazy_minimal.unit = "ratio"

    def track_ficon_events_per_io(self):
        from .event_floor import ficon_costs
        return ficon_costs(ios=500_000, repeat=1)[1]

    track_ficon_events_per_io.unit = "events/IO"


class FastPathCeiling:
    """The fast path against a hand-written Numba Lindley loop of the same M/M/1 (same generator,
    one running sum; benchmarks/fastpath_ceiling.py), measured in the same run, interleaved, best
    of 3 of 1e7 I/Os each, one thread. The ratio is what the performance issue states its target
    in (>= 0.75 for the whole ``simulate`` call); a drop of the ratio is a fast-path regression
    whatever the machine's speed that day."""

    timeout = 600

    def setup(self):
        from .fastpath_ceiling import measure
        self.b = measure(ios=10_000_000, repeat=3)

    def teardown(self):
        set_threads(2)

    def track_fastpath_ceiling_ratio(self):
        return self.b["simulate"] / self.b["hand"]

    track_fastpath_ceiling_ratio.unit = "mcio / hand-written"

    def track_fastpath_ceiling_kernels_ratio(self):
        return self.b["kernels"] / self.b["hand"]

    track_fastpath_ceiling_kernels_ratio.unit = "mcio / hand-written"
