"""SMF record 73 (RMF channel path activity) -> the ``channel`` level.

Offsets are IBM's (z/OS MVS System Management Facilities, record type 73: "Header/Self-defining
Section", "Channel path control section", "Channel path data section"; beyond byte 23 of the path
section and for the extended channel path data section, IBM z/OS Data Gatherer's OpenAPI mapping of
SMF73CHA, SMF73CM1 / SMF73CM2 and SMF73ECD / SMF73EM2); the fields decoded and the derived columns'
formulas are listed in docs/measured_smf.md. RMF writes a path data section for every one of the
256 possible CHPIDs; only those flagged as valid paths (SMF73FG3 bit 6) are rows.
"""
from __future__ import annotations

import numpy as np

from .smf_record import Header, Product, hfp32, sections, triplet, with_optional

# header extension: SMF73HIS/HIL/HIN (control) at 36, SMF73HPS/HPL/HPN (path data) at 44,
# SMF73HES/HEL/HEN (extended channel path data) at 52
HIS_AT, HPS_AT, HES_AT = 36, 44, 52
#: triplets a record needs for its SMF73HES triplet to exist (product + the three above)
HES_TRIPLETS = 4

#: Channel path data section (one per CHPID), offsets 0..22
CHAN_DATA = np.dtype({
    "names": ["SMF73PID", "SMF73FG2", "SMF73FG3", "SMF73FG4", "SMF73BSY", "SMF73PBY", "SMF73PTI",
              "SMF73CPD", "SMF73ACR", "SMF73CMG"],
    "formats": ["u1", "u1", "u1", "u1", ">u4", ">u4", ">u4", "u1", "S5", "u1"],
    "offsets": [0, 1, 2, 3, 4, 8, 12, 16, 17, 22], "itemsize": 23})

#: CPMF channel measurement data SMF73CCM (bytes 24-71 of the path section, IBM short floats), by
#: measurement group SMF73CMG: group 1 (SMF73CM1) total and partition busy in 128 us units; group 2
#: (SMF73CM2, FICON) the five characteristics words then the counts
CCM_AT = 24
CPMF_G1 = ("SMF73TUT", "SMF73PUT")
CPMF_G2 = ("SMF73MBC", "SMF73MCU", "SMF73MWU", "SMF73MRU", "SMF73US", "SMF73TBC", "SMF73TUC", "SMF73PUC",
           "SMF73TWU", "SMF73PWU", "SMF73TRU", "SMF73PRU")
#: Channel path data section fields beyond byte 23: name -> (offset, format), read where the
#: record's section is long enough. The two groups' words overlap (one union, SMF73CCM).
CHAN_OPT: dict = {"SMF73FG5": (23, "u1"),
                  **{k: (CCM_AT + 4 * i, "hfp") for i, k in enumerate(CPMF_G1)},
                  **{k: (CCM_AT + 4 * i, "hfp") for i, k in enumerate(CPMF_G2)},
                  "SMF73GEN": (73, "u1"), "SMF73SPD": (76, "u2"), "SMF73MSC": (78, "u1")}
#: Extended Channel Path Data Section (SMF73ECD, located by SMF73HES): the CHPID, then group 2's
#: extension SMF73EM2 from byte 4 (binary counts; the summations are doublewords)
EXT_DATA = np.dtype({
    "names": ["SMF73ECP", "SMF73EOC", "SMF73EOD", "SMF73EOS", "SMF73ETC", "SMF73ETD", "SMF73ETS"],
    "formats": ["u1", ">u4", ">u4", ">u8", ">u4", ">u4", ">u8"],
    "offsets": [0, 4, 8, 12, 20, 24, 28], "itemsize": 36})
#: SMF73CMG values: CPMF measurement group 1 (busy times), 2 (FICON)
CMG_BUSY, CMG_FICON = 1, 2

#: SMF73FG3 bit 6 (X'02'): valid path
FG3_VALID = 0x02
#: SMF73FG2 bit 6 (X'02'): data incorrect, the channel path was reconfigured during the interval
FG2_RECONFIGURED = 0x02
#: SMF73FG4 bit 0 (X'80'): CPMB entry not valid (no CPMF data); bit 6 (X'02'): extended channel
#: path measurements supported (an extended section exists for the path)
FG4_CPMB_INVALID, FG4_EXTENDED = 0x80, 0x02
#: SMF73FG5 bits 0-4: CPMF characteristics words 1-5 (MBC, MCU, MWU, MRU, US) valid
FG5_WORD = {"SMF73MBC": 0x80, "SMF73MCU": 0x40, "SMF73MWU": 0x20, "SMF73MRU": 0x10, "SMF73US": 0x08}

_HEX2 = np.array([f"{i:02X}" for i in range(256)], dtype=object)


def decode_73(rec: bytes, h: Header, p: Product):
    """Channel path activity -> ``channel`` rows, one per valid channel path."""
    triplet(rec, HIS_AT, "SMF73 channel path control")   # checked to lie inside the record
    hps = triplet(rec, HPS_AT, "SMF73 channel path data")
    cp = sections(rec, hps, with_optional(CHAN_DATA, CHAN_OPT, hps[1]), "SMF73 channel path data")
    cp = cp[(cp["SMF73FG3"] & FG3_VALID) != 0]
    n = len(cp)
    acr = np.array([bytes(a).decode("cp037").rstrip(" \x00") for a in cp["SMF73ACR"]], dtype=object)
    pby, pti = cp["SMF73PBY"].astype(np.float64), cp["SMF73PTI"].astype(np.float64)
    bad = (cp["SMF73FG2"] & FG2_RECONFIGURED) != 0
    util = _div(pby * 100.0, pti, bad)
    cols = {"interval": np.datetime64(p.start, "ns"), "interval_s": p.interval_s, "system": h.system,
            "chpid": _HEX2[cp["SMF73PID"].astype(np.int64)], "chpid_type": acr, "util_part_pct": util,
            "shared": np.where((cp["SMF73FG3"] & 0x01) != 0, "Y", "N").astype(object)}
    secs = pti * 1024e-6
    cols.update(_generation(cp))
    cols.update(_cpmf(cp, pti, secs, bad | ((cp["SMF73FG4"] & FG4_CPMB_INVALID) != 0), util))
    cols.update(_extended(rec, h, cp, secs, bad))
    return {"channel": (cols, n)}, {}


def _div(a, b, bad):
    out = np.full(len(a), np.nan)
    np.divide(a, b, out=out, where=(b != 0) & ~bad)
    return out


def _generation(cp: np.ndarray) -> dict:
    """RMF's G (SMF73GEN, '' if 0) and the link speed at the interval's end (SMF73SPD in 100 Mbit/s,
    or x 10**power bit/s if SMF73MSC's bits 4-7 give a power), as 'nG' / 'nM'; '' if not stated."""
    names = cp.dtype.names
    out = {}
    if "SMF73GEN" in names:
        out["generation"] = np.array([str(g) if g else "" for g in cp["SMF73GEN"].tolist()], dtype=object)
    if "SMF73SPD" in names:
        power = (cp["SMF73MSC"] & 0x0F).astype(np.int64) if "SMF73MSC" in names else np.zeros(len(cp), np.int64)
        bits = np.where(power == 0, cp["SMF73SPD"] * 1e8, cp["SMF73SPD"] * 10.0 ** power)
        out["speed"] = np.array(["" if b <= 0 else (f"{b / 1e9:g}G" if b >= 1e9 else f"{b / 1e6:g}M")
                                 for b in bits.tolist()], dtype=object)
    return out


def _cpmf(cp: np.ndarray, pti: np.ndarray, secs: np.ndarray, bad: np.ndarray, util_pby: np.ndarray) -> dict:
    """The CPMF columns of each path from its SMF73CCM words by measurement group (NaN where the
    section is too short to hold them, the data are incorrect or the CPMB entry not valid):
    group 1: util_total_pct = TUT x 100 / (PTI x 8), util_part_pct = PUT x 100 / (PTI x 8) (128 us
    over 1024 us units); group 2 (FICON): util_total / part = TUC / PUC x 100 / (MCU x s), bus_pct =
    TBC x 100 / (MBC x s), MB/s = data units x US / s / 1e6, each NaN where SMF73FG5 says a
    characteristics word it needs is not valid. util_part_pct where CPMF gives none: SMF73PBY / SMF73PTI."""
    names = cp.dtype.names
    if "SMF73PRU" not in names:
        return {}
    cmg = cp["SMF73CMG"]
    fg5 = cp["SMF73FG5"]
    g1, g2 = bad | (cmg != CMG_BUSY), bad | (cmg != CMG_FICON)
    w = {k: hfp32(cp[k]) for k in CPMF_G1 + CPMF_G2}
    ok = {k: (fg5 & bit) != 0 for k, bit in FG5_WORD.items()}
    per_unit = np.where(ok["SMF73US"], w["SMF73US"], np.nan)
    mb = lambda units: _div(units * per_unit, secs * 1e6, g2)  # noqa: E731
    mcu = np.where(ok["SMF73MCU"], w["SMF73MCU"], 0.0) * secs
    total = np.where(cmg == CMG_BUSY, _div(w["SMF73TUT"] * 100.0, pti * 8.0, g1), _div(w["SMF73TUC"] * 100.0, mcu, g2))
    part = np.where(cmg == CMG_BUSY, _div(w["SMF73PUT"] * 100.0, pti * 8.0, g1),
                    np.where(cmg == CMG_FICON, _div(w["SMF73PUC"] * 100.0, mcu, g2), np.nan))
    part = np.where(np.isnan(part), util_pby, part)
    return {"util_total_pct": total, "util_part_pct": part,
            "bus_pct": _div(w["SMF73TBC"] * 100.0, np.where(ok["SMF73MBC"], w["SMF73MBC"], 0.0) * secs, g2),
            "read_mb_s_total": mb(w["SMF73TRU"]), "read_mb_s_part": mb(w["SMF73PRU"]),
            "write_mb_s_total": mb(w["SMF73TWU"]), "write_mb_s_part": mb(w["SMF73PWU"])}


def _extended(rec: bytes, h: Header, cp: np.ndarray, secs: np.ndarray, bad: np.ndarray) -> dict:
    """FICON (command mode) and zHPF (transport mode) operation rates, mean active operations and
    deferrals from the Extended Channel Path Data Sections, joined on SMF73ECP = SMF73PID, for the
    paths whose SMF73FG4 says extended measurements are supported (else NaN)."""
    if h.n_triplets < HES_TRIPLETS:
        return {}
    hes = triplet(rec, HES_AT, "SMF73 extended channel path data")
    if hes[2] == 0:
        return {}
    ex = sections(rec, hes, EXT_DATA, "SMF73 extended channel path data")
    row = np.full(256, -1, dtype=np.int64)
    row[ex["SMF73ECP"].astype(np.int64)] = np.arange(len(ex))
    at = row[cp["SMF73PID"].astype(np.int64)]
    has = (at >= 0) & ((cp["SMF73FG4"] & FG4_EXTENDED) != 0)
    get = {k: np.where(has, ex[k].astype(np.float64)[np.maximum(at, 0)], np.nan)
           for k in EXT_DATA.names if k != "SMF73ECP"}
    return {"ficon_ops_per_s": _div(get["SMF73EOC"], secs, bad), "ficon_active": _div(get["SMF73EOS"], get["SMF73EOC"], bad),
            "ficon_defer_per_s": _div(get["SMF73EOD"], secs, bad), "zhpf_ops_per_s": _div(get["SMF73ETC"], secs, bad),
            "zhpf_active": _div(get["SMF73ETS"], get["SMF73ETC"], bad), "zhpf_defer_per_s": _div(get["SMF73ETD"], secs, bad)}
