"""z/VM 6.4 VM65989: the dump channel program without a Locate Record and TIC per record.

IBM's report (vm.ibm.com/perf/reports/zvm/html/640500.html) changed the dump's channel program
from "Define extent, Locate record, TIC, Write record 1; Locate record, TIC, Write record 2; ...
up to 90 records per channel program" to "Define extent, Locate record, TIC, Write record 1; Write
record 2; ... up to 255 records per channel program", and measured "the speed of dump writing
improved by about 260%": the dump rate (4 KB records per second) with the PTF over without, read
as 3.6 (+260 %). The dump runs one channel program at a time (as seed 003's), so the time per
record is (the program's costs + n x the record's costs) / n. Units: us, KB, MB/s.
"""
from __future__ import annotations

from dataclasses import dataclass

OLD_RECORDS = 90       # the report: "up to 90 records per channel program" (full programs assumed)
NEW_RECORDS = 255      # "up to 255 records per channel program"
KB_4K = 4.096


@dataclass(frozen=True)
class DumpCosts:
    """Costs of the dump's channel programs (us): per program, per Write CCW (with the CPU per
    record and the transfer at ``link_mb_s``), and per Locate Record + TIC re-issued before a Write
    inside a program (the old chain)."""

    program_us: float
    write_us: float
    cpu_us_per_record: float
    relocate_us: float
    link_mb_s: float

    def us_per_record(self, records: int, relocate: bool) -> float:
        per = self.write_us + self.cpu_us_per_record + 1000.0 * KB_4K / self.link_mb_s
        extra = self.relocate_us * (records - 1) / records if relocate else 0.0
        return self.program_us / records + per + extra


def speedup(costs: DumpCosts) -> float:
    """Dump rate with VM65989 over without (both chains full)."""
    return costs.us_per_record(OLD_RECORDS, True) / costs.us_per_record(NEW_RECORDS, False)


def _zhpf_dump() -> dict:
    from ..zhpf_dump import SCENARIO as ZD
    return ZD.defaults()


def blind_costs() -> DumpCosts:
    """zhpf-dump's costs (seed 003) as they stood: a program's MP work and CMR, a Write CCW's MP,
    protocol and CU work, the dump's CPU per record; a Locate Record or TIC costs nothing beyond
    the program (zhpf-dump prices records, the LR and TIC are in the per-I/O work)."""
    p = _zhpf_dump()
    return DumpCosts(program_us=p["mp_us_per_io_ccw"] + p["ha_service_us"] + 1000.0 * p["cpu_ms_per_program"],
                     write_us=p["mp_us_per_command_ccw"] + p["protocol_us_per_command_ccw"] + p["cu_us_per_record"],
                     cpu_us_per_record=p["cpu_us_per_record"], relocate_us=0.0, link_mb_s=p["link_mb_s"])


def catalogue_costs() -> DumpCosts:
    """The same with the catalogue's cost of a Locate Record + TIC re-issued inside a program."""
    from ...model import hardware as hw
    return DumpCosts(**{**blind_costs().__dict__, "relocate_us": hw.RELOCATE_US.value})


def fit_relocate_us(measured: float = 3.6) -> float:
    """The LR + TIC cost that makes :func:`speedup` equal ``measured`` (how RELOCATE_US was fitted)."""
    c = blind_costs()
    new = c.us_per_record(NEW_RECORDS, False)
    old0 = c.us_per_record(OLD_RECORDS, True)
    return (measured * new - old0) * OLD_RECORDS / (OLD_RECORDS - 1)


__all__ = ["DumpCosts", "speedup", "blind_costs", "catalogue_costs", "fit_relocate_us", "OLD_RECORDS",
           "NEW_RECORDS"]
