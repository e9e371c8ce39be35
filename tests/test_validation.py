"""The validation scenario (issue 30): published figures with sources, run blind and final; the
counts docs/validation.md states."""
from pathlib import Path

import pytest

from mcio.scenarios import SCENARIO_OBJECTS
from mcio.scenarios.validation import BLIND, FITTED, SCENARIO
from mcio.scenarios.validation import erase

DOC = Path(__file__).resolve().parents[1] / "docs" / "validation.md"


def test_registered_with_enough_figures_and_sources():
    assert SCENARIO_OBJECTS["validation"] is SCENARIO
    figs = SCENARIO.figures
    assert len(figs) >= 12
    from mcio.scenarios.validation import published as pub
    sources = {s for s in (pub.Z9_FEX4, pub.ZVM_FME, pub.IBM_PERF, pub.BROCADE_Z14, pub.DS6000, pub.LGR_NONSHARED)
               if any(f.source.startswith(s) for f in figs)}
    assert len(sources) >= 4
    assert {f.kind for f in figs} <= {"fitted", "predicted"}
    assert set(FITTED) <= {f.name for f in figs}
    assert all(f.kind == ("fitted" if f.name in FITTED else "predicted") for f in figs)


def test_erase_jobs_blind_and_final():
    j = erase.jobs()
    assert (j["format"].programs, j["cpfmtxa"].programs, j["hcpfer"].programs) == (491_505, 32_767, 12_288)
    blind = {k: erase.elapsed_s(v, erase.zhpf_dump_costs()) for k, v in j.items()}
    final = {k: erase.elapsed_s(v, erase.catalogue_costs()) for k, v in j.items()}
    assert blind == pytest.approx({"format": 304.18, "cpfmtxa": 279.45, "hcpfer": 21.29}, abs=0.01)
    assert final == pytest.approx({"format": 399.0, "cpfmtxa": 245.75, "hcpfer": 21.16}, abs=0.05)


def test_dump_chain_blind_and_final():
    from mcio.model.hardware import RELOCATE_US
    from mcio.scenarios.validation import dump_chain as dc
    assert dc.speedup(dc.blind_costs()) == pytest.approx(1.008, abs=0.001)
    assert RELOCATE_US.value == pytest.approx(dc.fit_relocate_us(3.6), abs=0.01)
    assert dc.speedup(dc.catalogue_costs()) == pytest.approx(3.6, abs=0.001)


def test_counts_within_tolerance_are_the_documented_ones():
    final = SCENARIO.reproduce()
    blind = BLIND.reproduce()
    n_final = sum(bool(r.within) for r in final)
    n_blind = sum(bool(r.within) for r in blind)
    pred = [r for r in final if r.kind == "predicted"]
    assert (n_blind, n_final, len(final)) == (5, 16, 19)
    assert (sum(bool(r.within) for r in pred), len(pred)) == (9, 12)
    text = DOC.read_text()
    assert "Blind, all 19: 5 within tolerance" in text and "Final: 16 of 19 within" in text
    assert "9 within" in text
    # the mechanisms change what they should: the card and the data paths, nothing else
    by = {r.figure: r for r in final}
    bl = {r.figure: r for r in blind}
    for name in ("FICON Express4 z/HPF: max 4 KB I/Os/s per channel",
                 "FICON Express16S+ z/HPF: max MB/s per channel (reads + writes)"):
        assert by[name].model == pytest.approx(bl[name].model, rel=0.05)     # (blind's no-limit path link)
    assert bl["FICON Express4 feature, 4 channels: read MB/s"].model == pytest.approx(1600, rel=0.01)
