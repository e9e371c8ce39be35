"""The numbers seed 004 lost, as IBM published them.

Seed 004's table reached us empty; the same report is public (z/VM 4.3.0 performance report,
"Large Volume CMS Minidisks", Table 1, https://www.vm.ibm.com/perf/reports/zvm/html/largemd.html)
with its numbers: virtual I/Os (CP QUERY INDICATE USER EXP) for 50 commands on 10-block files,
4 KB-formatted minidisks. These are the *measured* values of the scenario's figures; the model
(filesystem.py) never reads them.
"""
SOURCE = ("z/VM 4.3.0 performance report, Large Volume CMS Minidisks, Table 1 "
          "(www.vm.ibm.com/perf/reports/zvm/html/largemd.html)")
CYLINDERS = (10, 100, 1000, 3338, 10020, 32760)
#: release -> cylinders -> command -> virtual I/Os per 50 commands
IOS_PER_50 = {
    "4.2.0": {
        10: {"CREATE": 200, "COPY": 500, "RENAME": 2, "ERASE": 52},
        100: {"CREATE": 200, "COPY": 500, "RENAME": 2, "ERASE": 52},
        1000: {"CREATE": 250, "COPY": 600, "RENAME": 3, "ERASE": 53},
        3338: {"CREATE": 400, "COPY": 900, "RENAME": 6, "ERASE": 56},
        10020: {"CREATE": 750, "COPY": 1600, "RENAME": 13, "ERASE": 63},
        32760: {"CREATE": 2000, "COPY": 4100, "RENAME": 38, "ERASE": 88},
    },
    "4.3.0": {
        10: {"CREATE": 200, "COPY": 500, "RENAME": 2, "ERASE": 52},
        100: {"CREATE": 200, "COPY": 500, "RENAME": 2, "ERASE": 52},
        1000: {"CREATE": 200, "COPY": 500, "RENAME": 2, "ERASE": 52},
        3338: {"CREATE": 200, "COPY": 500, "RENAME": 2, "ERASE": 52},
        10020: {"CREATE": 200, "COPY": 500, "RENAME": 2, "ERASE": 52},
        32760: {"CREATE": 200, "COPY": 538, "RENAME": 2, "ERASE": 52},
    },
}
