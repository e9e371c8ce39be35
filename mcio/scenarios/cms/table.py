"""The model's whole grid as one CF-1.8 xarray Dataset: I/O counts by release x size x command x
block size (and per block role), the map arithmetic, the published counts beside them, and the
time each batch takes on one 3390 (from the engine), the device busy at a commit rate and the
rate that saturates the volume. ``scripts/cms_commit.py`` writes it with :func:`mcio.store.write_netcdf`.
"""
from __future__ import annotations

import numpy as np
import xarray as xr

from . import geometry as g
from . import published
from .filesystem import COMMANDS, RELEASES, ROLES, role_blocks, run_batch
from .timing import elapsed_ms


def build_dataset(scenario, cylinders, block_sizes, variant: str = "seed", ios: int = 20_000,
                  replications: int = 4, seed: int = 1, timing: bool = True, **overrides) -> xr.Dataset:
    """Every (release, cylinders, command, block size) cell of ``scenario`` (a CmsCommit) under
    ``variant`` and ``overrides``; times need the engine (``timing=False`` skips them)."""
    from . import rules_of, timing_of
    p = scenario.resolve(overrides, variant)
    rules, tp = rules_of(p), timing_of(p)
    n_cmd, fb, rate = int(p["n_commands"]), int(p["file_blocks"]), float(p["commit_rate_per_s"])
    shape = (len(RELEASES), len(cylinders), len(COMMANDS), len(block_sizes))
    ios_n = np.zeros(shape, np.int64)
    by_role = np.zeros(shape + (2, len(ROLES)), np.int64)
    el = np.full(shape, np.nan)
    el_ci = np.full(shape, np.nan)
    for i, rel in enumerate(RELEASES):
        for j, cyl in enumerate(cylinders):
            for k, cmd in enumerate(COMMANDS):
                for m, bb in enumerate(block_sizes):
                    progs = run_batch(cmd, rel, int(cyl), int(bb), fb, n_cmd, rules)
                    ios_n[i, j, k, m] = len(progs)
                    for (op, role), n in role_blocks(progs).items():
                        by_role[i, j, k, m, ("read", "write").index(op), ROLES.index(role)] = n
                    if timing:
                        e, ci, _ = elapsed_ms(progs, int(bb), ios, replications, seed, **tp)
                        el[i, j, k, m], el_ci[i, j, k, m] = e / n_cmd, ci / n_cmd
    pub = np.full(shape[:3], np.nan)
    for i, rel in enumerate(RELEASES):
        for j, cyl in enumerate(cylinders):
            for k, cmd in enumerate(COMMANDS):
                v = published.IOS_PER_50.get(rel, {}).get(int(cyl), {}).get(cmd)
                if v is not None and n_cmd == 50 and fb == 10:
                    pub[i, j, k] = v
    dims = ("release", "cylinders", "command", "block_bytes")

    def var(data, d, units, long_name, **extra):
        return xr.Variable(d, data, {"units": units, "long_name": long_name, **extra})

    cyl = np.asarray(cylinders, np.int64)
    bbs = np.asarray(block_sizes, np.int64)
    geo = lambda f: np.array([[f(int(c), int(b)) for b in bbs] for c in cyl], np.int64)  # noqa: E731
    map_n = geo(g.map_blocks)
    ds = xr.Dataset(
        {
            "ios_per_batch": var(ios_n, dims, "1", f"virtual I/Os (channel programs) per {n_cmd} commands"),
            "ios_per_command": var(ios_n / n_cmd, dims, "1", "virtual I/Os per command"),
            "blocks_moved": var(by_role, dims + ("op", "role"), "1",
                                f"blocks read or written per {n_cmd} commands, by block role"),
            "published_ios_per_batch": var(pub, dims[:3], "1",
                                           "virtual I/Os per 50 commands, 4 KB blocks, as published",
                                           source=published.SOURCE),
            "minidisk_blocks": var(geo(g.minidisk_blocks), ("cylinders", "block_bytes"), "1", "blocks on the minidisk"),
            "allocation_map_blocks": var(map_n, ("cylinders", "block_bytes"), "1", "allocation map blocks (one bit per block)"),
            "allocation_map_pointer_blocks": var(np.array([[g.pointer_blocks(int(n), int(b)) for n, b in zip(row, bbs)]
                                                for row in map_n], np.int64),
                                      ("cylinders", "block_bytes"), "1", "pointer blocks of the ALLOCMAP file"),
            "elapsed_ms": var(el, dims, "ms", "elapsed time per command on one 3390 (engine mean)"),
            "elapsed_ci95_ms": var(el_ci, dims, "ms", "95 % CI half-width of elapsed_ms over replications"),
            "device_busy": var(el * rate / 1000.0, dims, "1",
                               "device busy (z/VM: pend + disconnect + connect) of one user at commit_rate_per_s",
                               commit_rate_per_s=rate),
            "saturation_commands_per_s": var(1000.0 / el, dims, "s-1",
                                             "commands per second at which the volume is 100 % busy"),
        },
        coords={
            "release": var(np.array(RELEASES), ("release",), "1", "z/VM release (commit rule)"),
            "cylinders": var(cyl, ("cylinders",), "1", "minidisk size in 3390 cylinders"),
            "command": var(np.array(COMMANDS), ("command",), "1", "CMS command"),
            "block_bytes": var(bbs, ("block_bytes",), "byte", "CMS block size"),
            "op": var(np.array(["read", "write"]), ("op",), "1", "direction"),
            "role": var(np.array(ROLES), ("role",), "1", "what the block holds"),
        },
        attrs={
            "Conventions": "CF-1.8",
            "title": "CMS file-commit I/O versus minidisk size, z/VM 4.2.0 vs 4.3.0 (mcio scenario cms-commit)",
            "source": "mcio.scenarios.cms (seed 004)",
            "variant": variant,
            "scenario_params": repr({k: v for k, v in p.items()}),
            "seed": seed, "ios": ios, "replications": replications,
        },
    )
    return ds
