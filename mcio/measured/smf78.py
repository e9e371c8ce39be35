"""SMF record 78 subtype 3 (RMF I/O queuing activity) -> the ``lcu`` and ``lcu_path`` levels.

Section layouts are IBM's (z/OS MVS System Management Facilities, record type 78: "I/O Queuing Data
Section", one per LCU; "I/O Queuing Configuration Data Section", one per channel path of an LCU,
located by triplet R783CPDS of the LCU's "I/O Queuing Configuration Control Section"; "HyperPAV Data
Section", one per LSS with HyperPAV devices). The header triplets (SMF78DCS, SMF78ASS, SMF78QDS,
SMF78HPS at 36, 44, 52, 60), the control section (R783CS) and SuperPAV's R783XHBC are IBM z/OS Data
Gatherer's OpenAPI mapping of SMF78HDR / R783CS / R783HPAV (docs/measured_smf.md).
"""
from __future__ import annotations

import numpy as np

from .smf_record import Header, Product, RecordError, hfp32, sections, triplet, with_optional
from .smf74 import T128_MS, hex4

#: header extension: configuration (control) sections, I/O queuing data sections, IOQ global
#: section (not decoded), HyperPAV/SuperPAV data sections
DCS_AT, ASS_AT, QDS_AT, HPS_AT = 36, 44, 52, 60
#: triplets a record needs for its HyperPAV triplet to exist (product + the four above)
HPS_TRIPLETS = 5

#: I/O Queuing Configuration Control Section (one per LCU)
CONFIG_CONTROL = np.dtype({
    "names": ["R783ID1", "R783NTR", "R783CPDS", "R783CPDL", "R783CPDN"],
    "formats": [">u2", ">u2", ">u4", ">u2", ">u2"], "offsets": [0, 2, 4, 8, 10], "itemsize": 12})

#: I/O Queuing Configuration Data Section (one per channel path of the LCU), offsets 0..47
CONFIG_DATA = np.dtype({
    "names": ["R783CPID", "R783CPST", "R783CUN", "R783CU1", "R783CU2", "R783CU3", "R783CU4",
              "R783CUB", "R783PT", "R783DPB", "R783CBT", "R783CMR", "R783SBS", "R783CPXF", "R783CPAT"],
    "formats": ["u1", "u1", ">u2", ">u2", ">u2", ">u2", ">u2", ">u4", ">u4", ">u4", ">u4", ">u4",
                ">u4", "u1", "u1"],
    "offsets": [0, 1, 2, 4, 6, 8, 10, 12, 16, 24, 28, 32, 36, 44, 45], "itemsize": 48})

#: I/O Queuing Data Section (one per LCU), offsets 0..59
QUEUE_DATA = np.dtype({
    "names": ["R783ID2", "R783DST", "R783QSM", "R783QCT", "R783DCTM", "R783DDTM", "R783CSST",
              "R783HCNT", "R783HIX"],
    "formats": [">u2", "u1", ">u4", ">u4", ">u4", ">u4", ">u4", ">u2", ">u2"],
    "offsets": [0, 2, 4, 8, 44, 48, 52, 56, 58], "itemsize": 60})

#: HyperPAV Data Section (one per LSS), offsets 0..27; R783HNAI and R783HTIO are HFP short floats
HYPERPAV_DATA = np.dtype({
    "names": ["R783HLCU", "R783HCU", "R783HNAI", "R783HTIO", "R783HAIU", "R783HCAD", "R783HIOQ"],
    "formats": [">u2", ">u2", ">u4", ">u4", ">u4", ">u4", ">u4"],
    "offsets": [0, 2, 8, 12, 16, 20, 24], "itemsize": 28})
#: SuperPAV field of the HyperPAV/SuperPAV data section (R783HPAV), read where the section holds it:
#: the high-water mark of aliases concurrently borrowed from peer LCUs
HYPERPAV_OPT: dict = {"R783XHBC": (60, "u4")}

CPST_INSTALLED = 0x80    # R783CPST bit 0
CPST_DATA_BAD = 0x04     # R783CPST bit 5: measured channel path data incorrect
DST_NO_HW = 0x80         # R783DST bit 0: no hardware measurements available
DST_HYPERPAV = 0x02      # R783DST bit 6: LCU has HyperPAV devices

#: formulas of lcu columns beyond the plain fields: name -> (dtype, unit, RMF heading, meaning, formula)
EXTRA_COLUMNS = {
    "css_dly_ms": ("float64", "ms", "AVG CSS DLY", "mean channel subsystem delay",
                   "R783CSST x 0.128 / sum of the LCU's R783PT"),
}

_HEX2 = np.array([f"{i:02X}" for i in range(256)], dtype=object)


def _paths(rec: bytes, ctl: np.ndarray, ctl_off: int, ctl_len: int):
    """(LCU id per path, path sections) of every configuration control section."""
    ids, parts = [], []
    for i, c in enumerate(ctl):
        base = ctl_off + i * ctl_len
        off, ln, n = base + int(c["R783CPDS"]), int(c["R783CPDL"]), int(c["R783CPDN"])
        if n and off + ln * n > len(rec):
            raise RecordError(f"the configuration data sections of LCU {int(c['R783ID1']):04X} "
                              f"(offset {off}, length {ln}, number {n}) inside the {len(rec)}-byte record",
                              (off, ln, n))
        cp = sections(rec, (off, ln, n), CONFIG_DATA, "SMF78.3 configuration data")
        parts.append(cp)
        ids.append(np.full(n, int(c["R783ID1"]), dtype=np.int64))
    if not parts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=CONFIG_DATA)
    return np.concatenate(ids), np.concatenate([np.asarray(x[list(CONFIG_DATA.names)]).astype(
        np.dtype([(k, CONFIG_DATA.fields[k][0]) for k in CONFIG_DATA.names])) for x in parts])


def decode_78_3(rec: bytes, h: Header, p: Product):
    """I/O queuing activity -> ``lcu`` rows (one per LCU) and ``lcu_path`` rows (one per installed
    channel path of an LCU)."""
    ct = triplet(rec, DCS_AT, "SMF78.3 configuration control")
    ctl = sections(rec, ct, CONFIG_CONTROL, "SMF78.3 configuration control")
    qd = sections(rec, triplet(rec, ASS_AT, "SMF78.3 I/O queuing data"), QUEUE_DATA, "SMF78.3 I/O queuing data")
    lcu_of_path, cp = _paths(rec, ctl, ct[0], ct[1])
    keep = (cp["R783CPST"] & CPST_INSTALLED) != 0
    lcu_of_path, cp = lcu_of_path[keep], cp[keep]
    t = p.interval_s
    no_hw = {int(q["R783ID2"]) for q in qd if q["R783DST"] & DST_NO_HW}
    f = lambda k: cp[k].astype(np.float64)  # noqa: E731
    pt, dpb, cub = f("R783PT"), f("R783DPB"), f("R783CUB")
    tries = pt + dpb + cub

    def div(a, b):
        out = np.full(len(a), np.nan)
        np.divide(a, b, out=out, where=b != 0)
        return out

    path_cols = {"taken_per_s": pt / t, "dp_busy_pct": div(dpb * 100.0, tries),
                 "cu_busy_pct": div(cub * 100.0, tries), "cub_dly_ms": div(f("R783CBT") * T128_MS, pt),
                 "cmr_ms": div(f("R783CMR") * T128_MS, pt)}
    bad = ((cp["R783CPST"] & CPST_DATA_BAD) != 0) | np.isin(lcu_of_path, list(no_hw))
    for k in path_cols:
        path_cols[k] = np.where(bad, np.nan, path_cols[k])
    keys = {"interval": np.datetime64(p.start, "ns"), "interval_s": t, "system": h.system}
    lcu_hex = hex4(lcu_of_path)
    paths = ({**keys, "lcu": lcu_hex, "chpid": _HEX2[cp["R783CPID"].astype(np.int64)], **path_cols}, len(cp))
    # LCU rows: the data sections, with the control units and the summed path-taken rate of their paths
    nq = len(qd)
    cu = np.empty(nq, dtype=object)
    ssch = np.full(nq, np.nan)
    pt_sum = np.full(nq, np.nan)
    for i, q in enumerate(qd):
        lcu = int(q["R783ID2"])
        mine = cp[lcu_of_path == lcu]
        units = set()
        for c in mine:
            units.update(int(c[k]) for k in ("R783CU1", "R783CU2", "R783CU3", "R783CU4")[:min(int(c["R783CUN"]), 4)])
        cu[i] = " ".join(f"{u:04X}" for u in sorted(units))
        if len(mine) and lcu not in no_hw and not (mine["R783CPST"] & CPST_DATA_BAD).any():
            pt_sum[i] = mine["R783PT"].astype(np.float64).sum()
            ssch[i] = pt_sum[i] / t
    qct, qsm = qd["R783QCT"].astype(np.float64), qd["R783QSM"].astype(np.float64)
    wait, amax = _hyperpav(rec, h, qd)
    lcus = ({**keys, "lcu": hex4(qd["R783ID2"]), "cu": cu, "ssch_per_s": ssch,
             "cont_per_s": qct / t, "delay_q_length": np.where(qct > 0, (qsm - qct) / np.where(qct > 0, qct, 1.0), np.nan),
             "hpav_wait": wait, "hpav_max": amax,
             "css_dly_ms": np.where(pt_sum > 0, qd["R783CSST"].astype(np.float64) * T128_MS
                                    / np.where(pt_sum > 0, pt_sum, 1.0), np.nan)}, nq)
    return {"lcu": lcus, "lcu_path": paths}, {}


def _hyperpav(rec: bytes, h: Header, qd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(HPAV WAIT, HPAV MAX) per I/O queuing data section: over the HyperPAV data sections whose
    R783HLCU is the LCU, sum(R783HNAI) / sum(R783HTIO) and max(R783HAIU + R783XHBC) (SuperPAV's
    borrowed aliases, where the section holds R783XHBC); NaN for an LCU without
    HyperPAV devices (R783DST bit 6 off) or without HyperPAV sections in this record."""
    nq = len(qd)
    wait, amax = np.full(nq, np.nan), np.full(nq, np.nan)
    if h.n_triplets < HPS_TRIPLETS:
        return wait, amax
    hps = triplet(rec, HPS_AT, "SMF78.3 HyperPAV data")
    hp = sections(rec, hps, with_optional(HYPERPAV_DATA, HYPERPAV_OPT, hps[1]), "SMF78.3 HyperPAV data")
    if not len(hp):
        return wait, amax
    nai, tio = hfp32(hp["R783HNAI"]), hfp32(hp["R783HTIO"])
    hl = hp["R783HLCU"].astype(np.int64)
    in_use = hp["R783HAIU"].astype(np.int64)
    if "R783XHBC" in hp.dtype.names:
        in_use = in_use + hp["R783XHBC"].astype(np.int64)
    for i, q in enumerate(qd):
        mine = hl == int(q["R783ID2"])
        if not (q["R783DST"] & DST_HYPERPAV) or not mine.any():
            continue
        total = tio[mine].sum()
        wait[i] = nai[mine].sum() / total if total > 0 else np.nan
        amax[i] = float(in_use[mine].max())
    return wait, amax
