"""Several workloads in the event engine: an I/O's class and device by its workload, and the
per-workload and per-device statistics (used where ``ip[IP_WORKLOADS]`` is set: a configuration
given as tables, ``mcio.engine.tables``; the single-path model keeps ``stages.stage_arrive``).

Open: the workloads' Poisson streams are merged into one (one arrival row at the total rate) and
each arrival's class is drawn over every class with probability rate_w * share_k / total: the
superposition of independent Poisson streams, exactly. Closed: the slots are partitioned by
workload (its population each) and a slot's class is drawn within its workload's classes. The
device is drawn from the class's workload's device table (Walker's alias method, one table per
workload, concatenated).

``wl`` = (grp_ptr int64[G + 1], grp_cls int64[:], grp_cum float64[:], slot_grp int64[P] (or [1]),
cls_wl int64[NC], al_ptr int64[W + 1], al_prob float64[:], al_idx int64[:], al_dev int64[:]):
the class groups (open: one, every class; closed: one per workload) with their classes and
cumulative shares, each closed slot's group, each class's workload, and each workload's alias
table over its devices (al_dev: the device of each entry; al_idx: an index within the workload).

Accumulators (outputs of ``iopath.run_one``; ms): ``wls[w, WL_*]`` per workload, the count and
the sums and sums of squares of the response and its components; ``whist[w, HIST_BUCKETS]``
its response-time histogram (``histogram``); ``dvs[d, DS_*]`` per device, the count and the sums
of the components (the LCU and control-unit figures are their sums by device).
"""

from .histogram import hist_add
from .ioclass import io_class
from .options import JIT_LEAF, JIT_STAGE, njit
from .stages import (GETCH, SF_CMR, SF_DISC, SF_PEND, SF_T_ARR, SF_T_MARK, SF_T_START, SI_CLS,
                     SI_DEF, SI_DEV, SI_MISS, SI_MODE, alias_pick, attr_uniforms,
                     exposure_take)

# wls[w, WL_*]: count, then per component (response, IOSQ, pend, CMR, disconnect, connect) its
# sum, then its sum of squares
WL_N = 0
WL_SUM = 1                      # WL_SUM + i: component i's sum (i in COMPONENTS order)
WL_SQ = 7                       # WL_SQ + i: its sum of squares
N_WL = 13
# dvs[d, DS_*]: count, then the sums of the same components
DS_N = 0
DS_SUM = 1
N_DS = 7
N_COMP = 6


@njit(**JIT_STAGE)
def stage_arrive_wl(x, t, sf, si, rng, attrs, is_open, wl, dev, hpav, expo):
    """SSCH issued (several workloads): the I/O's class within its group, its mode and miss,
    its device from its workload's table, and an exposure of it (else IOSQ). The uniforms are
    drawn as ``stages.stage_arrive`` draws them (``attrs`` as there): one workload over the
    same classes and devices gives the same I/Os to the bit."""
    cls_cum, ncls, zshare, cls_miss, cls_draw, mode_draw, miss_draw = attrs
    grp_ptr, grp_cls, grp_cum, slot_grp, cls_wl, al_ptr, al_prob, al_idx, al_dev = wl
    sf[x, SF_T_ARR] = t
    u_cls, u_mode, u_miss = attr_uniforms(rng, cls_draw, mode_draw, miss_draw)
    g = 0 if is_open else slot_grp[x]
    a = grp_ptr[g]
    k = grp_cls[a + io_class(u_cls, grp_cum[a:], grp_ptr[g + 1] - a)]
    si[x, SI_CLS] = k
    si[x, SI_MODE] = 1 if u_mode < zshare else 0
    si[x, SI_MISS] = u_miss < cls_miss[k]
    w = cls_wl[k]
    b = al_ptr[w]
    m = al_ptr[w + 1] - b
    i = alias_pick(rng, al_prob, al_idx, b, m) if m > 1 else 0
    d = al_dev[b + i]
    si[x, SI_DEV] = d
    si[x, SI_DEF] = 0
    return GETCH if exposure_take(x, d, si, dev, hpav, expo) else -1


@njit(**JIT_STAGE)
def count_units(x, t, sf, si, cls_wl, wls, whist, dvs):
    """A measured I/O ends at ``t``: its response and components into its workload's sums and
    histogram and its device's sums."""
    w = cls_wl[si[x, SI_CLS]]
    d = si[x, SI_DEV]
    resp = t - sf[x, SF_T_ARR]
    iosq = sf[x, SF_T_START] - sf[x, SF_T_ARR]
    pend = sf[x, SF_PEND]
    cmr = sf[x, SF_CMR]
    disc = sf[x, SF_DISC]
    conn = t - sf[x, SF_T_MARK]
    wls[w, WL_N] += 1.0
    dvs[d, DS_N] += 1.0
    for i in range(N_COMP):
        v = resp if i == 0 else iosq if i == 1 else pend if i == 2 else cmr if i == 3 else disc if i == 4 else conn
        wls[w, WL_SUM + i] += v
        wls[w, WL_SQ + i] += v * v
        dvs[d, DS_SUM + i] += v
    hist_add(whist[w], resp)


@njit(**JIT_LEAF)
def units_restart(wls, whist, dvs):
    """Warm-up over: the per-workload and per-device accumulators restart."""
    wls[:, :] = 0.0
    whist[:, :] = 0
    dvs[:, :] = 0.0
