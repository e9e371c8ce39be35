"""The dasd-mdc scenario (seed 002): its contract, the mechanism of each phase, and the seed's
figures at a small run size."""
import pytest
from click.testing import CliRunner

from mcio.cli import main
from mcio.scenarios import get_scenario
from mcio.scenarios.base import PROVENANCE, RunSize
from mcio.scenarios.dasd.measured import phase_mean

SCN = get_scenario("dasd-mdc")
RUN = RunSize(ios=6000, replications=3, seed=2)


def test_every_parameter_has_unit_provenance_and_reason():
    for p in SCN.params:
        assert p.unit and p.provenance in PROVENANCE and len(p.reason) > 20, p.name


def test_measured_figures_are_the_seed_rows():
    assert phase_mean("phase1_mdc_track", "rate_ssch_s") > 0
    f = {x.name: x for x in SCN.figures}
    assert f["phase1: connect"].measured == pytest.approx(10.68, abs=0.01)
    assert f["phase3: disconnect"].measured == pytest.approx(1.54, abs=0.01)


def test_track_mode_connect_is_a_full_track_at_media_speed():
    p = SCN.resolve(None, "phase1_mdc_track")
    _, sm, _ = SCN.service(p)
    full_track = 12 * 4096 / (p["media_mb_s"] * 1000) + 12 * p["ccw_protocol_us"] / 1000
    assert sm.components["read_miss"]["connect_ms"] == pytest.approx(full_track)
    assert all(c["records"] == 12 and c["kb"] == pytest.approx(49.152) for c in sm.io)


@pytest.mark.parametrize("variant", ["phase1_mdc_track", "phase2_mdc_off", "phase3_mdc_track_again",
                                     "phase4_alt_linux_mdc_off"])
def test_phase_figures_within_tolerance(variant):
    rows = SCN.reproduce(RUN, [variant])
    bad = [(r.figure, r.measured, r.model) for r in rows if r.within is False]
    assert not bad


def test_mechanisms_between_phases():
    run = RunSize(ios=4000, replications=2, seed=3)
    ev = {v: SCN.evaluate(v, run) for v in ("phase1_mdc_track", "phase2_mdc_off", "phase3_mdc_track_again",
                                             "whatif_mdc_block", "whatif_staging_cu")}
    one, off, again = ev["phase1_mdc_track"], ev["phase2_mdc_off"], ev["phase3_mdc_track_again"]
    # MDC off: no full-track reads (short connect), many more SSCHs
    assert off["connect_ms"][0] < 0.35 * one["connect_ms"][0]
    assert off["throughput_iops"][0] > 2 * one["throughput_iops"][0]
    # MDC on again: the CU cache holds the tracks, disconnect drops; connect stays a track at media speed
    assert again["disconnect_ms"][0] < 0.2 * one["disconnect_ms"][0]
    assert again["connect_ms"][0] == pytest.approx(one["connect_ms"][0])
    # block mode: the guest's reads, not tracks; staging: longer disconnect, short connect
    assert ev["whatif_mdc_block"]["app_read_rate"][0] > one["app_read_rate"][0]
    st = ev["whatif_staging_cu"]
    assert st["disconnect_ms"][0] > one["disconnect_ms"][0] and st["connect_ms"][0] < 0.3 * one["connect_ms"][0]


def test_reproduce_cli_runs_a_variant():
    r = CliRunner().invoke(main, ["reproduce", "dasd-mdc", "--variant", "phase1_mdc_track", "--ios", "4000",
                                  "--replications", "2"])
    assert r.exit_code == 0, r.output
    assert "phase1: connect" in r.output
    line = next(ln for ln in r.output.splitlines() if ln.startswith("phase1: connect"))
    assert line.split()[3] == "predicted"          # the kind beside the figure (a track at the media rate)
    assert r.output.splitlines()[-1].startswith("summary: 12 figures (2 fitted, 6 identity, 4 predicted); "
                                                "8 of 8 judged within tolerance; predicted: 2 of 8 judged")


def test_seed_rows_obey_esamon_busy_definition():
    """%Dev Busy = rate x service in every row, to the display's rounding (rate and service to 0.1,
    busy to 0.1 %): the definition the model's device_busy_zvm is compared with."""
    from mcio.scenarios.dasd.measured import COLUMNS, ROWS
    for row in ROWS:
        r = dict(zip(COLUMNS, row))
        err = abs(r["busy_pct"] - r["rate_ssch_s"] * r["service_ms"] / 10.0)
        bound = 0.05 + (0.05 * r["service_ms"] + 0.05 * r["rate_ssch_s"] + 0.0025) / 10.0
        assert err <= bound, row
