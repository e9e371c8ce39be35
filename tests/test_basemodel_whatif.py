"""What-ifs of a base model (mcio.basemodel.whatif, ``mcio base --replay ... --generation / --growth /
--zhpf / --add-channels -o``): the written spec's MP work is the fitted figure x the catalogue's
ratio exactly; growth scales the replayed rate by its factor; the channels' busy falls by the
catalogue's ratio (within the CIs); each bad value is one McioError naming the option."""
import tomllib
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from scipy.stats import t as student_t

from mcio.basemodel import build, observe, select_intervals
from mcio.basemodel.replay import interval_model, interval_rates
from mcio.basemodel.whatif import apply
from mcio.batch import load_spec
from mcio.cli import main
from mcio.engine import simulate
from mcio.errors import McioError
from mcio.measured import synthetic, tidy
from mcio.model.hardware import CATALOGUE, channel_parameters

SEED = Path(__file__).parent / "data" / "measured" / "esamon_seed002.txt"


@pytest.fixture(scope="module")
def day():
    return synthetic.generate(synthetic.day_curve(2), interval_s=1.0, seed=5, config=synthetic.small_config(16))


@pytest.fixture(scope="module")
def base(day):
    obs = observe(day)
    iv = select_intervals(obs, "all")
    b = build(obs, iv)
    return obs, iv, b, b.to_toml()


def _ratio(new, old, k="mp_us_per_io_ccw"):
    return channel_parameters(new)[k].value / channel_parameters(old)[k].value


def test_generation_scales_the_fitted_mp_work_by_the_catalogue_ratio_exactly(base):
    _o, _i, _b, text = base
    old = {c["name"]: c for c in tomllib.loads(text)["topology"]["channel"]}
    new_text, changes = apply(text, generations=["16SA"])
    new = tomllib.loads(new_text)
    assert {c["generation"] for c in new["topology"]["channel"]} == {"16SA"}
    for c in new["topology"]["channel"]:
        o = old[c["name"]]
        for k in ("mp_us_per_io_ccw", "mp_us_per_io_zhpf"):
            assert c[k] == o[k] * _ratio("16SA", o["generation"], k), (c["name"], k)
    assert "derived: fitted x catalogue ratio" in new_text
    assert new_text.splitlines()[0].startswith("# what-if of")
    assert [ln for ln in text.splitlines() if ln.startswith("#:")] == [
        ln for ln in new_text.splitlines() if ln.startswith("#:")]       # the base's estimates kept
    assert len(changes) == 2                                              # the 4s and the 8s
    # a CHPID list moves only those; the rest keep the base's figures
    part = {c["name"]: c for c in tomllib.loads(apply(text, generations=["40,41=8S"])[0])["topology"]["channel"]}
    assert part["40"]["generation"] == part["41"]["generation"] == "8S"
    assert part["44"] == old["44"] and part["50"] == old["50"]
    assert part["40"]["mp_us_per_io_ccw"] == old["40"]["mp_us_per_io_ccw"] * _ratio("8S", "4")


def test_bad_values_are_one_error_each(base):
    text = base[3]
    with pytest.raises(McioError) as e:
        apply(text, generations=["17S"])
    assert e.value.field == "--generation" and all(repr(g) in e.value.allowed for g in CATALOGUE)
    for kw, field in ((dict(generations=["99=16SA"]), "--generation"), (dict(growth_pct="-100"), "--growth"),
                      (dict(growth_pct="lots"), "--growth"), (dict(zhpf_share="1.5"), "--zhpf"),
                      (dict(add=["0"]), "--add-channels"), (dict(add=["LCUX=1"]), "--add-channels"),
                      (dict(add=["1"]), "--add-channels")):     # (the synthetic path groups hold 8 already)
        with pytest.raises(McioError) as e:
            apply(text, **kw)
        assert e.value.field == field, kw
    r = CliRunner().invoke(main, ["base", str(SEED), "--replay", str(SEED), "--generation", "fex99", "--no-compare"])
    assert r.exit_code == 2 and "'16SA'" in r.output


def _simulate(txt, rates, ios=20_000, reps=3):
    return simulate(interval_model(load_spec(txt).point_model(0), rates), ios=ios, replications=reps, seed=1)


def _rel_ci(x):
    x = np.asarray(x, float)
    return student_t.ppf(0.995, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x)) / x.mean()


def test_growth_and_generation_on_a_replayed_interval(base):
    """Growth: the replayed model's rate is x 1.4 exactly, the simulated one within its 99 % CI.
    Generation: each channel's busy (its MP's) x its catalogue ratio, within the 99 % CIs."""
    obs, iv, b, text = base
    rates = interval_rates(obs, b.workload_lcu).loc[iv[-1]].to_dict()
    grown = apply(text, growth_pct=40)[0]
    m0 = interval_model(load_spec(text).point_model(0), rates)
    m1 = interval_model(load_spec(grown).point_model(0), rates)
    assert m1.workload["rate_iops"] == pytest.approx(1.4 * m0.workload["rate_iops"], rel=1e-12)
    d0, d1 = _simulate(text, rates), _simulate(grown, rates)
    x0, x1 = d0["throughput_iops"].values, d1["throughput_iops"].values
    tol = np.hypot(_rel_ci(x0), _rel_ci(x1))
    assert abs(x1.mean() / x0.mean() / 1.4 - 1) < tol + 1e-9
    dg = _simulate(apply(text, generations=["16SA"])[0], rates)
    gens = {c["name"]: c["generation"] for c in tomllib.loads(text)["topology"]["channel"]}
    for j, c in enumerate(d0["chpid"].values):
        b0, b1 = d0["channel_busy"].values[:, j], dg["channel_busy"].values[:, j]
        got = b1.mean() / b0.mean() / _ratio("16SA", gens[str(c)])
        assert abs(got - 1) < np.hypot(_rel_ci(b0), _rel_ci(b1)), (c, got)
    r = {"4": _ratio("16SA", "4"), "8": _ratio("16SA", "8")}
    assert r["4"] < 0.2 and r["8"] < 0.2          # (so that a busy left unscaled fails above)


def test_cli_replay_with_generation_writes_a_spec_for_compare(day, base, tmp_path):
    text = base[3]
    (tmp_path / "base.toml").write_text(text)
    tidy.write(day, tmp_path / "day.csv")
    out = tmp_path / "whatif.toml"
    r = CliRunner().invoke(main, ["base", str(tmp_path / "day.csv"), "--replay", str(tmp_path / "base.toml"),
                                  "--generation", "16SA", "--growth", "40", "--zhpf", "1",
                                  "--set", "channels.mp_start_fraction=0.5", "-o", str(out), "--store",
                                  str(tmp_path / "r.nc"), "--ios", "4000", "--replications", "2"])
    assert r.exit_code == 0, r.output
    w = tomllib.loads(out.read_text())
    assert w["topology"]["load_scale"] == 1.4 and w["channels"]["zhpf_share"] == 1.0
    assert "--set channels.mp_start_fraction" in out.read_text()
    load_spec(str(out)).point_model(0)                       # mcio compare base.toml whatif.toml runs it
    import xarray as xr
    with xr.open_dataset(tmp_path / "r.nc") as ds:
        busy = ds["model_channel_busy_pct"].values / ds["measured_channel_busy_pct"].values
        rate = ds["model_ssch_per_s"].values / ds["measured_ssch_per_s"].values
    # the mean channel busy x 1.4 (growth) x the 4s' and 8s' ratios (mixed), z/HPF below command mode
    assert np.all(busy < 1.4 * _ratio("16SA", "8") * 1.05) and np.all(busy > 1.4 * _ratio("16SA", "4") / 2.2 / 1.05)
    assert np.allclose(rate, 1.4, rtol=0.03)
    r = CliRunner().invoke(main, ["base", str(tmp_path / "day.csv"), "--growth", "40", "--no-compare"])
    assert r.exit_code == 2 and "--replay" in r.output


def test_add_channels_and_zhpf_on_the_esamon_base(tmp_path):
    """The seed-002 base has 4 assumed channels in one path group: 2 more are copies of the last."""
    r = CliRunner().invoke(main, ["base", str(SEED), "-o", str(tmp_path / "b.toml"), "--no-compare"])
    assert r.exit_code == 0, r.output
    text = (tmp_path / "b.toml").read_text()
    new, changes = apply(text, add=["2"], zhpf_share="0.5")
    d, d0 = tomllib.loads(new), tomllib.loads(text)
    chans = d["topology"]["channel"]
    assert len(chans) == len(d0["topology"]["channel"]) + 2
    for lc in (x for cu in d["topology"]["control_unit"] for x in cu["lcu"]):
        assert len(lc["channels"]) == 6 and set(lc["channels"]) == {c["name"] for c in chans}
    assert {k: v for k, v in chans[-1].items() if k != "name"} == {k: v for k, v in chans[3].items() if k != "name"}
    assert d["channels"]["zhpf_share"] == 0.5 and "no measured basis" in new
    m = load_spec(new).point_model(0)
    assert m.channels["count"] == 6
    with pytest.raises(McioError, match="at most 8"):
        apply(text, add=["5"])


def test_added_channels_take_the_next_free_chpids(base):
    """LCU 0010's path group cut to 4 channels (and 0020's, which shares it): 2 more are the next
    unused hexadecimal CHPIDs after its last (45: 46 and 47 are used), in both LCUs' groups."""
    text = base[3].replace('channels = ["40", "41", "44", "45", "50", "51", "54", "55"]', 'channels = ["40", "41", "44", "45"]')
    new, changes = apply(text, add=["0010=2"])
    d = tomllib.loads(new)
    groups = {lc["name"]: lc["channels"] for cu in d["topology"]["control_unit"] for lc in cu["lcu"]}
    assert groups["0010"] == groups["0020"] == ["40", "41", "44", "45", "48", "49"]
    assert groups["0011"] == ["42", "43", "46", "47", "52", "53", "56", "57"]
    assert [c["name"] for c in d["topology"]["channel"]][-2:] == ["48", "49"]
    assert changes == ["LCU 0010, 0020: path group + 48, 49 (copies of channel 45)"]


def test_generation_on_a_planners_topology_with_cards_and_groups():
    """The shipped two-subsystem example (channel groups on Express4 / Express8 cards): a group
    moves by its name, its card takes the new generation's published limits (none for 16SA: the
    Express4 card's 1,300 MB/s removed); a card half moved is refused; the result runs."""
    ex = Path(__file__).parent.parent / "examples" / "topology" / "two_subsystems.toml"
    text = ex.read_text()
    d0 = tomllib.loads(text)
    new, _c = apply(text, generations=["16SA"], growth_pct="10")
    d = tomllib.loads(new)
    assert {c.get("generation") for c in d["topology"]["channel"]} == {"16SA"}
    assert all("max_mb_s" not in cd for cd in d["topology"]["card"])
    assert any("max_mb_s" in cd for cd in d0["topology"]["card"])
    assert d["topology"]["load_scale"] == d0["topology"].get("load_scale", 1.0) * 1.1
    load_spec(new).point_model(0)
    old4 = tomllib.loads(apply(text, generations=["4"])[0])      # the Express8 cards take Express4's limits
    assert [(cd["max_read_mb_s"], cd["max_write_mb_s"], cd["max_mb_s"]) for cd in old4["topology"]["card"]] == [
        (1230.0, 1150.0, 1300.0)] * 4
    with pytest.raises(McioError, match="list all its channels or its name"):
        apply(text, generations=["40=16SA"])                      # part of group fex4a
    two = text.replace('chpids = ["44", "45", "46", "47"]\ngeneration = "4"\ncard = "C2"',
                       'chpids = ["44", "45", "46", "47"]\ngeneration = "4"\ncard = "C1"')
    assert two != text
    with pytest.raises(McioError, match="holds one generation"):
        apply(two, generations=["fex4a=16SA"])                    # fex4b on the same card stays
