"""The MDC / CU-cache walk: hit ratios against independent counts for simple access patterns, its
LRU against an OrderedDict, and the arm's seek distances against random access."""
from collections import OrderedDict

import numpy as np
import pytest

from mcio import McioError
from mcio.dasd import random_distance_pmf, walk
from mcio.kernels.dasd_walk import _lru_touch

BIG = dict(blocks_per_track=12, tracks_per_cylinder=15, extent_cylinders=3339)


def test_sequential_block_reads_hit_11_of_12_in_track_mode():
    r = walk(**BIG, request_blocks=1, p_sequential=1.0, mdc_mode="track", ssch=2000)
    assert r.mdc_hit_ratio == pytest.approx(11 / 12, abs=1 / r.read_requests)
    assert r.blocks_per_ssch == 12                      # every SSCH is a full-track read
    assert r.requests_per_ssch_pmf[12] > 0.999          # 12 reads between track reads


def test_sequential_block_reads_in_block_mode_or_off_issue_one_ssch_each():
    for mode in ("block", "off"):
        r = walk(**BIG, request_blocks=1, p_sequential=1.0, mdc_mode=mode, ssch=2400)
        assert r.mdc_hit_ratio == 0.0 and r.ssch_per_request == 1.0
        # a cold CU misses on the first block of each track and keeps the track
        assert r.cu_read_miss_ratio == pytest.approx(1 / 12, abs=1 / 2400)


def test_three_block_requests_hit_three_of_four_in_track_mode():
    r = walk(**BIG, request_blocks=3, p_sequential=1.0, mdc_mode="track", ssch=2000)
    assert r.mdc_hit_ratio == pytest.approx(0.75, abs=1 / r.read_requests)


def test_warm_cu_hits_in_proportion_to_residency():
    k = 20_000
    r = walk(**BIG, request_blocks=3, p_sequential=0.0, mdc_mode="off", cu_resident_fraction=0.8, ssch=k)
    # read i misses if its track is not resident (0.2) and none of the i earlier reads touched it:
    # E[miss ratio] = 0.2 * mean_i (1 - 1/T)^i over T = 50,085 tracks
    T = 3339 * 15
    expect = 0.2 * T / k * (1 - (1 - 1 / T) ** k)
    assert abs(r.cu_read_miss_ratio - expect) < 4 * np.sqrt(expect * (1 - expect) / k)


def test_lru_matches_an_ordered_dict():
    cap, n = 7, 30
    rng = np.random.default_rng(3)
    seq = rng.integers(0, n, 3000)
    inq = np.zeros(n, np.bool_)
    prv = np.full(n, -1, np.int64)
    nxt = np.full(n, -1, np.int64)
    hn = np.array([-1, -1, 0], np.int64)
    od = OrderedDict()
    for x in seq:
        x = int(x)
        want = x in od
        if want:
            od.move_to_end(x)
        else:
            od[x] = True
            if len(od) > cap:
                od.popitem(last=False)
        assert _lru_touch(x, cap, inq, prv, nxt, hn) == want
    assert set(np.flatnonzero(inq)) == set(od) and hn[2] == cap


def test_small_mdc_loses_hits_a_large_one_keeps():
    kw = dict(blocks_per_track=12, tracks_per_cylinder=15, extent_cylinders=2, request_blocks=3,
              p_sequential=0.0, mdc_mode="track", ssch=500)
    big = walk(**kw, mdc_capacity_mb=1000.0)
    small = walk(**kw, mdc_capacity_mb=12 * 4096 * 3 / 1e6)          # 3 tracks of 30
    assert big.mdc_hit_ratio > 0.9 and small.mdc_hit_ratio < 0.2


def test_random_access_seek_distances_follow_the_random_pmf():
    cyl = 200
    r = walk(blocks_per_track=12, tracks_per_cylinder=15, extent_cylinders=cyl, request_blocks=12,
             p_sequential=0.0, mdc_mode="off", ssch=20_000, cu_capacity_tracks=1)
    p = random_distance_pmf(cyl)
    d = np.arange(cyl)
    mean, sd = np.dot(p, d), np.sqrt(np.dot(p, d**2) - np.dot(p, d) ** 2)
    n = r.read_ssch * r.cu_read_miss_ratio
    assert abs(np.dot(r.distance_pmf, d) - mean) < 5 * sd / np.sqrt(n)


def test_bad_walk_inputs():
    with pytest.raises(McioError, match="mdc_mode"):
        walk(**BIG, request_blocks=1, p_sequential=1.0, mdc_mode="full")
    with pytest.raises(McioError, match="p_sequential"):
        walk(**BIG, request_blocks=1, p_sequential=1.5)


@pytest.mark.parametrize("p_seq", [0.0, 0.6, 1.0])
def test_uncached_walk_distances_match_the_patterns_stationary_pmf(p_seq):
    from mcio.dasd import AccessPattern
    pat = AccessPattern(p_seq, 40, 3)
    n = 30_000
    r = walk(blocks_per_track=12, tracks_per_cylinder=15, **pat.walk_kwargs(), mdc_mode="off",
             cu_capacity_tracks=0, ssch=n)
    assert r.cu_read_miss_ratio == 1.0                  # no CU cache: every read goes to the media
    want = pat.distance_pmf(180)
    got = r.distance_pmf
    # every cell within 5 binomial standard errors, plus the first request's distance from 0 and
    # the scan's wrap-arounds from the span's end to its start (a full-span jump each)
    wraps = p_seq * n * 3 / (40 * 180)
    assert np.all(np.abs(got - want) <= 5 * np.sqrt(want * (1 - want) / n) + (2 + wraps) / n)


def test_walk_by_requests_runs_exactly_that_many():
    r = walk(**BIG, request_blocks=3, p_sequential=0.5, mdc_mode="track", requests=1234)
    assert r.requests == 1234 and r.read_ssch < 1234
