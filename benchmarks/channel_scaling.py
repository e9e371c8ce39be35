"""Cost per I/O of the event engine as the configuration grows, at the same load per channel.

    python benchmarks/channel_scaling.py                      # the working tree
    python benchmarks/channel_scaling.py --against main       # main and the working tree, alternating
    python benchmarks/channel_scaling.py --ios 300000 --repeat 3

The model (``scaled_model(C)``): the calibrated ficon-channel scenario's channel, control unit and
I/O mix, made open (Poisson) at RATE_PER_CHANNEL I/Os per second per channel, on C channels with
DEVICES_PER_CHANNEL volumes each (uniform access). Each device's path group is the block of
GROUP channels its home channel sits in (min(GROUP, C) channels: a path group of 4, as an LCU's),
and the control unit grows with C (host-adapter and back-end servers x C), so every channel, path
group and server carries the same load at every C. One control unit that large keeps free-time
heaps of thousands of servers (log C work per visit), so the channel counts are also timed with
a control unit whose two stations never queue ("CU delay": servers = the open model's slots),
which leaves the engine's own per-event cost. The issue's target (issue 28): CPU time per I/O at
256 channels within 1.3x of 1 channel.

Also timed, in the same process: the FICON main job's model (the ficon-channel scenario, closed,
populations 5, 26, 80 and 578: ``examples/ficon_knee.toml``'s range) and the fast path (open
M/M/1 at rho 0.9, 10x the I/Os).

Each figure is CPU time (``time.process_time``) per I/O (warm-up, 10 %, included in the count),
one Numba thread, kernels compiled beforehand: for the channel counts, one call of the event
kernel (``iopath.run_one``) on the model packed beforehand; for the main job and the fast path,
one ``simulate`` call of two replications (packing and the Dataset included, as
``compare_refs.py`` measures them). The cases
alternate ``--repeat`` times and the least of each is kept (other work on a shared machine only
ever adds time). With ``--against REF``, REF is exported (``git archive``) and each round runs a
new process per tree, the two alternating; the table then shows both and new/old.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

CHANNELS = (1, 16, 64, 256)
RATE_PER_CHANNEL = 6000.0        # I/O per s per channel: ~50 % channel MP busy (seed 001's third row)
DEVICES_PER_CHANNEL = 64
GROUP = 4                        # channels per path group
POPULATIONS = (5, 26, 80, 578)
SEED = 2026


def scaled_model(n_ch: int, cu: str = "scaled", pkg: str = "mcio"):
    """The ficon-channel scenario on ``n_ch`` channels at RATE_PER_CHANNEL each (see the module
    docstring). ``cu``: "scaled", the control unit's servers x n_ch; "unbounded", as many servers
    as the open model has slots (pack.OPEN_SLOTS), so neither station ever queues (a delay: no
    free-time heap to keep, the same control-unit cost at every n_ch). ``pkg``: the package
    that builds it (ab_kernels.py's renamed copy of another tree)."""
    import importlib
    ficon_channel = importlib.import_module(pkg + ".scenarios.ficon_channel")
    d = ficon_channel.model().to_dict()
    g = min(GROUP, n_ch)
    n_dev = DEVICES_PER_CHANNEL * n_ch
    d["workload"].update(type="open", rate_iops=RATE_PER_CHANNEL * n_ch, arrival_scv=1.0)
    d["devices"].update(count=n_dev, skew="uniform",
                        paths=[list(range((i // DEVICES_PER_CHANNEL) // g * g,
                                          (i // DEVICES_PER_CHANNEL) // g * g + g)) for i in range(n_dev)])
    d["channels"]["count"] = n_ch
    if cu == "unbounded":
        slots = importlib.import_module(pkg + ".engine.pack").OPEN_SLOTS
        d["control_unit"].update(ha_servers=slots, backend_servers=slots)
    else:
        d["control_unit"]["ha_servers"] *= n_ch
        d["control_unit"]["backend_servers"] *= n_ch
    return importlib.import_module(pkg + ".model").Model.from_dict(d)


def _cases(ios: int):
    """(name, model factory, I/Os, fast_path) of every figure."""
    from benchmarks.models import ficon_model, mmc_model
    out = [(f"channels={c}", (lambda c=c: scaled_model(c)), ios, False) for c in CHANNELS]
    out += [(f"channels={c}, CU delay", (lambda c=c: scaled_model(c, "unbounded")), ios, False)
            for c in CHANNELS]
    out += [(f"main job N={n}", (lambda n=n: ficon_model(n)[0]), ios, False) for n in POPULATIONS]
    out.append(("fast path M/M/1", lambda: mmc_model(1), 10 * ios, True))
    return out


def _kernel_call(model, n: int):
    """A function running the event kernel once (one replication, n I/Os of which 10 % warm-up)
    on ``model`` packed beforehand: the kernel alone, without packing or building a Dataset (a
    large configuration's packing is Python work that would hide the kernel's)."""
    import numpy as np
    from mcio.engine.pack import pack, stream_states
    from mcio.kernels import layout as L
    from mcio.kernels import stats as S
    from mcio.kernels.blockrng import LANES, make_streams
    from mcio.kernels.histogram import HIST_BUCKETS
    from mcio.kernels.iopath import run_one
    from mcio.warmup import MSER_BATCHES
    warm = n // 10
    pk = pack(model, n - warm, warm)
    C, D = model.channels["count"], model.devices["count"]

    def call():
        st = stream_states(SEED, 0, 1)[0].copy()
        lanes = np.empty((L.N_ROWS, 4, LANES), np.uint64)
        scal = np.empty((L.N_ROWS, 4), np.uint64)
        make_streams(st, pk.row_keys, lanes, scal)
        out = (np.zeros(S.N_ACC), np.zeros((C, S.N_CH)), np.zeros((D, S.N_DEV)),
               np.zeros(HIST_BUCKETS, np.int64), np.zeros(MSER_BATCHES))
        args = (pk.fp, pk.ip, pk.dp, pk.ev, pk.ec, pk.cls_cum, pk.cls_kb, pk.cls_miss, pk.cls_mp,
                pk.cls_proto, pk.al_prob, pk.al_idx, pk.dev_grp, pk.bound_dev, pk.grp_ptr, pk.grp_ch,
                pk.chg_ptr, pk.chg, pk.trace)
        lk = getattr(pk, "lk", None)      # issue 28: the links' and units' tables in, their figures out
        un = getattr(pk, "un", None)
        if lk and un is not None:
            lo = (np.zeros((0, 2)), np.zeros((0, 2)))    # as run_kernels for a single-path model
            run_one(*args, lk, un, st, lanes, scal, *out[:3], *lo, *pk.unit_outputs(), *out[3:],
                    np.zeros(1, np.int64), np.zeros(1, np.int64))
        elif lk:
            lo = (np.zeros((0, 2)), np.zeros((0, 2)))
            run_one(*args, lk, st, lanes, scal, *out[:3], *lo, *out[3:], np.zeros(1, np.int64),
                    np.zeros(1, np.int64))
        elif un is not None:
            run_one(*args, un, st, lanes, scal, *out[:3], *pk.unit_outputs(), *out[3:],
                    np.zeros(1, np.int64), np.zeros(1, np.int64))
        else:
            run_one(*args, st, lanes, scal, *out, np.zeros(1, np.int64), np.zeros(1, np.int64))
        return out
    return call


def _simulate_call(model, n: int, fast_path: bool):
    """A function running ``simulate`` once: two replications of n / 2 I/Os (10 % warm-up)."""
    from mcio.engine import simulate
    warm = n // 20
    return lambda: simulate(model, ios=n // 2 - warm, replications=2, warmup=warm, seed=SEED,
                            fast_path=fast_path)


def measure(ios: int, repeat: int) -> dict:
    """{case: least CPU ns per I/O over ``repeat`` alternating rounds} in this process."""
    import numba
    numba.set_num_threads(1)
    calls = []
    for name, make, n, fp in _cases(ios):
        model = make()
        call = _kernel_call(model, n) if name.startswith("channels=") else _simulate_call(model, n, fp)
        calls.append((name, call, n))
        call()                           # compile (or load) first
    best = {name: float("inf") for name, *_ in calls}
    for _ in range(repeat):
        for name, call, n in calls:
            c0 = time.process_time()
            call()
            best[name] = min(best[name], (time.process_time() - c0) / n * 1e9)
    return best


_CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import mcio
assert mcio.__file__.startswith(sys.argv[1]), mcio.__file__
sys.path.insert(0, sys.argv[4])
from channel_scaling import measure
print(json.dumps(measure(int(sys.argv[2]), int(sys.argv[3]))))
"""


def _table(cols: dict[str, dict]) -> None:
    names = list(next(iter(cols.values())))
    refs = list(cols)
    head = f"{'case (CPU ns per I/O)':24s}" + "".join(f"{r:>12s} {'x 1 ch':>7s}" for r in refs)
    if len(refs) == 2:
        head += f" {'new/old':>8s}"
    print(head)
    for name in names:
        line = f"{name:24s}"
        for r in refs:
            v = cols[r][name]
            base = "channels=1" + name[name.index(","):] if "," in name else "channels=1"
            ratio = f"{v / cols[r][base]:7.2f}" if name.startswith("channels=") else " " * 7
            line += (f"{v:12.0f}" if v >= 100 else f"{v:12.1f}") + f" {ratio}"
        if len(refs) == 2:
            line += f" {cols[refs[1]][name] / cols[refs[0]][name]:8.3f}"
        print(line)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ios", type=int, default=300_000, help="I/Os per event-path run (fast path: 10x)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--against", default=None, help="a git ref to compare the working tree with")
    a = ap.parse_args(argv)
    load0 = os.getloadavg()[0]
    if a.against is None:
        sys.path.insert(0, ROOT)
        cols = {"tree": measure(a.ios, a.repeat)}
    else:
        sys.path.insert(0, HERE)
        from compare_refs import exported, run_child
        import types
        ns = types.SimpleNamespace(old=a.against, new=".")
        with exported(ns, prefix="mcio-scaling-") as (trees, _):
            cols = {a.against: {}, ".": {}}
            for i in range(a.repeat):
                order = list(trees.items()) if i % 2 == 0 else list(reversed(trees.items()))
                for ref, tree in order:
                    got = run_child(tree, _CHILD, str(a.ios), "1", HERE,
                                    env={"NUMBA_NUM_THREADS": "1", "PYTHONPATH": tree})
                    for k, v in got.items():
                        cols[ref][k] = min(cols[ref].get(k, float("inf")), v)
    print(f"CPU ns per I/O, least of {a.repeat}, 1 thread; {a.ios:,} I/Os per event-path run; "
          f"load average {load0:.2f} -> {os.getloadavg()[0]:.2f}")
    _table(cols)
    return 0


if __name__ == "__main__":
    sys.exit(main())
