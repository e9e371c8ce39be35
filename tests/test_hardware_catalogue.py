"""The hardware catalogue (issue 30): every figure with its provenance, one reading of each IBM
statement, and the card / channel data-path limits as links in the routes."""
import pytest
from click.testing import CliRunner

from mcio.engine import simulate
from mcio.engine.tables import READ, WRITE, tables_of
from mcio.model import hardware as hw
from mcio.scenarios.validation.configs import channel_benchmark, data_rate_mb_s

_KINDS = ("assumed", "fitted", "derived", "not found", "in the per-program cost", "in the cu's", "ibm", "seed",
          "redbook", "brocade", "z/os", "generation's name")


def _figs():
    for g in hw.CATALOGUE.values():
        for k in ("link_gbps", "link_mb_s", "zhpf_iops", "ccw_iops", "max_mb_s", "max_open_exchanges",
                  "channels_per_feature", "path_mb_s", "card_read_mb_s", "card_write_mb_s", "card_mb_s"):
            yield f"{g.name}.{k}", getattr(g, k)
        for k, f in hw.channel_parameters(g.name).items():
            yield f"{g.name}.{k}", f
    for c in hw.COMMAND_COSTS.values():
        for k in ("mp_us", "protocol_us", "cu_us"):
            yield f"{c.command}.{k}", getattr(c, k)
    yield from hw.CU_CONSTANTS.items()
    yield "host", hw.HOST_US_PER_PROGRAM
    yield "relocate", hw.RELOCATE_US


def test_every_figure_says_where_it_comes_from():
    n = 0
    for name, f in _figs():
        n += 1
        src = f.source.lower()
        assert src and any(k in src for k in _KINDS), (name, f.source)
        if f.value is None:
            assert "not found" in src or "fitted" in src, (name, f.source)
    assert n > 100


def test_published_card_and_path_limits():
    assert hw.card_limits("FICON Express4") == {"max_read_mb_s": 1230, "max_write_mb_s": 1150, "max_mb_s": 1300}
    assert hw.card_limits("2") == {"max_mb_s": 1000}
    assert hw.card_limits("8S") == {}
    assert hw.channel_parameters("16S")["path_mb_s"].value == 2560
    assert hw.channel_parameters("2")["path_mb_s"].value == 270
    assert "path_mb_s" not in hw.channel_parameters("16S+")


def test_one_reading_of_the_command_costs_and_the_2_2_ratio():
    from mcio.scenarios.zhpf_dump import SCENARIO as ZD, ccw_us_per_record
    write = hw.COMMAND_COSTS["Write (one record, chained)"]
    assert write.total_us == pytest.approx(ccw_us_per_record(ZD.defaults()))
    p = hw.channel_parameters("4")
    assert p["mp_us_per_io_ccw"].value / p["mp_us_per_io_zhpf"].value == pytest.approx(hw.ZHPF_OVER_CCW_FEX4)


def test_host_work_per_program_is_the_fit_to_cms_format():
    from mcio.scenarios.validation.erase import fit_host_us_per_program
    assert hw.HOST_US_PER_PROGRAM.value == pytest.approx(fit_host_us_per_program(), abs=0.01)


def test_card_and_path_links_are_in_the_routes_only_when_set():
    plain = tables_of(channel_benchmark("8S", 2, kb=4.0))
    assert plain.ln_kind == ["channel"] * 4
    t = tables_of(channel_benchmark("16S", 2, kb=4.0, card=hw.card_limits("4")))
    names = t.ln_name
    for c in range(2):
        for d, dn in ((READ, "read"), (WRITE, "write")):
            route = [names[i] for i in t.route(c, 0, d)]
            assert route == [f"ch.{c}.{dn}", f"ch.{c}.path", f"F.{dn}", "F"]
    assert t.ln_kb_per_ms[names.index("ch.0.path")] == 2560.0


@pytest.mark.parametrize("write_share, limit", [(0.0, 1230.0), (1.0, 1150.0), (0.5, 1300.0)])
def test_a_saturated_card_carries_its_direction_s_limit(write_share, limit):
    m = channel_benchmark("4", 4, kb=165.9, records=6, write_share=write_share, card=hw.card_limits("4"))
    mb, ci = data_rate_mb_s(simulate(m, ios=20_000, replications=2, seed=5))
    assert abs(mb - limit) <= max(3 * ci, 0.01 * limit)
    # without the card the four 400 MB/s links carry more than the card
    free, _ = data_rate_mb_s(simulate(channel_benchmark("4", 4, kb=165.9, records=6, write_share=write_share),
                                      ios=20_000, replications=2, seed=5))
    assert free > 1.2 * limit


def test_mcio_hardware_lists_the_whole_catalogue():
    from mcio.cli import main
    out = CliRunner().invoke(main, ["hardware"])
    assert out.exit_code == 0
    for text in ("FICON Express2", "feature card: max read MB/s", "Per-command costs by command type",
                 "Locate Record and Erase", "Host work per channel program"):
        assert text in out.output
