"""``mcio base`` end to end from real formats: mcio's synthetic two-subsystem day (known
parameters) written as RMF Postprocessor text (four report files, as RMF prints them) and as an
SMF dump (74.1, 73, 78.3, 74.5; ``smf_write.write_measured``), read back by the readers and made
into a base model. From either the ten known figures are recovered within their CIs. An SMF dump
whose 73 records carry no CPMF / extended data and whose 74.1 sections no CMR (an older release, or
CPMF off) identifies the host adapter (78.3's paths) and the back end, and states the rest (MP work
by generation and mode, sizes, generation) as unknown, not invented. Also: channel generation from
G / SPEED, PAV from the device report. Small day: 6 intervals of 1 s, 16 devices per LCU."""
import numpy as np
import pytest
from click.testing import CliRunner
from scipy.stats import t as student_t

from mcio.basemodel import build, observe, select_intervals
from mcio.basemodel.build import channel_generation
from mcio.cli import main
from mcio.measured import smf_write, synthetic
from mcio.measured.read import read
from mcio.measured.table import Measured

N = 6


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("formats")
    day = synthetic.generate(synthetic.day_curve(N), interval_s=1.0, seed=5, config=synthetic.small_config(16))
    rmf = synthetic.write_rmf(day, d)
    smf = d / "day.smf"
    smf_write.write_measured(day, smf)
    # the same day as a dump without what older releases / CPMF off leave out: no CPMF words,
    # extended sections, SMF73GEN / SPD (channel rows: partition busy only), no SMF74CMR
    fr = dict(day.frames)
    ch = fr["channel"].copy()
    for col in ("util_total_pct", "bus_pct", "read_mb_s_part", "read_mb_s_total", "write_mb_s_part",
                "write_mb_s_total", "ficon_ops_per_s", "ficon_active", "ficon_defer_per_s", "zhpf_ops_per_s",
                "zhpf_active", "zhpf_defer_per_s"):
        ch[col] = np.nan
    ch["generation"] = ch["speed"] = ""
    dev = fr["device"].copy()
    dev["cmr_ms"] = np.nan
    bare = d / "bare.smf"
    smf_write.write_measured(Measured({**fr, "channel": ch, "device": dev}, day.sources, {}), bare)
    return day, [str(p) for p in rmf], str(smf), str(bare)


def _base(paths):
    obs = observe(read(paths))
    return obs, build(obs, select_intervals(obs, "all"))


def _within(e, true, q=0.995):
    half = student_t.ppf(q, len(e.per_interval) - 1) * e.stderr
    return abs(e.value - true) <= half, half


@pytest.mark.parametrize("fmt", ["rmf", "smf"])
def test_reports_and_dump_recover_the_known_figures(files, fmt):
    """Device + channel + I/O queuing + cache report files given together, or the SMF dump: the 10
    known figures each within its 99 % CI (t over 6 intervals); the CIs narrow enough to catch a
    wrong formula (< 4 %; the back end's, from ~100-400 misses an interval, < 25 %). Rounding to
    RMF's printed decimals, or to SMF's counts and short floats, does not bias them."""
    _day, rmf, smf, _bare = files
    obs, b = _base(rmf if fmt == "rmf" else [smf])
    k = synthetic.KNOWN
    known = {f"channel_generation.{g}.mp_us_per_io_ccw": v for g, v in k["mp_us_per_io_ccw"].items()}
    known |= {f"lcu.{lc}.ha_service_us": v for lc, v in k["ha_service_us"].items()}
    known |= {f"lcu.{lc}.backend_service_ms": v for lc, v in k["backend_service_ms"].items()}
    for name, true in known.items():
        e = b.estimates[name]
        ok, half = _within(e, true)
        assert e.kind == "fitted", name
        assert half / true < (0.25 if "backend" in name else 0.04), (name, half)
        assert ok, (name, e.value, half, true)
    # what the reports state is used: generations from G (SMF73GEN), path groups from CHPID TAKEN,
    # zHPF share from the operation counts, read/write from the cache report, CMR from the devices
    assert (obs.lcu["cmr_from"] == "devices").all()
    chans = {c["name"]: c["generation"] for c in b.config["topology"]["channel"]}
    assert chans["40"] == "4" and chans["57"] == "8"
    assert "measured" in b.notes["channel.50.generation"]
    for cu in b.config["topology"]["control_unit"]:
        lc = cu["lcu"][0]
        assert lc["channels"] == synthetic.LCUS[lc["name"]][2]
    assert b.estimates["channels.zhpf_share"].kind == "measured"
    assert b.estimates["channels.zhpf_share"].value == pytest.approx(synthetic.ZHPF_SHARE, abs=1e-3)
    cfg = synthetic.small_config(16)
    mix = synthetic._lcu_mix(cfg, {lc: 16 for lc in synthetic.LCUS})
    for w in b.config["topology"]["workload"]:
        rs, rmiss, _w = mix[w["lcus"][0]]
        assert w["io"][0]["write_share"] == pytest.approx(1 - rs, abs=0.02), w["name"]
        assert w["io"][0]["miss_ratio"] == pytest.approx(rmiss, abs=0.03), w["name"]
    for u in ("zhpf_share", "sizes", "channel generation"):
        assert u not in b.unknowns


def test_smf_dump_without_cpmf_recovers_what_it_identifies_and_states_the_rest(files):
    """A dump without CPMF / extended channel data, SMF73GEN / SPD and SMF74CMR: host adapter (CMR
    from 78.3's paths) and back end (hit ratios from 74.5's device sections summed per LCU) within
    their 99 % CIs; the MP work by generation and mode, the transfer size and the generation are not
    identified and the base says so."""
    day, _rmf, _smf, bare = files
    obs, b = _base([bare])
    assert (obs.lcu["cmr_from"] == "paths").all()
    for lc, true in synthetic.KNOWN["ha_service_us"].items():
        e = b.estimates[f"lcu.{lc}.ha_service_us"]
        assert "paths" in e.how
        assert _within(e, true)[0], (lc, e.value, true)
    for lc, true in synthetic.KNOWN["backend_service_ms"].items():
        e = b.estimates[f"lcu.{lc}.backend_service_ms"]
        assert e.kind == "fitted" and _within(e, true)[0], (lc, e.value, true)
    for u in ("zhpf_share", "sizes", "channel generation"):
        assert u in b.unknowns, u
    assert b.estimates["channels.zhpf_share"].kind == "assumed"
    (g, e), = [(k, v) for k, v in b.estimates.items() if k.startswith("channel_generation.")]
    assert g == "channel_generation.?.mp_us_per_io_ccw" and "not separable" in e.how
    # the fitted figure is the operations' mean over both generations and modes: between the
    # known ones at the day's z/HPF share, not the command-mode 80 or 48 us
    mix = (1 - synthetic.ZHPF_SHARE) + synthetic.ZHPF_SHARE / synthetic.ZHPF_RATIO
    assert 48.0 * mix < e.value < 80.0 * mix
    assert all(b.estimates[f"lcu.{lc}.kb"].kind == "assumed" for lc in synthetic.LCUS)
    # the link rate then moves the assumed 4 KB in connect less the MP's end work (which the model
    # counts in connect): the mixed MP work x 0.5 is ~2/3 of the measured connect here
    ch = {c["name"]: c for c in b.config["topology"]["channel"]}
    assert "less the MP's end work" in b.notes["channel.40.link_mb_s"]
    conn = float(np.average(obs.lcu["conn_ms"], weights=obs.lcu["ssch_per_s"]))
    assert ch["40"]["link_mb_s"] > 1.5 * 4.0 / conn


def test_cli_on_report_files_and_on_the_dump(files, tmp_path):
    _day, rmf, smf, bare = files
    out = tmp_path / "base.toml"
    r = CliRunner().invoke(main, ["base", *rmf, "--intervals", "all", "--no-compare", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert "channel_generation.4.mp_us_per_io_ccw" in r.output and out.exists()
    r = CliRunner().invoke(main, ["base", smf, "--no-compare"])
    assert r.exit_code == 0, r.output
    assert "channel_generation.4.mp_us_per_io_ccw" in r.output and "zhpf_share: no FICON" not in r.output
    r = CliRunner().invoke(main, ["base", bare, "--no-compare"])
    assert r.exit_code == 0, r.output
    assert "zhpf_share: no FICON / zHPF operation counts" in r.output
    assert "channel generation" in r.output
    # the dump's peak interval replayed on the base built from the reports, one line per interval
    r = CliRunner().invoke(main, ["base", smf, "--replay", str(out), "--intervals", "peak-iops", "--wide",
                                  "--ios", "3000", "--replications", "2"])
    assert r.exit_code == 0, r.output
    line, = [ln for ln in r.output.splitlines() if ln.startswith("2026-12-01 ")]
    cells = line.replace("(", " ").replace(")", " ").split()
    rate_model, rate_measured = float(cells[2]), float(cells[3])
    assert abs(rate_model / rate_measured - 1) < 0.05


def test_channel_generation_from_g_and_speed():
    assert channel_generation("8", "")[0] == "8"
    assert channel_generation("8", "8G")[0] == "8"
    g, how = channel_generation("19", "16G")           # RMF's G is a code, not a catalogue name
    assert g == "16S" and "16S+" in how and "derived" in how
    assert channel_generation("8", "16G")[0] == "16S"  # G disagrees with the link rate: SPEED wins
    assert channel_generation("", "32G")[0] == "32S"
    assert channel_generation("", "")[0] is None
    assert channel_generation("7", "")[0] is None


def test_pav_from_the_device_report(files):
    """Static PAV '4' -> 3 aliases per device, measured; HyperPAV '1.25H' with HPAV MAX 6 -> a pool
    of at least max(6, 0.25 x 16 = 4) aliases, hyperpav mode (one count for every device: the
    engine's); the other LCUs state none: said."""
    day = files[0]
    obs = observe(day)
    b = build(obs, select_intervals(obs, "peak-iops"))
    assert b.config["devices"]["aliases"] == 3 and "alias_mode" not in b.config["devices"]
    assert b.notes["devices.aliases"].startswith("measured: the device report's PAV column")
    fr = dict(day.frames)
    dev = fr["device"].copy()
    dev["pav"] = np.where(dev["lcu"] == "0010", "1.25H", "")
    lcu = fr["lcu"].copy()
    lcu["hpav_max"] = np.where(lcu["lcu"] == "0010", 6.0, np.nan)
    obs = observe(Measured({**fr, "device": dev, "lcu": lcu}, day.sources, {}))
    b = build(obs, select_intervals(obs, "peak-iops"))
    assert b.config["devices"]["aliases"] == 6
    assert b.config["devices"]["alias_mode"] == "hyperpav"
    assert "alias mode" in b.unknowns
    b.model()
