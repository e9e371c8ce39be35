"""Fast Minidisk Erase (z/VM 7.1): the elapsed time of erasing a minidisk from command counts.

IBM's report (vm.ibm.com/perf/reports/zvm/html/4q9s2.html) erased one 32,767-cylinder minidisk
three ways, one channel program at a time: CMS FORMAT ("one I/O per track"), CPFMTXA ("one I/O
per cylinder") and HCPFER ("channel programs containing up to 40 LREs", Locate Record and Erase).
With one program outstanding the elapsed time is the sum of the programs' times, each

    per-program cost (channel MP start/end, CMR, the host's work per channel program)
    + commands x per-command cost (by command type)  +  data / link rate

(:func:`elapsed_s`), a model-level computation of what the engine does with one I/O outstanding
(zhpf-dump's stream of one program at a time). Units: us, KB (1000 B), MB/s, s.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

#: 3390 geometry (shared/domain.md §2): 15 tracks per cylinder, 12 4 KB records per track.
TRACKS_PER_CYLINDER = 15
RECORDS_4K_PER_TRACK = 12
KB_4K = 4.096
CYLINDERS = 32_767                 # the report's minidisk
LRE_PER_PROGRAM = 40               # the report: "up to 40 LREs" per channel program


@dataclass(frozen=True)
class EraseJob:
    """One way of erasing the minidisk: ``programs`` channel programs, each of ``writes`` Write
    commands of one 4 KB record and ``erases`` Locate Record and Erase commands (no data)."""

    name: str
    programs: int
    writes: int
    erases: int
    how: str

    @property
    def kb_per_program(self) -> float:
        return self.writes * KB_4K


def jobs(cylinders: int = CYLINDERS) -> dict[str, EraseJob]:
    """The report's three ways, as command counts. CMS FORMAT: one program per track writing its
    12 4 KB blocks (FORMAT's default 4 KB block size on a 3390, z/VM CMS Commands, FORMAT);
    CPFMTXA: one program per cylinder writing its 180 4 KB records (CP-owned space is formatted
    in 4,096-byte records; assumed: all 15 tracks of the cylinder in one program, as "one I/O per
    cylinder" says); HCPFER: 40 LREs a program, assumed one LRE per track (the report does not
    say how much one LRE erases; an LRE is a Locate Record whose domain is erased)."""
    tracks = cylinders * TRACKS_PER_CYLINDER
    return {
        "format": EraseJob("CMS FORMAT", tracks, RECORDS_4K_PER_TRACK, 0, "one program per track, 12 Write CCWs"),
        "cpfmtxa": EraseJob("CPFMTXA", cylinders, RECORDS_4K_PER_TRACK * TRACKS_PER_CYLINDER, 0,
                            "one program per cylinder, 180 Write CCWs"),
        "hcpfer": EraseJob("HCPFER", math.ceil(tracks / LRE_PER_PROGRAM), 0, LRE_PER_PROGRAM,
                           "40 Locate Record and Erase commands a program, one per track"),
    }


@dataclass(frozen=True)
class EraseCosts:
    """Per-program and per-command costs (us) and the link rate (MB/s per direction)."""

    mp_us_per_program: float           # channel MP start + end work of one program (command mode)
    cmr_us: float                      # the control unit's command response, once a program
    host_us_per_program: float         # the host's work per channel program (z/VM CP + the utility)
    write_us: float                    # per Write CCW: MP + protocol + the CU's write of one record
    erase_us: float                    # per LRE: MP + protocol + the CU's erase of its domain
    host_us_per_command: float         # the host's work per command (building the program)
    link_mb_s: float

    def program_us(self, job: EraseJob) -> float:
        cmds = job.writes + job.erases
        return (self.mp_us_per_program + self.cmr_us + self.host_us_per_program
                + job.writes * self.write_us + job.erases * self.erase_us + cmds * self.host_us_per_command
                + 1000.0 * job.kb_per_program / self.link_mb_s)


def elapsed_s(job: EraseJob, costs: EraseCosts) -> float:
    """Seconds to run ``job``'s programs one after another."""
    return job.programs * costs.program_us(job) / 1e6


def zhpf_dump_costs() -> EraseCosts:
    """The costs as mcio had them before issue 30 (the blind run): zhpf-dump's command-mode
    parameters (seed 003, FICON Express8S): MP per I/O, CMR, per-Write-CCW MP + protocol + CU
    work, CPU per record; no per-program host work (zhpf-dump's cpu_ms_per_program = 0); an LRE
    costs as a Write CCW (every CCW costs alike)."""
    from ..zhpf_dump import SCENARIO as ZD
    p = ZD.defaults()
    per_cmd = p["mp_us_per_command_ccw"] + p["protocol_us_per_command_ccw"] + p["cu_us_per_record"]
    return EraseCosts(mp_us_per_program=p["mp_us_per_io_ccw"], cmr_us=p["ha_service_us"],
                      host_us_per_program=1000.0 * p["cpu_ms_per_program"], write_us=per_cmd, erase_us=per_cmd,
                      host_us_per_command=p["cpu_us_per_record"], link_mb_s=p["link_mb_s"])


__all__ = ["EraseJob", "EraseCosts", "jobs", "elapsed_s", "zhpf_dump_costs", "CYLINDERS"]


def catalogue_costs() -> EraseCosts:
    """The costs from the hardware catalogue (issue 30): per-program channel MP and CMR as
    zhpf-dump's; per Write CCW and per LRE the catalogue's command costs by type; the host's work
    per channel program (``HOST_US_PER_PROGRAM``, fitted to the CMS FORMAT figure); no host work
    per command (assumed: a utility builds its program once; seed 003's CPU per record was the
    dump's own record building)."""
    from ...model import hardware as hw
    from ..zhpf_dump import SCENARIO as ZD
    p = ZD.defaults()
    write = hw.COMMAND_COSTS["Write (one record, chained)"].total_us
    lre = hw.COMMAND_COSTS["Locate Record and Erase (one LRE, its domain erased)"].total_us
    return EraseCosts(mp_us_per_program=p["mp_us_per_io_ccw"], cmr_us=hw.CU_CONSTANTS[
        "command response (CMR) per I/O, us"].value, host_us_per_program=hw.HOST_US_PER_PROGRAM.value,
        write_us=write, erase_us=lre, host_us_per_command=0.0, link_mb_s=p["link_mb_s"])


def fit_host_us_per_program(measured_s: float = 399.0, job: str = "format") -> float:
    """The host's work per program that makes ``job`` take ``measured_s`` with the catalogue's
    other costs (how HOST_US_PER_PROGRAM was fitted; tests check the catalogue holds it)."""
    j = jobs()[job]
    c = catalogue_costs()
    rest = c.program_us(j) - c.host_us_per_program
    return measured_s * 1e6 / j.programs - rest


__all__ += ["catalogue_costs", "fit_host_us_per_program"]
