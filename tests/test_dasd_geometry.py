"""3390 / 3380 / emulated geometry against IBM's published layout figures (shared/domain.md §2)."""
import pytest

from mcio import McioError
from mcio.dasd import EMULATED3390, IBM3380, IBM3390, geometry


@pytest.mark.parametrize("block, per_track, per_cyl", [(512, 49, 735), (1024, 33, 495), (2048, 21, 315),
                                                       (4096, 12, 180)])
def test_3390_blocks_per_track_and_cylinder(block, per_track, per_cyl):
    assert IBM3390.blocks_per_track(block) == per_track
    assert IBM3390.blocks_per_cylinder(block) == per_cyl


def test_3390_track_capacity_is_the_largest_record():
    assert IBM3390.blocks_per_track(56_664) == 1
    assert IBM3390.blocks_per_track(56_665) == 0
    assert IBM3390.usable_track_bytes(4096) == 49_152
    assert IBM3390.blocks_per_cylinder(4096) * 4096 == 737_280      # DFSMShsm's usable bytes per cylinder


def test_3380_layout():
    assert IBM3380.blocks_per_track(47_476) == 1 and IBM3380.blocks_per_track(47_477) == 0
    assert IBM3380.blocks_per_track(4096) == 10


def test_models_and_rotation():
    assert IBM3390.cylinders_of("3390-3") == 3339 and IBM3390.cylinders_of("3390-9") == 10_017
    assert IBM3390.mean_rotational_latency_ms == pytest.approx(7.1)
    # the 1,729 user cells at 4.2 MB/s take just under one 14.2 ms revolution (HA, R0, gaps: the rest)
    assert 0.97 * IBM3390.revolution_ms < IBM3390.cells_per_track * IBM3390.cell_ms < IBM3390.revolution_ms


def test_emulated_device_has_no_positional_parts():
    assert EMULATED3390.mean_rotational_latency_ms == 0.0 and EMULATED3390.cell_ms == 0.0
    assert EMULATED3390.blocks_per_track(4096) == 12


def test_bad_inputs_name_the_field():
    with pytest.raises(McioError, match="block_bytes"):
        IBM3390.blocks_per_track(0)
    with pytest.raises(McioError, match="device_type"):
        geometry("3350")
    with pytest.raises(McioError, match="geometry.model"):
        IBM3390.cylinders_of("3390-4")
