"""Prototype (outside the package, pure Python) of two channel-MP mechanisms the engine lacks,
for seed 001 (one FICON channel saturating): measured here so the kernel can take them later.
Mechanisms 2 and 3 below are now in the engine (channels.mp_wake_us, channels.mp_order) and the
scenario ficon-channel is calibrated with both; re-drive (1) is still only here.

1. Re-drive of a start that finds no free open exchange (``redrive_ms``, ``mp_us_per_redrive``).
   Today's engine queues such an I/O at the channel and hands it the next exchange that closes
   (``redrive_ms = 0`` here). With re-drive, the channel rejects the start (costing its MP
   ``mp_us_per_redrive`` of work: receiving the start, answering "busy") and the SAP re-drives
   the I/O after an exponential delay of mean ``redrive_ms``. A closed exchange then stays free
   until the next re-drive arrives, so the mean open exchanges sit below the cap while I/Os wait
   (the seed's 40-45 at 91 %), and MP busy grows with the number of waiting I/Os while the I/O
   rate stays flat (the seed's 91 % -> 96 % from row 5 to row 6 at +0.5 % IOPS).
2. Wake-up work of an idle MP (``mp_wake_us``): a piece of work (start or end) that finds the MP
   idle costs that much more. Per I/O the MP then works ``w + 2 (1 - U) mp_wake_us`` on average
   (PASTA), which falls with load: the seed's busy / IOPS is 90 us at 1,000 and 3,000 IOPS, 85 at
   6,000, 80 at 9,000, 75.6 at 12,042.

The rest is the engine's model of the scenario ficon-channel (one MP, FIFO start work, end work
served first, one gamma draw per I/O split start/end, the exchange cap, the host adapter's
M/M/c CMR, the back end as a pure delay, 4 KB at 400 MB/s; IOSQ left out: 1024 volumes with 3
aliases each hold it under 0.4 ms even at N = 578). With the three new parameters at 0 it is the
engine's model, and ``--check`` compares it with mcio.simulate.

    python scripts/ficon_redrive_prototype.py --check          # against the engine (N = 80)
    python scripts/ficon_redrive_prototype.py                  # the six seed rows, mechanisms on

Measured (--ios 30000 --seeds 2, MECHANISM): busy 9.2 / 26.6 / 51.3 / 72.5 / 94.2 / 96.2 % (seed 9,
27, 51, 72, 91, 96), response -8.8 / +3.5 / +5.4 / -5.0 / -4.5 / -1.2 %, flat-out IOPS +3.4 / +1.6 %,
mean open exchanges 47.4 at row 5 (seed 40-45) and 47.7 at row 6 (45-50); redrives per I/O 0.13
and 2.15. The wake-up work puts rows 1-4 within 0.5 points (today -0.9 .. -3.0); re-drive work
lifts row 6 over row 5 (+2.0 points at -1.3 % IOPS; the seed +5 at +0.5 %); row 5 stays ~94 %:
the MP there is still the binding limit, where the seed's 91 % and 40-45 open exchanges say that
neither MP nor exchanges bind at row 5. Wake-up alone (re-drive off): 9.1 / 26.6 / 50.7 / 70.4 /
94.0 / 94.0 %. Re-drive without overtaking (14.5 ms): throughput collapses at rows 3-5.

3. Order of the MP's work (``end_first``): the engine serves end work before waiting starts. With
   one FIFO for both instead (everything else the engine's calibrated model, no new mechanism):
   flat-out IOPS 11,992 at rows 5 and 6 (-0.4 / -0.9 %; the engine -2.9 / -2.3 %), response
   -0.2 / +1.0 %, pend at row 5 4.83 ms (the seed's 3-5; the engine 5.7), busy 96.7 % at both
   (row 6 +0.7 points, row 5 +5.7); rows 1-4 as today (busy -0.6 / -3.0 / -1.5 / -0.2 points,
   response -9.3 / +3.5 / +7.9 / -4.0 %). The end work waiting behind starts moves time from pend
   into connect ("connect time and/or pend time increase depending on how ... the vendor responds
   to channel commands"). FIFO + wake-up unfitted (mp_us 74): IOPS +7.7 %, so it needs a refit.
"""
from __future__ import annotations

import argparse
import heapq
import math
import random
from collections import deque

SEED_ROWS = [  # (label, load, IOPS or population, measured busy, response ms)
    ("row1", "open", 1000.0, 0.09, 1.796), ("row2", "open", 3000.0, 0.27, 1.671),
    ("row3", "open", 6000.0, 0.51, 1.853), ("row4", "open", 9000.0, 0.72, 2.880),
    ("row5", "closed", 80, 0.91, 6.686), ("row6", "closed", 578, 0.96, 47.77)]
SEED_X = {"row5": 12042.0, "row6": 12100.0}


def simulate(load, level, *, mp_us=80.80, mp_scv=8.932, start_frac=0.5, oe_cap=48, ha_servers=12,
             ha_us=752.5, be_ms=1.376, p_miss=0.75 * 0.74, xfer_ms=4.0 / 400.0, redrive_ms=0.0,
             mp_us_per_redrive=0.0, mp_wake_us=0.0, overtake=False, think_ms=0.0, end_first=True,
             ios=60_000, warm=6_000, seed=1) -> dict:
    """One run; times in ms. ``load``: 'open' (``level`` = IOPS) or 'closed' (population, each
    finished I/O reissued after an exponential ``think_ms``). ``overtake``: a new start may take a
    free exchange while re-driven I/Os wait (else it joins them)."""
    rng = random.Random(seed)
    k = 1.0 / mp_scv
    theta = mp_us / 1000.0 * mp_scv
    ev = []                               # (time, seq, kind, io)
    seq = 0

    def push(t, kind, io):
        nonlocal seq
        seq += 1
        heapq.heappush(ev, (t, seq, kind, io))

    mp_busy = False
    mq_end, mq_start = deque(), deque()   # end work first, then starts (and rejections) FIFO
    oe = 0
    deferred = deque()                    # redrive_ms == 0: the engine's queue for an exchange
    ha_busy, ha_q = 0, deque()
    t_last = 0.0
    busy_t = oe_t = 0.0
    done = 0
    t0 = 0.0
    sums = {"resp": 0.0, "pend": 0.0, "cmr": 0.0, "disc": 0.0, "conn": 0.0}
    n = 0
    rejects = 0
    oe_max = 0

    def advance(t):
        nonlocal t_last, busy_t, oe_t
        dt = t - t_last
        if mp_busy:
            busy_t += dt
        oe_t += oe * dt
        t_last = t

    end_work_first = end_first

    def mp_offer(t, job, end_first):
        nonlocal mp_busy
        if not mp_busy:
            mp_busy = True
            w = job[1] + (mp_wake_us / 1000.0)
            push(t + w, "mp", job)
        else:
            (mq_end if (end_first and end_work_first) else mq_start).append(job)

    def mp_next(t):
        nonlocal mp_busy
        if mq_end:
            job = mq_end.popleft()
        elif mq_start:
            job = mq_start.popleft()
        else:
            mp_busy = False
            return
        push(t + job[1], "mp", job)

    waiting = 0                           # I/Os rejected and not yet re-driven successfully

    def new_io(t):
        io = {"arr": t, "waiting": False}
        attempt(t, io)

    def attempt(t, io):
        nonlocal oe, rejects, oe_max, waiting
        # a new start does not overtake I/Os waiting for their re-drive: the exchange a closing
        # I/O frees stays free until the next re-drive arrives
        if oe < oe_cap and (io["waiting"] or waiting == 0 or redrive_ms == 0 or overtake):
            if io["waiting"]:
                io["waiting"] = False
                waiting -= 1
            oe += 1
            oe_max = max(oe_max, oe)
            w = rng.gammavariate(k, theta) if mp_scv > 0 else mp_us / 1000.0
            io["w_end"] = w * (1.0 - start_frac)
            mp_offer(t, ("start", w * start_frac, io), False)
        elif redrive_ms > 0:
            rejects += 1
            if not io["waiting"]:
                io["waiting"] = True
                waiting += 1
            if mp_us_per_redrive > 0:
                mp_offer(t, ("reject", mp_us_per_redrive / 1000.0, None), False)
            push(t + rng.expovariate(1.0 / redrive_ms), "retry", io)
        else:
            deferred.append(io)

    if load == "open":
        push(rng.expovariate(level / 1000.0), "arrival", None)
    else:
        for _ in range(int(level)):
            new_io(0.0)
    stop = warm + ios
    while ev:
        t, _, kind, io = heapq.heappop(ev)
        advance(t)
        if kind == "arrival":
            new_io(t)
            push(t + rng.expovariate(level / 1000.0), "arrival", None)
        elif kind == "think":
            new_io(t)
        elif kind == "retry":
            attempt(t, io)
        elif kind == "mp":
            what, _, x = io
            mp_next(t)
            if what == "start":
                x["t_ha"] = t
                if ha_busy < ha_servers:
                    ha_busy += 1
                    push(t + rng.expovariate(1000.0 / ha_us), "ha", x)
                else:
                    ha_q.append(x)
            elif what == "end":
                done += 1
                if done > warm:
                    n += 1
                    resp = t - x["arr"]
                    sums["resp"] += resp
                    sums["pend"] += x["pend"]
                    sums["cmr"] += x["cmr"]
                    sums["disc"] += x["disc"]
                    sums["conn"] += t - x["t_conn"]
                if done == warm:
                    busy_t = oe_t = 0.0
                    rejects = 0
                    t0 = t
                    oe_max = oe
                oe -= 1
                if deferred:
                    attempt(t, deferred.popleft())
                if done >= stop:
                    break
                if load == "closed":
                    if think_ms > 0:
                        push(t + rng.expovariate(1.0 / think_ms), "think", None)
                    else:
                        new_io(t)
        elif kind == "ha":
            if ha_q:
                y = ha_q.popleft()
                push(t + rng.expovariate(1000.0 / ha_us), "ha", y)
            else:
                ha_busy -= 1
            io["cmr"] = t - io["t_ha"]
            io["pend"] = t - io["arr"]
            if rng.random() < p_miss:
                io["disc"] = rng.expovariate(1.0 / be_ms)
                push(t + io["disc"], "be", io)
            else:
                io["disc"] = 0.0
                io["t_conn"] = t
                push(t + xfer_ms, "xfer", io)
        elif kind == "be":
            io["t_conn"] = t
            push(t + xfer_ms, "xfer", io)
        elif kind == "xfer":
            mp_offer(t, ("end", io["w_end"], io), True)
    T = t - t0
    out = {k: v / n for k, v in sums.items()}
    out.update(iops=1000.0 * n / T, busy=busy_t / T, oe=oe_t / T, oe_max=oe_max,
               little_resp=(level / (n / T) - think_ms) if load == "closed" else float("nan"),
               redrives_per_io=rejects / n)
    return out


#: The values the report quotes, hand-set (not fitted): mp_us and mp_wake_us from the seed's busy /
#: IOPS at 1,000 and 12,042 IOPS (90 and 75.6 us: w + 2 (1 - U) wake = 90 at U = 0.09, 75.6 at
#: 0.91); redrive_ms and mp_us_per_redrive so that re-drive work proportional to the waiting I/Os
#: adds ~5 points at row 6 (~530 waiting) and ~0.3 at row 5 (~32); a new start may take a free
#: exchange while others wait, after a 0.05 ms think (zero think with overtaking starves the
#: re-driven I/Os; no overtaking collapses the throughput from 51 % busy on). mp_scv, the host
#: adapter and the back end are the engine scenario's (the previous calibration).
MECHANISM = {"mp_us": 74.0, "mp_wake_us": 8.8, "redrive_ms": 20.0, "mp_us_per_redrive": 1.9,
             "overtake": True, "think_ms": 0.05}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare the mechanisms-off prototype with mcio")
    ap.add_argument("--ios", type=int, default=60_000)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--set", action="append", default=[], help="name=value over MECHANISM")
    a = ap.parse_args()
    if a.check:
        import numpy as np
        from mcio.engine import simulate as mcio_simulate
        from mcio.scenarios.ficon_channel import SCENARIO
        for label, load, level, *_ in SEED_ROWS[3:]:
            # the engine at the prototype's defaults (the calibration it was written against,
            # wake-up work off, end work first), not the scenario's current calibration
            ds = mcio_simulate(SCENARIO.model(label, mp_us_per_io=80.80, mp_scv=8.932, ha_service_us=752.5,
                                              backend_service_ms=1.376, mp_wake_us=0.0, mp_order="end_first"),
                               ios=a.ios, replications=2, seed=1)
            p = [simulate(load, level, ios=a.ios, seed=s) for s in range(a.seeds)]
            f = lambda key: sum(x[key] for x in p) / len(p)
            print(f"{label}: engine X={float(ds.throughput_iops.mean()):.0f} busy={float(ds.channel_busy.mean()):.3f} "
                  f"R={float(ds.response_ms.mean()):.3f} pend={float(ds.pend_ms.mean()):.3f} "
                  f"OE={float(ds.open_exchanges_mean.mean()):.1f}  | prototype X={f('iops'):.0f} "
                  f"busy={f('busy'):.3f} R={f('resp'):.3f} pend={f('pend'):.3f} OE={f('oe'):.1f}", flush=True)
        return
    prm = dict(MECHANISM)
    for s in a.set:
        key, val = s.split("=")
        prm[key] = (val.lower() in ("1", "true")) if key in ("overtake", "end_first") else float(val)
    print("parameters:", prm)
    for label, load, level, busy, resp in SEED_ROWS:
        p = [simulate(load, level, ios=a.ios, seed=s, **prm) for s in range(a.seeds)]
        f = lambda key: sum(x[key] for x in p) / len(p)
        x_seed = SEED_X.get(label, level)
        print(f"{label}: X={f('iops'):7.0f} ({100 * (f('iops') / x_seed - 1):+.1f} %)  busy={f('busy'):.3f} "
              f"(seed {busy:.2f}, {100 * (f('busy') - busy):+.1f} pt)  R={f('resp'):6.3f} "
              f"({100 * (f('resp') / resp - 1):+.1f} %)  pend={f('pend'):6.3f} cmr={f('cmr'):.3f} "
              f"OE={f('oe'):5.1f} max={max(x['oe_max'] for x in p)} redrives/IO={f('redrives_per_io'):.2f} "
              f"R(Little)={f('little_resp'):.3f}",
              flush=True)


if __name__ == "__main__":
    main()
