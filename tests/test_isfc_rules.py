"""z/VM's write-collision convention (mcio.scenarios.isfc.rules), exhaustively for 1-16 devices.

The oracle is the convention as IBM words it (seed 000 and "Avoidance of write collisions"),
restated independently here as "which end of the sorted device list each member is barred from".
"""
import itertools

import pytest

from mcio.errors import McioError
from mcio.scenarios.isfc.rules import (check_pair, first_member, format_devno_ranges, parse_chpid,
                                       parse_devno, parse_devno_ranges, reserved_per_side,
                                       used_positions, write_order, writers)

# IBM: 2-8 devices -> each side leaves 1 to the partner, 9-16 -> 2; 1 device: nothing can be left.
LEFT_TO_PARTNER = {1: 0, **{n: 1 for n in range(2, 9)}, **{n: 2 for n in range(9, 17)}}


def devnos(n, base=0xD000, step=1):
    return [base + step * i for i in range(n)]


@pytest.mark.parametrize("n", range(1, 17))
@pytest.mark.parametrize("sender", ["LPAR1", "LPAR2"])
def test_convention_exhaustive(n, sender):
    partner = "LPAR2" if sender == "LPAR1" else "LPAR1"
    ds = devnos(n)
    left = LEFT_TO_PARTNER[n]
    order = write_order(ds, sender, partner)
    if sender == "LPAR1":      # sorts first: from the lowest upward, barred from the top `left`
        expected = ds[: n - left]
        barred = ds[n - left:]
    else:                      # sorts second: from the highest downward, barred from the bottom `left`
        expected = ds[left:][::-1]
        barred = ds[:left]
    assert order == expected
    assert len(order) == n - left
    assert not set(order) & set(barred)
    # every device someone cannot write on is the other's exclusive device
    w = writers(ds, sender, partner)
    for d in barred:
        assert w[d] == (partner,)
    if n == 1:
        assert w[ds[0]] == ("LPAR1", "LPAR2")  # single device: both members write on it
    # the two members together cover every device, and only the middle is shared
    shared = [d for d in ds if len(w[d]) == 2]
    assert len(shared) == n - 2 * left
    assert set(used_positions(n, sender == "LPAR1")) == {ds.index(d) for d in order}


@pytest.mark.parametrize("n", range(1, 17))
def test_device_numbers_need_not_be_contiguous_or_sorted(n):
    ds = devnos(n, base=0x0100, step=7)[::-1]   # reversed, gaps of 7
    low_first = write_order(ds, "AAA", "BBB")
    high_first = write_order(ds, "BBB", "AAA")
    s = sorted(ds)
    left = LEFT_TO_PARTNER[n]
    assert low_first == s[: n - left]
    assert high_first == s[left:][::-1]


def test_seed_examples():
    # 9 devices D000-D008, LPAR2 sends: D000 and D001 are LPAR1's, LPAR2 starts at D008
    order = write_order(devnos(9), "LPAR2", "LPAR1")
    assert order[0] == 0xD008 and 0xD000 not in order and 0xD001 not in order and order[-1] == 0xD002
    # IBM's example: D000-D00F, LPAR1 writes D000 up to D00D, leaving D00E-D00F to LPAR2
    assert write_order(devnos(16), "LPAR1", "LPAR2") == devnos(14)
    # 1 channel x 2 FCTC (D050, D051): the lower devno is left to the partner
    assert write_order([0xD050, 0xD051], "LPAR2", "LPAR1") == [0xD051]
    # 16 devices, BOER3740 sends to BOER3739: the two lowest (D000, D007) are not used
    ds = [0xD000, 0xD007] + list(range(0xD008, 0xD014)) + [0xD015, 0xD01C]
    order = write_order(ds, "BOER3740", "BOER3739")
    assert 0xD000 not in order and 0xD007 not in order and {0xD015, 0xD01C} <= set(order)
    assert len(order) == 14


def test_names_sort_in_ebcdic():
    assert first_member("LPAR2", "LPAR1") == "LPAR1"
    assert first_member("BOER3740", "BOER3739") == "BOER3739"
    # EBCDIC: letters before digits (ASCII would say SYS1 < SYSA)
    assert first_member("SYS1", "SYSA") == "SYSA"
    # blank padding: a prefix sorts first
    assert first_member("VMA", "VM") == "VM"
    assert first_member("lpar1", "LPAR2") == "LPAR1"   # upper-cased


def test_reserved_per_side_bounds():
    assert [reserved_per_side(n) for n in range(1, 17)] == [LEFT_TO_PARTNER[n] for n in range(1, 17)]
    for bad in (0, 17, -1):
        with pytest.raises(McioError, match="devices"):
            reserved_per_side(bad)


def test_more_than_16_devices_rejected():
    with pytest.raises(McioError, match="at most 16"):
        write_order(devnos(17), "LPAR1", "LPAR2")


def test_duplicate_device_numbers_rejected():
    with pytest.raises(McioError, match="duplicate device number") as e:
        writers(["D000", "D001", "d000"], "LPAR1", "LPAR2")
    assert e.value.value == "D000"


def test_equal_system_names_rejected():
    with pytest.raises(McioError, match="different system names"):
        check_pair("LPAR1", "lpar1")
    with pytest.raises(McioError, match="system name"):
        check_pair("LPAR1", "TOO-LONG-NAME")


def test_parsing():
    assert parse_devno("D000") == 0xD000 and parse_devno("0xd00f") == 0xD00F and parse_devno(5) == 5
    assert parse_chpid("3c") == 0x3C
    for bad in ("G000", "10000", "", True, 1.5):
        with pytest.raises(McioError):
            parse_devno(bad)
    with pytest.raises(McioError, match="CHPID"):
        parse_chpid("100")
    assert parse_devno_ranges("D000-D002, D009") == [0xD000, 0xD001, 0xD002, 0xD009]
    assert parse_devno_ranges(["D000-D001", "D005"]) == [0xD000, 0xD001, 0xD005]
    with pytest.raises(McioError, match="lower to the higher"):
        parse_devno_ranges("D005-D001")
    assert format_devno_ranges([0xD009, 0xD001, 0xD000, 0xD002]) == "D000-D002, D009"


def test_every_split_of_roles_is_consistent():
    """For every n and both name orders: exclusive sets are disjoint ends of equal size."""
    for n, (a, b) in itertools.product(range(2, 17), [("A", "B"), ("B", "A")]):
        w = writers(devnos(n), a, b)
        only_a = [d for d, s in w.items() if s == ("A",)]
        only_b = [d for d, s in w.items() if s == ("B",)]
        assert len(only_a) == len(only_b) == LEFT_TO_PARTNER[n]
        assert max(only_a) < min(only_b)     # A sorts first: its own devices are the lowest
