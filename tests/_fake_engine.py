"""A stand-in for ``mcio.engine.simulate`` with the engine's exact output layout, for fast tests of
the sweep, store, CLI and plot layers. Values follow a crude closed-network shape (M/M/1 at the
channel MP) plus noise seeded by (seed, point, replication), so they are reproducible and differ
between points."""
from __future__ import annotations

import numpy as np
import xarray as xr

QUANTILES = [0.5, 0.9, 0.95, 0.99]
CALLS: list[dict] = []


def simulate(model, ios=200_000, replications=4, seed=0, warmup=None, point=0, allow_unstable=False,
             per_device=False):
    CALLS.append({"point": point, "seed": seed, "ios": ios, "replications": replications})
    w, ch = model.workload, model.channels
    n_ch = ch["count"]
    dem = model.mean_demands_ms()
    s = max(dem["mp"], 1e-3)
    base = s + dem["link"] + dem["backend"] + dem["ha"]
    n = w["population"] if w["type"] == "closed" else max(1, int(w["rate_iops"] * base / 1000) + 1)
    rho = min(0.99, n * s / (n * s + base + 0.05))
    r = replications
    rng = np.random.default_rng([seed, point])
    noise = 1 + 0.01 * rng.standard_normal((r,))
    pend = s / (1 - rho) * noise
    cmr = 0.1 * np.ones(r)
    disc = dem["backend"] * np.ones(r) + 0.01
    conn = (dem["link"] + 0.02) * np.ones(r)
    iosq = 0.05 * rho * noise
    resp = iosq + pend + disc + conn
    x = n / resp.mean() * 1000.0 * noise
    units = {"ms": "ms"}
    rep = lambda a, ln, u="ms": (("replication",), a, {"units": u, "long_name": ln})
    per_ch = lambda a, ln, u="1": (("replication", "channel"), a, {"units": u, "long_name": ln})
    sc = lambda a, ln, u="ms": ((), float(a), {"units": u, "long_name": ln})
    ci = lambda a: 1.96 * a.std(ddof=1) / np.sqrt(len(a)) if len(a) > 1 else np.nan
    busy = np.clip(np.outer(x, np.ones(n_ch)) * s / 1000.0 / n_ch, 0, 1)
    ds = xr.Dataset(
        {
            "response_ms": rep(resp, "mean response time"),
            "iosq_ms": rep(iosq, "mean IOSQ time"),
            "pend_ms": rep(pend, "mean pend time"),
            "cmr_ms": rep(cmr, "mean command response delay"),
            "disconnect_ms": rep(disc, "mean disconnect time"),
            "connect_ms": rep(conn, "mean connect time"),
            "throughput_iops": rep(x, "I/O rate", "s-1"),
            "device_busy": rep(np.clip(x * base / 1e6, 0, 1), "mean device busy", "1"),
            "in_system_mean": rep(x * resp / 1000, "mean I/Os in system", "1"),
            "response_ci95_ms": sc(ci(resp), "95% CI half-width of mean response time"),
            "iosq_ci95_ms": sc(ci(iosq), "95% CI half-width of IOSQ"),
            "pend_ci95_ms": sc(ci(pend), "95% CI half-width of pend"),
            "cmr_ci95_ms": sc(0.0, "95% CI half-width of CMR"),
            "disconnect_ci95_ms": sc(0.0, "95% CI half-width of disconnect"),
            "connect_ci95_ms": sc(0.0, "95% CI half-width of connect"),
            "throughput_ci95_iops": sc(ci(x), "95% CI half-width of I/O rate", "s-1"),
            "response_quantile_ms": (("quantile",), resp.mean() * np.array([0.8, 1.6, 2.2, 3.5]),
                                     {"units": "ms", "long_name": "response time quantile"}),
            "channel_busy": per_ch(busy, "channel MP busy"),
            "link_busy": per_ch(busy / 10, "link busy"),
            "open_exchanges_mean": per_ch(busy * 5, "mean open exchanges"),
            "open_exchanges_max": per_ch(np.ceil(busy * 20), "peak open exchanges"),
            "deferred_iops": per_ch(busy * 0, "I/Os deferred for lack of an exchange", "s-1"),
            "channel_ssch_iops": per_ch(np.outer(x, np.ones(n_ch)) / n_ch, "channel I/O rate", "s-1"),
            "channel_mb_s": per_ch(np.outer(x, np.ones(n_ch)) / n_ch * 0.004, "channel data rate", "MB s-1"),
            "unstable": ((), np.int8(0), {"units": "1", "long_name": "open load over capacity flag"}),
        },
        coords={"quantile": ("quantile", QUANTILES, {"units": "1", "long_name": "response time quantile level"})},
        attrs={"mcio_version": "0.1.0", "numba_version": "0", "numpy_version": np.__version__, "seed": seed,
               "model_toml": model.to_toml(), "ios": ios, "warmup_ios": warmup if warmup is not None else ios // 10,
               "replications": replications},
    )
    return ds
