"""Per-link and per-card Dataset variables (mcio/engine/results_links.py): present only for a
configuration's tables, labelled, in CF units, and consistent with the per-channel figures."""
import numpy as np
import pytest

from links_tables import card, full_duplex, model, shared_isl, tables
from mcio import simulate


def _config(m):
    T = full_duplex(tables(m, cls_dir=np.array([0, 1])))
    T = shared_isl(T, [0, 1], 150.0)[0]
    return card(T, [0, 1], start_ms=0.001, data_mb_s=140.0)


def test_legacy_datasets_have_no_link_variables():
    m = model(channels=2, population=8)
    ds = simulate(m, ios=5_000, replications=2, seed=1)
    assert "link" not in ds.dims and "card" not in ds.dims
    assert not [v for v in ds.variables if v.startswith(("link_mb", "card_"))]


def test_link_and_card_variables():
    m = model(channels=2, population=32, kb=64.0, link_mb_s=100.0, classes=2, mp_us=5.0)
    ds = simulate(m, ios=20_000, replications=2, seed=1, tables=_config(m))
    assert ds.link_mb_s.dims == ("replication", "link")
    assert list(ds.link.values) == ["0", "1", "0.write", "1.write", "isl0", "card0"]
    assert list(ds.link_kind.values) == ["channel"] * 4 + ["isl", "card"]
    assert list(ds.link_direction.values) == ["read", "read", "write", "write", "both", "both"]
    for v, u in (("link_mb_s", "Mbyte s-1"), ("link_busy_by_link", "1"), ("link_utilization", "1"),
                 ("card_ssch_iops", "s-1"), ("card_busy", "1")):
        assert ds[v].attrs["units"] == u and ds[v].attrs["long_name"]
    mb = ds.link_mb_s.mean("replication")
    # every transfer crosses its channel's link, the ISL and the card's link: the same KB
    chan = float(ds.channel_mb_s.sum("channel").mean())
    assert float(mb.sel(link="isl0")) == pytest.approx(chan, rel=1e-9)
    assert float(mb.sel(link="card0")) == pytest.approx(chan, rel=1e-9)
    assert float(mb.isel(link=slice(0, 4)).sum()) == pytest.approx(chan, rel=1e-9)
    assert chan <= 140.0 * 1.001
    util = ds.link_utilization.mean("replication")
    assert float(util.sel(link="card0")) == pytest.approx(1.0, rel=0.01)
    assert float(ds.link_busy_by_link.max()) <= 1.0
    # one card: its starts are every I/O's
    np.testing.assert_allclose(ds.card_ssch_iops.sel(card="card0").values, ds.throughput_iops.values, rtol=2e-3)
    np.testing.assert_allclose(ds.card_busy.values[:, 0], ds.card_ssch_iops.values[:, 0] * 0.001 / 1000.0, rtol=1e-12)
