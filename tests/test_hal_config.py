"""The [hardware] table: defaults are reference build (a), problems name their key."""

from __future__ import annotations

import dataclasses

import pytest

from shutbox_hw.config.config_file import parse_config
from shutbox_hw.hal.contracts.config import ExpanderPin, HardwareConfig, parse_hardware

# BCM pins that must stay free by default: HAT EEPROM, I2C (the OLED), UART
RESERVED = {0, 1, 2, 3, 14, 15}


def parse(table: dict, tiles: int = 9) -> tuple[HardwareConfig, list[str]]:
    problems: list[str] = []
    return parse_hardware(table, tiles, problems), problems


def test_empty_table_is_reference_build_a():
    hw, problems = parse({})
    assert problems == []
    assert hw.backend == "gpio"
    # the wiring table in hardware/gpio-9/README.md
    assert hw.flaps == (4, 17, 27, 22, 5, 6, 13, 19, 26)
    assert (hw.roll, hw.next, hw.green_led, hw.red_led) == (23, 24, 12, 25)
    assert hw.flap_leds == ()
    assert (hw.debounce_ms, hw.hold_ms, hw.read_interval_ms) == (20, 1000, 250)
    assert hw.mcp23017 is None
    assert (hw.display.driver, hw.display.port, hw.display.address) == ("ssd1306", 1, 0x3C)
    assert hw == HardwareConfig()


@pytest.mark.parametrize("tiles", [10, 11, 12])
def test_default_pins_fit_larger_boxes(tiles):
    hw, problems = parse({}, tiles)
    assert problems == []
    assert len(hw.flaps) == tiles
    everything = [*hw.flaps, hw.roll, hw.next, hw.green_led, hw.red_led]
    assert len(set(everything)) == len(everything)
    assert not set(everything) & RESERVED
    assert all(0 <= pin <= 27 for pin in everything)


def test_mcp23017_defaults_use_the_14_input_pins():
    hw, problems = parse({"backend": "mcp23017"}, 12)
    assert problems == []
    assert hw.mcp23017 is not None and hw.mcp23017.address == 0x20
    assert [pin.name for pin in hw.flaps] == [
        "GPA0", "GPA1", "GPA2", "GPA3", "GPA4", "GPA5", "GPA6",
        "GPB0", "GPB1", "GPB2", "GPB3", "GPB4"]
    assert (hw.roll.name, hw.next.name) == ("GPB5", "GPB6")
    assert (hw.green_led.name, hw.red_led.name) == ("GPA7", "GPB7")
    assert all(pin.address == 0x20 for pin in hw.flaps)


def test_expander_pin_numbering():
    pin = ExpanderPin(0x21, 13)
    assert (pin.port, pin.bit, pin.name, str(pin)) == ("B", 5, "GPB5", "GPB5@0x21")
    assert not ExpanderPin(0x20, 7).input_capable
    assert not ExpanderPin(0x20, 15).input_capable
    assert ExpanderPin(0x20, 14).input_capable


def test_flap_leds_on_the_second_expander():
    hw, problems = parse({"backend": "mcp23017", "mcp23017": {"led_address": 0x21},
                          "flap_leds": ["GPA0", "GPA1", "GPA2", "GPA3", "GPA4", "GPA5",
                                        "GPA6", "GPA7", "GPB0"]})
    assert problems == []
    assert [(p.address, p.index) for p in hw.flap_leds] == [(0x21, i) for i in range(9)]


def test_status_led_on_a_pi_pin_with_the_expander_backend():
    hw, problems = parse({"backend": "mcp23017", "green_led": 12, "red_led": "none"})
    assert problems == []
    assert hw.green_led == 12 and hw.red_led is None


def test_gpio_flap_leds_and_custom_pins():
    hw, problems = parse({"flaps": [5, 6, 13, 19, 26, 16, 20, 21, 4],
                          "flap_leds": [7, 8, 9, 10, 11, 17, 18, 22, 27]})
    assert problems == []
    assert hw.flaps[8] == 4 and hw.flap_leds[0] == 7


BROKEN = [
    # (table, tiles, key, word that must be in the line)
    ({"flaps": [4, 17, 27, 22, 5, 6, 13, 19, 26], "roll": 13}, 9, "roll", "flap 7"),
    ({"flaps": [4, 17, 27, 22, 5, 6, 13, 19]}, 9, "flaps", "no pin for tile 9"),
    ({"flaps": [4, 17, 27, 22, 5, 6, 13, 19]}, 10, "flaps", "tiles 9..10"),
    ({"flaps": [4, 17, 27, 22, 5, 6, 13, 19, 26, 16]}, 9, "flaps.10", "rules have 9"),
    ({"backend": "mcp23017", "roll": "GPA7"}, 9, "roll", "only be an output"),
    ({"backend": "mcp23017", "flaps": ["GPB7"] + [f"GPA{i}" for i in range(7)] + ["GPB0"]},
     9, "flaps.1", "only be an output"),
    ({"backend": "mcp23017", "mcp23017": {"address": 0x78}}, 9, "mcp23017.address",
     "0x20..0x27"),
    ({"backend": "mcp23017", "mcp23017": {"address": 0x40}}, 9, "mcp23017.address",
     "0x20..0x27"),
    ({"backend": "mcp23017", "mcp23017": {"led_address": 0x28}}, 9, "mcp23017.led_address",
     "0x20..0x27"),
    ({"display": {"address": 0x02}}, 9, "display.address", "0x03..0x77"),
    ({"display": {"driver": "ssd1351"}}, 9, "display.driver", "ssd1306, ssd1309, sh1106, none"),
    ({"backend": "spi"}, 9, "backend", "gpio, mcp23017"),
    ({"roll": "23"}, 9, "roll", "expected a BCM pin"),
    ({"hold_ms": "long"}, 9, "hold_ms", "expected milliseconds"),
    ({"debounce_ms": True}, 9, "debounce_ms", "true"),
    ({"colour": "red"}, 9, "colour", "unknown key"),
    ({"display": {"brightness": 3}}, 9, "display.brightness", "unknown key"),
    ({"next": 28}, 9, "next", "outside 0..27"),
    ({"green_led": 2}, 9, "green_led", "I2C SDA"),
    ({"flaps": [3, 17, 27, 22, 5, 6, 13, 19, 26]}, 9, "flaps.1", "I2C SCL"),
    ({"backend": "mcp23017", "roll": 23}, 9, "roll", "expected an expander pin"),
    ({"backend": "mcp23017", "flaps": ["GPC0"] * 9}, 9, "flaps.1", "expected an expander pin"),
    ({"backend": "mcp23017", "flap_leds": ["GPA0"] * 9}, 9, "flap_leds", "led_address"),
    ({"backend": "mcp23017", "mcp23017": {"led_address": 0x20}}, 9,
     "mcp23017.led_address", "own address"),
    ({"backend": "mcp23017", "display": {"address": 0x20}}, 9, "mcp23017.address",
     "display"),
    ({"roll": 14}, 9, "roll", "UART"),
    ({"flaps": [0, 17, 27, 22, 5, 6, 13, 19, 26]}, 9, "flaps.1", "HAT EEPROM"),
    ({"green_led": 1}, 9, "green_led", "allow_reserved_pins"),
    ({"red_led": 15, "display": {"driver": "none"}}, 9, "red_led", "UART"),
    ({"backend": "mcp23017", "mcp23017": {"int_pin": 14}}, 9, "mcp23017.int_pin", "UART"),
    ({"allow_reserved_pins": "yes"}, 9, "allow_reserved_pins", "true or false"),
    ({"display": {"shift_every_s": -1}}, 9, "display.shift_every_s", "outside"),
    ({"mcp23017": {"bus": 1}}, 9, "mcp23017", "only used with backend"),
    ({"backend": "mcp23017", "green_led": 23, "mcp23017": {"int_pin": 23}}, 9, "green_led",
     "INT line"),
    ({"backend": "mcp23017", "mcp23017": {"int_pin": 3}}, 9, "mcp23017.int_pin", "I2C SCL"),
    ({"display": {"rotation": 4}}, 9, "display.rotation", "outside 0..3"),
    ({"display": {"contrast": 256}}, 9, "display.contrast", "outside 0..255"),
    ({"display": {"dim_after_s": 600, "off_after_s": 60}}, 9, "display.off_after_s",
     "longer than"),
    ({"debounce_ms": 200, "hold_ms": 150}, 9, "hold_ms", "longer than debounce_ms"),
    ({"flaps": "4,17"}, 9, "flaps", "expected a list"),
    ({"display": "ssd1306"}, 9, "display", "expected a table"),
    ({"flap_leds": [7, 8, 9]}, 9, "flap_leds", "no pin for tiles 4..9"),
]


@pytest.mark.parametrize("table,tiles,key,word", BROKEN)
def test_broken_table_names_the_key(table, tiles, key, word):
    _, problems = parse(table, tiles)
    assert problems, "expected a problem"
    lines = [line for line in problems if line.startswith(f"[hardware] {key}: ")]
    assert lines, problems
    assert any(word in line for line in lines), problems


def test_pin_used_twice_names_both_users():
    _, problems = parse({"flaps": [4, 17, 27, 22, 5, 6, 17, 19, 26]})
    assert problems == ["[hardware] flaps.7: pin 17 is also used by flap 2"]


def test_every_problem_is_reported_at_once():
    _, problems = parse({"backend": "mcp23017", "roll": "GPA7", "next": "GPB7",
                         "mcp23017": {"address": 0x80}, "display": {"rotation": 9}})
    keys = sorted(line.split(":")[0] for line in problems)
    assert keys == ["[hardware] display.rotation", "[hardware] mcp23017.address",
                    "[hardware] next", "[hardware] roll"]


def test_config_is_frozen():
    hw, _ = parse({})
    with pytest.raises(dataclasses.FrozenInstanceError):
        hw.backend = "mcp23017"  # type: ignore[misc]


def test_tiles_come_from_the_rules_table():
    config, problems = parse_config({"rules": {"preset": "crafthouse-12"}})
    assert problems == []
    assert config.hardware.tiles == 12 and len(config.hardware.flaps) == 12
    _, problems = parse_config({"rules": {"preset": "crafthouse-12"},
                                "hardware": {"flaps": [4, 17, 27, 22, 5, 6, 13, 19, 26]}})
    assert problems == ["[hardware] flaps: 9 entries for 12 tiles: no pin for tiles 10..12"]


def test_ssd1309_is_accepted_and_drives_lumas_ssd1309():
    # the BOM's recommended 2.42" panel; luma.oled's ssd1309 (since 3.1) takes
    # the same (serial, width, height, rotate) as its ssd1306, its base class
    from luma.oled.device import ssd1309

    from shutbox_hw.hal.adapters.luma_panel import luma_panel
    hw, problems = parse({"display": {"driver": "ssd1309"}})
    assert problems == [] and hw.display.driver == "ssd1309"
    panel = luma_panel(hw.display.driver, hw.display.port, hw.display.address)
    assert panel._chip is ssd1309        # nothing is opened until the first attempt


# ------------------------------------------------------------ one dialect, one default

def test_each_key_defaults_to_its_dataclass_field():
    # an empty table reads as the dataclass's defaults: no second copy of a default
    from shutbox_hw.hal.contracts.config import DISPLAY, EXPANDER, DisplayConfig, ExpanderConfig
    for spec, table in ((DISPLAY, DisplayConfig), (EXPANDER, ExpanderConfig)):
        problems: list[str] = []
        assert spec.read({}, _problems(problems)) == dataclasses.asdict(table())
        assert problems == []


def test_a_bad_value_reads_as_the_default_with_one_line():
    from shutbox_hw.hal.contracts.config import DISPLAY
    problems: list[str] = []
    values = DISPLAY.read({"contrast": "bright", "port": 40}, _problems(problems))
    assert (values["contrast"], values["port"]) == (0x7F, 1)
    # in the order the keys are declared
    assert problems == ["[hardware] display.port: 40 is outside 0..31",
                        "[hardware] display.contrast: expected a number 0..255, got "
                        "'bright' (text)"]


def _problems(lines: list[str]):
    from shutbox_hw.base.validate import Problems
    return Problems(lines, "hardware").under("display")


@pytest.mark.parametrize("name", ["Debouncer", "FlapInputs", "ButtonInputs", "HoldTimer",
                                  "Switches", "PiPins", "ExpanderPins"])
def test_the_adapters_default_to_the_config_timings(name):
    # hold_ms once drifted: 1000 in the config, 800 in the adapters
    import inspect

    from shutbox_hw.hal.adapters import expander, gpio, switches
    from shutbox_hw.hal.contracts import debounce
    cls = next(getattr(m, name) for m in (debounce, switches, gpio, expander) if hasattr(m, name))
    config = HardwareConfig()
    timings = {"debounce_ms": config.debounce_ms, "hold_ms": config.hold_ms,
               "read_ms": config.read_interval_ms}
    parameters = inspect.signature(cls).parameters
    found = {key: parameters[key].default for key in timings if key in parameters}
    assert found and found == {key: timings[key] for key in found}


# ---------------------------------------------------------------- the service button

def test_no_service_button_unless_configured():
    assert parse({})[0].service is None
    assert parse({"backend": "mcp23017"}, 12)[0].service is None


@pytest.mark.parametrize("table,tiles,pin", [
    ({"service": 7}, 9, 7),                                         # a Pi pin (build a)
    ({"backend": "mcp23017", "service": "GPB3"}, 9, ExpanderPin(0x20, 11)),
    # a 12-flap expander has no input left: a number puts it on a Pi pin
    ({"backend": "mcp23017", "service": 7}, 12, 7),
])
def test_service_button_pin_on_either_backend(table, tiles, pin):
    hw, problems = parse(table, tiles)
    assert problems == []
    assert hw.service == pin
    assert "service button on" in hw.summary()


@pytest.mark.parametrize("table,tiles,problem", [
    ({"service": 4}, 9, "pin 4 is also used by flap 1"),
    ({"service": 23}, 9, "pin 23 is also used by ROLL"),
    ({"service": 12}, 9, "pin 12 is also used by the green LED"),
    ({"service": 18, "dice": {}}, 9, "pin 18 is also used by the dice module's ready line"),
    ({"backend": "mcp23017", "service": "GPB3"}, 12, "GPB3 (0x20) is also used by flap 11"),
    ({"backend": "mcp23017", "service": "GPB6"}, 9, "GPB6 (0x20) is also used by NEXT"),
    ({"backend": "mcp23017", "service": 4}, 12, "pin 4 is also used by the MCP23017 INT line"),
    ({"backend": "mcp23017", "service": "GPB7"}, 9, "GPB7 can only be an output"),
    ({"service": "GPA0"}, 9, "expected a BCM pin number 0..27, got 'GPA0' (text)"),
    ({"service": 2}, 9, "BCM 2 is I2C SDA"),
    ({"service": 14}, 9, "allow_reserved_pins"),
])
def test_service_button_refused_in_one_line_naming_both_uses(table, tiles, problem):
    _, problems = parse(table, tiles)
    assert len(problems) == 1 and problems[0].startswith("[hardware] service: "), problems
    assert problem in problems[0]
