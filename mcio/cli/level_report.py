"""The per-level part of ``mcio run``'s report for a configuration ([topology]): one table per
level (workloads, control units, LCUs, the shared links: ISLs, control-unit ports and card data
limits, and the feature cards), in RMF's vocabulary, means over replications (95 % CI where the
Dataset holds one). A single-path model's Dataset has none of these variables: no lines."""
from __future__ import annotations

import numpy as np


def _mean(ds, name: str, dim: str, i: int, f=np.nanmean) -> float:
    if name not in ds:
        return float("nan")
    return float(f(ds[name].isel({dim: i}).values))


def _names(ds, dim: str) -> list[str]:
    return [str(v) for v in ds[dim].values]


def _limit(v: float) -> str:
    return "none" if not np.isfinite(v) else f"{v:.0f}"


def level_lines(ds) -> list[str]:
    """Report lines for every level the Dataset holds (none for a single-path model)."""
    lines: list[str] = []
    if "workload_ssch_iops" in ds:
        lines += ["", f"{'workload':<10}{'SSCH/s':>10}{'resp':>9}{'+/-95%':>8}{'IOSQ':>8}{'pend':>8}"
                      f"{'CMR':>8}{'disc':>8}{'conn':>8}{'p90':>8}",
                  f"{'':<10}{'':>10}{'ms':>9}{'ms':>8}{'ms':>8}{'ms':>8}{'ms':>8}{'ms':>8}{'ms':>8}{'ms':>8}"]
        q = ds.get("workload_response_quantile_ms")
        k90 = int(np.argmin(np.abs(q["quantile"].values - 0.9))) if q is not None else None
        for i, name in enumerate(_names(ds, "workload")):
            def m(v):
                return _mean(ds, v, "workload", i)
            ci = float(ds["workload_response_ci95_ms"].isel(workload=i)) if "workload_response_ci95_ms" in ds \
                else float("nan")
            p90 = float(q.isel(workload=i, quantile=k90)) if q is not None else float("nan")
            lines.append(f"{name[:10]:<10}{m('workload_ssch_iops'):>10.1f}{m('workload_response_ms'):>9.3f}"
                         f"{ci:>8.3f}{m('workload_iosq_ms'):>8.3f}{m('workload_pend_ms'):>8.3f}"
                         f"{m('workload_cmr_ms'):>8.3f}{m('workload_disconnect_ms'):>8.3f}"
                         f"{m('workload_connect_ms'):>8.3f}{p90:>8.3f}")
    if "control_unit_ssch_iops" in ds:
        lines += ["", f"{'control unit':<13}{'SSCH/s':>10}{'HA busy %':>11}{'BE busy %':>11}{'resp':>9}"
                      f"{'pend':>8}{'disc':>8}{'conn':>8}"]
        for i, name in enumerate(_names(ds, "control_unit")):
            def m(v):
                return _mean(ds, v, "control_unit", i)
            lines.append(f"{name[:13]:<13}{m('control_unit_ssch_iops'):>10.1f}{100 * m('control_unit_ha_busy'):>11.1f}"
                         f"{100 * m('control_unit_backend_busy'):>11.1f}{m('control_unit_response_ms'):>9.3f}"
                         f"{m('control_unit_pend_ms'):>8.3f}{m('control_unit_disconnect_ms'):>8.3f}"
                         f"{m('control_unit_connect_ms'):>8.3f}")
    if "lcu_ssch_iops" in ds:
        cu_of = ds["lcu_control_unit"].values if "lcu_control_unit" in ds.coords else None
        lines += ["", f"{'LCU':<10}{'CU':<8}{'SSCH/s':>10}{'resp':>9}{'pend':>8}{'disc':>8}{'conn':>8}"]
        for i, name in enumerate(_names(ds, "lcu")):
            def m(v):
                return _mean(ds, v, "lcu", i)
            cu = str(cu_of[i]) if cu_of is not None else ""
            lines.append(f"{name[:10]:<10}{cu[:8]:<8}{m('lcu_ssch_iops'):>10.1f}{m('lcu_response_ms'):>9.3f}"
                         f"{m('lcu_pend_ms'):>8.3f}{m('lcu_disconnect_ms'):>8.3f}{m('lcu_connect_ms'):>8.3f}")
    if "link_mb_s" in ds and "link_kind" in ds.coords:
        kinds = ds["link_kind"].values
        shared = [i for i, k in enumerate(kinds) if str(k) != "channel"]
        if shared:
            dirs = ds["link_direction"].values
            lines += ["", f"{'shared link':<22}{'kind':<9}{'dir':<6}{'busy %':>8}{'MB/s':>10}{'util %':>8}{'rate':>8}"]
            for i in shared:
                def m(v):
                    return _mean(ds, v, "link", i)
                lines.append(f"{str(ds['link'].values[i])[:21]:<22}{str(kinds[i]):<9}{str(dirs[i]):<6}"
                             f"{100 * m('link_busy_by_link'):>8.1f}{m('link_mb_s'):>10.1f}"
                             f"{100 * m('link_utilization'):>8.1f}{float(ds['link_rate_mb_s'].values[i]):>8.0f}")
    if "card_ssch_iops" in ds:
        lines += ["", f"{'card':<10}{'SSCH/s':>10}{'busy %':>8}{'max I/O/s':>11}"]
        for i, name in enumerate(_names(ds, "card")):
            lines.append(f"{name[:10]:<10}{_mean(ds, 'card_ssch_iops', 'card', i):>10.1f}"
                         f"{100 * _mean(ds, 'card_busy', 'card', i):>8.1f}"
                         f"{_limit(float(ds['card_max_iops'].values[i])):>11}")
    return lines
