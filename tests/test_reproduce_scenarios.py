"""``mcio reproduce`` for the seed scenarios ficon-channel (seed 001) and isfc-link (seed 000):
every figure one JSON object; at a small run size the figures the model reaches are within their
tolerance, judged with CI-aware slack (two CI half-widths beyond the tolerance)."""
import json

import pytest
from click.testing import CliRunner

from mcio.cli import main
from mcio.scenarios import get_scenario

KEYS = {"figure", "variant", "quantity", "unit", "measured", "model", "ci95", "tolerance", "within", "error", "note",
        "kind"}

# the calibrated ficon-channel does not reach these (at its default run size too; each figure's
# note says why): at the 91 % row the model's MP is 94 % busy and the exchanges sit at the cap of
# 48; the peak reading of "OE hitting 40-45" fails by design; the model has no SAP. (The 91 %
# row's pend, 4.9 ms at the default run size, is at the edge of the seed's 3-5 ms.)
FICON_MISSES = {"row5 (12,042 IOPS, 91 % busy): channel MP busy", "from ~70 % busy: open exchanges",
                "from ~70 % busy: pend", "from ~70 % busy: open exchanges, read as a peak",
                "above 95 % busy: the SAP assigned to the channel 96 % busy"}


def reproduce(name, *args):
    r = CliRunner().invoke(main, ["reproduce", name, "--json", *args])
    out = json.loads(r.stdout)
    assert out["scenario"] == name and set(out) == {"scenario", "run", "figures", "summary"}
    return r.exit_code, out["figures"]


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
        if r["measured"] is None:                                       # a prediction: not judged
            assert r["within"] is None and not r["tolerance"] and r["note"]
        else:
            assert isinstance(r["within"], bool) and r["tolerance"]
    assert code == (1 if any(r["within"] is False for r in rows) else 0)   # the exit code follows the rows
    out = {r["figure"] for r in rows if r["measured"] is not None and not within_with_slack(r, figures[r["figure"]])}
    assert out <= misses, out - misses
    for r in rows:                   # a figure the model misses says why in the table
        if r["figure"] in misses:
            assert r["note"], r["figure"]


def test_ficon_figures_say_where_the_load_imposes_the_iops():
    scn = get_scenario("ficon-channel")
    iops = [f for f in scn.figures if f.quantity == "throughput_iops"]
    assert len(iops) == 6
    assert all("tests nothing" in f.note for f in iops[:4])
    assert all("tests nothing" not in f.note for f in iops[4:])
    tol = {f.quantity: f.tolerance for f in scn.figures}
    assert tol["response_ms"].rel == 0.10 and tol["channel_busy"].abs == 0.03
    ranges = {f.name: f.measured for f in scn.figures if isinstance(f.measured, tuple)}
    assert ranges == {"from ~70 % busy: open exchanges": (40.0, 45.0), "from ~70 % busy: pend": (3.0, 5.0),
                      "from ~70 % busy: open exchanges, read as a peak": (40.0, 45.0),
                      "from ~70 % busy: CMR constant at 1 ms (72 % row)": (0.5, 1.5),
                      "from ~70 % busy: CMR constant at 1 ms (91 % row)": (0.5, 1.5),
                      "above 95 % busy: open exchanges": (45.0, 50.0), "above 95 % busy: pend (~45 ms)": (40.0, 50.0),
                      "above 95 % busy: CMR": (1.0, 2.0), "the host channel MP saturates before the storage": (0.0, 1.0)}
    # every text statement of the seed README for seed 001 is a figure
    names = " | ".join(f.name for f in scn.figures)
    for words in ("from ~70 % busy: open exchanges", "from ~70 % busy: pend", "CMR constant at 1 ms",
                  "above 95 % busy: open exchanges", "above 95 % busy: pend", "above 95 % busy: CMR",
                  "saturates before the storage", "SAP"):
        assert words in names, words


def test_isfc_figures_cover_the_seed_text():
    scn = get_scenario("isfc-link")
    names = " | ".join(f.name for f in scn.figures)
    for words in ("7 channels x 16 FCTC: D000", "7 channels x 16 FCTC: D007", "D015 and D01C", "spread",
                  "over striped", "device busy of the used", "device busy of the reserved", "D051 carries all",
                  "enough FCTCs: MB/s", "against one channel with enough FCTCs", "non-shared"):
        assert words in names, words
    preds = [f for f in scn.figures if f.measured is None]
    assert preds and all(f.variant == "straight_3x3_non_shared" and f.note for f in preds)


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
    table = [ln for ln in r.stdout.split("\n")[3:] if not ln.startswith("  note")]
    assert "1 channel x 2 FCTC: link MB/s" in r.stdout and not any(ln.startswith("straight") for ln in table)
