"""``mcio table``: one row per point with the sweep axes (variants) first, RMF labels with the
file's units, each CI beside its value, CSV for spreadsheets, a comparison file as one row per
figure; bad names follow the CLI's one error policy (one line naming the field, exit 2)."""
import csv
import io

import numpy as np
import pytest
from click.testing import CliRunner

from mcio.cli import main
from mcio.compare import compare
from mcio.planner.table import format_csv, format_text, results_table, sweep_table
from mcio.sweep import load_spec, sweep
from sweep_specs import FICON_GRID, VARIANT_GRID, write


@pytest.fixture(scope="module")
def grid_file(tmp_path_factory):
    d = tmp_path_factory.mktemp("tab")
    out = d / "grid.h5"
    sweep(write(d, FICON_GRID), out=out)
    return out


@pytest.fixture(scope="module")
def variant_ds(tmp_path_factory):
    return sweep(write(tmp_path_factory.mktemp("var"), VARIANT_GRID))


@pytest.fixture(scope="module")
def cmp_file(tmp_path_factory):
    from mcio.store import write_netcdf
    s = load_spec(write(tmp_path_factory.mktemp("cmp0"), VARIANT_GRID))
    ds = compare(s.point_model(0), s.point_model(2), ios=2000, replications=3, labels=("ccw", "fast_mp"))
    out = tmp_path_factory.mktemp("cmp") / "cmp.h5"
    write_netcdf(ds, out)
    return out


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_text_table_one_row_per_point_with_cis(grid_file):
    r = run("table", grid_file)
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    head = lines[1].split()
    assert head[:2] == ["population", "count"] or head[0] == "population"
    assert "resp" in head and "ms" in head and "±95%" in head and "SSCH/s" in head and "%" in head
    rows = lines[2:lines.index(next(ln for ln in lines if "replications x" in ln))]
    assert len(rows) == 6  # 3 populations x 2 channel counts


def test_values_match_the_dataset(grid_file):
    from mcio import open_results
    ds = open_results(grid_file)
    tab = sweep_table(ds, ["response_ms", "channel_busy", "response_p90_ms"])
    heads = [c.header for c in tab.columns]
    assert heads[:2] == ["population", "count"]
    assert heads[2:] == ["resp ms", "±95%", "chan busy %", "±95%", "resp p90 ms", "±95%", "flags"]
    r0 = tab.rows[0]
    p0 = ds.isel(population=0, count=0)
    assert r0[2] == pytest.approx(float(p0.response_ms.mean()))
    assert r0[3] == pytest.approx(float(p0.response_ci95_ms))
    assert r0[4] == pytest.approx(100 * float(p0.channel_busy.mean()))
    assert r0[6] == pytest.approx(float(p0.response_quantile_ms.sel(quantile=0.9)))


def test_variants_lead_and_by_reorders(variant_ds):
    tab = sweep_table(variant_ds)
    assert [c.header for c in tab.columns[:2]] == ["variant", "population"]
    assert len(tab.rows) == 3 * 2
    by = sweep_table(variant_ds, by="population")
    assert [c.header for c in by.columns[:2]] == ["population", "variant"]
    assert [r[0] for r in by.rows] == ["2", "2", "2", "8", "8", "8"]
    ch = sweep_table(variant_ds, ["channel_busy"], by="channel")
    assert ch.columns[2].header == "channel" and len(ch.rows) == 6  # one channel


def test_csv_parses_with_one_row_per_point(grid_file, tmp_path):
    out = tmp_path / "t.csv"
    r = run("table", grid_file, "--csv", "-o", out)
    assert r.exit_code == 0, r.output
    rows = list(csv.reader(io.StringIO(out.read_text())))
    assert rows[0][2:4] == ["I/O rate SSCH/s", "I/O rate SSCH/s ±95%"]
    assert len(rows) == 1 + 6
    assert all(float(x) > 0 for x in rows[1][2:4])
    r = run("table", grid_file, "--csv", "--vars", "response_ms")
    assert r.output.splitlines()[0] == "population,count,resp ms,resp ms ±95%,flags"


def test_compare_file_one_row_per_figure(cmp_file):
    r = run("table", cmp_file)
    assert r.exit_code == 0, r.output
    assert "±95% paired" in r.output and "fast_mp - ccw" in r.output
    from mcio import open_results
    tab = results_table(open_results(cmp_file))
    assert [row[0] for row in tab.rows][:2] == ["response_ms", "iosq_ms"]
    assert "ccw" in format_csv(tab).splitlines()[0]


@pytest.mark.parametrize("args, field", [(["--vars", "nonsense_ms"], "--vars"), (["--by", "zz"], "--by"),
                                         (["--vars", "response_p42_ms"], "--vars")])
def test_bad_names_one_line_exit_2(grid_file, args, field):
    r = run("table", grid_file, *args)
    assert r.exit_code == 2
    line = r.output.strip()
    assert "\n" not in line and line.startswith(f"mcio: error: {field} = ") and "allowed" in line


def test_missing_file_one_line_exit_2(tmp_path):
    r = run("table", tmp_path / "none.h5")
    assert r.exit_code == 2 and r.output.strip().count("\n") == 0 and "none.h5" in r.output


def test_unstable_flag_and_missing_values_shown(grid_file):
    from mcio import open_results
    ds = open_results(grid_file).load()
    ds["unstable"][0, 0] = 1
    ds["response_ms"][0, 0] = np.nan
    text = format_text(sweep_table(ds, ["response_ms"]))
    row = text.splitlines()[2]
    assert "unstable" in row and " - " in row + " "
