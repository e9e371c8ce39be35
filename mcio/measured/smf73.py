"""SMF record 73 (RMF channel path activity) -> the ``channel`` level.

Offsets are IBM's (z/OS MVS System Management Facilities, record type 73: "Header/Self-defining
Section", "Channel path control section", "Channel path data section"); the fields decoded and the
derived columns' formulas are listed in docs/measured_smf.md. RMF writes a path data section for
every one of the 256 possible CHPIDs; only those flagged as valid paths (SMF73FG3 bit 6) are rows.
"""
from __future__ import annotations

import numpy as np

from .smf_record import Header, Product, hfp32, sections, triplet, with_pending

# header extension: SMF73HIS/HIL/HIN (control) at 36, SMF73HPS/HPL/HPN (path data) at 44,
# SMF73HES/HEL/HEN (extended channel path data) at 52 (position from IBM SMF Explorer's order)
HIS_AT, HPS_AT, HES_AT = 36, 44, 52
#: triplets a record needs for its SMF73HES triplet to exist (product + the three above)
HES_TRIPLETS = 4

#: Channel path data section (one per CHPID), offsets 0..22
CHAN_DATA = np.dtype({
    "names": ["SMF73PID", "SMF73FG2", "SMF73FG3", "SMF73FG4", "SMF73BSY", "SMF73PBY", "SMF73PTI",
              "SMF73CPD", "SMF73ACR", "SMF73CMG"],
    "formats": ["u1", "u1", "u1", "u1", ">u4", ">u4", ">u4", "u1", "S5", "u1"],
    "offsets": [0, 1, 2, 3, 4, 8, 12, 16, 17, 22], "itemsize": 23})

#: CPMF measurement group 2 (FICON) words of the Channel Path Data Section (SMF73CCM; IBM short
#: floats per IBM SMF Explorer) whose offsets the sources at hand do not print: name -> None (not
#: decoded) or (offset, "hfp") once read in IBM's ERBSMF73 mapping. Formulas: docs/measured_smf.md.
CPMF2_PENDING: dict = {k: None for k in ("SMF73MBC", "SMF73MCU", "SMF73US", "SMF73TBC", "SMF73TUC",
                                         "SMF73PUC", "SMF73TWU", "SMF73PWU", "SMF73TRU", "SMF73PRU")}
#: Extended Channel Path Data Section (located by SMF73HES), group 2: name -> None or (offset,
#: format); SMF73ECP is its CHPID (the join key), the counts' format ("u4" or "hfp") is not at hand.
EXT_PENDING: dict = {k: None for k in ("SMF73ECP", "SMF73EOC", "SMF73EOD", "SMF73EOS", "SMF73ETC",
                                       "SMF73ETD", "SMF73ETS")}
_EMPTY = np.dtype({"names": [], "formats": [], "offsets": [], "itemsize": 0})
#: SMF73CMG value of FICON channels (CPMF measurement group 2)
CMG_FICON = 2

#: SMF73FG3 bit 6 (X'02'): valid path
FG3_VALID = 0x02
#: SMF73FG2 bit 6 (X'02'): data incorrect, the channel path was reconfigured during the interval
FG2_RECONFIGURED = 0x02

_HEX2 = np.array([f"{i:02X}" for i in range(256)], dtype=object)


def decode_73(rec: bytes, h: Header, p: Product):
    """Channel path activity -> ``channel`` rows, one per valid channel path."""
    triplet(rec, HIS_AT, "SMF73 channel path control")   # checked to lie inside the record
    hps = triplet(rec, HPS_AT, "SMF73 channel path data")
    cp = sections(rec, hps, with_pending(CHAN_DATA, CPMF2_PENDING, hps[1]), "SMF73 channel path data")
    cp = cp[(cp["SMF73FG3"] & FG3_VALID) != 0]
    n = len(cp)
    acr = np.array([bytes(a).decode("cp037").rstrip(" \x00") for a in cp["SMF73ACR"]], dtype=object)
    pby, pti = cp["SMF73PBY"].astype(np.float64), cp["SMF73PTI"].astype(np.float64)
    util = np.full(n, np.nan)
    np.divide(pby * 100.0, pti, out=util, where=pti != 0)
    util[(cp["SMF73FG2"] & FG2_RECONFIGURED) != 0] = np.nan
    cols = {"interval": np.datetime64(p.start, "ns"), "interval_s": p.interval_s, "system": h.system,
            "chpid": _HEX2[cp["SMF73PID"].astype(np.int64)], "chpid_type": acr, "util_part_pct": util}
    bad = (cp["SMF73FG2"] & FG2_RECONFIGURED) != 0
    secs = pti * 1024e-6
    cols.update(_cpmf_group2(cp, secs, bad, util))
    cols.update(_extended(rec, h, cp, secs, bad))
    return {"channel": (cols, n)}, {}


def _div(a, b, bad):
    out = np.full(len(a), np.nan)
    np.divide(a, b, out=out, where=(b != 0) & ~bad)
    return out


def _cpmf_group2(cp: np.ndarray, secs: np.ndarray, bad: np.ndarray, util_pby: np.ndarray) -> dict:
    """util_total_pct, bus_pct, read/write MB/s of FICON (CPMF group 2) paths from the SMF73CCM words,
    if their offsets are set (:data:`CPMF2_PENDING`), other paths NaN; util_part_pct of a FICON path
    from its work units (PUC), of the others as before (``util_pby``, SMF73PBY / SMF73PTI)."""
    if not all(k in cp.dtype.names for k in CPMF2_PENDING):
        return {}
    g = {k: hfp32(cp[k]) for k in CPMF2_PENDING}
    bad = bad | (cp["SMF73CMG"] != CMG_FICON)
    mb = lambda units: _div(units * g["SMF73US"], secs * 1e6, bad)  # noqa: E731
    return {"util_total_pct": _div(g["SMF73TUC"] * 100.0, g["SMF73MCU"] * secs, bad),
            "util_part_pct": np.where(cp["SMF73CMG"] == CMG_FICON,
                                      _div(g["SMF73PUC"] * 100.0, g["SMF73MCU"] * secs, bad), util_pby),
            "bus_pct": _div(g["SMF73TBC"] * 100.0, g["SMF73MBC"] * secs, bad),
            "read_mb_s_total": mb(g["SMF73TRU"]), "read_mb_s_part": mb(g["SMF73PRU"]),
            "write_mb_s_total": mb(g["SMF73TWU"]), "write_mb_s_part": mb(g["SMF73PWU"])}


def _extended(rec: bytes, h: Header, cp: np.ndarray, secs: np.ndarray, bad: np.ndarray) -> dict:
    """FICON and zHPF operation rates, mean open exchanges and deferrals from the Extended Channel
    Path Data Sections (joined on SMF73ECP = SMF73PID), if their layout is set (:data:`EXT_PENDING`)."""
    if any(v is None for v in EXT_PENDING.values()) or h.n_triplets < HES_TRIPLETS:
        return {}
    hes = triplet(rec, HES_AT, "SMF73 extended channel path data")
    ex = sections(rec, hes, with_pending(_EMPTY, EXT_PENDING), "SMF73 extended channel path data")
    val = {k: (hfp32(ex[k]) if EXT_PENDING[k][1] == "hfp" else ex[k].astype(np.float64))
           for k in EXT_PENDING if k != "SMF73ECP"}
    row = np.full(256, -1, dtype=np.int64)
    row[ex["SMF73ECP"].astype(np.int64)] = np.arange(len(ex))
    at = row[cp["SMF73PID"].astype(np.int64)]
    has = at >= 0
    get = {k: np.where(has, v[np.maximum(at, 0)] if len(v) else 0.0, np.nan) for k, v in val.items()}
    return {"ficon_ops_per_s": _div(get["SMF73EOC"], secs, bad), "ficon_active": _div(get["SMF73EOS"], get["SMF73EOC"], bad),
            "ficon_defer_per_s": _div(get["SMF73EOD"], secs, bad), "zhpf_ops_per_s": _div(get["SMF73ETC"], secs, bad),
            "zhpf_active": _div(get["SMF73ETS"], get["SMF73ETC"], bad), "zhpf_defer_per_s": _div(get["SMF73ETD"], secs, bad)}
