"""One point's results, warm: the engine's assembly of a fast-path grid point's accumulators
(``mcio.engine.results.assemble``: 4 replications, 41 variables into one buffer) and the encoding
of its part record for a sweep's log (``mcio.store.encode_part``). Session 9 (issue 16), warm, here:
assemble ~415 -> ~140-160 us, encode ~35-43 -> ~15 us; inside a sweep, right after each point's
kernels, both cost 3-6x more (caches cold)."""
from .common import mmc_model


class PointResults:
    timeout = 300
    number = 200
    repeat = 5
    warmup_time = 0

    def setup(self):
        from mcio import store
        from mcio.engine import results, run
        got = {}
        real = run.assemble

        def grab(*a, **k):
            got["args"] = (a, k)
            return real(*a, **k)

        run.assemble = grab
        try:
            part = run.simulate_part(mmc_model(1), ios=40_000, replications=4, seed=7, warmup=4_000,
                                     describe=False, coords={"rate_iops": (900.0, {"units": "s-1"})})
        finally:
            run.assemble = real
        self.assemble = results.assemble
        self.args, self.kwargs = got["args"]
        part.attrs["point"] = 17
        self.part, self.spec, self.store = part, store.spec_hash("bench"), store
        _, lid = store.encode_part(part, self.spec, 17, {"rate_iops": 1.0}, set())
        self.layouts = {lid}

    def time_assemble_point(self):
        self.assemble(*self.args, **self.kwargs)

    def time_encode_point_record(self):
        self.store.encode_part(self.part, self.spec, 17, {"rate_iops": 1.0}, self.layouts)
