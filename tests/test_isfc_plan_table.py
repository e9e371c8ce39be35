"""The planner's table reads as a table: every header sits over its column (the values end where
their header ends)."""
from click.testing import CliRunner

from mcio.cli import main


def test_plan_table_headers_sit_over_their_columns():
    r = CliRunner().invoke(main, ["isfc", "plan", "--chpids", "3C,3D", "--devices", "4", "--systems",
                                  "LPAR1,LPAR2", "--ios-per-device", "2000", "--replications", "2",
                                  "--no-verify"])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    head = next(ln for ln in lines if "SSCH/s" in ln)
    rows = [ln for ln in lines if ln.strip()[:1].isdigit() and "±" in ln]
    assert rows
    ends = [i + len("SSCH/s (95% CI)") for i in range(len(head)) if head.startswith("SSCH/s (95% CI)", i)]
    ends += [i + 4 for i in range(len(head)) if head.startswith("MB/s", i)]
    for row in rows:
        for e in ends:
            assert row[e - 1] != " " and (e == len(row) or row[e] == " "), (head, row, e)
