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
        assert "(ms)" in ax2.get_ylabel() and ax2.get_xlabel() == "workload.population"
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert "channels.count = 1" in labels and "channels.count = 2" in labels
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
        assert "seed 001" in labels and "workload.population = 32" in labels
        assert any(t.startswith("p50-p99") for t in labels)
        assert fig.axes[1].get_xlabel() == "channels.count"
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
