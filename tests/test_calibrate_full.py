"""The shipped calibration reproduces: its documented command (docs/calibration.md, in the file's
header), run at full size, writes the shipped mcio/scenarios/ficon_channel_fitted.toml — every
fitted value, standard error, loss and per-row line to the printed precision (the file is the
command's output; only the ``-o`` path in the recorded command differs). ~40-70 s on two shared cores."""
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcio.cli import main
from mcio.scenarios import ficon_channel as fc
from mcio.scenarios.fitted import read_fitted

ROOT = Path(__file__).resolve().parent.parent


def _body(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if not ln.startswith(("# written by", "#: command"))]


@pytest.mark.slow
def test_the_documented_command_writes_the_shipped_file(tmp_path, monkeypatch):
    shipped = read_fitted(fc.FITTED_FILE)
    argv = shlex.split(shipped["calibration"]["command"])
    assert argv[:2] == ["mcio", "calibrate"] and argv[-2] == "-o"
    doc = (ROOT / "docs" / "calibration.md").read_text()
    assert " ".join(argv[:-1]) in " ".join(doc.replace("\\\n", " ").split())    # the documented command
    out = tmp_path / "fitted.toml"
    monkeypatch.chdir(ROOT)                                                    # its paths are the repository's
    r = CliRunner().invoke(main, [*argv[1:-1], str(out), "-q"])
    assert r.exit_code == 0, r.output
    fresh = read_fitted(out)
    assert fresh["scenario_params"] == shipped["scenario_params"]
    for k in ("stderr_fit", "stderr_sim", "loss", "chi2_reduced", "evaluations"):
        assert fresh["calibration"][k] == shipped["calibration"][k], k
    assert _body(out.read_text()) == _body(fc.FITTED_FILE.read_text())
