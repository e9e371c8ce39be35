"""The vector block generator (mcio/kernels/blockrng.py) against independent references.

Each row's lanes and scalar state must be exactly the substreams they claim to be (the row's
state SplitMix64-derived from the replication's state and the row's name, then the scalar generator
jumped by the published jump polynomial, all computed here in pure Python integers), a row's
substreams must depend on its name only (not on its index or on the other rows), the
branch-free logarithm must be within 1 ulp of the C library's, the block exponentials must be
rng's ziggurat on the lanes' outputs (its slow path from the row's scalar state), the block
variates must have the right distribution (KS, as tests/test_distributions.py; the exponentials
also by moments and by their tail, a test shown to fail on mutants), and a row's draws must not depend on
any other row's (common random numbers).
"""
import numba as nb
import numpy as np
from scipy import stats

from mcio.engine import _dist_row, stream_states
from mcio.kernels.blockrng import (LANES, _xoshiro_raw, fill_exponential, fill_row, fill_uniform,
                                   log_positive, make_streams, row_key, row_keys)
from mcio.kernels.rng import _KE, _WE, _ZE_R, _std_exponential_slow_st
from mcio.kernels.layout import D_BACKEND, N_DIST, N_ROWS, ROW_NAMES
from mcio.model import Dist

M64 = (1 << 64) - 1
JUMP = (0x180EC6D33CFD0ABA, 0xD5A61266F0C9392C, 0xA9582618E03FC9AA, 0x39ABDC4529B1661C)


def _rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & M64


def _next(s):
    """Reference xoshiro256** step on a list of four Python ints: returns the output."""
    r = (_rotl((s[1] * 5) & M64, 7) * 9) & M64
    t = (s[1] << 17) & M64
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return r


def _jump(s):
    t = [0, 0, 0, 0]
    for w in JUMP:
        for b in range(64):
            if (w >> b) & 1:
                t = [x ^ y for x, y in zip(t, s)]
            _next(s)
    s[:] = t


def _splitmix(z):
    """Reference SplitMix64 step on a Python int: (new z, output)."""
    z = (z + 0x9E3779B97F4A7C15) & M64
    x = z
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    return z, x ^ (x >> 31)


def _row_state(state, name):
    """Reference row state: SplitMix64 absorbs the name's key, then each word of the state."""
    z, _ = _splitmix(int.from_bytes(__import__("hashlib").blake2b(name.encode(), digest_size=8).digest(),
                                    "little"))
    for w in state:
        _, z = _splitmix(z ^ int(w))
    out = []
    for _ in range(4):
        z, x = _splitmix(z)
        out.append(x)
    return out


def _make(state, names):
    lanes = np.zeros((len(names), 4, LANES), np.uint64)
    scal = np.zeros((len(names), 4), np.uint64)
    make_streams(state, row_keys(names), lanes, scal)
    return lanes, scal


def _streams(seed, point=0, rep=0):
    return _make(stream_states(seed, point, rep + 1)[rep], ROW_NAMES)


def test_row_keys_are_stable():
    # a row's key is its stream: it must never change with Python, platform or the row's index
    assert row_key("control_unit.backend_service_ms") == 0xB7C806FB0DD9E4F6
    assert len(set(row_keys(ROW_NAMES).tolist())) == N_ROWS


def test_substreams_are_the_jumped_scalar_stream():
    state = stream_states(11, 2, 3)[1]
    lanes, scal = _make(state, ROW_NAMES)
    for row in range(N_ROWS):
        ref = _row_state(state, ROW_NAMES[row])
        for lane in range(LANES):
            _jump(ref)
            assert [int(x) for x in lanes[row, :, lane]] == ref
        _jump(ref)
        assert [int(x) for x in scal[row]] == ref
    # and the block fill advances every lane of a row exactly as the scalar generator does
    n_steps = 5
    out = np.empty(LANES * n_steps)
    start = lanes[3].copy()
    fill_uniform(lanes[3], out, out.size)
    for lane in range(LANES):
        s = [int(x) for x in start[:, lane]]
        for i in range(n_steps):
            expect = ((_next(s) >> 11) + 1) / 2.0 ** 53
            assert out[i * LANES + lane] == expect
        assert [int(x) for x in lanes[3, :, lane]] == s


def _next_lanes(s):
    """xoshiro256** on every lane at once (s: uint64[4, LANES], advanced): the outputs."""
    with np.errstate(over="ignore"):
        r = s[1] * np.uint64(5)
        r = ((r << np.uint64(7)) | (r >> np.uint64(57))) * np.uint64(9)
    t = s[1] << np.uint64(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = (s[3] << np.uint64(45)) | (s[3] >> np.uint64(19))
    return r


def test_block_uniforms_are_exactly_k_plus_one_over_2_53():
    # the vector fill converts k = output >> 11 to a double without sitofp (AVX2 has no
    # vector int64 -> double); it must give (k + 1) / 2^53 exactly, for k below 2^52 and above
    lanes, _ = _streams(21, 3, 2)
    steps = 4096
    s = lanes[5].copy()
    out = np.empty(LANES * steps)
    fill_uniform(lanes[5], out, out.size)
    k = np.stack([_next_lanes(s) for _ in range(steps)]) >> np.uint64(11)    # [step, lane]
    assert (k >= 2 ** 52).any() and (k < 2 ** 52).any()
    expect = [(int(x) + 1) / 2.0 ** 53 for x in k.ravel()]      # Python ints: exact, then one rounding
    assert out.tolist() == expect
    assert np.array_equal(lanes[5], s)


def test_a_rows_substreams_depend_on_its_name_only():
    # inserting, removing or reordering rows leaves every other row's substreams bit-identical
    state = stream_states(5, 0, 1)[0]
    lanes, scal = _make(state, ROW_NAMES)
    shuffled = ("dasd.rotation_ms",) + ROW_NAMES[::-1][:-2] + ("new.mechanism",)
    lanes2, scal2 = _make(state, shuffled)
    for i, name in enumerate(shuffled):
        if name in ROW_NAMES:
            j = ROW_NAMES.index(name)
            assert np.array_equal(lanes2[i], lanes[j]) and np.array_equal(scal2[i], scal[j]), name
    # and rows of different names, or of another replication, are different streams
    assert len({tuple(lanes2[i, :, 0].tolist()) for i in range(len(shuffled))}) == len(shuffled)
    other, _ = _make(stream_states(5, 0, 2)[1], ROW_NAMES)
    assert not np.array_equal(other[0], lanes[0])


@nb.njit   # no cache: Numba would not notice an edit to blockrng, whose code is inlined here
def _logs(x, out):
    for i in range(x.shape[0]):
        out[i] = log_positive(x[i])


def test_log_within_one_ulp_of_libm():
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.random(500_000) + 2.0 ** -60, np.geomspace(1e-300, 1e300, 200_001),
                        [1.0, 2.0, 0.5, np.sqrt(2.0), np.nextafter(np.sqrt(2.0), 0), 1.0 - 2.0 ** -53,
                         2.0 ** -53]])
    out = np.empty_like(x)
    _logs(x, out)
    ref = np.log(x)
    ulp = np.abs(out - ref) / np.spacing(np.maximum(np.abs(ref), 1e-300))
    assert ulp.max() <= 1.0
    assert out[-7] == 0.0


def test_block_variates_have_their_distribution():
    lanes, scal = _streams(3)
    n = 200_000
    crit = 1.95 / np.sqrt(n)              # KS 0.1 % critical value
    u = np.empty(n)
    fill_uniform(lanes[0], u, n)
    assert u.min() > 0.0 and u.max() <= 1.0
    assert stats.kstest(u, "uniform").statistic < crit
    e = np.empty(n)
    fill_exponential(lanes[1], scal[1], e, n, 2.5)
    assert stats.kstest(e, stats.expon(scale=2.5).cdf).statistic < crit
    # fill_row: exponential from the row's lanes, other kinds from its scalar state, uniforms
    # for the rows past the distributions
    out = np.empty(n)
    for dist, ref in ((Dist("exponential", 0.7, 1.0), stats.expon(scale=0.7)),
                      (Dist("gamma", 1.5, 0.5), stats.gamma(a=2.0, scale=0.75))):
        dp = np.zeros((N_DIST, 5))
        dp[D_BACKEND] = _dist_row(dist, [], [])
        fill_row(lanes, scal, dp, D_BACKEND, np.zeros(1), np.ones(1), out, n)
        assert stats.kstest(out, ref.cdf).statistic < crit
    fill_row(lanes, scal, dp, N_DIST, np.zeros(1), np.ones(1), out, n)
    assert stats.kstest(out, "uniform").statistic < crit
    dp[D_BACKEND] = _dist_row(Dist("deterministic", 0.3, 0.0), [], [])
    fill_row(lanes, scal, dp, D_BACKEND, np.zeros(1), np.ones(1), out, 16)
    assert np.all(out[:16] == 0.3)


@nb.njit   # no cache, as _logs
def _raw_outputs(lanes, out, n):
    _xoshiro_raw(lanes, out, n // LANES)


def _ziggurat_reference(raw, scal, slow=True, we=_WE):
    """Standard exponentials from raw 64-bit outputs by rng's ziggurat, in NumPy: the fast test on
    every output, the rejected ones (in order) by rng's slow path from ``scal`` (uint64[4],
    advanced). ``slow=False`` or another ``we`` table: the mutants the distribution test must
    catch (every rejected point kept as it is: no tail, wrong wedges; a table one layer off)."""
    ri = raw >> np.uint64(3)
    idx = (ri & np.uint64(0xFF)).astype(np.int64)
    ri >>= np.uint64(8)
    x = ri.astype(np.int64).astype(np.float64) * we[idx]
    if slow:
        _slow_path(raw, np.flatnonzero(ri >= _KE[idx]), x, scal)
    return x


@nb.njit   # no cache, as _logs
def _slow_path(raw, where, x, scal):
    """x[where[q]] = rng's slow path for raw output raw[where[q]], in order, from scal."""
    a, b, c, d = scal[0], scal[1], scal[2], scal[3]
    for q in range(where.size):
        i = where[q]
        ri = raw[i] >> np.uint64(3)
        idx = int(ri & np.uint64(0xFF))
        x[i], a, b, c, d = _std_exponential_slow_st(a, b, c, d, idx, x[i])
    scal[0], scal[1], scal[2], scal[3] = a, b, c, d


def test_block_exponentials_are_rngs_ziggurat_on_the_lanes():
    # fill_exponential = rng's ziggurat on the lanes' raw outputs (lane l of step i at 8 i + l),
    # the rare rejected ones by its slow path from the row's scalar state, in the block's order
    lanes, scal = _streams(9, 1, 1)
    n = 100_000
    s = lanes[0].copy()
    raw = np.stack([_next_lanes(s) for _ in range(n // LANES)]).ravel()     # [step, lane]
    sc = scal[0].copy()
    ref = 1.5 * _ziggurat_reference(raw, sc)
    e = np.empty(n)
    fill_exponential(lanes[0], scal[0], e, n, 1.5)
    assert np.array_equal(e, ref)
    assert np.array_equal(lanes[0], s) and np.array_equal(scal[0], sc)
    ri = raw >> np.uint64(3)
    rejected = (ri >> np.uint64(8)) >= _KE[(ri & np.uint64(0xFF)).astype(np.int64)]
    assert 0.01 < rejected.mean() < 0.04 and (e > 1.5 * _ZE_R).any()     # slow path and tail used


def _exponential_misfits(x):
    """What is wrong with x as a sample of the standard exponential: KS at 0.1 %, the mean and
    the second moment, the count beyond the ziggurat's base r (the tail layer, P = e^-r) and the
    mean excess over r (memoryless: 1), each at 4.5 standard errors."""
    n = x.size
    bad = []
    if stats.kstest(x, "expon").statistic > 1.95 / np.sqrt(n):
        bad.append("ks")
    if abs(x.mean() - 1.0) > 4.5 / np.sqrt(n):
        bad.append("mean")
    if abs((x * x).mean() - 2.0) > 4.5 * np.sqrt(20.0 / n):          # Var(X^2) = 24 - 4
        bad.append("second moment")
    p = np.exp(-_ZE_R)
    tail = x[x > _ZE_R]
    if abs(tail.size - n * p) > 4.5 * np.sqrt(n * p):
        bad.append("tail count")
    if tail.size == 0 or abs((tail - _ZE_R).mean() - 1.0) > 4.5 / np.sqrt(tail.size):
        bad.append("tail excess")
    return bad


def test_block_exponentials_are_exponential_and_the_test_catches_mutants():
    lanes, scal = _streams(13, 0, 0)
    n = 4_000_000
    e = np.empty(n)
    start, sc = lanes[2].copy(), scal[2].copy()
    fill_exponential(lanes[2], scal[2], e, n, 1.0)
    assert _exponential_misfits(e) == []
    raw = np.empty(n)
    _raw_outputs(start, raw, n)
    raw = raw.view(np.uint64)
    assert np.array_equal(_ziggurat_reference(raw, sc.copy()), e)    # the reference is it
    # the same outputs with the slow path left out, or with a table one layer off, must fail
    assert "ks" in _exponential_misfits(_ziggurat_reference(raw, sc.copy(), slow=False))
    assert "ks" in _exponential_misfits(_ziggurat_reference(raw, sc.copy(), we=np.roll(_WE, 1)))
    # a wrong tail (the memoryless excess over r halved): caught by the tail's own test
    wrong_tail = np.where(e > _ZE_R, _ZE_R + 0.5 * (e - _ZE_R), e)
    assert "tail excess" in _exponential_misfits(wrong_tail)


def test_a_rows_draws_do_not_depend_on_other_rows():
    # common random numbers: the back end's draws are the same whether or not the host adapter
    # draws too, so a model with a host adapter sees the same disconnect times as one without
    from mcio.engine import run_kernels
    from mcio.kernels import layout as L
    from oracle_models import single_server_open
    base = single_server_open(500.0, {"dist": "gamma", "mean": 1.0, "scv": 0.5})
    with_ha = base.replace("control_unit.ha_service_us", {"dist": "exponential", "mean": 30.0})
    for fast in (True, False):
        a = run_kernels(base, 20_000, 2, seed=4, warmup=1_000, point=0, fast_path=fast)[0]
        b = run_kernels(with_ha, 20_000, 2, seed=4, warmup=1_000, point=0, fast_path=fast)[0]
        assert np.all(b[:, L.A_SUM_CMR] > 0) and np.all(a[:, L.A_SUM_CMR] == 0)
        if fast:      # the fast path sums the draws themselves
            assert np.array_equal(a[:, L.A_SUM_DISC], b[:, L.A_SUM_DISC])
        else:         # the event engine differences clock times: equal to rounding (the
            # shared-stream generator of before would differ by ~1 %, the sampling error)
            np.testing.assert_allclose(a[:, L.A_SUM_DISC], b[:, L.A_SUM_DISC], rtol=1e-9)


def test_the_table_jump_is_the_polynomial_jump():
    """kernels/jump.py's look-ups against the pure-Python jump above: the state 0, every state of
    one bit (the table's own rows), states of all bits and random ones."""
    from mcio.kernels.jump import jump
    rng = np.random.default_rng(29)
    states = [[0, 0, 0, 0], [M64] * 4] + [[(1 << (i % 64)) if w == i // 64 else 0 for w in range(4)]
                                          for i in range(256)]
    states += [[int(x) for x in rng.integers(0, 2**64, 4, dtype=np.uint64)] for _ in range(200)]
    for s in states:
        ref = list(s)
        _jump(ref)
        got = jump(*(np.uint64(x) for x in s))
        assert [int(x) for x in got] == ref, s
