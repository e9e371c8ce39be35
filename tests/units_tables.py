"""Test configurations (Tables) for several control units and workloads, built from a one-path
model's ``legacy_tables`` (tests/test_units_oracles.py)."""
from __future__ import annotations

import dataclasses

import numpy as np

from mcio.engine.tables import legacy_tables


def copies(model, n: int = 2, share_channels: bool = False, names=None):
    """``n`` copies of ``model``'s path as one configuration: copy h has its own control unit
    (the model's, named ``names[h]``), LCU, devices, workload (the model's rate or population,
    its classes) and, unless ``share_channels``, its own channels (then every copy uses the
    model's channels). Copy h's device i is h * D + i, its classes h * K .. h * K + K - 1."""
    t = legacy_tables(model)
    C, D, K = t.n_channels, len(t.dev_lcu), len(t.cls_name)
    G = len(t.groups)
    names = names or [f"cu{h}" for h in range(n)]
    Cn = C if share_channels else n * C
    ch_off = [0 if share_channels else h * C for h in range(n)]
    groups = [tuple(c + ch_off[h] for c in g) for h in range(n) for g in t.groups]
    if share_channels:
        groups = list(t.groups)
        dev_grp = np.tile(t.dev_grp, n)
    else:
        dev_grp = np.concatenate([t.dev_grp + h * G for h in range(n)])
    rt_ptr = np.arange(2 * Cn * n + 1, dtype=np.int64)
    rt_ln = np.repeat(np.arange(Cn, dtype=np.int64), 2 * n)      # (c, u, d) -> c's link
    return dataclasses.replace(
        t, legacy=False,
        ch_name=[f"{i}" for i in range(Cn)], ch_oe_cap=np.resize(t.ch_oe_cap, Cn),
        ch_card=np.full(Cn, -1, np.int64), ch_link=np.repeat(np.arange(Cn, dtype=np.int64)[:, None], 2, axis=1),
        mp_ms=np.concatenate([np.resize(t.mp_ms, (Cn, K, 2))] * n, axis=1),
        ln_name=[f"{i}" for i in range(Cn)], ln_kind=["channel"] * Cn, ln_dir=["both"] * Cn,
        ln_kb_per_ms=np.resize(t.ln_kb_per_ms, Cn), rt_ptr=rt_ptr, rt_ln=rt_ln,
        cu_name=list(names), cu_ha_servers=np.tile(t.cu_ha_servers, n),
        cu_ha_service_ms=t.cu_ha_service_ms * n, cu_be_servers=np.tile(t.cu_be_servers, n),
        cu_be_service_ms=t.cu_be_service_ms * n,
        lcu_name=[f"lcu{h}" for h in range(n)], lcu_cu=np.arange(n, dtype=np.int64),
        dev_lcu=np.repeat(np.arange(n, dtype=np.int64), D), dev_cu=np.repeat(np.arange(n, dtype=np.int64), D),
        groups=groups, dev_grp=dev_grp,
        wl_name=[f"wl{h}" for h in range(n)], wl_rate_iops=np.tile(t.wl_rate_iops, n),
        wl_population=np.tile(t.wl_population, n),
        wl_dev_ptr=np.arange(n + 1, dtype=np.int64) * D, wl_dev=np.arange(n * D, dtype=np.int64),
        wl_dev_weight=np.tile(t.wl_dev_weight, n),
        cls_name=[f"{c}.{h}" for h in range(n) for c in t.cls_name],
        cls_wl=np.repeat(np.arange(n, dtype=np.int64), K), cls_dir=np.tile(t.cls_dir, n),
        cls_share=np.tile(t.cls_share, n), cls_kb=np.tile(t.cls_kb, n),
        cls_records=np.tile(t.cls_records, n), cls_miss=np.tile(t.cls_miss, n))


def two_closed_workloads(ha_ms: float, be_ms: float):
    """``oracle_models.closed_network(8)``'s path twice, on one shared channel: workloads of 6 and
    10 I/Os, one per control unit; the first unit's host adapter and back end exponential with
    means ``ha_ms`` and ``be_ms``, the second's 0.12 and 0.15 ms; single servers. Returns
    (model, tables)."""
    from oracle_models import closed_network

    from mcio.model import Dist
    m = closed_network(8)
    T = copies(m, 2, share_channels=True)
    T.wl_population = np.array([6, 10], np.int64)
    T.cu_ha_service_ms = [Dist("exponential", ha_ms), Dist("exponential", 0.12)]
    T.cu_be_service_ms = [Dist("exponential", be_ms), Dist("exponential", 0.15)]
    T.cu_ha_servers = np.array([1, 1], np.int64)
    T.cu_be_servers = np.array([1, 1], np.int64)
    return m, T
