"""check-config takes exactly the dice module addresses its driver takes (a config
that passes the check must never crash the daemon at start)."""

from __future__ import annotations

import pytest

from shutbox_hw.hal.adapters.dice_module import DiceModule
from shutbox_hw.hal.contracts.config import parse_hardware


def accepted_by_config(address: int) -> bool:
    problems: list[str] = []
    parse_hardware({"dice": {"address": address}, "display": {"driver": "none"}}, 9, problems)
    return not any("dice.address" in p for p in problems)


def accepted_by_driver(address: int) -> bool:
    try:
        DiceModule(object(), address)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("address", range(0x00, 0x80))
def test_config_and_driver_agree_on_every_7_bit_address(address):
    # the I2C specification reserves 0x00..0x07 and 0x78..0x7F
    assert accepted_by_config(address) == accepted_by_driver(address) == (0x08 <= address <= 0x77)


def test_a_reserved_dice_address_is_named_with_the_range():
    problems: list[str] = []
    parse_hardware({"dice": {"address": 0x05}}, 9, problems)
    assert problems == ["[hardware] dice.address: address 0x05 is outside 0x08..0x77"]
