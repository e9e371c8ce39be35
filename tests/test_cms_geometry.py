"""The CMS minidisk arithmetic against hand calculation: 3390 blocks per cylinder, allocation-map
blocks (one bit per block) and pointer blocks, for every CMS block size (domain.md sections 2, 5)."""
import pytest

from mcio import McioError
from mcio.scenarios.cms import geometry as g


def test_blocks_per_cylinder_are_15_tracks_of_the_3390_block_counts():
    assert {b: g.blocks_per_cylinder(b) for b in (4096, 2048, 1024, 512)} == {4096: 180, 2048: 315, 1024: 495, 512: 735}


@pytest.mark.parametrize("cyl, blocks", [(10, 1), (100, 1), (182, 1), (183, 2), (1000, 6), (3338, 19),
                                         (10020, 56), (32760, 180)])
def test_4k_map_blocks_match_domain_md(cyl, blocks):
    # by hand: ceil(180 * cyl / 32,768); 182 cyl = 32,760 blocks still fits one map block
    assert g.map_blocks(cyl, 4096) == blocks


def test_small_block_maps_by_hand():
    # 512 B: 735 blocks per cylinder, 4,096 bits per map block
    assert g.map_blocks(10, 512) == 2                 # 7,350 / 4,096 = 1.79
    assert g.map_blocks(32760, 512) == 5879           # 24,078,600 / 4,096 = 5,878.6
    assert g.map_blocks(32760, 1024) == 1980          # 16,216,200 / 8,192 = 1,979.5
    assert g.map_blocks(32760, 2048) == 630           # 10,319,400 / 16,384 = 629.8
    assert g.map_blocks(262668, 4096) == 1443         # 47,280,240 / 32,768 = 1,442.9


def test_pointer_blocks_one_level_then_two():
    assert g.pointer_blocks(1, 4096) == 0             # the FST points at the block itself
    assert g.pointer_blocks(10, 4096) == 1 and g.pointer_blocks(10, 512) == 1
    assert g.pointer_blocks(180, 4096) == 1           # 1,024 pointers per 4 KB block
    assert g.pointer_blocks(1024, 4096) == 1 and g.pointer_blocks(1025, 4096) == 3   # 2 + a top block
    assert g.pointer_blocks(5879, 512) == 46 + 1      # 128 pointers per 512 B block
    assert g.fsts_per_block(4096) == 64 and g.fsts_per_block(512) == 8


def test_bad_geometry_is_refused():
    with pytest.raises(McioError, match="block_bytes"):
        g.map_blocks(10, 4000)
    with pytest.raises(McioError, match="cylinders"):
        g.map_blocks(0, 4096)
