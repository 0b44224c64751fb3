"""``[hardware.dice]``: the dice module's bus, address and ready pin, checked like the rest."""

from __future__ import annotations

from pathlib import Path

import pytest

from shutbox_hw.commands.cli import main
from shutbox_hw.config.config_file import load_config, parse_config
from shutbox_hw.hal.contracts.config import DiceConfig

ROOT = Path(__file__).resolve().parent.parent
BUILDS = {"gpio-9": ROOT / "hardware/gpio-9/shutbox.toml",
          "mcp23017-12": ROOT / "hardware/mcp23017-12/shutbox.toml"}


def with_module(build: str, tmp_path: Path, dice_table: str = "") -> Path:
    """A reference build's config with ``[game] dice = "module"`` and a dice table."""
    text = BUILDS[build].read_text().replace('dice = "software"', 'dice = "module"')
    assert 'dice = "module"' in text
    path = tmp_path / f"{build}-dice.toml"
    path.write_text(text + "\n[hardware.dice]\n" + dice_table)
    return path


def problems(text: str) -> list[str]:
    import tomllib
    return parse_config(tomllib.loads(text))[1]


@pytest.mark.parametrize("build", BUILDS)
def test_both_reference_builds_take_the_module_with_the_defaults(build, tmp_path, capsys):
    path = with_module(build, tmp_path)
    assert main(["check-config", str(path)]) == 0
    assert "dice module 0x42 on bus 4 (i2c-gpio, BCM 10/11)" in capsys.readouterr().out
    config = load_config(path)
    assert config.game.dice == "module"
    assert config.hardware.dice == DiceConfig(bus=4, address=0x42, ready_pin=18,
                                              sda_pin=10, scl_pin=11)
    assert config.hardware.dice.overlay == \
        "dtoverlay=i2c-gpio,bus=4,i2c_gpio_sda=10,i2c_gpio_scl=11"


def test_without_the_table_there_is_no_module():
    assert load_config(BUILDS["gpio-9"]).hardware.dice is None


def test_the_module_needs_its_table():
    assert problems('[game]\ndice = "module"\n') == [
        '[game] dice: "module" needs a [hardware.dice] table (an empty one: bus 4 on '
        'BCM 10/11, address 0x42, ready_pin 18)']


def test_a_ready_line_of_none_polls():
    config, found = parse_config({"game": {"dice": "module"},
                                  "hardware": {"dice": {"ready_pin": "none", "bus": 3,
                                                        "address": 0x43}}})
    assert found == [] and config is not None
    assert config.hardware.dice == DiceConfig(bus=3, address=0x43, ready_pin=None)


@pytest.mark.parametrize("table, expected", [
    ("ready_pin = 23", "[hardware] dice.ready_pin: pin 23 is also used by ROLL"),
    ("ready_pin = 14", "[hardware] dice.ready_pin: BCM 14 is the UART's TXD"),
    ("ready_pin = 3", "[hardware] dice.ready_pin: BCM 3 is I2C SCL"),
    ("ready_pin = 30", "[hardware] dice.ready_pin: BCM pin 30 is outside 0..27"),
    ("ready_pin = \"GPA1\"", "[hardware] dice.ready_pin: expected a BCM pin number"),
    ("address = 0x3C\nbus = 1\nsda_pin = \"none\"\nscl_pin = \"none\"",
     "[hardware] dice.address: 0x3C is also the display's address on bus 1"),
    ("sda_pin = 24", "[hardware] dice.sda_pin: pin 24 is also used by NEXT"),
    ("scl_pin = 2", "[hardware] dice.scl_pin: BCM 2 is I2C SDA"),
    ("sda_pin = \"none\"", "[hardware] dice.sda_pin: give both sda_pin and scl_pin"),
    ("bus = 1", "[hardware] dice.bus: 1 is the Pi's own I2C; the i2c-gpio bus"),
    ("address = 0x90", "[hardware] dice.address: address 0x90 is outside 0x08..0x77"),
    ("bus = -1", "[hardware] dice.bus: -1 is outside 0..31"),
    ("colour = 1", "[hardware] dice.colour: unknown key (keys: bus, address, ready_pin, sda_pin, "
                    "scl_pin)"),
])
def test_each_mistake_is_one_line_naming_the_key(table, expected, tmp_path, capsys):
    path = with_module("gpio-9", tmp_path, table + "\n")
    assert main(["check-config", str(path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and expected in err[0], err


def test_the_expander_s_pins_and_addresses_are_refused_too(tmp_path, capsys):
    path = with_module("mcp23017-12", tmp_path, "ready_pin = 4\naddress = 0x21\nbus = 1\n"
                       'sda_pin = "none"\nscl_pin = "none"\n')
    assert main(["check-config", str(path)]) == 2
    err = capsys.readouterr().err
    assert "dice.ready_pin: pin 4 is also used by the MCP23017 INT line" in err
    assert "dice.address: 0x21 is also the MCP23017's address on bus 1" in err
    # on another bus the same address is fine
    path = with_module("mcp23017-12", tmp_path, "address = 0x21\n")     # bus 4
    assert main(["check-config", str(path)]) == 0
