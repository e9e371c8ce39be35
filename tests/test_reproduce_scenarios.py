"""``mcio reproduce`` for the seed scenarios ficon-channel (seed 001) and isfc-link (seed 000):
every figure one JSON object; at a small run size the figures the model reaches are within their
tolerance, judged with CI-aware slack (two CI half-widths beyond the tolerance)."""
import json

import pytest
from click.testing import CliRunner

from mcio.cli import main
from mcio.scenarios import get_scenario

KEYS = {"figure", "variant", "quantity", "unit", "measured", "model", "ci95", "tolerance", "within", "error", "note"}

# the calibrated ficon-channel does not reach these (at its default run size too; see the README):
# at the 91 % row the model's MP is 94 % busy and the exchanges sit at the cap of 48 (pend 5.7 ms)
FICON_MISSES = {"row5 (12,042 IOPS, 91 % busy): channel MP busy", "from ~70 % busy: open exchanges",
                "from ~70 % busy: pend"}


def reproduce(name, *args):
    r = CliRunner().invoke(main, ["reproduce", name, "--json", *args])
    rows = json.loads(r.stdout)
    return r.exit_code, rows


def within_with_slack(row, figure):
    """The tolerance widened by two CI half-widths (a small run's own noise)."""
    meas, model, slack = row["measured"], row["model"], 2.0 * (row["ci95"] or 0.0)
    tol = figure.tolerance
    if isinstance(meas, list):
        return meas[0] - (tol.abs or 0.0) - slack <= model <= meas[1] + (tol.abs or 0.0) + slack
    allowed = max(tol.rel * abs(meas) if tol.rel is not None else 0.0, tol.abs or 0.0)
    return abs(model - meas) <= allowed + slack


@pytest.mark.parametrize("name,args,misses", [
    ("ficon-channel", ["--ios", "20000"], FICON_MISSES),
    ("isfc-link", ["--ios", "3000", "--replications", "3"], set()),
])
def test_reproduce_json_shape_and_figures(name, args, misses):
    scn = get_scenario(name)
    code, rows = reproduce(name, *args)
    assert [r["figure"] for r in rows] == [f.name for f in scn.figures]    # every figure, one row each
    figures = {f.name: f for f in scn.figures}
    for r in rows:
        assert KEYS <= set(r), r
        assert r["model"] is not None and r["ci95"] is not None and r["ci95"] >= 0
        assert isinstance(r["within"], bool) and r["tolerance"]
    assert code == (1 if any(not r["within"] for r in rows) else 0)      # the exit code follows the rows
    out = {r["figure"] for r in rows if not within_with_slack(r, figures[r["figure"]])}
    assert out <= misses, out - misses


def test_ficon_figures_say_where_the_load_imposes_the_iops():
    scn = get_scenario("ficon-channel")
    iops = [f for f in scn.figures if f.quantity == "throughput_iops"]
    assert len(iops) == 6
    assert all("tests nothing" in f.note for f in iops[:4])
    assert all("tests nothing" not in f.note for f in iops[4:])
    tol = {f.quantity: f.tolerance for f in scn.figures}
    assert tol["response_ms"].rel == 0.10 and tol["channel_busy"].abs == 0.03
    ranges = [f for f in scn.figures if isinstance(f.measured, tuple)]
    assert [f.measured for f in ranges] == [(40.0, 45.0), (3.0, 5.0), (45.0, 50.0), (40.0, 50.0), (1.0, 2.0)]


def test_ficon_row_variants_are_the_calibration_s_row_models():
    from mcio.calibrate import parse_rows, row_model
    from mcio.scenarios import ficon_channel as fc
    scn = get_scenario("ficon-channel")
    for i, row in enumerate(parse_rows(list(fc.MEASURED))):
        assert scn.model(f"row{i + 1}").to_toml() == row_model(fc.model(), row).to_toml()
        assert scn.stream(f"row{i + 1}") == i        # the stream calibrate simulates row i on
    assert scn.model().to_toml() == fc.model().to_toml()   # the first variant is the defaults


def test_the_text_table_names_every_figure():
    r = CliRunner().invoke(main, ["reproduce", "isfc-link", "--ios", "2000", "--replications", "2",
                                  "--variant", "one_channel_2fctc"])
    assert r.exit_code in (0, 1), r.output
    assert "I/Os per used FCTC device" in r.stdout
    assert "1 channel x 2 FCTC: link MB/s" in r.stdout and "straight" not in r.stdout.split("\n", 2)[2]
