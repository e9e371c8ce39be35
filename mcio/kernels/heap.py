"""The event engine's queue of timed events, and binary min-heaps.

The engine's queue (``heap_new``, ``heap_put``, ``heap_settle``, ``heap_take``) is, for at most
HEAP_MAX events pending (``heap_new(n)`` with n <= 16: a closed model of up to 15 I/Os), a binary
min-heap in the same three arrays, and for more a calendar queue. Both order events by (time,
code) (``_before``), so the order, and every result, is the same whichever the queue is; each of
``heap_put``, ``heap_take`` tests the mode once (h_n[Q_NB] 0: no buckets, the binary heap).

The binary heap (small queues): event i of the heap at h_t[i], h_c[i] (i < h_n[0]), its
children at 2 i + 1, 2 i + 2, the root (h_t[0], h_c[0]) the earliest; a put sifts up, a take
moves the last event into the root's place and sifts it down (``_sift_down``, the plain
heaps' own), ``heap_settle`` has nothing to do (h_n[Q_MIN] stays 1,
its test for "the earliest is known"). Where at most a handful are pending, that is a few
compares a put or a take, against a calendar queue's bucket lists, their scan after every take
and its list walk to unlink the taken node; measured with several copies of each tree, though,
the FICON model at N = 5 costs the same per I/O either way (benchmarks/README.md, issue 29's
third pass: one copy of each had shown 0.89x, an artefact of where each copy sat).

The calendar queue (Brown 1988): pending events (time ms, code) in NB buckets of a width W (ms),
event e in bucket number k = floor(t_e / W) kept in list k mod NB (unsorted); the earliest is
found by scanning from the current bucket number on, skipping nodes of later rounds (k >
current). With W near the events' spacing a put and a take cost O(1) whatever the number
pending, where a binary heap's cost grows with log2 of it (and its sift-downs miss the cache:
~3,000 pending at 256 channels). W and NB follow the run: NB doubles when the queue holds over 2
NB events, and when a take's scan grows long (too wide or too narrow buckets) the queue is
rebuilt with W from the mean spacing of the events taken lately. Ties in time are broken by the
code, so every correct priority queue hands out the same events in the same order: the results
are bit-for-bit those of the binary heap it replaced (whatever W and NB are; they change only
the cost).

Its three arrays (the ``heap`` tuple every stage unpacks as ``h_t, h_c, h_n``; ``heap_new``;
in the binary heap's mode only h_n[0], h_n[Q_MIN] = 1 and the heap's places are used):

- ``h_n`` int64: h_n[0] the number pending (what readers test), the queue's counters (Q_*; Q_NB
  0: the binary heap), the bucket heads from h_n[HEADS] (node numbers; 0: none);
- ``h_t`` float64: h_t[0] the earliest event's time after ``heap_settle``, W and 1 / W (T_*),
  node i's time h_t[i] (nodes NODE0 ...);
- ``h_c`` int64: h_c[0] the earliest event's code after ``heap_settle``; node i's code, next node
  (0: none) and bucket number at h_c[3 i], h_c[3 i + 1], h_c[3 i + 2].

Either mode: after ``heap_settle``, (h_t[0], h_c[0]) is the earliest pending event if h_n[0] > 0;
``heap_take`` removes it (read it first). ``heap_put`` adds an event at any time >= the last
taken (an infinite time is allowed: it sorts last, by code).

The binary heaps below (``heap_push``, ``heap_pop`` and the lazy root ``bheap_*``: the event
queue before the calendar queue, kept for benchmarks/event_floor.py and as the tests' reference;
``min_replace_root``: the control units' servers) are plain arrays t, c with ``size`` int64[2].
"""
import numpy as np

from . import alloc
from .options import JIT, JIT_CALL, JIT_LEAF, JIT_STAGE, njit


@njit(**JIT_LEAF)
def _before(t1, c1, t2, c2):
    """Event (t1, c1) comes before (t2, c2): earlier, or as early with the smaller code."""
    return t1 < t2 or (t1 == t2 and c1 < c2)


@njit(**JIT_LEAF)
def heap_push(t, c, size, time, code):
    i = size[0]
    size[0] = i + 1
    while i > 0:
        p = (i - 1) >> 1
        if _before(time, code, t[p], c[p]):
            t[i] = t[p]
            c[i] = c[p]
            i = p
        else:
            break
    t[i] = time
    c[i] = code


@njit(**JIT_LEAF)
def _sift_down(t, c, n, time, code):
    """Put (time, code) in the hole at the root of the heap t[:n], c[:n] and restore the heap."""
    i = 0
    while True:
        m = 2 * i + 1
        if m >= n:
            break
        r = m + 1
        if r < n and _before(t[r], c[r], t[m], c[m]):
            m = r
        if _before(t[m], c[m], time, code):
            t[i] = t[m]
            c[i] = c[m]
            i = m
        else:
            break
    t[i] = time
    c[i] = code


@njit(**JIT_LEAF)
def heap_pop(t, c, size):
    """Remove the root; the caller reads t[0], c[0] first."""
    n = size[0] - 1
    size[0] = n
    if n == 0:
        return
    _sift_down(t, c, n, t[n], c[n])


@njit(**JIT_LEAF)
def bheap_take(t, c, size):
    """Take the root (the caller reads t[0], c[0] first): marked taken, removed by the next
    ``bheap_put`` (which puts its pair in its place) or ``bheap_settle``. size int64[2]. Most
    events schedule their own I/O's next event at once: putting it in the taken root's place is
    one sift-down that stops early when the new event is soon, instead of a pop and a push (the
    same sequence of events: keys are ordered totally)."""
    size[1] = 1


@njit(**JIT_LEAF)
def bheap_put(t, c, size, time, code):
    """Add (time, code): in a taken root's place if there is one, else pushed. size int64[2]."""
    if size[1] != 0:
        size[1] = 0
        _sift_down(t, c, size[0], time, code)
    else:
        heap_push(t, c, size, time, code)


@njit(**JIT_LEAF)
def bheap_settle(t, c, size):
    """Remove a taken root that nothing replaced: t[0], c[0] is then the earliest pending event
    (if size[0] > 0). size int64[2]."""
    if size[1] != 0:
        size[1] = 0
        heap_pop(t, c, size)


@njit(**JIT_LEAF)
def min_replace_root(h, n, v):
    """Replace the least of the plain min-heap h[:n] (float64, e.g. servers' free times, ms) by
    ``v`` and restore the heap: the Kiefer-Wolfowitz step of a FIFO multi-server queue."""
    i = 0
    while True:
        m = 2 * i + 1
        if m >= n:
            break
        if m + 1 < n:
            m += np.int64(h[m + 1] < h[m])     # by arithmetic: a branch here mispredicts
        if h[m] < v:
            h[i] = h[m]
            i = m
        else:
            break
    h[i] = v


# ---------------------------------------------------------------------------- the calendar queue
# Fixed places (no offset that depends on the queue's size: every access is one load).
# h_n[Q_*]: Q_SIZE (= 0: what readers test) the events pending; Q_CUR the current bucket number
# (<= every pending node's); Q_MIN the earliest node once found (0: not known since the last
# take); Q_NB the buckets (a power of two), Q_NB_MAX the most there is room for; Q_FREE the free
# nodes' list; Q_HW the next never-used node; Q_DEQ, Q_STEPS the takes and scan steps since the
# last look at the scans' cost; the bucket heads from h_n[HEADS].
Q_SIZE, Q_CUR, Q_MIN, Q_NB, Q_NB_MAX, Q_FREE, Q_HW, Q_DEQ, Q_STEPS = range(9)
HEADS = 16
# h_t[T_*]: the width W (ms), 1 / W, the time of the first take since that look; nodes from NODE0
T_W, T_INV, T_WINDOW = 1, 2, 3
NODE0 = 4
NB_MIN = 16
HEAP_MAX = 16              # a queue for at most this many events is a binary heap (h_n[Q_NB] 0)
CHECK_TAKES = 256          # takes between two looks at the scans' cost
STEPS_PER_TAKE = 6         # more scan steps a take than this: rebuild with a new width
W_SPACINGS = 2.0  # W: this many times the takes' mean spacing
NEAR = 4                   # buckets ``heap_settle`` scans itself before ``_find_far``
FAR = np.int64(1) << 62    # the bucket number of a time past any other (inf): direct search


@njit(**JIT)
def heap_new(n):
    """The empty queue for at most ``n`` events pending: (h_t, h_c, h_n) (see the module
    docstring). n <= HEAP_MAX: the binary heap (h_n[Q_NB] 0). Else the calendar queue: buckets
    NB_MIN at first, at most the power of two >= n; W 1 ms at first (40 bytes an event it can
    hold, and up to 8 for its bucket). The arrays' sizes are the same in both modes."""
    nb_max = NB_MIN
    while nb_max < n:
        nb_max <<= 1
    h_t = alloc.zeros(NODE0 + n, np.float64)
    h_c = alloc.zeros(3 * (NODE0 + n), np.int64)
    h_n = alloc.zeros(HEADS + nb_max, np.int64)
    if n <= HEAP_MAX:
        h_n[Q_MIN] = 1                         # a binary heap: no buckets, the root always known
        return h_t, h_c, h_n
    h_n[Q_NB] = NB_MIN
    h_n[Q_NB_MAX] = nb_max
    h_n[Q_HW] = NODE0
    h_t[T_W] = 1.0
    h_t[T_INV] = 1.0
    return h_t, h_c, h_n


@njit(**JIT_CALL)
def _resize(h_t, h_c, h_n, now):
    """Rebuild the buckets. ``now`` < 0 (a put left more than 2 NB events pending): NB the power
    of two >= the events pending, the same W. Else (every CHECK_TAKES takes, the last at ``now``
    ms; a float either way, not a flag: a literal argument would compile a copy per value):
    when W is off W_SPACINGS x the takes' mean spacing since the last look by over 2x, that W and
    NB the power of two >= the events pending; when W is right but the scans cost more than
    STEPS_PER_TAKE steps a take, twice the buckets (up to Q_NB_MAX); else nothing. Every pending
    node goes to its new bucket, Q_CUR the least bucket number; the counts restart."""
    nb_ = h_n[Q_NB]
    nb_new = NB_MIN
    while nb_new < h_n[Q_SIZE] and nb_new < h_n[Q_NB_MAX]:
        nb_new <<= 1
    w = h_t[T_W]
    if now >= 0.0:
        d = h_n[Q_DEQ]
        g = (now - h_t[T_WINDOW]) / d
        if now < 1.0e300:
            h_t[T_WINDOW] = now
        wg = W_SPACINGS * g if 0.0 < g < 1.0e300 else w
        if wg > 2.0 * w or wg < 0.5 * w:
            w = wg
        elif h_n[Q_STEPS] > STEPS_PER_TAKE * d and nb_ < h_n[Q_NB_MAX]:
            # the width is right but the scans are long: events far ahead wrap round the buckets
            # (time scales apart, e.g. long think times beside short services): a longer round
            nb_new = 2 * nb_ if 2 * nb_ > nb_new else nb_new
        else:
            h_n[Q_DEQ] = 0
            h_n[Q_STEPS] = 0
            return
    every = 0                                  # every node in one list, through their next links
    for b in range(nb_):
        n = h_n[HEADS + b]
        while n > 0:
            nxt = h_c[3 * n + 1]
            h_c[3 * n + 1] = every
            every = n
            n = nxt
    h_n[HEADS:HEADS + nb_new] = 0
    inv = 1.0 / w
    h_t[T_W] = w
    h_t[T_INV] = inv
    h_n[Q_NB] = nb_new
    mask = nb_new - 1
    cur = FAR
    n = every
    while n > 0:
        nxt = h_c[3 * n + 1]
        x = h_t[n] * inv                       # its bucket number (FAR past 4e18: inf)
        k = np.int64(x) if x < 4.0e18 else FAR
        h_c[3 * n + 2] = k
        h_c[3 * n + 1] = h_n[HEADS + (k & mask)]
        h_n[HEADS + (k & mask)] = n
        if k < cur:
            cur = k
        n = nxt
    h_n[Q_CUR] = cur if h_n[Q_SIZE] > 0 else 0
    h_n[Q_DEQ] = 0
    h_n[Q_STEPS] = 0


@njit(**JIT_STAGE)
def heap_put(h_t, h_c, h_n, time, code):
    """Add the event (``time`` ms float64, ``code`` int64)."""
    if h_n[Q_NB] == 0:                         # the binary heap (a small queue): sift up
        i = h_n[Q_SIZE]
        h_n[Q_SIZE] = i + 1
        while i > 0:
            p = (i - 1) >> 1
            if _before(time, code, h_t[p], h_c[p]):
                h_t[i] = h_t[p]
                h_c[i] = h_c[p]
                i = p
            else:
                break
        h_t[i] = time
        h_c[i] = code
        return
    n = h_n[Q_FREE]
    if n > 0:
        h_n[Q_FREE] = h_c[3 * n + 1]
    else:
        n = h_n[Q_HW]
        h_n[Q_HW] = n + 1
    x = time * h_t[T_INV]                      # the bucket number (FAR past 4e18: inf)
    k = np.int64(x) if x < 4.0e18 else FAR
    h_t[n] = time
    h_c[3 * n] = code
    h_c[3 * n + 2] = k
    b = HEADS + (k & (h_n[Q_NB] - 1))
    h_c[3 * n + 1] = h_n[b]
    h_n[b] = n
    size = h_n[Q_SIZE] + 1
    h_n[Q_SIZE] = size
    if size == 1 or k < h_n[Q_CUR]:
        h_n[Q_CUR] = k
    if size == 1 or (h_n[Q_MIN] > 0 and _before(time, code, h_t[0], h_c[0])):
        h_n[Q_MIN] = n                         # the new earliest: known without a scan
        h_t[0] = time
        h_c[0] = code
    if size > 2 * h_n[Q_NB] and h_n[Q_NB] < h_n[Q_NB_MAX]:
        _resize(h_t, h_c, h_n, -1.0)


@njit(**JIT_LEAF)
def _scan_round(h_t, h_c, h_n, cur, buckets):
    """The earliest node of bucket number ``cur`` or of the next ones, at most ``buckets`` of them
    (nodes of later rounds skipped): (node, 0 if none; the bucket number it is in, or the first
    not scanned; the steps taken)."""
    mask = h_n[Q_NB] - 1
    steps = 0
    best = 0
    for _ in range(buckets):
        n = h_n[HEADS + (cur & mask)]
        while n > 0:
            steps += 1
            if h_c[3 * n + 2] == cur and (best == 0 or _before(h_t[n], h_c[3 * n], h_t[best], h_c[3 * best])):
                best = n
            n = h_c[3 * n + 1]
        if best > 0:
            break
        cur += 1
        steps += 1
    return best, cur, steps


@njit(**JIT_LEAF)
def _settled(h_t, h_c, h_n, cur, best, steps):
    """Node ``best`` (in bucket number ``cur``) is the earliest: copied to (h_t[0], h_c[0])."""
    h_n[Q_CUR] = cur
    h_n[Q_MIN] = best
    h_n[Q_STEPS] += steps
    h_t[0] = h_t[best]
    h_c[0] = h_c[3 * best]


@njit(**JIT_CALL)
def _find_far(h_t, h_c, h_n, cur, steps):
    """``heap_settle`` past its first NEAR buckets: the rest of one round from bucket number
    ``cur``, then a direct search of all (a round without an event due: far ahead, or at
    infinity)."""
    nb_ = h_n[Q_NB]
    best, cur, more = _scan_round(h_t, h_c, h_n, cur, nb_)
    steps += more
    if best == 0:
        for b in range(nb_):
            n = h_n[HEADS + b]
            while n > 0:
                steps += 1
                if best == 0 or _before(h_t[n], h_c[3 * n], h_t[best], h_c[3 * best]):
                    best = n
                n = h_c[3 * n + 1]
        cur = h_c[3 * best + 2]
    _settled(h_t, h_c, h_n, cur, best, steps)


@njit(**JIT_STAGE)
def heap_settle(h_t, h_c, h_n):
    """Make (h_t[0], h_c[0]) the earliest pending event (when h_n[0] > 0): after a take, the
    buckets from the current number on (nodes of later rounds skipped)."""
    if h_n[Q_MIN] != 0 or h_n[Q_SIZE] == 0:
        return
    best, cur, steps = _scan_round(h_t, h_c, h_n, h_n[Q_CUR], np.int64(NEAR))   # (not the literal: one specialisation)
    if best == 0:
        _find_far(h_t, h_c, h_n, cur, steps)
        return
    _settled(h_t, h_c, h_n, cur, best, steps)


@njit(**JIT_STAGE)
def heap_take(h_t, h_c, h_n):
    """Remove the earliest event (after ``heap_settle``; the caller reads h_t[0], h_c[0] first);
    every CHECK_TAKES takes, ``_resize`` looks at the scans' cost."""
    if h_n[Q_NB] == 0:                         # the binary heap: the last event sifts down from the root
        m = h_n[Q_SIZE] - 1
        h_n[Q_SIZE] = m
        _sift_down(h_t, h_c, m, h_t[m], h_c[m])
        return
    n = h_n[Q_MIN]
    b = HEADS + (h_c[3 * n + 2] & (h_n[Q_NB] - 1))
    p = h_n[b]
    if p == n:
        h_n[b] = h_c[3 * n + 1]
    else:
        while h_c[3 * p + 1] != n:
            p = h_c[3 * p + 1]
        h_c[3 * p + 1] = h_c[3 * n + 1]
    h_c[3 * n + 1] = h_n[Q_FREE]
    h_n[Q_FREE] = n
    h_n[Q_SIZE] -= 1
    h_n[Q_MIN] = 0
    d = h_n[Q_DEQ] + 1
    h_n[Q_DEQ] = d
    if d >= CHECK_TAKES:
        _resize(h_t, h_c, h_n, h_t[n])
