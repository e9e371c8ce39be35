"""A writer of SMF 73 / 74.1 / 74.5 / 78.3 records in the layouts the readers decode (smf73, smf74,
smf78): for round-trip tests and for the synthetic month of the benchmark. It writes raw SMF
counters (SMF field names), so a test can compute RMF's derived columns from known counters.

Records carry an RDW, the standard header ('RMF' subsystem), the triplets, a 104-byte RMF product
section and the sections, big-endian, EBCDIC text (cp037), packed dates and times, HFP short floats
where IBM documents "s_float". Unfilled fields are zero.
"""
from __future__ import annotations

import datetime as _dt
from typing import Iterable

import numpy as np

from .smf_record import MAX_RECORD_LEN, RDW_LEN, with_optional
from . import smf73
from .smf73 import CHAN_DATA, EXT_DATA
from . import smf74
from .smf74 import CACHE_DEV, DEV_DATA
from .smf78 import CONFIG_CONTROL, CONFIG_DATA, HYPERPAV_DATA, HYPERPAV_OPT, QUEUE_DATA

SSI_RMF = "RMF"
HDR_FLAGS = 0x40          # SMFxxFLG bit 1: subtypes used


def ebcdic(s: str, n: int) -> bytes:
    """``s`` blank-padded to ``n`` EBCDIC bytes."""
    b = s.encode("cp037")
    if len(b) > n:
        raise ValueError(f"{s!r} is longer than {n} bytes")
    return b + b"\x40" * (n - len(b))


def packed(digits: str) -> bytes:
    """Decimal digits + sign nibble F, packed (an odd number of digits fills whole bytes)."""
    if len(digits) % 2 == 0:
        digits = "0" + digits
    nib = [int(c) for c in digits] + [0xF]
    return bytes((nib[i] << 4) | nib[i + 1] for i in range(0, len(nib), 2))


def smf_date(d: _dt.date) -> bytes:
    """0cyydddF."""
    c = (d.year - 1900) // 100
    return packed(f"{c:02d}{d.year % 100:02d}{d.timetuple().tm_yday:03d}")


def rmf_time(t: _dt.datetime) -> bytes:
    """0hhmmssF."""
    return packed(f"0{t.hour:02d}{t.minute:02d}{t.second:02d}")


def rmf_duration(seconds: float) -> bytes:
    """mmsstttF (minutes, seconds, milliseconds)."""
    ms = int(round(seconds * 1000))
    mm, rest = divmod(ms, 60000)
    if mm > 99:
        raise ValueError(f"interval {seconds} s is longer than 99 minutes")
    return packed(f"{mm:02d}{rest // 1000:02d}{rest % 1000:03d}")


def hfp32_encode(values) -> np.ndarray:
    """float64 -> IBM short hexadecimal floating point words (uint32), rounded to nearest; exact
    for integers below 2**24."""
    v = np.asarray(values, dtype=np.float64)
    sign = (v < 0).astype(np.uint32) << 31
    a = np.abs(v)
    m, k = np.frexp(a)                          # a = m * 2**k, m in [0.5, 1)
    e = -((-k) // 4)                            # ceil(k / 4): a = frac * 16**e, frac in [1/16, 1)
    frac = np.floor(m * np.exp2(k - 4 * e) * (1 << 24) + 0.5)
    over = frac >= (1 << 24)
    e = np.where(over, e + 1, e)
    frac = np.where(over, np.floor(frac / 16 + 0.5), frac)
    if np.any((e + 64 > 127) & (a > 0)):
        raise ValueError("value too large for HFP short")
    word = sign | ((e + 64).astype(np.uint32) << 24) | frac.astype(np.uint32)
    return np.where(a == 0, np.uint32(0), word).astype(np.uint32)


def product_section(start: _dt.datetime, interval_s: float, samples: int, sysplex: str = "PLEX1",
                    system_name: str = "SYSA") -> bytes:
    """The 104-byte RMF product section (SMFxxPRO)."""
    b = bytearray(104)
    b[0:2] = packed("100")                      # SMFxxMFV, RMF version (packed nnnF)
    b[2:10] = ebcdic("RMF", 8)                  # SMFxxPRD
    b[10:14] = rmf_time(start)                  # SMFxxIST
    b[14:18] = smf_date(start.date())           # SMFxxDAT
    b[18:22] = rmf_duration(interval_s)         # SMFxxINT
    b[24:28] = int(samples).to_bytes(4, "big")  # SMFxxSAM
    b[40:48] = ebcdic("SP7.2.5", 8)             # SMFxxMVS
    b[88:96] = ebcdic(sysplex, 8)               # SMFxxXNM
    b[96:104] = ebcdic(system_name, 8)          # SMFxxSNM
    return bytes(b)


def rmf_record(rtype: int, subtype: int, system: str, written: _dt.datetime, prod: bytes,
               sections: list[tuple[bytes, int, int]]) -> bytes:
    """A complete record (RDW included): header, triplets (product at 28, then ``sections`` at
    36, 44, ...; each (bytes, section length, number)), product section, then the sections."""
    n_trip = 1 + len(sections)
    at = 28 + 8 * n_trip
    hdr = bytearray(at)
    hdr[4] = HDR_FLAGS
    hdr[5] = rtype
    midnight = written.replace(hour=0, minute=0, second=0, microsecond=0)
    hdr[6:10] = int((written - midnight).total_seconds() * 100).to_bytes(4, "big")
    hdr[10:14] = smf_date(written.date())
    hdr[14:18] = ebcdic(system, 4)
    hdr[18:22] = ebcdic(SSI_RMF, 4)
    hdr[22:24] = subtype.to_bytes(2, "big")
    hdr[24:26] = n_trip.to_bytes(2, "big")
    body = [bytes(prod)]
    trip = [(at, len(prod), 1)]
    pos = at + len(prod)
    for data, ln, n in sections:
        trip.append((pos if n else 0, ln, n))
        body.append(data)
        pos += len(data)
    for i, (o, ln, n) in enumerate(trip):
        hdr[28 + 8 * i:36 + 8 * i] = o.to_bytes(4, "big") + ln.to_bytes(2, "big") + n.to_bytes(2, "big")
    rec = bytes(hdr) + b"".join(body)
    if len(rec) > MAX_RECORD_LEN:
        raise ValueError(f"record of {len(rec)} bytes is longer than {MAX_RECORD_LEN}")
    return len(rec).to_bytes(2, "big") + b"\0\0" + rec[4:]


def other_record(rtype: int, subtype: int, system: str, written: _dt.datetime, length: int = 64) -> bytes:
    """A record of another type (e.g. 30, or 74.3), for skip-and-count tests: header only, padded
    to ``length`` bytes (at least 18, the length of a dump header record, type 2)."""
    rec = bytearray(max(length, 18))
    rec[0:2] = len(rec).to_bytes(2, "big")
    rec[4], rec[5] = HDR_FLAGS, rtype
    rec[10:14] = smf_date(written.date())
    rec[14:18] = ebcdic(system, 4)
    if len(rec) >= 24:
        rec[22:24] = subtype.to_bytes(2, "big")
    return bytes(rec)


def _layout(base: np.dtype, optional: dict, given) -> np.dtype:
    """``base`` plus the optional fields among ``given`` (the section runs to the last of them, as
    a release that carries them writes it; none given: the base section, as an older release)."""
    return with_optional(base, {k: v for k, v in optional.items() if k in given})


def _fill(dtype: np.dtype, n: int, fields: dict) -> np.ndarray:
    a = np.zeros(n, dtype=dtype)
    for k, v in fields.items():
        a[k] = v
    return a


def _chunks(n: int, per: int) -> Iterable[slice]:
    for i in range(0, max(n, 1), per):
        yield slice(i, min(i + per, n))


def records_74_1(system: str, start: _dt.datetime, interval_s: float, samples: int, devices: dict,
                 dev_class: int = 0x0020) -> list[bytes]:
    """74.1 records of one interval: ``devices`` maps SMF74 field names of the Device Data Section to
    equal-length arrays (SMF74SER as str); split into as many records as the 32 KB limit needs. The
    section runs to the last of ``smf74.DEV_DATA_OPT``'s fields ``devices`` gives (SMF74CMR: 168
    bytes); SMF74ENF says SMF74CMR valid when ``devices`` gives it."""
    dev = dict(devices)
    if "SMF74SER" in dev:
        dev["SMF74SER"] = [ebcdic(s, 6) for s in dev["SMF74SER"]]
    n = len(next(iter(dev.values()))) if dev else 0
    layout = _layout(DEV_DATA, smf74.DEV_DATA_OPT, dev)
    arr = _fill(layout, n, dev)
    prod = product_section(start, interval_s, samples, system_name=system)
    per = (MAX_RECORD_LEN - 64 - len(prod) - 28 - 32) // layout.itemsize
    out = []
    for s in _chunks(n, per):
        ctl = bytearray(28)
        ctl[6:8] = dev_class.to_bytes(2, "big")          # SMF74SUB
        ctl[10] = 0x80 | (smf74.ENF_CMR_VALID if "SMF74CMR" in dev else 0)   # SMF74ENF: extended CMB, CMR valid
        out.append(rmf_record(74, 1, system, start + _dt.timedelta(seconds=interval_s), prod,
                              [(bytes(ctl), 28, 1), (arr[s].tobytes(), layout.itemsize, s.stop - s.start)]))
    return out


def record_73(system: str, start: _dt.datetime, interval_s: float, samples: int, paths: dict,
              extended: dict | None = None) -> bytes:
    """One 73 record: ``paths`` maps SMF73 field names of the Channel Path Data Section (and of
    ``smf73.CHAN_OPT``: the section runs to the last one given) to arrays over the defined CHPIDs
    (SMF73ACR as str; the CPMF words as numbers, written as HFP into SMF73CCM: group 1's (SMF73TUT,
    PUT) for paths of SMF73CMG 1, group 2's (SMF73MBC ... PRU) for SMF73CMG 2; SMF73FG5 defaults to
    'words 1-5 valid' on group 2 paths); the other CHPIDs get RMF's dummy sections (only SMF73PID
    set). ``extended`` maps the
    fields of ``smf73.EXT_DATA`` to arrays, one Extended Channel Path Data Section each; their
    paths get SMF73FG4 bit 6 (extended measurements supported)."""
    p = dict(paths)
    pid = np.asarray(p.pop("SMF73PID"), dtype=np.int64)
    if "SMF73ACR" in p:
        p["SMF73ACR"] = [ebcdic(s, 5) for s in p["SMF73ACR"]]
    cmg = np.asarray(p.get("SMF73CMG", np.zeros(len(pid))), dtype=np.int64)
    words = {k: hfp32_encode(p.pop(k)) for k in smf73.CPMF_G1 + smf73.CPMF_G2 if k in p}
    if any(k in words for k in smf73.CPMF_G2):
        p.setdefault("SMF73FG5", np.where(cmg == smf73.CMG_FICON, 0xF8, 0))
    ccm = set(smf73.CPMF_G1 + smf73.CPMF_G2) | {"SMF73FG5"} if words else set()   # SMF73CCM whole
    layout = _layout(CHAN_DATA, smf73.CHAN_OPT, set(p) | ccm)
    if extended:
        on = np.isin(pid, np.asarray(extended["SMF73ECP"], dtype=np.int64))
        p["SMF73FG4"] = np.asarray(p.get("SMF73FG4", np.zeros(len(pid))), dtype=np.int64) | \
            np.where(on, smf73.FG4_EXTENDED, 0)
    arr = np.zeros(256, dtype=layout)
    arr["SMF73PID"] = np.arange(256)
    for k, v in p.items():
        arr[k][pid] = v
    for group, names in ((smf73.CMG_BUSY, smf73.CPMF_G1), (smf73.CMG_FICON, smf73.CPMF_G2)):
        sel = cmg == group                       # the groups' words share SMF73CCM: each path its own
        for k in names:
            if k in words:
                arr[k][pid[sel]] = words[k][sel]
    ctl = bytearray(92)
    ctl[0:4] = int(samples).to_bytes(4, "big")           # SMF73SMP
    ctl[90] = 2                                          # SMF73CMI: CPMF extended mode
    ext = (b"", 0, 0)
    if extended:
        m = len(extended["SMF73ECP"])
        ext = (_fill(EXT_DATA, m, extended).tobytes(), EXT_DATA.itemsize, m)
    prod = product_section(start, interval_s, samples, system_name=system)
    # SMF73HIS (36), SMF73HPS (44), SMF73HES (52: extended channel path data)
    return rmf_record(73, 1, system, start + _dt.timedelta(seconds=interval_s), prod,
                      [(bytes(ctl), 92, 1), (arr.tobytes(), layout.itemsize, 256), ext])


def record_78_3(system: str, start: _dt.datetime, interval_s: float, samples: int, lcus: list[dict]) -> bytes:
    """One 78.3 record: each LCU is {"R783ID2": id, "R783QSM", "R783QCT", "R783DST", ...,
    "paths": {R783 configuration-data field: array over its channel paths}, and optionally "hpav":
    {R783H... / R783XHBC HyperPAV data field: array over its LSS sections} (R783HNAI, R783HTIO given as numbers,
    written as HFP short floats; R783HLCU defaults to the LCU id)}."""
    n = len(lcus)
    ctl = np.zeros(n, dtype=CONFIG_CONTROL)
    path_blocks, rel = [], n * CONFIG_CONTROL.itemsize
    for i, l in enumerate(lcus):
        pths = l.get("paths", {})
        m = len(next(iter(pths.values()))) if pths else 0
        block = _fill(CONFIG_DATA, m, pths).tobytes()
        ctl[i] = (l["R783ID2"], 1, rel - i * CONFIG_CONTROL.itemsize, CONFIG_DATA.itemsize, m)
        path_blocks.append(block)
        rel += len(block)
    hp_blocks, n_hp = [], 0
    hcnt, hix = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    for i, l in enumerate(lcus):
        hv = dict(l.get("hpav", {}))
        m = len(next(iter(hv.values()))) if hv else 0
        if not m:
            continue
        hv.setdefault("R783HLCU", np.full(m, l["R783ID2"]))
        for k in ("R783HNAI", "R783HTIO"):
            if k in hv:
                hv[k] = hfp32_encode(hv[k])
        hp_blocks.append(hv)
        hcnt[i], hix[i] = m, n_hp + 1          # R783HIX: index of the LCU's first section (from 1)
        n_hp += m
    hp_layout = _layout(HYPERPAV_DATA, HYPERPAV_OPT, set().union(*hp_blocks) if hp_blocks else ())
    hp_blocks = [_fill(hp_layout, len(next(iter(hv.values()))), hv).tobytes() for hv in hp_blocks]
    qcols = {k: [l.get(k, 0) for l in lcus] for k in QUEUE_DATA.names}
    qcols["R783HCNT"], qcols["R783HIX"] = hcnt, hix
    qd = _fill(QUEUE_DATA, n, qcols)
    ctl_bytes = ctl.tobytes() + b"".join(path_blocks)
    prod = product_section(start, interval_s, samples, system_name=system)
    # the configuration control sections and their path sections form one block located by SMF78DCS
    # (36); SMF78ASS (44) the I/O queuing data sections; SMF78QDS (52) the IOQ global section (none
    # written); SMF78HPS (60) the HyperPAV data sections
    return rmf_record(78, 3, system, start + _dt.timedelta(seconds=interval_s), prod,
                      [(ctl_bytes, CONFIG_CONTROL.itemsize, n), (qd.tobytes(), QUEUE_DATA.itemsize, n),
                       (b"", 0, 0), (b"".join(hp_blocks), hp_layout.itemsize, n_hp)])


def records_74_5(system: str, start: _dt.datetime, interval_s: float, samples: int, devices: dict) -> list[bytes]:
    """74.5 records of one interval: ``devices`` maps R745 device-section names (and those of
    ``smf74.CACHE_DEV_OPT``: the section runs to the last one given) to arrays; the counters
    (R745DRCR ...) are given as numbers and written as HFP short floats; R745DSID binary."""
    dev = dict(devices)
    if "R745DVOL" in dev:
        dev["R745DVOL"] = [ebcdic(s, 6) for s in dev["R745DVOL"]]
    layout = _layout(CACHE_DEV, smf74.CACHE_DEV_OPT, dev)
    for k in layout.names:
        if k in dev and layout.fields[k][0] == np.dtype(">u4"):
            dev[k] = hfp32_encode(dev[k])
    n = len(next(iter(dev.values()))) if dev else 0
    arr = _fill(layout, n, dev)
    prod = product_section(start, interval_s, samples, system_name=system)
    per = (MAX_RECORD_LEN - 64 - len(prod) - 64 - 64) // layout.itemsize
    out = []
    for s in _chunks(n, per):
        # SMF745CO (36) control, SMF745DO (44) devices, SMF745XO (52) device extensions (none
        # written), SMF745SO (60) status; control and status sections zero-filled
        out.append(rmf_record(74, 5, system, start + _dt.timedelta(seconds=interval_s), prod,
                              [(bytes(16), 16, 1), (arr[s].tobytes(), layout.itemsize, s.stop - s.start),
                               (b"", 0, 0), (bytes(48), 48, 1)]))
    return out


def segments(rec: bytes, max_len: int) -> list[bytes]:
    """A complete record split into spanned segments of at most ``max_len`` bytes each (RDW
    included), segment descriptors first / middle / last."""
    data = rec[RDW_LEN:]
    step = max_len - RDW_LEN
    parts = [data[i:i + step] for i in range(0, len(data), step)]
    if len(parts) == 1:
        return [rec]
    out = []
    for i, d in enumerate(parts):
        seg = 1 if i == 0 else (2 if i == len(parts) - 1 else 3)
        out.append((len(d) + RDW_LEN).to_bytes(2, "big") + bytes([seg, 0]) + d)
    return out


def write_dump(path, records: Iterable[bytes]) -> int:
    """Write records (each with its RDW) to ``path``; returns the bytes written."""
    n = 0
    with open(path, "wb") as f:
        for r in records:
            f.write(r)
            n += len(r)
    return n


#: CPMF group 2 characteristics written by :func:`write_measured` (any positive values invert)
CPMF_MAX_UNITS_PER_S, CPMF_UNIT_BYTES = 1.0e6, 1024.0


def _speed_units(speed: str) -> int:
    """'8G' / '800M' -> SMF73SPD in 100 Mbit/s units (0 if not stated)."""
    s = (speed or "").strip().upper()
    if not s or s[-1] not in "GM":
        return 0
    return int(round(float(s[:-1]) * (10.0 if s[-1] == "G" else 0.01)))


def write_measured(measured, path, seed: int = 1) -> int:
    """A Measured as an SMF dump (74.1, 73, 78.3 and 74.5 per interval), its figures turned back into
    the counters the readers' formulas invert (docs/measured_smf.md): SSCH counts, connect / pend /
    disconnect / CMR / device busy delay in 128 us units, channel partition busy in 1024 us units,
    CPMF group 2 words (work units, bus cycles, data units of :data:`CPMF_UNIT_BYTES` at
    :data:`CPMF_MAX_UNITS_PER_S`), SMF73GEN / SMF73SPD, the extended sections' FICON and zHPF counts,
    CHPID TAKEN counts and CMR per path, cache read / write requests and hits per device (each
    subsystem's counts split over its LCU's devices by their I/O counts: a multinomial draw,
    ``seed``) with R745DSID = the subsystem's SSID. Returns the bytes written."""
    import pandas as pd
    dev, ch, lcu, path_, cache = (measured[lv] for lv in ("device", "channel", "lcu", "lcu_path", "cache"))
    rng = np.random.default_rng([seed, 73])
    recs = []
    for t in measured.intervals():
        d = dev[dev["interval"] == t]
        if not len(d):
            continue
        T = float(d["interval_s"].iloc[0])
        sysid = str(d["system"].iloc[0]) or "SYN1"
        start = pd.Timestamp(t).to_pydatetime()
        sam = max(int(round(T)), 1)
        ssc = np.round(d["ssch_per_s"].to_numpy() * T).astype(np.int64)
        u128 = lambda col: np.round(d[col].fillna(0.0).to_numpy() * ssc / 0.128).astype(np.int64)  # noqa: E731
        que = np.round(d["iosq_ms"].fillna(0.0).to_numpy() / 1000.0 * ssc / T * sam).astype(np.int64)
        dv = {"SMF74NUM": [int(x, 16) for x in d["devnum"]], "SMF74LCU": [int(x or "0", 16) for x in d["lcu"]],
              "SMF74SER": list(d["volser"]), "SMF74TYP": np.full(len(d), 0x3010200F), "SMF74NUX": np.ones(len(d)),
              "SMF74SSC": ssc, "SMF74MEC": ssc, "SMF74CNN": u128("conn_ms"), "SMF74PEN": u128("pend_ms"),
              "SMF74DIS": u128("disc_ms"), "SMF74QUE": que}
        for col, field in (("cmr_ms", "SMF74CMR"), ("db_ms", "SMF74DVB")):
            if d[col].notna().any():
                dv[field] = u128(col)
        dv["SMF74ATV"] = dv["SMF74CNN"] + dv["SMF74PEN"] + dv["SMF74DIS"]
        recs += records_74_1(sysid, start, T, sam, dv)
        c = ch[ch["interval"] == t]
        if len(c):
            recs.append(_record_73_of(c, sysid, start, T, sam))
        lq = []
        for _, L in lcu[lcu["interval"] == t].iterrows():
            pp = path_[(path_["interval"] == t) & (path_["lcu"] == L["lcu"])]
            pt = np.round(pp["taken_per_s"].to_numpy() * T).astype(np.int64)
            cmr = pp["cmr_ms"].fillna(0.0).to_numpy()
            lq.append({"R783ID2": int(L["lcu"], 16), "R783DST": 0, "paths": {
                "R783CPID": [int(x, 16) for x in pp["chpid"]], "R783CPST": np.full(len(pp), 0x80),
                "R783CUN": np.ones(len(pp)), "R783CU1": np.full(len(pp), int((L["cu"] or "0").split()[0], 16)),
                "R783PT": pt, "R783CMR": np.round(cmr * pt / 0.128).astype(np.int64)}})
        if lq:
            recs.append(record_78_3(sysid, start, T, sam, lq))
        cc = cache[(cache["interval"] == t) & (cache["devnum"] == "")]
        cols = {k: [] for k in ("R745DVOL", "R745DEVN", "R745DSID", "R745DRCR", "R745DCRH", "R745DWRC", "R745DWCH")}
        for _, C in cc.iterrows():
            sel = (d["lcu"] == C["ssid"]).to_numpy()
            if not sel.any():
                continue
            p = ssc[sel] / max(ssc[sel].sum(), 1)
            nr, nw = int(round(C["read_per_s"] * T)), int(round(C["write_per_s"] * T))
            rh = int(round(C["read_hit_ratio"] * nr))
            wh = int(round(C["write_hit_ratio"] * nw)) if np.isfinite(C["write_hit_ratio"]) else nw
            # the subsystem's hits and misses spread over its devices (sums kept exactly)
            r_hit, r_miss = rng.multinomial(rh, p), rng.multinomial(nr - rh, p)
            w_hit, w_miss = rng.multinomial(wh, p), rng.multinomial(nw - wh, p)
            cols["R745DVOL"] += list(d["volser"][sel])
            cols["R745DEVN"] += [int(x, 16) for x in d["devnum"][sel]]
            cols["R745DSID"] += [int(C["ssid"], 16)] * int(sel.sum())
            cols["R745DRCR"] += list(r_hit + r_miss)
            cols["R745DCRH"] += list(r_hit)
            cols["R745DWRC"] += list(w_hit + w_miss)
            cols["R745DWCH"] += list(w_hit)
        if cols["R745DEVN"]:
            recs += records_74_5(sysid, start, T, sam, {k: np.asarray(v) if k != "R745DVOL" else v
                                                         for k, v in cols.items()})
    return write_dump(path, recs)


def _record_73_of(c, sysid: str, start: _dt.datetime, T: float, sam: int) -> bytes:
    """The 73 record of one interval's channel rows (group 2 CPMF words and extended sections where
    the rows state the figures; PBY from util_part_pct)."""
    n = len(c)
    pti = int(round(T * 1e6 / 1024))
    P = pti * 1024e-6                            # the seconds the reader divides by
    col = lambda k: c[k].to_numpy(dtype=float)  # noqa: E731
    part = np.nan_to_num(c["util_part_pct"].fillna(c["util_total_pct"]).to_numpy(dtype=float)) / 100.0
    pid = [int(x, 16) for x in c["chpid"]]
    paths = {"SMF73PID": pid, "SMF73FG3": np.full(n, 0x02), "SMF73PTI": np.full(n, pti),
             "SMF73PBY": np.round(part * pti).astype(np.int64), "SMF73ACR": [x or "FC" for x in c["chpid_type"]],
             "SMF73CMG": np.full(n, smf73.CMG_FICON if c["util_total_pct"].notna().any() else 0),
             "SMF73GEN": [int(g) if str(g).isdigit() else 0 for g in c["generation"]],
             "SMF73SPD": [_speed_units(x) for x in c["speed"]]}
    if c["util_total_pct"].notna().any():
        units = lambda mb: np.nan_to_num(mb) * 1e6 * P / CPMF_UNIT_BYTES  # noqa: E731
        paths.update({"SMF73MBC": np.full(n, CPMF_MAX_UNITS_PER_S), "SMF73MCU": np.full(n, CPMF_MAX_UNITS_PER_S),
                      "SMF73US": np.full(n, CPMF_UNIT_BYTES),
                      "SMF73TUC": np.nan_to_num(col("util_total_pct")) / 100.0 * CPMF_MAX_UNITS_PER_S * P,
                      "SMF73PUC": part * CPMF_MAX_UNITS_PER_S * P,
                      "SMF73TBC": np.nan_to_num(col("bus_pct")) / 100.0 * CPMF_MAX_UNITS_PER_S * P,
                      "SMF73TRU": units(col("read_mb_s_total")), "SMF73PRU": units(col("read_mb_s_part")),
                      "SMF73TWU": units(col("write_mb_s_total")), "SMF73PWU": units(col("write_mb_s_part"))})
    ext = None
    if c["ficon_ops_per_s"].notna().any():
        cnt = lambda k: np.round(np.nan_to_num(col(k)) * P).astype(np.int64)  # noqa: E731
        eoc, etc = cnt("ficon_ops_per_s"), cnt("zhpf_ops_per_s")
        ext = {"SMF73ECP": pid, "SMF73EOC": eoc, "SMF73EOD": cnt("ficon_defer_per_s"),
               "SMF73EOS": np.round(np.nan_to_num(col("ficon_active")) * eoc).astype(np.int64),
               "SMF73ETC": etc, "SMF73ETD": cnt("zhpf_defer_per_s"),
               "SMF73ETS": np.round(np.nan_to_num(col("zhpf_active")) * etc).astype(np.int64)}
    return record_73(sysid, start, T, sam, paths, extended=ext)


def synthetic_intervals(start: _dt.datetime, n_intervals: int, n_devices: int, interval_s: float = 900.0,
                        system: str = "SYSA", seed: int = 0, n_chpids: int = 8,
                        devices_per_lcu: int = 256) -> Iterable[bytes]:
    """The records of ``n_intervals`` consecutive intervals of an installation of ``n_devices``
    3390 volumes (LCUs of ``devices_per_lcu``, ``n_chpids`` FICON paths shared by every LCU), with
    random counters (74.1 with SMF74CMR / DVB, 73 with CPMF group 2 words and extended sections,
    74.5 to R745DSID): per interval one 73, the 74.1 and 74.5 records, one 78.3. Generated one
    interval at a time (a month streams to disk without being held in memory)."""
    rng = np.random.default_rng(seed)
    samples = int(interval_s)                    # RMF samples once a second by default
    num = 0x1000 + np.arange(n_devices)
    lcu = (np.arange(n_devices) // devices_per_lcu) + 0x40
    vol = [f"V{i:05d}" for i in range(n_devices)]
    chp = 0x40 + np.arange(n_chpids)
    lcus = np.unique(lcu)
    for k in range(n_intervals):
        t = start + _dt.timedelta(seconds=k * interval_s)
        ssc = rng.poisson(rng.uniform(1, 200, n_devices) * interval_s)
        t128 = lambda ms: (ssc * ms / 0.128).astype(np.int64)  # noqa: E731
        dev = {"SMF74NUM": num, "SMF74LCU": lcu, "SMF74SER": vol, "SMF74TYP": np.full(n_devices, 0x3010200F),
               "SMF74NUX": np.ones(n_devices), "SMF74SSC": ssc, "SMF74MEC": ssc,
               "SMF74CNN": t128(rng.uniform(0.1, 0.4, n_devices)), "SMF74PEN": t128(rng.uniform(0.05, 0.2, n_devices)),
               "SMF74DIS": t128(rng.uniform(0.0, 1.0, n_devices)), "SMF74QUE": rng.poisson(5, n_devices),
               "SMF74CMR": t128(rng.uniform(0.01, 0.05, n_devices)), "SMF74DVB": t128(rng.uniform(0.0, 0.01, n_devices))}
        dev["SMF74ATV"] = dev["SMF74CNN"] + dev["SMF74PEN"] + dev["SMF74DIS"]
        busy = rng.uniform(0.05, 0.6, n_chpids)
        ops = ssc.sum() / n_chpids / 2                # per path and mode, in the interval
        yield record_73(system, t, interval_s, samples, {
            "SMF73PID": chp, "SMF73FG2": np.full(n_chpids, 1), "SMF73FG3": np.full(n_chpids, 0x02),
            "SMF73PTI": np.full(n_chpids, int(interval_s * 1e6 / 1024)),
            "SMF73PBY": (busy * interval_s * 1e6 / 1024).astype(np.int64),
            "SMF73ACR": ["FC_S"] * n_chpids, "SMF73CMG": np.full(n_chpids, 2), "SMF73GEN": np.full(n_chpids, 17),
            "SMF73SPD": np.full(n_chpids, 160), "SMF73MBC": np.full(n_chpids, 1e6), "SMF73MCU": np.full(n_chpids, 1e6),
            "SMF73US": np.full(n_chpids, 1024.0), "SMF73TUC": busy * 1e6 * interval_s, "SMF73PUC": busy * 1e6 * interval_s,
            "SMF73TBC": busy / 2 * 1e6 * interval_s, "SMF73TRU": np.full(n_chpids, ops * 4.0),
            "SMF73PRU": np.full(n_chpids, ops * 4.0), "SMF73TWU": np.full(n_chpids, ops), "SMF73PWU": np.full(n_chpids, ops)},
            extended={"SMF73ECP": chp, "SMF73EOC": np.full(n_chpids, int(ops)), "SMF73EOD": np.zeros(n_chpids, np.int64),
                      "SMF73EOS": np.full(n_chpids, int(ops) * 3), "SMF73ETC": np.full(n_chpids, int(ops)),
                      "SMF73ETD": np.zeros(n_chpids, np.int64), "SMF73ETS": np.full(n_chpids, int(ops) * 2)})
        yield from records_74_1(system, t, interval_s, samples, dev)
        reads = ssc * 0.75
        yield from records_74_5(system, t, interval_s, samples, {
            "R745DVOL": vol, "R745DEVN": num, "R745DRCR": np.round(reads * 0.9),
            "R745DCRH": np.round(reads * 0.9 * rng.uniform(0.8, 1.0, n_devices)),
            "R745DWRC": np.round(ssc * 0.25), "R745DWCH": np.round(ssc * 0.25),
            "R745DRSR": np.round(reads * 0.1), "R745DRSH": np.round(reads * 0.1),
            "R745DNTD": np.round(reads * 0.05), "R745DSID": lcu})
        q = []
        for lc in lcus:
            taken = ssc[lcu == lc].sum() // n_chpids
            hp_io = float(ssc[lcu == lc].sum())
            q.append({"R783ID2": int(lc), "R783QSM": 0, "R783QCT": 0, "R783DST": 0x02,
                      "hpav": {"R783HCU": [0x8000 + int(lc)], "R783HTIO": [hp_io],
                               "R783HNAI": [float(rng.binomial(int(hp_io), 0.001))],
                               "R783HAIU": [int(rng.integers(1, 32))]}, "paths": {
                "R783CPID": chp, "R783CPST": np.full(n_chpids, 0xC0), "R783CUN": np.ones(n_chpids),
                "R783CU1": np.full(n_chpids, 0x8000 + int(lc)), "R783PT": np.full(n_chpids, taken),
                "R783CUB": rng.poisson(3, n_chpids), "R783DPB": rng.poisson(1, n_chpids),
                "R783CBT": rng.poisson(20, n_chpids), "R783CMR": (taken * 0.02 / 0.128) * np.ones(n_chpids)}})
        yield record_78_3(system, t, interval_s, samples, q)
