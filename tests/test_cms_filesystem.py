"""The CMS file-system rules: I/O counts are integers from the block-level rules (checked against a
closed form worked by hand), the seed's shape statements hold, and each unpublished parameter
changes the table the way docs/cms_commit.md says."""
import math

import pytest

from mcio import McioError
from mcio.scenarios.cms import geometry as g
from mcio.scenarios.cms.filesystem import COMMANDS, FsRules, ios_per_batch, role_blocks, run_batch

SEED_CYL = (10, 100, 1000, 3338, 10020, 32760)


def hand_count(command, release, cyl, b=4096, k=5, n=50, f=10):
    """The rules worked by hand for a fresh minidisk whose test files fit one directory block and
    one map block (true at 4 KB): a commit = ceil(control blocks / k) + 1 label write."""
    m = g.map_blocks(cyl, b) + g.pointer_blocks(g.map_blocks(cyl, b), b) if release == "4.2.0" else 1
    data, ptr = math.ceil(f / k), g.pointer_blocks(f, b)
    commit_new = math.ceil((ptr + 1 + m) / k) + 1       # file pointer + directory + map, label
    commit_dir = math.ceil((1 + m) / k) + 1             # directory + map, label
    if command == "CREATE":
        return n * (data + commit_new)
    if command == "COPY":                              # read source, write copy, commit, free old, commit
        return n * (ptr + data + data + commit_new + ptr + commit_dir)
    if command == "RENAME":
        return commit_dir
    return n * ptr + commit_dir                         # ERASE: pointer block per file, one commit


@pytest.mark.parametrize("release", ["4.2.0", "4.3.0"])
@pytest.mark.parametrize("cyl", SEED_CYL + (500, 2000, 65520))
def test_counts_equal_the_hand_worked_rules(release, cyl):
    for cmd in COMMANDS:
        got = ios_per_batch(cmd, release, cyl)
        assert isinstance(got, int) and got == hand_count(cmd, release, cyl), (cmd, release, cyl)


def test_small_minidisks_are_flat_in_both_releases():
    for rel in ("4.2.0", "4.3.0"):
        assert [ios_per_batch(c, rel, 100) for c in COMMANDS] == [ios_per_batch(c, rel, 10) for c in COMMANDS]


def test_4_2_0_grows_at_every_step_from_100_cylinders():
    for cmd in COMMANDS:
        n = [ios_per_batch(cmd, "4.2.0", c) for c in SEED_CYL[1:] + (65520, 262668)]
        assert all(b > a for a, b in zip(n, n[1:])), (cmd, n)


def test_4_3_0_is_flat_at_every_size_and_block_size():
    for b in (512, 1024, 2048, 4096):
        for cmd in COMMANDS:
            n = [ios_per_batch(cmd, "4.3.0", c, block_bytes=b) for c in SEED_CYL + (262668,)]
            assert max(n) <= 1.05 * n[0], (b, cmd, n)


def test_4_2_0_writes_the_whole_map_and_4_3_0_one_block_per_commit():
    for rel, per_commit in (("4.2.0", 180 + 1), ("4.3.0", 1)):
        blocks = role_blocks(run_batch("CREATE", rel, 32760))
        assert blocks[("write", "data")] == 500 and blocks[("write", "file_pointer")] == 50
        assert blocks[("write", "map")] + blocks.get(("write", "map_pointer"), 0) == 50 * per_commit
        assert blocks[("write", "label")] == 50


def test_programs_never_exceed_their_limit():
    for rules, lim in ((FsRules(), 5), (FsRules(program_limit="bytes"), 40)):
        progs = run_batch("COPY", "4.2.0", 3338, block_bytes=512, rules=rules)
        assert max(p.n_blocks for p in progs) == lim


@pytest.mark.parametrize("k, extra", [(4, 45), (6, 30), (5, 36)])
def test_only_five_blocks_per_program_gives_the_published_growth(k, extra):
    # published 4.2.0 RENAME: 38 at 32,760 cylinders, 2 at 10: 36 extra I/Os for one whole map
    r = FsRules(blocks_per_program=k)
    assert ios_per_batch("RENAME", "4.2.0", 32760, rules=r) - ios_per_batch("RENAME", "4.2.0", 10, rules=r) == extra


def test_the_fitted_structural_rules_each_move_a_published_cell():
    assert ios_per_batch("CREATE", "4.3.0", 10, rules=FsRules(grouping="contiguous")) == 250   # table: 200
    assert ios_per_batch("RENAME", "4.3.0", 10, rules=FsRules(label_separate=False)) == 1      # table: 2
    assert ios_per_batch("COPY", "4.3.0", 10, rules=FsRules(copy_replaces_target=False)) == 450  # table: 500
    assert ios_per_batch("RENAME", "4.2.0", 32760, rules=FsRules(deferred=())) == 50 * 38        # table: 38


def test_bad_inputs_name_the_field():
    with pytest.raises(McioError, match="release"):
        ios_per_batch("CREATE", "4.4.0", 10)
    with pytest.raises(McioError, match="command"):
        ios_per_batch("MOVE", "4.2.0", 10)
    with pytest.raises(McioError, match="grouping"):
        FsRules(grouping="nearby")
