"""benchmarks/issue29.py's same-work figure: the parser of the anchor's harness (same_work.py's
output format, no anchor needed) and the skip where the anchor is not beside the project."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import issue29  # noqa: E402

SAME_WORK = """\
same_work: mcio 0.1.dev1 (/work/main/mcio), anchor /tmp/anchor/ficon_same_work.py

    N  mcio ns/IO  anchor ns/IO  mcio/anchor        range  mcio.simulate fixed cost per call
    5       126.3          94.5         1.34  1.33- 1.35  3.2 ms (10-I/O call) = 0.8 ns/IO here, 0.6 % of mcio's
   26       163.7         120.2         1.36  1.34- 1.42  2.9 ms (10-I/O call) = 0.7 ns/IO here, 0.4 % of mcio's
   80       166.9         124.5         1.34  1.34- 1.35  3.0 ms (10-I/O call) = 0.8 ns/IO here, 0.5 % of mcio's
  578       170.7         128.5         1.33  1.33- 1.33  3.1 ms (10-I/O call) = 0.8 ns/IO here, 0.5 % of mcio's
(median of 5 rounds; ratio: the median of the rounds' own ratios, each of two calls back to back)
SAME-WORK RATIO worst=1.36 (N=26)
"""


def test_the_harness_table_gives_each_population_and_the_last_line_the_worst():
    got = issue29.parse_same_work(SAME_WORK)
    assert got["ratio"] == {5: 1.34, 26: 1.36, 80: 1.34, 578: 1.33}
    assert got["mcio_ns"][26] == 163.7 and got["anchor_ns"][578] == 128.5
    assert got["worst"] == 1.36


@pytest.mark.parametrize("text", ["", SAME_WORK.split("SAME-WORK")[0], "SAME-WORK RATIO worst=1.36 (N=26)\n"])
def test_an_output_without_the_table_or_the_last_line_is_refused(text):
    with pytest.raises(ValueError, match="SAME-WORK RATIO"):
        issue29.parse_same_work(text)


def test_no_anchor_beside_the_project_gives_nothing_to_report(tmp_path):
    assert issue29.same_work(anchor=str(tmp_path)) == {}
