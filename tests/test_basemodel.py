"""mcio.basemodel and ``mcio base``: the known parameters of mcio's synthetic two-subsystem day
recovered within their CIs; seed 002's ESAMON screen made into a runnable base; the spec's
provenance comments and machine-readable estimates; replay with a change; bad input."""
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from scipy.stats import t as student_t

from mcio import Model
from mcio.basemodel import build, observe, select_intervals
from mcio.basemodel.spec import read_estimates
from mcio.cli import main
from mcio.errors import McioError
from mcio.measured import esamon, synthetic, tidy

SEED = Path(__file__).parent / "data" / "measured" / "esamon_seed002.txt"


@pytest.fixture(scope="module")
def day():
    return synthetic.generate(synthetic.day_curve(8), interval_s=2.0, seed=5)


@pytest.fixture(scope="module")
def base(day):
    obs = observe(day)
    return obs, build(obs, select_intervals(obs, "all"))


def _known():
    k = synthetic.KNOWN
    out = {f"channel_generation.{g}.mp_us_per_io_ccw": v for g, v in k["mp_us_per_io_ccw"].items()}
    for lc, v in k["ha_service_us"].items():
        out[f"lcu.{lc}.ha_service_us"] = v
    for lc, v in k["backend_service_ms"].items():
        out[f"lcu.{lc}.backend_service_ms"] = v
    return out


def test_known_parameters_recovered_within_their_cis(base):
    """Each of the 10 known figures within its 99 % CI (t over the 8 intervals: ten at once stay
    inside with ~90 % probability; the seed is fixed), and each CI narrow enough to test (< 3 %; the
    back end's, from ~1,000 misses per interval, < 12 %), so that a wrong formula (the wait not removed, writes counted as misses, the z/HPF ratio) fails."""
    _obs, b = base
    tq = student_t.ppf(0.995, len(b.intervals) - 1)
    for name, true in _known().items():
        e = b.estimates[name]
        half = tq * e.stderr
        assert e.kind == "fitted", name
        assert half / true < (0.12 if "backend" in name else 0.03), (name, e.value, half)
        assert abs(e.value - true) <= half, (name, e.value, half, true)


def test_sizes_derived_from_the_path_groups_data_rate(base):
    """KB per I/O: each path group's MB/s split over its two LCUs by connect time less the MP's end
    work; the same-size LCUs of one group within 2 %, the mixed group's (4 KB with 4-56 KB) within
    5 % (connect is not quite linear in size when transfers share the links)."""
    _obs, b = base
    for lc, true in synthetic.lcu_kb().items():
        tol = 0.02 if lc in ("0011", "0021") else 0.05
        assert b.estimates[f"lcu.{lc}.kb"].value == pytest.approx(true, rel=tol), lc


def test_base_is_runnable_and_commented(base, tmp_path):
    obs, b = base
    text = b.to_toml()
    p = tmp_path / "base.toml"
    p.write_text(text)
    m = Model.from_toml(p)
    assert m.get("topology.load_scale") == 1.0
    d = m.to_dict()["topology"]
    assert [lc["name"] for cu in d["control_unit"] for lc in cu["lcu"]] == ["0010", "0011", "0020", "0021"]
    assert sorted(c["name"] for c in d["channel"]) == sorted(f"{x}" for x in
                                                               ["40", "41", "42", "43", "44", "45", "46", "47",
                                                                "50", "51", "52", "53", "54", "55", "56", "57"])
    # every value line of the configuration carries a provenance comment, except names, lists of
    # names and the fixed hotset fraction
    for ln in text.splitlines():
        s = ln.strip()
        if "=" in s and not s.startswith("#") and not s.startswith(("name =", "lcus =", "hot_fraction =", "skew =")):
            assert "#" in s and any(k in s for k in ("measured", "derived", "fitted", "assumed", "what-if")), s
    est = read_estimates(p)
    assert est["workload_lcu"] == {"W0010": "0010", "W0011": "0011", "W0020": "0020", "W0021": "0021"}
    names = est["covariance_names"]
    cov = np.array(est["covariance"])
    assert cov.shape == (len(names), len(names)) and np.allclose(cov, cov.T)
    i = names.index("lcu.0010.ha_service_us")
    assert np.sqrt(cov[i, i]) == pytest.approx(b.estimates["lcu.0010.ha_service_us"].stderr, rel=1e-9)
    assert est["estimates"]["lcu.0010.ha_service_us"]["kind"] == "fitted"


def test_esamon_base():
    obs = observe(esamon.read(SEED))
    iv = select_intervals(obs, "peak-iops")
    assert [str(x) for x in iv] == [f"{esamon.YEAR}-05-04 11:59:23"]   # 217 SSCH/s over 3 devices
    with pytest.raises(McioError, match="peak-mbs"):
        select_intervals(obs, "peak-mbs")
    assert len(select_intervals(obs, "12:40-12:45")) == 4
    with pytest.raises(McioError, match="selects no interval"):
        select_intervals(obs, "01:00-02:00")
    with pytest.raises(McioError, match="allowed"):
        select_intervals(obs, "busiest")
    b = build(obs, iv)
    m = b.model()
    d = m.to_dict()["topology"]
    assert d["control_unit"][0]["lcu"][0]["devices"] == 5
    assert d["workload"][0]["rate_iops"] == pytest.approx(217.3)
    assert "channels" in b.unknowns and "ha_servers" in b.unknowns
    assert b.estimates["lcu.NOLCU.ha_service_us"].kind == "derived"
    assert b.estimates["lcu.NOLCU.backend_service_ms"].kind == "assumed"


def test_cli_build_replay_store(day, tmp_path):
    src = tmp_path / "day.csv"
    tidy.write(day, src)
    out = tmp_path / "base.toml"
    r = CliRunner().invoke(main, ["base", str(src), "--intervals", "all", "-o", str(out), "--no-compare"])
    assert r.exit_code == 0, r.output
    assert "lcu.0021.backend_service_ms" in r.output and out.exists()
    nc = tmp_path / "replay.nc"
    r = CliRunner().invoke(main, ["base", str(src), "--replay", str(out), "--intervals", "00:00-03:00",
                                  "--set", "topology.load_scale=1.4", "--ios", "5000", "--replications", "2",
                                  "--store", str(nc)])
    assert r.exit_code == 0, r.output
    assert "replay of" in r.output and "load_scale=1.4" in r.output
    import xarray as xr
    with xr.open_dataset(nc) as ds:
        assert ds.sizes["interval"] == 2
        # +40 % load on the measured rates: the model's I/O rate is 1.4 x the measured one
        ratio = ds["model_ssch_per_s"].values / ds["measured_ssch_per_s"].values
        assert np.allclose(ratio, 1.4, rtol=0.05)


def test_cli_esamon_and_bad_input(tmp_path):
    r = CliRunner().invoke(main, ["base", str(SEED), "--ios", "4000", "--replications", "2"])
    assert r.exit_code == 0, r.output
    assert "base model vs measured" in r.output and "response ms" in r.output
    bad = tmp_path / "x.txt"
    bad.write_text("not a report\n")
    r = CliRunner().invoke(main, ["base", str(bad)])
    assert r.exit_code == 2 and "is no measured-data format" in r.output
    r = CliRunner().invoke(main, ["base", str(SEED), "--intervals", "busiest"])
    assert r.exit_code == 2 and "peak-iops" in r.output


def test_one_interval_has_its_sampling_error(base):
    """Built from the peak interval alone, each fitted figure carries the sampling error of the
    I/Os (misses) that interval counted: the known values within 4 of them."""
    obs, _b = base
    b = build(obs, select_intervals(obs, "peak-iops"))
    assert len(b.intervals) == 1
    for name, true in _known().items():
        e = b.estimates[name]
        assert np.isfinite(e.stderr) and e.stderr / true < 0.05, (name, e.stderr)
        assert abs(e.value - true) <= 4 * e.stderr, (name, e.value, e.stderr, true)
        assert "sampling" in e.stderr_source


def test_channels_no_lcu_uses_and_missing_paths(day):
    """A channel of the report that no path group uses (an FCP or CTC channel) stays out of the
    base (a topology refuses it); without a path report, the first 8 FICON channels are assumed."""
    import pandas as pd
    from mcio.measured.table import Measured
    ch = day["channel"]
    extra = ch[ch["chpid"] == "40"].assign(chpid="60", chpid_type="FCP")
    m = Measured({**day.frames, "channel": pd.concat([ch, extra], ignore_index=True)})
    obs = observe(m)
    b = build(obs, select_intervals(obs, "peak-iops"))
    names = [c["name"] for c in b.config["topology"]["channel"]]
    assert "60" not in names and len(names) == 16
    b.model()
    m = Measured({k: v for k, v in day.frames.items() if k != "lcu_path"})
    obs = observe(m)
    b = build(obs, select_intervals(obs, "peak-iops"))
    assert "paths" in b.unknowns
    assert all(lc["channels"] == ["40", "41", "42", "43", "44", "45", "46", "47"]
               for cu in b.config["topology"]["control_unit"] for lc in cu["lcu"])
    b.model()
