"""The exponential ziggurat's wedge test decided by bounds (``rng._below_exp_wedge``): the same
answer as ``y < math.exp(-x)`` for the points the ziggurat tests, and exp left to few of them.

The bounds are exp(-x)'s tangents and chord over each layer, moved out by a relative margin; a
wrong edge table, a bound on the wrong side or a margin too small would give another answer for
some point near exp(-x) (the second set of points sits within a few ulps of it), and a margin
too large would leave most points to exp (the band's share is checked)."""
import math

import numba as nb
import numpy as np

from mcio.kernels.rng import (_FE, _KE, _WE, _below_exp_wedge, _exp_wedge_bounds, _next_st,
                              _uniform_st)

_TOP = 2 ** 53            # the ziggurat's integer part of a draw is below this


@nb.njit(cache=False)
def _check(per_layer, a, b, c, d):
    """Over layers 1 .. 255, ``per_layer`` wedge points each: x from an integer part drawn in
    [_KE[i], 2^53) as the ziggurat's rejected draws have it (and the two ends), y as the wedge
    test draws it (even points) or within ~100 ulps of exp(-x) (odd points). Returns (answers
    that differ from exp's, bounds exp(-x) broke, wedge-drawn points left to exp, wedge-drawn
    points)."""
    wrong = broken = in_band = drawn = 0
    for idx in range(1, 256):
        lo = float(_KE[idx])
        for k in range(per_layer):
            u1, a, b, c, d = _uniform_st(a, b, c, d)
            u2, a, b, c, d = _uniform_st(a, b, c, d)
            if k == 0:
                ri = _KE[idx]
            elif k == 1:
                ri = np.uint64(_TOP - 1)
            else:
                ri = np.uint64(lo + (_TOP - lo) * u1)
                if ri >= np.uint64(_TOP):
                    ri = np.uint64(_TOP - 1)
            x = float(np.int64(ri)) * _WE[idx]
            e = math.exp(-x)
            if k % 2 == 0:
                y = (_FE[idx - 1] - _FE[idx]) * u2 + _FE[idx]
            else:
                y = e * (1.0 + (u2 - 0.5) * 4e-14)
                if k == 3:
                    y = e                       # exactly exp(-x): not below it
            if _below_exp_wedge(idx, x, y) != (y < e):
                wrong += 1
            below, above = _exp_wedge_bounds(idx, x)
            if not below < e < above:
                broken += 1
            if k % 2 == 0:
                drawn += 1
                if below <= y < above:
                    in_band += 1
    return wrong, broken, in_band, drawn


def test_wedge_test_by_bounds_gives_exps_answer_and_rarely_needs_exp():
    wrong, broken, in_band, drawn = _check(4000, np.uint64(1), np.uint64(2), np.uint64(3),
                                           np.uint64(4))
    assert wrong == 0 and broken == 0
    # the ziggurat's own wedge points: well under 3 % fall between the bounds (measured 0.4 %)
    assert drawn == 255 * 2000 and in_band / drawn < 0.03


def test_the_bounds_span_each_layer_as_the_tables_say():
    # the outer edge of layer i is the inner edge of layer i + 1, and exp at the edges is _FE's
    from mcio.kernels.rng import _XIN_E, _XOUT_E
    assert _XIN_E[1] == 0.0 and np.array_equal(_XIN_E[2:], _XOUT_E[1:-1])
    np.testing.assert_allclose(np.exp(-_XOUT_E[1:]), _FE[1:], rtol=1e-15)
    assert np.all(_XOUT_E[1:] > _XIN_E[1:])
