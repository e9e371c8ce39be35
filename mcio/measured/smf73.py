"""SMF record 73 (RMF channel path activity) -> the ``channel`` level.

Offsets are IBM's (z/OS MVS System Management Facilities, record type 73: "Header/Self-defining
Section", "Channel path control section", "Channel path data section"); the fields decoded and the
derived columns' formulas are listed in docs/measured_smf.md. RMF writes a path data section for
every one of the 256 possible CHPIDs; only those flagged as valid paths (SMF73FG3 bit 6) are rows.
"""
from __future__ import annotations

import numpy as np

from .smf_record import Header, Product, sections, triplet

# header extension: SMF73HIS/HIL/HIN (control) at 36, SMF73HPS/HPL/HPN (path data) at 44
HIS_AT, HPS_AT = 36, 44

#: Channel path data section (one per CHPID), offsets 0..22
CHAN_DATA = np.dtype({
    "names": ["SMF73PID", "SMF73FG2", "SMF73FG3", "SMF73FG4", "SMF73BSY", "SMF73PBY", "SMF73PTI",
              "SMF73CPD", "SMF73ACR", "SMF73CMG"],
    "formats": ["u1", "u1", "u1", "u1", ">u4", ">u4", ">u4", "u1", "S5", "u1"],
    "offsets": [0, 1, 2, 3, 4, 8, 12, 16, 17, 22], "itemsize": 23})

#: SMF73FG3 bit 6 (X'02'): valid path
FG3_VALID = 0x02
#: SMF73FG2 bit 6 (X'02'): data incorrect, the channel path was reconfigured during the interval
FG2_RECONFIGURED = 0x02

_HEX2 = np.array([f"{i:02X}" for i in range(256)], dtype=object)


def decode_73(rec: bytes, h: Header, p: Product):
    """Channel path activity -> ``channel`` rows, one per valid channel path."""
    triplet(rec, HIS_AT, "SMF73 channel path control")   # checked to lie inside the record
    cp = sections(rec, triplet(rec, HPS_AT, "SMF73 channel path data"), CHAN_DATA, "SMF73 channel path data")
    cp = cp[(cp["SMF73FG3"] & FG3_VALID) != 0]
    n = len(cp)
    acr = np.array([bytes(a).decode("cp037").rstrip(" \x00") for a in cp["SMF73ACR"]], dtype=object)
    pby, pti = cp["SMF73PBY"].astype(np.float64), cp["SMF73PTI"].astype(np.float64)
    util = np.full(n, np.nan)
    np.divide(pby * 100.0, pti, out=util, where=pti != 0)
    util[(cp["SMF73FG2"] & FG2_RECONFIGURED) != 0] = np.nan
    cols = {"interval": np.datetime64(p.start, "ns"), "interval_s": p.interval_s, "system": h.system,
            "chpid": _HEX2[cp["SMF73PID"].astype(np.int64)], "chpid_type": acr, "util_part_pct": util}
    return {"channel": (cols, n)}, {}
