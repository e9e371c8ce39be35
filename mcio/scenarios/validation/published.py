"""The validation set: published measurements of FICON channels, feature cards, z/VM I/O utilities
and ISFC links that no mcio scenario was fitted to, each with its source and the configuration
it was measured on (issue 30). :mod:`.scenario` runs them; docs/validation.md records the blind
and final predictions.
"""
from __future__ import annotations

# ---- sources (document, page / passage) ------------------------------------------------------
Z9_FEX4 = ("IBM, 'System z9 I/O and FICON Express4 Channel Performance', figure on p. 7, as quoted by C. "
           "Beuselinck (IBM System z Hardware Product Planning) on IBM-MAIN "
           "(www.mail-archive.com/ibm-main@bama.ua.edu/msg72623.html): 'Measurements were done with all four "
           "FICON Express4 channels active on the same card ... a maximum of 1230 READ MB/sec, 1150 WRITE "
           "MB/sec and 1300 READ+WRITE MB/sec'")
ZVM_FME = ("IBM, z/VM 7.1 Performance Report, 'Fast Minidisk Erase' (vm.ibm.com/perf/reports/zvm/html/4q9s2.html), "
           "Abstract: 'the time needed for the new function to erase a 32767-cylinder minidisk was 36 seconds, "
           "compared to 399 seconds for CMS FORMAT and 253 seconds for CPFMTXA'; Background: FORMAT 'one I/O per "
           "track', CPFMTXA 'one I/O per cylinder', HCPFER 'channel programs containing up to 40 LREs'")
IBM_PERF = ("IBM, 'FICON performance' (www-03.ibm.com/systems/z/hardware/connectivity/ficon_performance.html), "
            "'The High Performance FICON for System z journey'")
BROCADE_Z14 = ("S. Guendert, 'IBM z14 New I/O Features Synergy with Brocade Gen 6 FICON SAN Technology' "
               "(community.brocade.com, 2017-08-22), reporting IBM's performance tests")
DS6000 = ("IBM Redbook 'IBM TotalStorage DS6000 Series: Performance Monitoring and Tuning' (SG24-7145, "
          "ISBN 0738494119), p. 48, FICON connection limits: 'Channel and link bandwidth: 170 MB/s for FICON "
          "Express and 270 MB/s for FICON Express2'")
LGR_NONSHARED = ("IBM, z/VM 6.2 Live Guest Relocation study (the study behind seed 000), topic 'FCTC connection "
                 "I/O rates for non-shared ISFC logical link configurations' "
                 "(ibm.com/docs/en/linuxonibm/liaag/lgr/l0lgr00_fctcdeviceioratenonshared.html), Figure 1: "
                 "'one non-shared FICON channel with twelve FCTC connections ... about 450 SSCH/s (10 * 45 "
                 "SSCH/s). The link data rate is about 342 MB/s'")

Z13_LATENCY = ("IBM, 'z13 IOS & FICON16S' (IBM Systems Magazine insert, 2015; docslib.org/doc/10156912): 'the I/O "
               "latency characteristics of a single 4K I/O request ... The FICON Express16S channel with the DS8870 "
               "16 Gbps host bus adapter provides the best I/O latency result, up to 21% better than the zEC12'; "
               "'zHPF Read z13 with FICON Express16S Response Time is 21% lower (better) than IBM zEnterprise EC12 "
               "(zEC12) with FICON Express8S'")

ZVM_DUMP = ("IBM, z/VM 6.4 Performance Report, 'Dump Channel Program Changes' "
            "(vm.ibm.com/perf/reports/zvm/html/640500.html), Abstract: 'In PTF UM35132 for APAR VM65989 ... the "
            "change improved the speed of dump writing by about 260%'; Introduction: the old and new CCW sequences")

#: The benchmark block: 6 x 27 KB (six half tracks), the I/O-driver program IBM used for its
#: channels' maximum MB/s (FICON Express2 Channel Performance v1.0, p. 6: '6x27K bytes per I/O ...
#: capable of achieving high MB/sec'); assumed for the later papers, which do not say their block.
LARGE_KB = 6 * 27.648
LARGE_RECORDS = 6

#: config name -> what was measured on what. ``kind``: "bench" (a channel group driven flat out,
#: :func:`.configs.channel_benchmark`), "erase" (:mod:`.erase`), "isfc" (seed 000's physics).
CONFIGS: dict[str, dict] = {
    "fex4_card_read": {"kind": "bench", "generation": "4", "channels": 4, "kb": LARGE_KB,
                       "records": LARGE_RECORDS, "write_share": 0.0, "zhpf_share": 0.0, "card": "4"},
    "fex4_card_write": {"kind": "bench", "generation": "4", "channels": 4, "kb": LARGE_KB,
                        "records": LARGE_RECORDS, "write_share": 1.0, "zhpf_share": 0.0, "card": "4"},
    "fex4_card_mix": {"kind": "bench", "generation": "4", "channels": 4, "kb": LARGE_KB,
                      "records": LARGE_RECORDS, "write_share": 0.5, "zhpf_share": 0.0, "card": "4"},
    "fex2_card_read": {"kind": "bench", "generation": "2", "channels": 4, "kb": LARGE_KB,
                       "records": LARGE_RECORDS, "write_share": 0.0, "zhpf_share": 0.0, "card": "2"},
    "fex2_card_write": {"kind": "bench", "generation": "2", "channels": 4, "kb": LARGE_KB,
                        "records": LARGE_RECORDS, "write_share": 1.0, "zhpf_share": 0.0, "card": "2"},
    "fex2_card_mix": {"kind": "bench", "generation": "2", "channels": 4, "kb": LARGE_KB,
                      "records": LARGE_RECORDS, "write_share": 0.5, "zhpf_share": 0.0, "card": "2"},
    "fex4_over_fex2_read": {"kind": "ratio", "of": ("fex4_card_read", "fex2_card_read")},
    "fex4_over_fex2_write": {"kind": "ratio", "of": ("fex4_card_write", "fex2_card_write")},
    "fex4_over_fex2_mix": {"kind": "ratio", "of": ("fex4_card_mix", "fex2_card_mix")},
    "fex4_zhpf_4k": {"kind": "bench", "generation": "4", "channels": 1, "kb": 4.096, "records": 1,
                     "write_share": 0.0, "zhpf_share": 1.0, "card": None},
    "fex4_ccw_4k": {"kind": "bench", "generation": "4", "channels": 1, "kb": 4.096, "records": 1,
                    "write_share": 0.0, "zhpf_share": 0.0, "card": None},
    "fex8s_zhpf_mix": {"kind": "bench", "generation": "8S", "channels": 1, "kb": LARGE_KB,
                       "records": LARGE_RECORDS, "write_share": 0.5, "zhpf_share": 1.0, "card": None},
    "fex16s_zhpf_mix": {"kind": "bench", "generation": "16S", "channels": 1, "kb": LARGE_KB,
                        "records": LARGE_RECORDS, "write_share": 0.5, "zhpf_share": 1.0, "card": None},
    "fex16splus_zhpf_mix": {"kind": "bench", "generation": "16S+", "channels": 1, "kb": LARGE_KB,
                            "records": LARGE_RECORDS, "write_share": 0.5, "zhpf_share": 1.0, "card": None},
    "fex2_channel": {"kind": "bench", "generation": "2", "channels": 1, "kb": LARGE_KB, "records": LARGE_RECORDS,
                     "write_share": 0.5, "zhpf_share": 0.0, "card": None},
    "fex8s_zhpf_read_alone": {"kind": "bench", "generation": "8S", "channels": 1, "kb": 4.096, "records": 1,
                              "write_share": 0.0, "zhpf_share": 1.0, "card": None, "population": 1},
    "fex16s_zhpf_read_alone": {"kind": "bench", "generation": "16S", "channels": 1, "kb": 4.096, "records": 1,
                               "write_share": 0.0, "zhpf_share": 1.0, "card": None, "population": 1},
    "latency_16s_over_8s": {"kind": "ratio", "of": ("fex16s_zhpf_read_alone", "fex8s_zhpf_read_alone"),
                            "quantity": "response_ms"},
    "erase_format": {"kind": "erase", "job": "format"},
    "erase_cpfmtxa": {"kind": "erase", "job": "cpfmtxa"},
    "erase_hcpfer": {"kind": "erase", "job": "hcpfer"},
    "dump_vm65989": {"kind": "dump"},
    "isfc_nonshared_1x12": {"kind": "isfc", "layout": {"3E": "D000-D00B"}, "shared": False},
}

#: (figure name, config, quantity, measured, unit, source, tolerance (relative), note)
FIGURES: tuple = (
    ("FICON Express4 feature, 4 channels: read MB/s", "fex4_card_read", "mb_s", 1230.0, "Mbyte s-1", Z9_FEX4, 0.15,
     "6x27K reads (block assumed); z9"),
    ("FICON Express4 feature, 4 channels: write MB/s", "fex4_card_write", "mb_s", 1150.0, "Mbyte s-1", Z9_FEX4, 0.15,
     "6x27K writes (block assumed); z9"),
    ("FICON Express4 feature, 4 channels: read+write MB/s", "fex4_card_mix", "mb_s", 1300.0, "Mbyte s-1", Z9_FEX4,
     0.15, "6x27K, half reads (mix assumed); z9"),
    *((f"FICON Express4 feature over FICON Express2 feature: {w} MB/s", f"fex4_over_fex2_{v}", "ratio", (1.3, 1.9),
       "1", Z9_FEX4 + ": 'represents up to 1.3 to 1.9 times more throughput than a FICON Express2 feature'", None,
       "the Express2 feature predicted (4 channels, its 1 GB/s STI bus, 270 MB/s per channel); the range holds "
       "the three ratios together")
      for w, v in (("read", "read"), ("write", "write"), ("read+write", "mix"))),
    ("FICON Express4 z/HPF: max 4 KB I/Os/s per channel", "fex4_zhpf_4k", "iops", 31000.0, "s-1",
     IBM_PERF + ": z10, 'Maximum of 31k zHPF IOs/sec, 2.2 times the FICON protocol'", 0.15,
     "predicted from seed 001's fitted command-mode MP work (z9) and the 2.2 reading"),
    ("FICON Express4 command mode: max 4 KB I/Os/s per channel", "fex4_ccw_4k", "iops", 31000.0 / 2.2, "s-1",
     IBM_PERF + ": z10, 'Maximum of 31k zHPF IOs/sec, 2.2 times the FICON protocol' (31,000 / 2.2)", 0.15,
     "predicted from seed 001's fitted MP work (z9, 12,100 I/Os/s at 96 % MP busy); the z10's command mode"),
    ("FICON Express8S z/HPF: max MB/s per channel (reads + writes)", "fex8s_zhpf_mix", "mb_s", 1600.0, "Mbyte s-1",
     IBM_PERF + ": z196, 'a maximum throughput of 1600 MB/sec (reads + writes)'", 0.15,
     "a mix of large sequential reads and writes"),
    ("FICON Express16S z/HPF: max MB/s per channel (reads + writes)", "fex16s_zhpf_mix", "mb_s", 2560.0, "Mbyte s-1",
     BROCADE_Z14 + ": '2560 MB/sec for the same test on z13 and FICON Express16S'", 0.15,
     "a mix of large sequential reads and writes"),
    ("FICON Express16S+ z/HPF: max MB/s per channel (reads + writes)", "fex16splus_zhpf_mix", "mb_s", 3200.0,
     "Mbyte s-1", BROCADE_Z14 + ": 'a maximum full duplex throughput of 3200 MB/sec (reads + writes) on z14'",
     0.15, "a mix of large sequential reads and writes"),
    ("FICON Express2: channel bandwidth MB/s", "fex2_channel", "mb_s", 270.0, "Mbyte s-1", DS6000, 0.15,
     "2 Gbit/s link; read/write mix of the bandwidth benchmark assumed (6x27K, half writes)"),
    ("single 4 KB z/HPF read: response z13 FEX16S (16G end to end) over zEC12 FEX8S", "latency_16s_over_8s",
     "ratio", 0.79, "1", Z13_LATENCY, 0.15,
     "one I/O at a time, a cache hit; '21% lower' read as 0.79 x; protocol: the catalogue's TCW + TCCB (5 us, "
     "Express8S) x each generation's protocol_scale (assumed: 800 / link MB/s)"),
    ("Fast Minidisk Erase: CMS FORMAT of 32,767 cylinders", "erase_format", "elapsed_s", 399.0, "s", ZVM_FME, 0.15,
     "one program per track (491,505 programs of 12 Write CCWs)"),
    ("Fast Minidisk Erase: CPFMTXA of 32,767 cylinders", "erase_cpfmtxa", "elapsed_s", 253.0, "s", ZVM_FME, 0.15,
     "one program per cylinder (32,767 programs of 180 Write CCWs)"),
    ("Fast Minidisk Erase: HCPFER of 32,767 cylinders", "erase_hcpfer", "elapsed_s", 36.0, "s", ZVM_FME, 0.15,
     "12,288 programs of 40 LREs (one LRE per track assumed)"),
    ("z/VM dump, VM65989 (no LR + TIC per record): dump rate with / without", "dump_vm65989", "speedup", 3.6, "1",
     ZVM_DUMP, 0.15, "'improved ... by about 260%' read as 3.6 x; full chains of 90 and 255 records assumed"),
    ("ISFC, 1 non-shared channel x 12 FCTC: link SSCH/s", "isfc_nonshared_1x12", "link_ssch_iops", 450.0, "s-1",
     LGR_NONSHARED, 0.15, "FICON Express4; seed 000's fitted physics, non-shared"),
    ("ISFC, 1 non-shared channel x 12 FCTC: link MB/s", "isfc_nonshared_1x12", "link_mb_s", 342.0, "Mbyte s-1",
     LGR_NONSHARED, 0.15, "FICON Express4; seed 000's fitted physics, non-shared"),
)

__all__ = ["CONFIGS", "FIGURES", "LARGE_KB", "LARGE_RECORDS", "Z9_FEX4", "ZVM_FME", "IBM_PERF", "BROCADE_Z14",
           "DS6000", "LGR_NONSHARED", "Z13_LATENCY", "ZVM_DUMP"]
