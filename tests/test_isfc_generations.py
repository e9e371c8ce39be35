"""ISFC channels of any generation, and shared / non-shared channels from one model.

Every FCTC end on a channel puts its MP work and its pass of the data on it; a shared channel
carries both ends of every relocated SSCH, a non-shared one its own (the partner's channel, the
same work per end, is a queue in the write's path). Generation presets scale the seed's fitted
channel by the published maxima; the CLI takes the physics as options.
"""
import dataclasses

import pytest
from click.testing import CliRunner

from mcio import McioError
from mcio.cli.isfc import isfc_group
from mcio.scenarios.isfc import (CHANNEL_GENERATIONS, DEFAULT_PARAMS, IsfcLink, IsfcParams, REFERENCE_GENERATION,
                                 build_isfc, channel_throughput_mva, generation_params)

SYSTEMS = ("LPAR1", "LPAR2")


def test_one_model_for_shared_and_non_shared_channels():
    assert "shared_factor" not in {f.name for f in dataclasses.fields(IsfcParams)}
    sh, ns = DEFAULT_PARAMS.demands_ms(True), DEFAULT_PARAMS.demands_ms(False)
    # a shared channel does the receiver's end too: twice the MP work and data per SSCH, no partner queue
    assert sh["mp"] == pytest.approx(2 * ns["mp"]) and sh["link"] == pytest.approx(2 * ns["link"])
    assert sh["partner_mp"] == 0.0 and ns["partner_mp"] == pytest.approx(ns["mp"])
    # the partner channel's MP queue costs the non-shared channel throughput against a free partner
    free = channel_throughput_mva(3, dataclasses.replace(DEFAULT_PARAMS, mp_us_per_end=0.0), shared=False)
    assert channel_throughput_mva(3, shared=False) < free
    # and one non-shared channel beats one shared channel, by less than 2x (MP and link both halve,
    # but the partner's MP is now in series)
    assert 1.0 < channel_throughput_mva(3, shared=False) / channel_throughput_mva(3, shared=True) < 2.0


def test_several_non_shared_channels_are_not_one_engine_model():
    with pytest.raises(McioError, match="not one engine model"):
        build_isfc({"3C": "D000-D002", "3D": "D003-D005"}, shared=False)
    m = build_isfc({"3C": "D000-D002"}, shared=False)         # one channel is
    assert m.control_unit["ha_servers"] == 1


def test_generation_presets_scale_the_seed_channel_by_published_maxima():
    assert generation_params(REFERENCE_GENERATION) == DEFAULT_PARAMS
    g, r = CHANNEL_GENERATIONS["express16s"], CHANNEL_GENERATIONS[REFERENCE_GENERATION]
    p = generation_params("FICON Express16S")
    assert p.mp_us_per_end == pytest.approx(DEFAULT_PARAMS.mp_us_per_end * r["max_iops_4k"] / g["max_iops_4k"])
    assert p.channel_mb_s == pytest.approx(DEFAULT_PARAMS.channel_mb_s * g["max_mb_s"] / r["max_mb_s"])
    assert p.kb_per_io == DEFAULT_PARAMS.kb_per_io
    with pytest.raises(McioError, match="no published maximum MB/s"):
        generation_params("express8")
    assert generation_params("express8", channel_mb_s=300.0).channel_mb_s == 300.0
    with pytest.raises(McioError, match="unknown channel generation"):
        generation_params("express32")
    # a faster channel carries more: exact MVA, three devices on one shared channel
    assert channel_throughput_mva(3, generation_params("express16s+")) > channel_throughput_mva(3, p) \
        > channel_throughput_mva(3)


def _run(*args):
    return CliRunner().invoke(isfc_group, ["run", "--systems", "LPAR1,LPAR2", "--layout", "3C=D000-D002",
                                           "--ios-per-device", "2000", "--replications", "2", *args])


def _link_ssch(output):
    line = [ln for ln in output.splitlines() if ln.startswith("link:")][0]
    return float(line.split()[1])


def test_cli_takes_the_channel_physics():
    base = _run()
    assert base.exit_code == 0, base.output
    assert "456 us MP work per end, 407 MB/s per end, 750 KB per SSCH" in base.output
    fast = _run("--generation", "express16s+")
    assert fast.exit_code == 0 and "47.12 us MP work per end" in fast.output
    assert _link_ssch(fast.output) > 1.5 * _link_ssch(base.output)
    small = _run("--mp-us-per-end", "200", "--link-mb-s", "800", "--kb-per-ssch", "500")
    assert "200 us MP work per end, 800 MB/s per end, 500 KB per SSCH" in small.output
    assert _run("--non-shared").exit_code == 0
    bad = _run("--generation", "express8")
    assert bad.exit_code == 2 and "--link-mb-s" in bad.output
    assert _run("--generation", "express8", "--link-mb-s", "300").exit_code == 0
    plan = CliRunner().invoke(isfc_group, ["plan", "--chpids", "3C,3D", "--devices", "4", "--systems", "LPAR1,LPAR2",
                                           "--generation", "express16s", "--no-verify", "--ios-per-device", "1000",
                                           "--replications", "2"])
    assert plan.exit_code == 0 and "144.2 us MP work per end" in plan.output
    gens = CliRunner().invoke(isfc_group, ["generations"])
    assert gens.exit_code == 0 and all(k in gens.output for k in CHANNEL_GENERATIONS)
