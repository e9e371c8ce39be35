"""A stream workload: one job that writes (or reads) ``records`` records in channel programs of at
most ``chain_records`` records each, ``outstanding`` programs in flight, CPU work between them.

This is how dumps, sequential copies and backups look to the I/O subsystem. The job issues

    ios = ceil(records / chain_records)

channel programs (SSCHs): ``ios - 1`` full chains and a last one of
``records - (ios - 1) * chain_records`` records. Each program's path (channel MP, CMR at the
host adapter, connect = per-command or per-I/O protocol + control-unit work + the transfer of its
records at link speed; a disconnect only for the share that misses) is simulated by
:func:`mcio.simulate` as a *closed* workload of ``outstanding`` I/Os whose think time is the CPU
time the job spends between two programs of one stream:

    cpu_ms per program = cpu_ms_per_program + cpu_us_per_record x records / ios / 1000.

The job's figures follow from the simulated cycle (Little's law on the closed loop: throughput
X = outstanding / (think + response)):

- ``elapsed_s = ios / X``: with one outstanding, ``ios x (cpu + response)`` = CPU + I/O wait,
  exactly in expectation;
- ``io_wait_s = ios x response / outstanding``: time a stream waits for its I/Os (with one
  outstanding, the job's I/O wait), so that ``elapsed = cpu_s / outstanding + io_wait_s``;
- ``ms_per_io`` = the mean response (IOSQ + pend + disconnect + connect) of one program;
- ``us_per_record = io_wait_s / records`` (the dump report's "time per record");
- ``cpu_s`` = the job's CPU time (an input: ios x the think mean).

Each figure is computed per replication, so its 95 % CI comes from the replications. The CPU work
of different streams overlaps in the model (a delay, not a queue: one processor per stream); a
job with one processor and many programs in flight cannot finish in less than ``cpu_s``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import xarray as xr

from .errors import McioError
from .model import Dist, Model

#: 1 KB in the model is 1000 bytes; a "4 KB" record (4,096 bytes) is 4.096 model KB
KB_4K = 4.096


def _int(name, v, lo):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
        raise McioError(name, v, f"must be an integer >= {lo}")
    return int(v)


def _num(name, v, lo=0.0):
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not math.isfinite(v) or v < lo:
        raise McioError(name, v, f"must be a finite number >= {lo}")
    return float(v)


@dataclass(frozen=True)
class Stream:
    """The job. ``records``: records moved; ``record_kb``: size of one (model KB, 1 KB = 1000 B);
    ``chain_records``: records per channel program at most; ``outstanding``: programs in flight;
    ``cpu_us_per_record`` and ``cpu_ms_per_program``: the job's CPU time between programs;
    ``cpu_scv``: its squared coefficient of variation (0: deterministic, else gamma);
    ``miss_ratio``: share of programs that disconnect (write misses, read misses);
    ``binding``: "device" pins stream i to device i mod devices (sequential streams each on their
    own volume; with fewer streams than devices the first ``outstanding`` are used), "random" lets
    every program pick a device."""

    records: int
    chain_records: int
    record_kb: float = KB_4K
    outstanding: int = 1
    cpu_us_per_record: float = 0.0
    cpu_ms_per_program: float = 0.0
    cpu_scv: float = 0.0
    miss_ratio: float = 0.0
    binding: str = "device"
    name: str = field(default="stream")

    def __post_init__(self):
        _int("stream.records", self.records, 1)
        _int("stream.chain_records", self.chain_records, 1)
        _int("stream.outstanding", self.outstanding, 1)
        _num("stream.record_kb", self.record_kb)
        _num("stream.cpu_us_per_record", self.cpu_us_per_record)
        _num("stream.cpu_ms_per_program", self.cpu_ms_per_program)
        _num("stream.cpu_scv", self.cpu_scv)
        if _num("stream.miss_ratio", self.miss_ratio) > 1.0:
            raise McioError("stream.miss_ratio", self.miss_ratio, "must be in [0, 1]")
        if self.binding not in ("device", "random"):
            raise McioError("stream.binding", self.binding, "must be 'device' or 'random'")

    # ---- the job's arithmetic (no simulation) ----
    @property
    def ios(self) -> int:
        """Channel programs the job issues: ceil(records / chain_records)."""
        return -(-self.records // self.chain_records)

    @property
    def last_chain_records(self) -> int:
        """Records in the last (possibly partial) program."""
        return self.records - (self.ios - 1) * self.chain_records

    @property
    def records_per_io(self) -> float:
        return self.records / self.ios

    @property
    def cpu_ms_per_io(self) -> float:
        """Mean CPU time before one program (the closed workload's think mean), ms."""
        return self.cpu_ms_per_program + self.cpu_us_per_record * self.records_per_io / 1000.0

    @property
    def cpu_s(self) -> float:
        """The job's CPU time between programs, s."""
        return self.ios * self.cpu_ms_per_io / 1000.0

    def chains(self) -> list[tuple[int, int]]:
        """[(records in the program, how many such programs)]: full chains, then the last."""
        n, last = self.ios, self.last_chain_records
        if last == self.chain_records:
            return [(self.chain_records, n)]
        return ([(self.chain_records, n - 1)] if n > 1 else []) + [(last, 1)]


def stream_model(base: Model, stream: Stream) -> Model:
    """``base`` (channels, devices, control unit, ``zhpf_share``) with the stream's workload and
    I/O classes: a closed workload of ``stream.outstanding`` programs, think = the CPU time per
    program, one class per chain length, shared as the job issues them."""
    if not isinstance(base, Model):
        raise McioError("model", type(base).__name__, "must be an mcio.Model")
    if not isinstance(stream, Stream):
        raise McioError("stream", type(stream).__name__, "must be an mcio.stream.Stream")
    d = base.to_dict()
    z = stream.cpu_ms_per_io
    think = Dist.from_mean_scv(z, stream.cpu_scv if z else 0.0, exponential=False).to_toml()
    binding = stream.binding
    n_dev = base.devices["count"]
    if binding == "device" and stream.outstanding < n_dev:
        # stream i writes volume i: the job uses only the first ``outstanding`` volumes
        if base.devices["skew"] != "uniform":
            raise McioError("stream.binding", binding, "with fewer streams than devices needs devices.skew = "
                            "'uniform' (the streams take the first devices), or binding = 'random'")
        d["devices"]["skew"] = "weights"
        d["devices"]["weights"] = [1.0] * stream.outstanding + [0.0] * (n_dev - stream.outstanding)
    elif binding == "device" and stream.outstanding % n_dev:
        raise McioError("stream.outstanding", stream.outstanding,
                        f"binding = 'device' needs at most, or a multiple of, the {n_dev} devices "
                        "(or binding = 'random')")
    d["workload"] = {"type": "closed", "population": stream.outstanding, "think_ms": think, "binding": binding}
    d["io"] = [{"name": f"{stream.name}_{r}", "share": float(count), "kb": r * stream.record_kb, "records": r,
                "miss_ratio": stream.miss_ratio} for r, count in stream.chains()]
    return Model.from_dict(d, where="stream model")


def job_figures(stream: Stream, ds: xr.Dataset) -> xr.Dataset:
    """The job's figures per replication from a :func:`mcio.simulate` Dataset of
    :func:`stream_model`, with 95 % CI half-widths over replications (``*_ci95``)."""
    from .engine import ci95_halfwidth
    import xarray as xr
    resp = ds.response_ms.values
    thr = ds.throughput_iops.values
    n = stream.ios
    per_rep = {
        "elapsed_s": (n / thr, "s", "job elapsed time: I/Os / simulated I/O rate"),
        "io_wait_s": (n * resp / stream.outstanding / 1000.0, "s",
                      "I/O wait per stream: I/Os x mean response / outstanding"),
        "ms_per_io": (resp, "ms", "mean time per channel program (response)"),
        "us_per_record": (n * resp / stream.outstanding / stream.records * 1000.0, "us",
                          "I/O wait per record moved"),
        "mb_s": (thr * stream.records_per_io * stream.record_kb / 1000.0, "Mbyte s-1",
                 "job data rate (1 MB = 1000 KB)"),
    }
    out = xr.Dataset()
    for k, (x, unit, long) in per_rep.items():
        out[k] = xr.Variable(("replication",), np.asarray(x, float), {"units": unit, "long_name": long})
        out[f"{k}_ci95"] = xr.Variable((), float(ci95_halfwidth(np.asarray(x, float))) if x.size > 1 else 0.0,
                                       {"units": unit, "long_name": f"95% CI half-width of {k}"})
    scal = {"ios": (n, "1", "channel programs (SSCHs) the job issues: ceil(records / chain)"),
            "records": (stream.records, "1", "records the job moves"),
            "records_per_io": (stream.records_per_io, "1", "mean records per channel program"),
            "cpu_s": (stream.cpu_s, "s", "job CPU time between programs (input)"),
            "outstanding": (stream.outstanding, "1", "channel programs in flight")}
    for k, (x, unit, long) in scal.items():
        out[k] = xr.Variable((), x, {"units": unit, "long_name": long})
    return out.assign_coords(replication=ds.replication)


def simulate_stream(base: Model, stream: Stream, ios: int = 20_000, replications: int = 4, seed: int = 0,
                    warmup: int | None = None, point: int = 0) -> xr.Dataset:
    """Simulate ``stream`` on ``base``: the :func:`mcio.simulate` Dataset (RMF components, busy,
    open exchanges) merged with :func:`job_figures`. ``ios`` is the number of programs simulated
    per replication (the steady-state cycle), not the job's count (``stream.ios``)."""
    import xarray as xr
    from .engine import simulate
    ds = simulate(stream_model(base, stream), ios=ios, replications=replications, seed=seed,
                  warmup=warmup, point=point)
    out = xr.merge([ds, job_figures(stream, ds)], combine_attrs="override")
    out.attrs["stream"] = repr(stream)
    return out


def stream_quantities(ds: xr.Dataset) -> dict[str, tuple[float, float]]:
    """{figure: (mean over replications, 95 % CI half-width)} of a :func:`simulate_stream` Dataset
    (exact counts with CI 0)."""
    out = {}
    for k in ("elapsed_s", "io_wait_s", "ms_per_io", "us_per_record", "mb_s"):
        out[k] = (float(ds[k].mean()), float(ds[f"{k}_ci95"]))
    for k in ("ios", "records_per_io", "cpu_s"):
        out[k] = (float(ds[k]), 0.0)
    return out


__all__ = ["Stream", "stream_model", "simulate_stream", "job_figures", "stream_quantities", "KB_4K"]
