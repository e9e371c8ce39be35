"""Seed 000's "device busy ~100 % on every used one": device busy per FCTC connection under both
definitions, RMF ((disconnect + connect) / interval) and z/VM ((pend + disconnect + connect) /
interval), each labelled in the Dataset simulate_link returns.

In the model every used device holds exactly one I/O at all times (the sender keeps one write
outstanding, no think time, so no IOSQ): z/VM busy is 1 up to the measurement window's edges,
while RMF busy leaves out the pend (channel-MP queue and work) and is well under 1.
"""
import pytest
from click.testing import CliRunner

from mcio.engine import simulate
from mcio.scenarios.isfc import BUSY_DEFINITIONS, DEFAULT_PARAMS, IsfcLink, simulate_link, straight_layout, summary
from mcio.cli.isfc import isfc_group

SYSTEMS = ("LPAR1", "LPAR2")
RUN = dict(ios_per_device=5_000, replications=3)


def _links():
    return {"straight_3x3": (straight_layout(SYSTEMS, ["3C", "3D", "3E"], 9), "LPAR2"),
            "mixed_kinds": (IsfcLink.from_ranges(SYSTEMS, {"3C": "D000-D003", "3D": "D004-D007"}, shared=["3C"]),
                            "LPAR1")}


@pytest.fixture(scope="module")
def runs():
    """Per link: the ISFC Dataset and the engine Datasets it was made of (one per channel kind)."""
    out = {}
    for i, (name, (link, sender)) in enumerate(_links().items()):
        seen = []

        def spy(model, **kw):
            seen.append((model, simulate(model, **kw)))
            return seen[-1][1]
        out[name] = (simulate_link(link, sender, seed=20 + i, simulate_fn=spy, **RUN), seen)
    return out


@pytest.mark.parametrize("name", ["straight_3x3", "mixed_kinds"])
def test_used_connections_are_zvm_busy_near_100_percent(runs, name):
    ds, _ = runs[name]
    used = ds.connection_used.values == 1
    x = ds.connection_ssch_iops.mean("replication").values
    zvm = ds.connection_busy_zvm.mean("replication").values
    rmf = ds.connection_busy.mean("replication").values
    # the seed: ~100 % on every used device, the busiest (most SSCH/s) included
    assert abs(zvm[x.argmax()] - 1.0) < 1e-3
    assert (abs(zvm[used] - 1.0) < 1e-3).all() and (zvm[~used] == 0).all()
    # RMF busy leaves the pend out: clearly less, as much as ~20 % on a channel's lone device
    assert (rmf[used] < zvm[used] - 0.05).all() and (rmf[used] > 0.7).all()


@pytest.mark.parametrize("name", ["straight_3x3", "mixed_kinds"])
def test_zvm_busy_is_the_engines(runs, name):
    """Per engine model, the connections' busy adds up to the engine's device busy (mean over the
    model's devices) in both definitions, and z/VM minus RMF is the engine's pend: SSCH/s x pend."""
    ds, seen = runs[name]
    assert len(seen) == (2 if name == "mixed_kinds" else 1)
    shared = dict(zip(ds.channel.values, ds.channel_shared.values))
    for model, eng in seen:
        kind = int(model.channels["mp_us_per_io_ccw"] == DEFAULT_PARAMS.channel_section(True, 1)["mp_us_per_io_ccw"])
        on = [shared[c] == kind for c in ds.connection_chpid.values]
        n = model.devices["count"]
        assert sum(on) == n
        zvm = ds.connection_busy_zvm.values[:, on].sum(axis=1)
        rmf = ds.connection_busy.values[:, on].sum(axis=1)
        assert zvm == pytest.approx(eng.device_busy_zvm.values * n, rel=1e-12)
        assert rmf == pytest.approx(eng.device_busy.values * n, rel=1e-12)
        pend = eng.pend_ms.values * eng.throughput_iops.values / 1000.0
        assert zvm - rmf == pytest.approx(pend, rel=1e-9)


def test_busy_definitions_are_labelled(runs, tmp_path):
    ds, seen = runs["straight_3x3"]
    assert ds.connection_busy.attrs["definition"] == "RMF"
    assert ds.connection_busy_zvm.attrs["definition"] == "z/VM"
    assert "(disconnect + connect)" in ds.connection_busy.attrs["long_name"]
    assert "(pend + disconnect + connect)" in ds.connection_busy_zvm.attrs["long_name"]
    assert ds.attrs["device_busy_definition"] == ("connection_busy: RMF, (disconnect + connect) / interval; "
                                                  "connection_busy_zvm: z/VM, (pend + disconnect + connect) / interval")
    # the same definitions as the engine's device_busy and device_busy_zvm
    engine_defs = seen[0][1].attrs["device_busy_definition"]
    assert all(f"{'device_busy' if k == 'RMF' else 'device_busy_zvm'}: {k}, {v}" in engine_defs
               for k, v in BUSY_DEFINITIONS.items())
    import xarray as xr
    p = tmp_path / "busy.h5"
    ds.to_netcdf(p, engine="h5netcdf")
    with xr.open_dataset(p, engine="h5netcdf") as back:
        assert back.connection_busy_zvm.attrs["definition"] == "z/VM"
        assert back.attrs["device_busy_definition"] == ds.attrs["device_busy_definition"]
    s = summary(ds)
    assert s["connection_busy_zvm"]["D002"] == pytest.approx(1.0, abs=1e-3)


def test_cli_run_shows_both_busy_definitions():
    r = CliRunner().invoke(isfc_group, ["run", "--systems", "LPAR1,LPAR2", "--layout", "3C=D050-D051",
                                        "--ios-per-device", "2000", "--replications", "3"])
    assert r.exit_code == 0, r.output
    assert "RMF" in r.output and "z/VM" in r.output
    row = next(line for line in r.output.splitlines() if line.startswith("D051"))
    assert row.split()[-1] == "100.0"
