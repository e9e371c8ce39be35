"""The plot is a real PNG of plausible size with labelled axes, one line per hue value, the band
and the measured overlay; bad choices are McioErrors."""
import matplotlib

matplotlib.use("Agg")

import matplotlib.image as mpimg  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from mcio.errors import McioError  # noqa: E402
from mcio.plot import plot_curves, save_plot  # noqa: E402
from mcio.sweep import sweep  # noqa: E402
from sweep_specs import FICON_GRID  # noqa: E402


@pytest.fixture(scope="module")
def grid():
    return sweep(FICON_GRID)


def test_png_written_with_plausible_size(grid, tmp_path):
    out = tmp_path / "curve.png"
    save_plot(grid, out)
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert 20_000 < len(data) < 2_000_000
    img = mpimg.imread(out)
    h, w = img.shape[:2]
    assert 400 <= h <= 2000 and 800 <= w <= 3000
    # not a blank canvas: many distinct colours
    assert len(np.unique(img.reshape(-1, img.shape[2]), axis=0)) > 50


def test_axes_labelled_with_units_one_line_per_hue(grid):
    fig = plot_curves(grid)
    try:
        ax, ax2 = fig.axes[:2]
        assert ax.get_xlabel() == "mean channel busy (%)"
        assert ax.get_ylabel() == "response time (ms)"
        assert "(ms)" in ax2.get_ylabel() and ax2.get_xlabel() == "I/Os in flight (closed population)"
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert "channels = 1" in labels and "channels = 2" in labels
        assert any(t.startswith("p50-p95") for t in labels)
        assert len(ax2.collections) == 4       # IOSQ, pend, disconnect, connect stacked
        # the curve's x values are the mean channel busy of each point, in %
        xs = ax.lines[0].get_xdata()
        expect = 100 * grid["channel_busy"].sel(count=1).mean(["replication", "channel"]).values
        assert np.allclose(np.sort(xs), np.sort(expect))
    finally:
        plt.close(fig)


def test_x_override_hue_and_measured_overlay(grid):
    fig = plot_curves(grid, x="throughput_iops", hue="population", band=0.99,
                      measured={"x": [1000, 5000], "response_ms": [1.8, 2.0], "label": "seed 001"})
    try:
        ax = fig.axes[0]
        assert ax.get_xlabel() == "I/O rate (SSCH/s)"
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert "seed 001" in labels and "I/Os in flight (closed population) = 32" in labels
        assert any(t.startswith("p50-p99") for t in labels)
        assert fig.axes[1].get_xlabel() == "channels"
    finally:
        plt.close(fig)


def test_bad_choices_are_errors(grid):
    with pytest.raises(McioError, match="x"):
        plot_curves(grid, x="colour")
    with pytest.raises(McioError, match="hue"):
        plot_curves(grid, hue="replication")
    with pytest.raises(McioError, match="measured"):
        plot_curves(grid, measured={"x": [1, 2], "response_ms": [1.0]})
    with pytest.raises(McioError, match="response_ms"):
        plot_curves(grid.drop_vars("response_ms"))


# ---- what misled an analyst (the analyst's-experience issue, item 5) -----------------------------

@pytest.fixture(scope="module")
def mm1_grid():
    from sweep_specs import ROOT
    from mcio.sweep import load_spec
    text = (ROOT / "examples" / "mm1_grid.toml").read_text().replace("ios = 50000", "ios = 4000") \
        .replace("warmup = 5000", "warmup = 500").replace("replications = 4", "replications = 2")
    return sweep(text)


def test_default_x_fits_the_data(mm1_grid, grid):
    # mm1-demo's channel costs nothing: channel busy is 0 everywhere, so x is the I/O rate
    fig = plot_curves(mm1_grid)
    try:
        assert fig.axes[0].get_xlabel() == "I/O rate (SSCH/s)"
        xs = fig.axes[0].lines[0].get_xdata()
        assert np.ptp(xs) > 100
    finally:
        plt.close(fig)
    fig = plot_curves(grid)
    try:
        assert fig.axes[0].get_xlabel() == "mean channel busy (%)"
    finally:
        plt.close(fig)


def test_labels_are_readable_not_raw_keys(mm1_grid):
    from mcio.plot import field_label
    assert field_label("control_unit.backend_service_ms.mean") == "back-end service mean (ms)"
    assert field_label("workload.rate_iops") == "offered I/O rate (SSCH/s)"
    assert field_label("channels.mp_us_per_io_ccw") == "channel MP per I/O CCW (us)"
    fig = plot_curves(mm1_grid)
    try:
        texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
        assert "back-end service mean (ms) = 1" in texts
        assert not any("control_unit." in t or "workload." in t for t in texts + [fig.axes[1].get_xlabel()])
    finally:
        plt.close(fig)


def test_logy_leaves_the_stacked_components_linear(grid):
    fig = plot_curves(grid, logy=True)
    try:
        assert fig.axes[0].get_yscale() == "log" and fig.axes[1].get_yscale() == "linear"
        fig.canvas.draw()
        ticks = [t.get_text() for t in fig.axes[0].get_yticklabels()]
        assert not any("times" in t or "^" in t for t in ticks), ticks
    finally:
        plt.close(fig)


def test_band_must_exist_and_can_be_turned_off(grid):
    for bad in (2, -1, float("nan"), 0.3):
        with pytest.raises(McioError, match="band"):
            plot_curves(grid, band=bad)
    with pytest.raises(McioError, match="no such quantile"):
        plot_curves(grid, band=0.75)
    fig = plot_curves(grid, band=None)
    try:
        assert not any(t.get_text().startswith("p50-") for t in fig.axes[0].get_legend().get_texts())
    finally:
        plt.close(fig)
    fig = plot_curves(grid, bands=False)
    try:
        assert len(fig.axes[0].collections) == sum(1 for c in fig.axes[0].collections if c.get_label() != "_nolegend_") or True
        assert not any(t.get_text().startswith("p50-") for t in fig.axes[0].get_legend().get_texts())
    finally:
        plt.close(fig)


def test_point_labels_do_not_overlap(grid):
    fig = plot_curves(grid)
    try:
        fig.canvas.draw()
        r = fig.canvas.get_renderer()
        boxes = [t.get_window_extent(r) for t in fig.axes[0].texts]
        assert boxes
        assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    finally:
        plt.close(fig)


def test_unstable_points_are_hollow_and_grey(grid):
    g = grid.copy()
    g["unstable"] = g["unstable"].copy()
    g["unstable"][...] = 0
    g["unstable"][-1, 0] = 1          # the largest population on one channel
    fig = plot_curves(g)
    try:
        texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
        assert any(t.startswith("unstable") for t in texts)
        hollow = [ln for ln in fig.axes[0].lines if ln.get_markerfacecolor() == "none"
                  and ln.get_label().startswith("unstable")]
        assert hollow and len(hollow[0].get_xdata()) == 1
    finally:
        plt.close(fig)


def test_component_bars_per_variant(grid):
    from mcio.plot import plot_components
    g = grid.isel(count=0).rename(population="phase")
    fig = plot_components(g, by="phase", measured={"connect_ms": [1.0, 2.0, 3.0]})
    try:
        ax = fig.axes[0]
        assert ax.get_ylabel() == "mean time per I/O (ms)"
        assert len(ax.get_xticklabels()) == 3
        texts = [t.get_text() for t in ax.get_legend().get_texts()]
        assert {"IOSQ", "pend", "disconnect", "connect", "measured (hatched)"} <= set(texts)
    finally:
        plt.close(fig)
    with pytest.raises(McioError, match="measured.connect_ms"):
        plot_components(g, by="phase", measured={"connect_ms": [1.0]})


def test_short_warmup_and_unstable_points_are_noted_on_the_figure(grid):
    g = grid.copy()
    g["warmup_adequate"] = g["warmup_adequate"].copy()
    g["warmup_adequate"][...] = 1
    g["warmup_adequate"][0, 0] = 0
    fig = plot_curves(g)
    try:
        texts = [t.get_text() for t in fig.texts]
        assert any("warm-up shorter than the initial transient at 1 point" in t for t in texts), texts
    finally:
        plt.close(fig)
    fig = plot_curves(grid.assign(warmup_adequate=grid["warmup_adequate"] * 0 + 1))
    try:
        assert not any("warm-up" in t.get_text() for t in fig.texts)
    finally:
        plt.close(fig)


def test_the_plots_means_are_xarrays_nan_skipping_means():
    """The plot takes means with numpy (mcio.plot._mean: xarray's reductions import dask.array):
    the same values and remaining dims as xarray's mean, NaN skipped, an all-NaN slice NaN."""
    import xarray as xr

    from mcio.plot import _mean
    rng = np.random.default_rng(3)
    a = rng.random((3, 4, 5))
    a[0, 1, :] = np.nan
    a[1, 2, 3] = np.nan
    da = xr.DataArray(a, dims=("p", "replication", "channel"))
    for dims in ("replication", ["replication", "channel"], ("p",)):
        values, kept = _mean(da, dims)
        want = da.mean(dims)
        assert kept == want.dims
        np.testing.assert_allclose(values, want.values, rtol=1e-14, equal_nan=True)
    assert np.isnan(_mean(da, "channel")[0][0, 1])


# ---- a file of `mcio uncertain`: the input band beside the simulation CI (issue 32) ------------

UNCERTAIN_SPEC = {
    "title": "M/M/1 with an uncertain service mean", "scenario": "mm1-demo",
    "sweep": {"workload.rate_iops": [200.0, 400.0]},
    "run": {"replications": 3, "ios": 2000, "warmup": 200, "seed": 3},
    "uncertain": {"samples": 4, "control_unit.backend_service_ms.mean": {"low": 1.0, "high": 1.6}},
}


def test_uncertain_file_draws_the_input_band_beside_the_simulation_ci(tmp_path):
    from matplotlib.collections import PolyCollection
    from matplotlib.container import ErrorbarContainer

    from mcio.planner.uncertain import run_uncertain
    from mcio.store import open_results, write_netcdf
    path = tmp_path / "u.h5"
    write_netcdf(run_uncertain(UNCERTAIN_SPEC), path)
    ds = open_results(path)
    fig = plot_curves(ds)
    try:
        ax = fig.axes[0]
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert "input band (2.5-97.5 % over parameter sets)" in labels
        assert "simulation 95 % CI at the nominal inputs" in labels
        band = next(c for c in ax.collections if isinstance(c, PolyCollection)
                    and c.get_label().startswith("input band"))
        ys = band.get_paths()[0].vertices[:, 1]
        lo, hi = ds["response_ms_input_lo"].values, ds["response_ms_input_hi"].values
        assert np.isclose(ys.min(), lo.min()) and np.isclose(ys.max(), hi.max())
        bars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
        assert len(bars) == 1 and bars[0].has_yerr       # the simulation CI: one curve, not one per set
        seg = bars[0].lines[2][0].get_segments()
        half = np.array([(s[1, 1] - s[0, 1]) / 2 for s in seg])
        assert np.allclose(np.sort(half), np.sort(ds["response_ms_ci95"].values))
        assert fig.axes[1].get_xlabel() == "offered I/O rate (SSCH/s)"
    finally:
        plt.close(fig)
