"""asv benchmarks of the channel-scaling floor (``benchmarks/channel_floor.py``): a minimal event
simulation of channel_scaling.py's CU-delay model at 1 and 256 channels, its binary-heap and
timing-wheel variants, and mcio's event kernel on the same model, alternating in one process
(CPU time, least of 3 rounds of 200,000 I/Os, one Numba thread). Issue 29's target is mcio's
256 / 1-channel ratio <= 1.3; the wheel floor's ratio is what a minimal implementation reaches
on this machine, so mcio's ratio is read against it."""
from __future__ import annotations

from .common import set_threads


class ChannelFloor:
    """256 / 1-channel CPU per I/O: the two floors and mcio (CU delay); mcio's growth over the
    wheel floor's (ns over ns)."""

    timeout = 900

    def setup_cache(self):
        from .channel_floor import measure
        got = measure(200_000, 3, channels=(1, 256))
        return {k: v[0] for k, v in got.items()}

    def teardown(self, *args):
        set_threads(2)

    def track_floor_wheel_256_over_1(self, b):
        return b[("floor wheel", 256)] / b[("floor wheel", 1)]

    track_floor_wheel_256_over_1.unit = "x"

    def track_floor_heap_256_over_1(self, b):
        return b[("floor heap", 256)] / b[("floor heap", 1)]

    track_floor_heap_256_over_1.unit = "x"

    def track_mcio_cu_delay_256_over_1(self, b):
        return b[("mcio", 256)] / b[("mcio", 1)]

    track_mcio_cu_delay_256_over_1.unit = "x"

    def track_mcio_growth_over_floor_growth(self, b):
        return (b[("mcio", 256)] - b[("mcio", 1)]) / (b[("floor wheel", 256)] - b[("floor wheel", 1)])

    track_mcio_growth_over_floor_growth.unit = "x"
