"""The per-point checks over a point's few figures in plain Python (physics._within,
points._finite) say what NumPy's reductions said: NaN and infinities included, small and large
arrays, any shape."""
import numpy as np
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from mcio.batch.points import _finite
from mcio.engine.physics import _within

ARRAYS = hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=9),
                    elements=st.one_of(st.floats(-2, 2), st.sampled_from([np.nan, np.inf, -np.inf, -1e-9, 1.0])))


@settings(max_examples=300, deadline=None)
@given(ARRAYS, st.floats(-1e-6, 0), st.floats(0.5, 1.5))
def test_within_is_numpys_min_and_max(x, lo, hi):
    assert _within(x, lo, hi) == bool(x.min() >= lo and x.max() <= hi)


@settings(max_examples=300, deadline=None)
@given(ARRAYS)
def test_finite_is_numpys_isfinite_all(x):
    assert _finite(x) == bool(np.isfinite(x).all())
