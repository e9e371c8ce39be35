"""The single-station fast path: FIFO G/G/c by the Kiefer-Wolfowitz recursion (Lindley for c = 1).

Used when the I/O path reduces to one FIFO queue: an open workload on one device whose c
exposures (base + aliases) are the only place an I/O can wait. Each I/O's service is the sum of
the same component draws the event engine makes (MP start work, host adapter, back end on a miss,
protocol, transfer at full link rate, MP end work), so the component breakdown stays exact.
No per-I/O arrays: memory does not grow with the number of I/Os.

The I/Os go in blocks of BLOCK: (1) the block's variates (``blockrng``: eight SIMD lanes,
exponentials by the ziggurat on their outputs); (2) each I/O's service components, which do
not depend on the queue (vectorised for one class); (3) the recursion, the only sequential part, over the
server free times (one; else ``servers.kw_start_side_by_side``: scans, a heap above 16), with the response and
disconnect sums beside it (the recursion is latency-bound: their chains of adds cost little
there); (4) the rest of the block's statistics: the histogram (buckets in a vectorised loop,
then the counts), pend and connect sums when a model has them, the class counts. Every sum is
taken in I/O order, so results are bit-for-bit those of a loop that takes each I/O's statistics
as it goes. Each loop stays small enough for LLVM to keep it in registers, which the one big
loop this replaced did not.

Measured on M/M/1 at rho 0.9, one thread, AVX2 EPYC (znver3, no AVX-512), against the hand-written
Lindley loop of benchmarks/fastpath_ceiling.py in the same run (6.1-6.3 ns an I/O): mcio went
from 0.49 of its rate (12.7 ns an I/O) to 0.75-0.78 (~7.9 ns) with three bit-identical changes:
the one-server recursion in a function of its own (``_recursion_one``: inlined, its free time
had lived on the stack), the histogram's loops on views indexed from 0 (with a start LLVM cannot
see, every access tested for a negative index and the vector loads became scalar: 0.6 -> 0.1 ns
a value), and five of the recursion's ten adds on the FMA units (``_add_on_fma``). The block
ziggurat (``blockrng.fill_exponential``, which changed results) then took it to 0.84-0.89
(~6.8 ns; fastpath_ceiling.py's own runs 0.87-1.04, the machine shared): ~3.7 ns of variates
(two exponentials, 1.85 ns each), ~2.1 ns the recursion and the disconnects (bound by Zen 3's
two adders and the chain of a max and an add), ~0.9 ns the histogram and the rest.

On an Intel Emerald Rapids host (AVX-512; an add 2 cycles, a max 4) the same code read 0.73-0.75
of the hand loop (5.3 ns an I/O against 3.9): ~2.45 ns of variates, ~2.3 ns the recursion, bound
by its free time's chain of a max and an add (~1.9 ns an I/O alone), ~0.45 ns the rest.
``_arrive_pair`` takes that chain two I/Os at a time by max-plus algebra (two adds and a max per
pair; bit for bit the same): 0.88x the time, 0.79-0.88 of the hand loop (session 31). Not on
AMD Zen (``UNROLL_CHAIN``), where a max is 1 cycle and the loop is bound by its sums.
"""
import numba as nb
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from . import alloc
from .blockrng import fill_row
from .histogram import hist_add_sums
from .ioclass import attr_draws
from .layout import (D_BACKEND, D_HA, D_INTERARRIVAL, D_MP_SHAPE, FP_LINK_KB_PER_MS,
                     FP_MP_START_FRACTION, FP_ZHPF_SHARE, IP_CLASSES, IP_EXPOSURES, IP_MEASURE,
                     IP_SLOTS, IP_TRACE, IP_WARMUP, R_CLASS, R_MISS, R_MODE)
from .stats import (A_AREA_BE, A_AREA_HA, A_AREA_IOSQ, A_AREA_SYS, A_DEV_BUSY_MS,
                    A_DEV_BUSY_ZVM_MS, A_EVENTS, A_N, A_SQ_RESP, A_SUM_CMR, A_SUM_CONN,
                    A_SUM_DISC, A_SUM_IOSQ, A_SUM_PEND, A_SUM_RESP, A_TIME_MS, A_UNSTABLE,
                    C_AREA_OE, C_KB, C_LINK_BUSY_MS, C_MP_BUSY_MS, C_OE_MAX, C_SSCH, V_BUSY_MS,
                    V_SSCH)
from .options import JIT, JIT_LEAF, JIT_STAGE, njit
from .servers import kw_start_side_by_side
from .rng import uniform

BLOCK = 256                       # I/Os per block (a multiple of blockrng.LANES)

# sums[] of the measured I/Os' statistics (ms, ms^2): the components' sums and the response's
# sum of squares, what the outputs read (kernels/stats.py); not the components' sums of squares,
# which nothing reads (the event engine's flush_block keeps them, as the same-work anchor does)
S_IOSQ, SQ_RESP, S_PEND, S_CMR, S_W, S_DISC, S_CONN = range(7)


@njit(**JIT_LEAF)
def _path_stats(m0, m1, pend_blk, ha_blk, w_blk, conn_blk, sums):
    """I/Os m0 .. m1 - 1 of a block (float64[BLOCK] each, ms) into sums[S_PEND, S_CMR, S_W,
    S_CONN] (ms): four independent chains in one loop, each in I/O order (as ``_recursion``).
    Only for models where pend or connect time is not zero."""
    p = sums[S_PEND]
    h = sums[S_CMR]
    w = sums[S_W]
    c = sums[S_CONN]
    for j in range(m0, m1):
        p += pend_blk[j]
        h += ha_blk[j]
        w += w_blk[j]
        c += conn_blk[j]
    sums[S_PEND] = p
    sums[S_CMR] = h
    sums[S_W] = w
    sums[S_CONN] = c


@njit(**JIT_LEAF)
def _block_stats(m0, m1, iosq_blk, svc_blk, pend_blk, ha_blk, w_blk, conn_blk, k_blk, keys,
                 has_path, ncls, sums, n_cls, hist):
    """The statistics of I/Os m0 .. m1 - 1 of a block that the recursion does not take: the
    histogram of responses (iosq_blk + svc_blk, ms; ``keys`` int64[BLOCK] scratch), the pend
    and connect sums (``_path_stats``) and the I/Os per class (n_cls float64[K]). Every sum
    is taken in I/O order, so it is the same as one kept I/O by I/O."""
    hist_add_sums(hist, iosq_blk, svc_blk, m0, m1, keys)
    # pend and connect are zero for every I/O of some models: their sums stay 0
    if has_path:
        _path_stats(m0, m1, pend_blk, ha_blk, w_blk, conn_blk, sums)
    if ncls > 1:
        # one counting pass per class: an increment of n_cls[k] per I/O would wait on the last
        for kk in range(ncls):
            n = 0
            for j in range(m0, m1):
                n += 1 if k_blk[j] == kk else 0
            n_cls[kk] += n


@njit(**JIT_STAGE)
def _block_service(NCLS, disc_only, zshare, start_frac, mp_draw, one, km_tab, cls_cum, ucls_blk,
                   umode_blk, umiss_blk, mp_blk, ha_blk, be_blk, w_blk, pend_blk, disc_blk, conn_blk,
                   svc_blk, k_blk):
    """Each I/O of a block: its class (k_blk int64[BLOCK]), MP work, pend, disconnect, connect
    and service (w_blk .. svc_blk float64[BLOCK], ms) from the block's uniforms and draws
    (float64[BLOCK]). They do not depend on the queue, so the whole block at once. ``one`` =
    class 0's (MP work CCW, z/HPF, protocol CCW, z/HPF, transfer, miss ratio); ``km_tab`` = (MP
    work, protocol + transfer, miss ratio) float64[2 K] by 2 class + mode. ``disc_only``
    (one class, pend and connect 0 for every I/O): only the disconnects, which are then each
    I/O's service bit for bit (+0 + x + +0 = x), and the caller takes disc_blk for svc_blk."""
    mp_0, mp_1, pr_0, pr_1, xfer_0, miss_0 = one
    mp_km, px_km, miss_km = km_tab
    if disc_only:
        for j in range(BLOCK):
            disc_blk[j] = be_blk[j] if umiss_blk[j] < miss_0 else 0.0
        return
    # One class gets its own loop: branch-free, LLVM vectorises
    # it (the general loop's class look-ups would be gathers, and it stays scalar: 0.8x)
    if NCLS == 1:
        for j in range(BLOCK):
            zhpf = umode_blk[j] < zshare
            w = mp_1 if zhpf else mp_0
            if mp_draw:
                w *= mp_blk[j]
            w_start = w * start_frac
            be = be_blk[j] if umiss_blk[j] < miss_0 else 0.0
            conn = (pr_1 if zhpf else pr_0) + xfer_0 + (w - w_start)
            pend = w_start + ha_blk[j]
            w_blk[j] = w
            pend_blk[j] = pend
            disc_blk[j] = be
            conn_blk[j] = conn
            svc_blk[j] = pend + be + conn
    else:
        # class = how many cumulative shares the uniform exceeds: branch-free, vectorised
        # (the same class as ``io_class``'s search)
        k_blk[:] = 0
        for kk in range(NCLS - 1):
            ck = cls_cum[kk]
            for j in range(BLOCK):
                k_blk[j] += 1 if ucls_blk[j] > ck else 0
        for j in range(BLOCK):
            km = 2 * k_blk[j] + (1 if umode_blk[j] < zshare else 0)
            w = mp_km[km]
            if mp_draw:
                w *= mp_blk[j]
            w_start = w * start_frac
            be = be_blk[j] if umiss_blk[j] < miss_km[km] else 0.0
            conn = px_km[km] + (w - w_start)
            pend = w_start + ha_blk[j]
            w_blk[j] = w
            pend_blk[j] = pend
            disc_blk[j] = be
            conn_blk[j] = conn
            svc_blk[j] = pend + be + conn


@njit(**JIT_LEAF)
def _write_outputs(n_meas, sums, n_cls, cls_kb, cls_xfer, acc, chs, devs):
    """The measured I/Os' sums (sums[S_*, SQ_RESP], ms and ms^2; n_cls float64[K] I/Os per class,
    cls_kb and cls_xfer float64[K] KB and transfer ms per class) into the outputs (slots of
    kernels/stats.py), with the time-weighted figures by Little's law."""
    if n_cls.shape[0] == 1:
        n_cls[0] = n_meas
    sm_kb = sm_xfer = 0.0
    for kk in range(n_cls.shape[0]):
        sm_kb += n_cls[kk] * cls_kb[kk]
        sm_xfer += n_cls[kk] * cls_xfer[kk]
    sm_iosq = sums[S_IOSQ]
    sm_pend = sums[S_PEND]
    sm_cmr = sums[S_CMR]
    sm_disc = sums[S_DISC]
    sm_conn = sums[S_CONN]
    sm_w = sums[S_W]
    sq_resp = sums[SQ_RESP]
    sm_svc = sm_pend + sm_disc + sm_conn
    sm_resp = sm_iosq + sm_svc
    sm_busy = sm_disc + sm_conn
    acc[A_N] += n_meas
    acc[A_SUM_RESP] += sm_resp
    acc[A_SUM_IOSQ] += sm_iosq
    acc[A_SUM_PEND] += sm_pend
    acc[A_SUM_CMR] += sm_cmr
    acc[A_SUM_DISC] += sm_disc
    acc[A_SUM_CONN] += sm_conn
    acc[A_SQ_RESP] += sq_resp
    # time-weighted figures by Little's law on each I/O's sojourn in each state
    acc[A_AREA_SYS] += sm_resp
    acc[A_AREA_IOSQ] += sm_iosq
    acc[A_AREA_HA] += sm_cmr
    acc[A_AREA_BE] += sm_disc
    acc[A_DEV_BUSY_MS] += sm_busy
    acc[A_DEV_BUSY_ZVM_MS] += sm_svc
    chs[0, C_SSCH] += n_meas
    chs[0, C_KB] += sm_kb
    chs[0, C_MP_BUSY_MS] += sm_w
    chs[0, C_LINK_BUSY_MS] += sm_xfer
    chs[0, C_AREA_OE] += sm_svc
    devs[0, V_SSCH] += n_meas
    devs[0, V_BUSY_MS] += sm_busy


@njit(**JIT_STAGE)
def _serve(c, t, svc, free1, free_t):
    """An I/O arriving at ``t`` (ms) needing ``svc`` ms takes the earliest free of ``c`` FIFO
    servers: returns (its start, the one server's free time when c == 1). c > 1: the servers'
    free times free_t float64[c] (``servers.kw_start_side_by_side``: scans up to SCAN_MAX, else
    a binary min-heap) are updated."""
    if c == 1:
        start = free1 if free1 > t else t
        return start, start + svc
    return kw_start_side_by_side(free_t, c, t, svc), free1


@intrinsic
def _opaque(typingctx, x):
    """``x`` (float64) through an empty inline-asm statement: the same value, which LLVM can no
    longer see (so that it cannot fold ``_add_on_fma(a, 1.0, b)`` back into an add)."""
    if not isinstance(x, types.Float) or x.bitwidth != 64:
        return None

    def codegen(context, builder, signature, args):
        d = ir.DoubleType()
        asm = ir.InlineAsm(ir.FunctionType(d, [d]), "", "=x,0", side_effect=False)
        return builder.call(asm, args)
    return types.float64(types.float64), codegen


@intrinsic
def _add_on_fma(typingctx, x, one, y):
    """x * one + y in one rounding (LLVM's llvm.fma.f64). With ``one`` == 1.0 (``_opaque(1.0)``)
    that is bit for bit x + y, but on the multiply-add units, not the adders (on Zen 3, two of
    each): a loop of many independent sums is bound by the adders' throughput, not by latency."""
    if not all(isinstance(a, types.Float) and a.bitwidth == 64 for a in (x, one, y)):
        return None

    def codegen(context, builder, signature, args):
        if not _TARGET_HAS_FMA:         # llvm.fma would be a call to libm's fma: x * 1 + y
            return builder.fadd(builder.fmul(args[0], args[1]), args[2])
        d = ir.DoubleType()
        fn = builder.module.declare_intrinsic("llvm.fma", [d], ir.FunctionType(d, [d, d, d]))
        return builder.call(fn, args)
    return types.float64(types.float64, types.float64, types.float64), codegen


def _target_has_fma() -> bool:
    """Whether the CPU Numba compiles for has FMA (NUMBA_CPU_FEATURES, else the host's)."""
    import llvmlite.binding as llvm
    feats = nb.config.CPU_FEATURES
    if feats is None:
        feats = llvm.get_host_cpu_features().flatten()
    return "+fma" in feats.split(",")


_TARGET_HAS_FMA = _target_has_fma()


@njit(**JIT_STAGE)
def _arrive(t, free1, ia):
    """The next I/O arrives ``ia`` ms after ``t`` at the one server, free at ``free1`` (ms):
    (its arrival, its start, its IOSQ)."""
    t += ia
    start = free1 if free1 > t else t
    return t, start, start - t


@njit(**JIT_STAGE)
def _arrive_pair(t, free1, ia1, ia2, svc1, svc2, unrolled):
    """Two I/Os arriving ``ia1`` and ``ia2`` ms apart after ``t`` at the one server, free at
    ``free1``, needing ``svc1`` and ``svc2`` ms: (t1, start1, iosq1, t2, start2, iosq2, free2)
    (ms), bit for bit what ``_arrive`` twice gives, in either form (``unrolled``: bool).

    The server's free time is a chain of a max and an add an I/O (free' = max(free, t) + svc).
    Rounding is monotone, so fl(max(a, b) + s) = max(fl(a + s), fl(b + s)) exactly; unrolled
    over two I/Os, free2 = max(fl(fl(free1 + svc1) + svc2), g2) with g2 = fl(max(fl(t1 + svc1),
    t2) + svc2), which does not depend on free1: the chain is two adds and one max per two I/Os,
    the rest runs beside it, for ~3 more instructions an I/O. Where a max takes 4-5 cycles
    (Intel's Golden Cove) that makes the fast path 0.88x the time; where it takes 1 (AMD Zen)
    the sums' own chains of multiply-adds (4 cycles an I/O) bound the loop either way, and the
    unrolled form would only add instructions: ``UNROLL_CHAIN`` picks the form for the target
    (benchmarks/README.md, session 31)."""
    if unrolled:
        t1 = t + ia1
        t2 = t1 + ia2
        a1 = free1 + svc1                     # the chain: free1 -> a1 -> a2 -> free2
        a2 = a1 + svc2
        h2 = t1 + svc1                        # off the chain: what free2 would be from t1 on
        h2 = h2 if h2 > t2 else t2
        start1 = free1 if free1 > t1 else t1
        start2 = a1 if a1 > h2 else h2        # = max(free after I/O 1, t2)
        g2 = h2 + svc2
        return t1, start1, start1 - t1, t2, start2, start2 - t2, (a2 if a2 > g2 else g2)
    t1, start1, iosq1 = _arrive(t, free1, ia1)
    t2, start2, iosq2 = _arrive(t1, start1 + svc1, ia2)
    return t1, start1, iosq1, t2, start2, iosq2, start2 + svc2


def _target_cpu() -> str:
    """The CPU Numba compiles for (NUMBA_CPU_NAME, else the host's), e.g. 'znver3'."""
    import llvmlite.binding as llvm
    return nb.config.CPU_NAME or llvm.get_host_cpu_name()


# ``_arrive_pair``'s form: unrolled except on AMD's Zen cores (a max in 1 cycle)
UNROLL_CHAIN = not _target_cpu().startswith("znver")


@njit(**JIT_STAGE)
def _sums_add(iosq, svc, disc, one, b_sum, s_iosq, sq_resp, s_disc):
    """A measured I/O's IOSQ, service and disconnect (ms) into the running sums: (b_sum + resp,
    s_iosq, sq_resp, s_disc), three of the four adds on the multiply-add units (``_add_on_fma``:
    bit for bit the same sums)."""
    resp = iosq + svc
    return (b_sum + resp, _add_on_fma(iosq, one, s_iosq), _add_on_fma(resp * resp, one, sq_resp),
            _add_on_fma(disc, one, s_disc))


@njit(**dict(JIT_LEAF, forceinline=False))
def _recursion_one(i0, nj, m0, WARM, N, NB, wait_limit, ia_blk, svc_blk, disc_blk, iosq_blk, t,
                   free1, t0, d0, bat, bst, sums):
    """``_recursion`` for one server (Lindley), in a function of its own, called once a block
    (never inlined: forceinline=False set explicitly, else it would inherit its caller's).
    Inlined into ``fast_one``, with the scan and the heap of c > 1 beside it, LLVM kept the one
    server's free time on the stack, so that each I/O's start waited on a store and a reload
    (measured on an AVX2 EPYC: ~11 cycles an I/O, where the recursion's own chain is a max and
    an add, ~4). The block goes in segments that end where an MSER batch ends, where the
    measured I/Os start and after I/O WARM, so that the loop of a measured segment past the
    warm-up (nearly every I/O) tests nothing but the wait limit: its only branch, never taken.
    The same operations on each sum in the same order as ``_recursion``'s, so the results are
    bit for bit the same. ``_arrive_pair``'s form is ``UNROLL_CHAIN``, a constant here, so that
    the pair loop does not test it (as an argument it was reloaded and tested every pair)."""
    b, b_next, b_sum = bst
    s_iosq, sq_resp, s_disc = sums[S_IOSQ], sums[SQ_RESP], sums[S_DISC]
    done = nj
    unstable = False
    one = _opaque(1.0)
    j0 = 0
    while j0 < nj:
        while i0 + j0 >= b_next:
            bat[b] += b_sum
            b_sum = 0.0
            b += 1
            b_next = ((b + 1) * N + NB - 1) // NB
        j1 = b_next - i0 if b_next - i0 < nj else nj
        if j0 < m0:
            j1 = m0 if m0 < j1 else j1
        if i0 + j0 <= WARM:
            j1 = WARM + 1 - i0 if WARM + 1 - i0 < j1 else j1
        if j0 >= m0 and i0 + j0 > WARM:
            # views from j0 on, indexed from 0: an index LLVM knows is >= 0 needs no test for
            # a negative (wrap-around) index at every access
            ia_v = ia_blk[j0:j1]
            svc_v = svc_blk[j0:j1]
            disc_v = disc_blk[j0:j1]
            iosq_v = iosq_blk[j0:j1]
            # two I/Os a pass, then the odd one: the loop's control once per two
            nk = j1 - j0
            k = 0
            while k + 1 < nk:
                t1, start1, iosq, t2, start2, iosq2, free2 = _arrive_pair(
                    t, free1, ia_v[k], ia_v[k + 1], svc_v[k], svc_v[k + 1], UNROLL_CHAIN)
                if iosq > wait_limit:
                    t, free1 = t1, start1
                    done = j0 + k
                    unstable = True
                    break
                iosq_v[k] = iosq
                b_sum, s_iosq, sq_resp, s_disc = _sums_add(
                    iosq, svc_v[k], disc_v[k], one, b_sum, s_iosq, sq_resp, s_disc)
                iosq = iosq2
                t = t2
                if iosq > wait_limit:
                    free1 = start2
                    done = j0 + k + 1
                    unstable = True
                    break
                free1 = free2
                iosq_v[k + 1] = iosq
                b_sum, s_iosq, sq_resp, s_disc = _sums_add(
                    iosq, svc_v[k + 1], disc_v[k + 1], one, b_sum, s_iosq, sq_resp, s_disc)
                k += 2
            if k < nk and not unstable:
                t, start, iosq = _arrive(t, free1, ia_v[k])
                if iosq > wait_limit:
                    free1 = start
                    done = j0 + k
                    unstable = True
                else:
                    free1 = start + svc_v[k]
                    iosq_v[k] = iosq
                    b_sum, s_iosq, sq_resp, s_disc = _sums_add(
                    iosq, svc_v[k], disc_v[k], one, b_sum, s_iosq, sq_resp, s_disc)
        else:
            for jc in range(j0, j1):
                i = i0 + jc
                t += ia_blk[jc]
                svc = svc_blk[jc]
                start = free1 if free1 > t else t
                iosq = start - t
                if iosq > wait_limit:
                    free1 = start
                    done = jc
                    unstable = True
                    break
                free1 = start + svc
                iosq_blk[jc] = iosq
                resp = iosq + svc
                b_sum += resp
                if jc >= m0:
                    s_iosq += iosq
                    sq_resp += resp * resp
                    s_disc += disc_blk[jc]
                if i == WARM:
                    t0 = t
                else:
                    d0 = start + svc
        if unstable:
            break
        j0 = j1
    sums[S_IOSQ], sums[SQ_RESP], sums[S_DISC] = s_iosq, sq_resp, s_disc
    return done, unstable, t, free1, t0, d0, (b, b_next, b_sum)


@njit(**JIT_STAGE)
def _recursion(c, i0, nj, m0, WARM, N, NB, wait_limit, ia_blk, svc_blk, disc_blk, iosq_blk, free_t,
               t, free1, t0, d0, bat, bst, sums):
    """I/Os i0 .. i0 + nj - 1 (places 0 .. nj - 1 of the block: gaps ia_blk, services svc_blk
    and disconnects disc_blk float64[BLOCK], ms) through the c FIFO servers, the only
    sequential part: each I/O's IOSQ into iosq_blk (ms), its response into the MSER batch sums
    bat float64[NB] (batch of I/O i: (i NB) // N; ``bst`` = (batch, first I/O of the next,
    running sum)) and, from place m0 on (the measured I/Os), into sums[S_IOSQ, SQ_RESP,
    S_DISC] (ms, ms^2). ``t`` is the last arrival, ``free1`` the one server's free time
    (c == 1; else ``free_t``), ``t0`` the first measured arrival, ``d0`` the last warm-up
    completion (ms). Returns (I/Os done, unstable, t, free1, t0, d0, bst): fewer than nj, and
    unstable, if an I/O waited over ``wait_limit`` (that one not counted: its server's free
    time undone). A loop of its own, with no calls: its state stays in registers, and the sums'
    chains of adds run beside the recursion's own, which is latency-bound."""
    if c == 1:
        return _recursion_one(i0, nj, m0, WARM, N, NB, wait_limit, ia_blk, svc_blk, disc_blk,
                              iosq_blk, t, free1, t0, d0, bat, bst, sums)
    b, b_next, b_sum = bst
    s_iosq, sq_resp, s_disc = sums[S_IOSQ], sums[SQ_RESP], sums[S_DISC]
    done = nj
    unstable = False
    for jc in range(nj):
        i = i0 + jc
        t += ia_blk[jc]
        svc = svc_blk[jc]
        start, free1 = _serve(c, t, svc, free1, free_t)
        iosq = start - t
        if iosq > wait_limit:
            if c == 1:
                free1 = start
            else:
                for jj in range(c):
                    if free_t[jj] == start + svc:
                        free_t[jj] = start
                        break
            done = jc
            unstable = True
            break
        iosq_blk[jc] = iosq
        while i >= b_next:
            bat[b] += b_sum
            b_sum = 0.0
            b += 1
            b_next = ((b + 1) * N + NB - 1) // NB
        resp = iosq + svc
        b_sum += resp
        if jc >= m0:
            s_iosq += iosq
            sq_resp += resp * resp
            s_disc += disc_blk[jc]
        if i <= WARM:
            if i == WARM:
                t0 = t
            else:
                d0 = start + svc
    sums[S_IOSQ], sums[SQ_RESP], sums[S_DISC] = s_iosq, sq_resp, s_disc
    return done, unstable, t, free1, t0, d0, (b, b_next, b_sum)


@njit(**JIT_STAGE)
def _block_draws(traced, trace, trace_i, draws, lanes, scal, dp, ev, ec, ia_blk, ucls_blk, umode_blk,
                 umiss_blk, mp_blk, ha_blk, be_blk):
    """A block's variates (float64[BLOCK] each; ms, or uniforms): the inter-arrival gaps (from
    the trace, from its gap ``trace_i`` on, or drawn) and the rows ``draws`` = (class, mode,
    miss, MP shape, host adapter, back end) says a draw can change. Returns the trace's next gap."""
    cls_draw, mode_draw, miss_draw, mp_draw, ha_draw, be_draw = draws
    nblk = np.int64(BLOCK)
    if traced:
        for jj in range(BLOCK):
            ia_blk[jj] = trace[trace_i]
            trace_i = (trace_i + 1) % trace.shape[0]
    else:
        fill_row(lanes, scal, dp, np.int64(D_INTERARRIVAL), ev, ec, ia_blk, nblk)
    if cls_draw:
        fill_row(lanes, scal, dp, np.int64(R_CLASS), ev, ec, ucls_blk, nblk)
    if mode_draw:
        fill_row(lanes, scal, dp, np.int64(R_MODE), ev, ec, umode_blk, nblk)
    if miss_draw:
        fill_row(lanes, scal, dp, np.int64(R_MISS), ev, ec, umiss_blk, nblk)
    if mp_draw:
        fill_row(lanes, scal, dp, np.int64(D_MP_SHAPE), ev, ec, mp_blk, nblk)
    if ha_draw:
        fill_row(lanes, scal, dp, np.int64(D_HA), ev, ec, ha_blk, nblk)
    if be_draw:
        fill_row(lanes, scal, dp, np.int64(D_BACKEND), ev, ec, be_blk, nblk)
    return trace_i


@njit(**JIT_LEAF)
def _last_end(c, free1, free_t):
    """The latest completion so far (ms): the one server's free time, or the latest of c."""
    if c == 1:
        return free1
    m = free_t[0]
    for jj in range(1, c):
        if free_t[jj] > m:
            m = free_t[jj]
    return m


@njit(**JIT)
def _class_tables(NCLS, bw, cls_kb, cls_miss, cls_mp, cls_proto):
    """What ``_block_service`` looks up: (cls_xfer float64[K], transfer time at full link rate
    (ms; bw KB/ms), ``one`` = class 0's (MP work CCW, z/HPF, protocol CCW, z/HPF, transfer, miss
    ratio), ``km_tab`` = (MP work, protocol + transfer, miss ratio) float64[2 K] by 2 class +
    mode)."""
    cls_xfer = cls_kb / bw
    one = (cls_mp[0, 0], cls_mp[0, 1], cls_proto[0, 0], cls_proto[0, 1], cls_xfer[0], cls_miss[0])
    mp_km = alloc.empty(2 * NCLS, np.float64)
    px_km = alloc.empty(2 * NCLS, np.float64)          # protocol + transfer time, ms
    miss_km = alloc.empty(2 * NCLS, np.float64)
    for kk in range(NCLS):
        for md in range(2):
            mp_km[2 * kk + md] = cls_mp[kk, md]
            px_km[2 * kk + md] = cls_proto[kk, md] + cls_xfer[kk]
            miss_km[2 * kk + md] = cls_miss[kk]
    return cls_xfer, one, (mp_km, px_km, miss_km)


@njit(**JIT)
def _what_to_draw(NCLS, zshare, dp, cls_kb, cls_miss, cls_mp, cls_proto):
    """Which rows a block draws and which statistics it keeps: (draws = (class, mode, miss, MP
    shape, host adapter, back end) bools, mp_draw, has_path: pend or connect not zero for every
    I/O (else their sums stay 0), disc_only: one class and no path time, so that each I/O's
    service is its disconnect (``_block_service``))."""
    ha_zero = dp[D_HA, 0] == 0.0 and dp[D_HA, 1] == 0.0
    be_zero = dp[D_BACKEND, 0] == 0.0 and dp[D_BACKEND, 1] == 0.0
    mp_det = dp[D_MP_SHAPE, 0] == 0.0
    cls_draw, mode_draw, miss_draw = attr_draws(NCLS, zshare, cls_miss)
    # MP work of the modes an I/O can take (columns 0 CCW, 1 z/HPF; the mode is u < zshare,
    # u = 0.5 when not drawn), so that a model with no MP work in the mode it uses skips it
    ccw_used = mode_draw or not 0.5 < zshare
    zhpf_used = mode_draw or 0.5 < zshare
    has_mp = (ccw_used and cls_mp[:, 0].max() > 0.0) or (zhpf_used and cls_mp[:, 1].max() > 0.0)
    mp_draw = has_mp and not mp_det
    be_draw = not be_zero and cls_miss.max() > 0.0
    has_path = has_mp or not ha_zero or cls_kb.max() > 0.0 or cls_proto.max() > 0.0
    return ((cls_draw, mode_draw, miss_draw, mp_draw, not ha_zero, be_draw), mp_draw, has_path,
            NCLS == 1 and not has_path)


@njit(**JIT)
def fast_one(fp, ip, dp, ev, ec, cls_cum, cls_kb, cls_miss, cls_mp, cls_proto, trace,
             s, lanes, scal, acc, chs, devs, hist, bat, ctl_stop, ctl_done, overloaded):
    """One replication of the G/G/c recursion; same inputs (those it needs) and outputs as
    ``iopath.run_one``, and the same control arrays: ``ctl_stop`` int64[1], read once per block
    of BLOCK I/Os (non-zero: return at once with the I/Os done so far, fewer measured than
    asked); ``ctl_done`` int64[1], to which each block's BLOCK I/Os are added (warm-up included)
    as the block starts, the rest at the end.

    The measured interval: for a stable load, from the first measured arrival to the last
    arrival (the measured I/Os are those that arrived in it). When the load is over capacity
    (``overloaded``: the caller's analytic check, or the wait limit reached here) the queue, not
    the arrivals, sets the pace: the interval is then the time the measured completions took,
    from the last warm-up I/O's completion to the last measured one, as the event engine measures
    it; throughput is then at most the servers' rate and every busy fraction at most 1.
    """
    c = ip[IP_EXPOSURES]
    WARM = ip[IP_WARMUP]
    N = WARM + ip[IP_MEASURE]
    NCLS = ip[IP_CLASSES]
    TRACE = ip[IP_TRACE] == 1
    NB = bat.shape[0]
    start_frac = fp[FP_MP_START_FRACTION]
    bw = fp[FP_LINK_KB_PER_MS]
    zshare = fp[FP_ZHPF_SHARE]
    # A wait longer than this many mean inter-arrival times means more I/Os queued than the
    # event engine's slot pool holds: the same instability rule on both paths.
    mean_gap = dp[D_INTERARRIVAL, 1]
    if TRACE:
        mean_gap = trace.mean()
    wait_limit = ip[IP_SLOTS] * mean_gap
    free_t = alloc.zeros(c, np.float64)  # server free times (a scan, or a min-heap: all zero is one)
    trace_i = 0
    if TRACE:
        trace_i = np.int64(uniform(s) * trace.shape[0]) % trace.shape[0]
    cls_xfer, one, km_tab = _class_tables(NCLS, bw, cls_kb, cls_miss, cls_mp, cls_proto)
    draws, mp_draw, has_path, disc_only = _what_to_draw(NCLS, zshare, dp, cls_kb, cls_miss, cls_mp,
                                                        cls_proto)
    # The block's variates (ms; uniforms for the I/O's attributes are drawn only where a draw
    # can change one, else 0.5, for which u < p is p's own truth when p is 0 or >= 1) ...
    ia_blk = alloc.empty(BLOCK, np.float64)
    mp_blk = alloc.empty(BLOCK, np.float64)
    ha_blk = alloc.zeros(BLOCK, np.float64)
    be_blk = alloc.zeros(BLOCK, np.float64)
    ucls_blk = alloc.full(BLOCK, 0.5, np.float64)
    umode_blk = alloc.full(BLOCK, 0.5, np.float64)
    umiss_blk = alloc.full(BLOCK, 0.5, np.float64)
    # ... each I/O's MP work, pend, disconnect, connect, service and IOSQ (ms) and class
    w_blk = alloc.empty(BLOCK, np.float64)
    pend_blk = alloc.empty(BLOCK, np.float64)
    disc_blk = alloc.empty(BLOCK, np.float64)
    conn_blk = alloc.empty(BLOCK, np.float64)
    svc_blk = alloc.empty(BLOCK, np.float64)
    svc_src = disc_blk if disc_only else svc_blk
    iosq_blk = alloc.empty(BLOCK, np.float64)
    k_blk = alloc.zeros(BLOCK, np.int64)
    keys = alloc.empty(BLOCK, np.int64)       # histogram buckets of the block's responses
    # The statistics live in ``sums``, added to acc/chs/devs once at the end: the replications'
    # output rows share cache lines, so the threads would fight over them.
    t = 0.0
    t0 = 0.0
    free1 = 0.0                   # c == 1: the one server's free time
    # Sums not kept: response = IOSQ + pend + disconnect + connect, so its sum and those of
    # service and device busy follow from the component sums; KB and transfer time from the
    # count of I/Os per class.
    sums = alloc.zeros(S_CONN + 1, np.float64)
    n_cls = alloc.zeros(NCLS, np.float64)
    n_done = N                    # I/Os whose statistics were taken
    unstable = False
    bst = (0, (N + NB - 1) // NB, 0.0)  # MSER batch of the next I/O, first I/O of the next, its sum
    d0 = 0.0                      # completion time of the last warm-up I/O (ms)
    told = 0                      # I/Os added to ctl_done so far
    i = 0
    while i < N:
        ctl_done[0] += i - told         # progress: a plain add to this replication's own slot
        told = i
        if ctl_stop[0] != 0:            # stop requested: end here, every I/O so far counted
            n_done = i
            break
        m0 = 0 if i >= WARM else (WARM - i if WARM - i < BLOCK else BLOCK)  # the first measured I/O
        trace_i = _block_draws(TRACE, trace, trace_i, draws, lanes, scal, dp, ev, ec, ia_blk, ucls_blk,
                               umode_blk, umiss_blk, mp_blk, ha_blk, be_blk)
        # each I/O's class, mode, miss and service components: independent of the queue
        _block_service(NCLS, disc_only, zshare, start_frac, mp_draw, one, km_tab, cls_cum, ucls_blk,
                       umode_blk, umiss_blk, mp_blk, ha_blk, be_blk, w_blk, pend_blk, disc_blk,
                       conn_blk, svc_blk, k_blk)
        nj = N - i if N - i < BLOCK else BLOCK
        jb, unstable, t, free1, t0, d0, bst = _recursion(c, i, nj, m0, WARM, N, NB, wait_limit,
                                                         ia_blk, svc_src, disc_blk, iosq_blk,
                                                         free_t, t, free1, t0, d0, bat, bst, sums)
        _block_stats(m0, jb, iosq_blk, svc_src, pend_blk, ha_blk, w_blk, conn_blk, k_blk, keys,
                     has_path, NCLS, sums, n_cls, hist)
        if unstable:
            n_done = i + jb
            break
        i += nj
    b, _, b_sum = bst
    if b < NB:
        bat[b] += b_sum
    if unstable:
        acc[A_UNSTABLE] = 1.0
    ctl_done[0] += n_done - told
    n_meas = n_done - WARM if n_done > WARM else 0
    _write_outputs(float(n_meas), sums, n_cls, cls_kb, cls_xfer, acc, chs, devs)
    acc[A_EVENTS] = float(N)
    if overloaded or unstable:
        acc[A_TIME_MS] = _last_end(c, free1, free_t) - d0 if n_done > WARM else 0.0
    else:
        acc[A_TIME_MS] = t - t0
    chs[0, C_OE_MAX] = 1.0 if c == 1 else np.nan
