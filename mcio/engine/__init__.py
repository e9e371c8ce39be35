"""The engine: pack (Model -> kernel arrays), run (replications on a thread pool; ``simulate``),
results (accumulators -> the labelled Dataset). Kernels trust their inputs; validation, unit
conversion and labelling happen here."""
from .pack import OPEN_SLOTS, Packed, _alias_table, _dist_row, pack, stream_states
from .results import QUANTILES, _var, assemble, ci95_halfwidth
from .run import UNSTABLE_IOS, fast_path_applies, run_kernels, simulate, simulate_part

__all__ = ["simulate", "simulate_part", "run_kernels", "pack", "assemble", "ci95_halfwidth", "stream_states",
           "fast_path_applies", "Packed", "QUANTILES", "OPEN_SLOTS", "UNSTABLE_IOS"]
