"""The fast path's one-server recursion (``fastpath._recursion_one``: its measured segments two
I/Os a pass by ``_arrive_pair``, then the odd one) against the recursion written plainly, I/O by I/O, in Python:
the same IOSQ, sums, MSER batch sums and end state to the bit, wherever the wait limit stops it
(first or second of a pair, the odd last one, the warm-up) and at either parity of a segment;
and the general recursion on two servers against Kiefer and Wolfowitz's, written plainly."""
import functools
import types

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mcio.kernels import fastpath as fp
from mcio.kernels.options import JIT_LEAF, njit

N_SUMS = fp.S_CONN + 1           # sums[S_* / SQ_RESP]


@functools.lru_cache(maxsize=None)
def recursion_one(unrolled):
    """``fp._recursion_one`` compiled with ``_arrive_pair`` in the given form (the kernel reads
    the form from the constant ``UNROLL_CHAIN``, which the host's CPU sets): a copy of its Python
    function with that global replaced (not cached: the cache would hand back the kernel's own
    compile, whatever the global)."""
    f = fp._recursion_one.py_func
    g = dict(f.__globals__, UNROLL_CHAIN=unrolled)
    return njit(**dict(JIT_LEAF, cache=False))(types.FunctionType(f.__code__, g, f.__name__, f.__defaults__, f.__closure__))


def reference(i0, nj, m0, warm, n, nb, wait_limit, ia, svc, disc, t, free1, t0, d0, bat, bst, sums,
              servers=1):
    """W_{k} by Lindley's recursion (Kiefer and Wolfowitz's on ``servers`` > 1, each I/O on the
    earliest free server, all free at ``free1``), one I/O at a time, in ``_recursion``'s order of
    operations; the free time returned is the one server's, or the sorted list of all."""
    b, b_next, b_sum = bst
    iosq_out = np.zeros(nj)
    done, unstable = nj, False
    free = [free1] * servers
    for jc in range(nj):
        i = i0 + jc
        t += ia[jc]
        s = int(np.argmin(free))
        start = free[s] if free[s] > t else t
        iosq = start - t
        if iosq > wait_limit:
            free[s] = start
            done, unstable = jc, True
            break
        free[s] = start + svc[jc]
        iosq_out[jc] = iosq
        while i >= b_next:
            bat[b] += b_sum
            b_sum = 0.0
            b += 1
            b_next = ((b + 1) * n + nb - 1) // nb
        resp = iosq + svc[jc]
        b_sum += resp
        if jc >= m0:
            sums[fp.S_IOSQ] += iosq
            sums[fp.SQ_RESP] += resp * resp
            sums[fp.S_DISC] += disc[jc]
        if i <= warm:
            if i == warm:
                t0 = t
            else:
                d0 = start + svc[jc]
    return done, unstable, t, free[0] if servers == 1 else sorted(free), t0, d0, (b, b_next, b_sum), iosq_out


@pytest.mark.parametrize("unrolled", [True, False])   # _arrive_pair's two forms
@pytest.mark.parametrize("nj", [40, 41])            # the segments' parity
@pytest.mark.parametrize("stop_at", [None, 3, 20, 21, 38, 39])   # the I/O whose wait exceeds the limit
@pytest.mark.parametrize("m0, warm", [(0, -1), (5, 12)])
def test_recursion_one_is_the_plain_recursion_to_the_bit(nj, stop_at, m0, warm, unrolled):
    rng = np.random.default_rng(7)
    ia = rng.exponential(1.0, nj)
    svc = rng.exponential(0.9, nj)
    disc = rng.exponential(0.5, nj)
    wait_limit = 1e300
    if stop_at is not None:
        # I/O stop_at arrives at once behind a 50 ms service: the limit just below its wait
        ia[stop_at] = 0.0
        svc[stop_at - 1] += 50.0
        t = free1 = 0.0
        waits = []
        for j in range(stop_at + 1):
            t += ia[j]
            start = max(free1, t)
            waits.append(start - t)
            free1 = start + svc[j]
        wait_limit = waits[stop_at] * 0.999
        assert max(waits[:stop_at]) < wait_limit
    n, nb, i0 = 1000, 64, 0
    args = (i0, nj, m0, warm, n, nb, wait_limit)
    bst = (np.int64(0), np.int64((n + nb - 1) // nb), 0.0)
    want_bat, want_sums = np.zeros(nb), np.zeros(N_SUMS)
    want = reference(*args, ia, svc, disc, 0.0, 0.0, 0.0, 0.0, want_bat, bst, want_sums)
    got_bat, got_sums, iosq = np.zeros(nb), np.zeros(N_SUMS), np.zeros(nj)
    got = recursion_one(unrolled)(*args, ia, svc, disc, iosq, 0.0, 0.0, 0.0, 0.0, got_bat, bst,
                                  got_sums)
    done = want[0]
    assert got[0] == done and got[1] == want[1]
    assert got[2:6] == want[2:6]
    assert tuple(got[6]) == want[6]
    assert np.array_equal(iosq[:done], want[7][:done])
    assert np.array_equal(got_sums, want_sums) and np.array_equal(got_bat, want_bat)
    assert got[1] == (stop_at is not None) and done == (nj if stop_at is None else stop_at)


@pytest.mark.parametrize("m0, warm", [(0, -1), (5, 12)])
def test_two_server_recursion_is_the_plain_kiefer_wolfowitz_recursion(m0, warm):
    """``_recursion`` with c = 2: each I/O starts at max(arrival, the earlier server's free time),
    in arrival order; the same IOSQ, sums, batch sums and times to the bit."""
    rng = np.random.default_rng(11)
    nj, n, nb = 57, 1000, 64
    ia = rng.exponential(0.5, nj)
    svc = rng.exponential(0.9, nj)
    disc = rng.exponential(0.5, nj)
    args = (0, nj, m0, warm, n, nb, 1e300)
    bst = (np.int64(0), np.int64((n + nb - 1) // nb), 0.0)
    want_bat, want_sums = np.zeros(nb), np.zeros(N_SUMS)
    want = reference(*args, ia, svc, disc, 0.0, 0.0, 0.0, 0.0, want_bat, bst, want_sums, servers=2)
    free_t, got_bat, iosq, got_sums = np.zeros(2), np.zeros(nb), np.zeros(nj), np.zeros(N_SUMS)
    got = fp._recursion(2, *args, ia, svc, disc, iosq, free_t, 0.0, 0.0, 0.0, 0.0, got_bat, bst,
                        got_sums)
    assert got[0] == nj and not got[1] and want[0] == nj
    assert got[2] == want[2] and got[4:6] == want[4:6]
    assert sorted(free_t) == want[3]
    assert tuple(got[6]) == want[6]
    assert np.array_equal(iosq, want[7]) and np.array_equal(got_bat, want_bat)
    assert np.array_equal(got_sums, want_sums)
    assert want[7].max() > 0.0           # some I/O waited: both servers were busy


# times (ms) over many magnitudes, so that the adds round: a pair's unrolled form must round
# exactly as the two steps do
_MS = st.one_of(st.floats(0.0, 1e9, allow_nan=False, allow_infinity=False),
                st.sampled_from([0.0, 1e-12, 0.1, 0.3, 1.0, 7.0, 1e6 + 0.1, 2.0 ** 40]))


@settings(max_examples=400, deadline=None)
@given(_MS, _MS, _MS, _MS, _MS, _MS)
def test_arrive_pair_is_two_arrivals_to_the_bit(t, free1, ia1, ia2, svc1, svc2):
    """``_arrive_pair`` in both forms (the free time's chain unrolled over two I/Os by max-plus
    algebra, or two steps) gives what ``_arrive`` twice gives, bit for bit, including ties and
    sums that round."""
    t1, start1, iosq1 = fp._arrive(t, free1, ia1)
    t2, start2, iosq2 = fp._arrive(t1, start1 + svc1, ia2)
    want = (t1, start1, iosq1, t2, start2, iosq2, start2 + svc2)
    assert fp._arrive_pair(t, free1, ia1, ia2, svc1, svc2, True) == want
    assert fp._arrive_pair(t, free1, ia1, ia2, svc1, svc2, False) == want

