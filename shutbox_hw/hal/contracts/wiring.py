"""Where things are wired: pins, the reference builds' pin plans, and who claimed each pin.

A pin is a plain value the adapter builders read directly: an ``int`` is a
BCM GPIO number on the Pi, an :class:`ExpanderPin` a pin on an MCP23017.
:class:`PinBook` reads the pins of the ``[hardware]`` table (see
:mod:`.config`) and claims each one for what it does, so a second use, a
pin the Pi needs, or an expander pin that cannot be an input is reported as
one line naming the key.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...base.validate import Problems, shown

BCM_RANGE = range(0, 28)
I2C_PINS = {2: "SDA", 3: "SCL"}
# Pins the Pi itself uses: refused unless ``allow_reserved_pins = true``.
RESERVED_PINS = {0: "ID_SD, the HAT EEPROM's data line", 1: "ID_SC, the HAT EEPROM's clock",
                 14: "the UART's TXD (serial console)", 15: "the UART's RXD (serial console)"}

# Reference build (a): flaps on the header's odd side top to bottom, tiles
# 10..12 at the bottom of the even side; clear of I2C (2, 3), the HAT ID
# EEPROM (0, 1) and the UART (14, 15), so up to 12 tiles fit.
DEFAULT_GPIO_FLAPS = (4, 17, 27, 22, 5, 6, 13, 19, 26, 16, 20, 21)
DEFAULT_GPIO_ROLL = 23
DEFAULT_GPIO_NEXT = 24
DEFAULT_GPIO_GREEN = 12
DEFAULT_GPIO_RED = 25
# Reference build (b): 12 flaps and both buttons on the 14 input-capable
# pins; GPA7/GPB7 (outputs only) carry the status LEDs.
DEFAULT_EXPANDER_FLAPS = ("GPA0", "GPA1", "GPA2", "GPA3", "GPA4", "GPA5", "GPA6",
                          "GPB0", "GPB1", "GPB2", "GPB3", "GPB4")
DEFAULT_EXPANDER_ROLL = "GPB5"
DEFAULT_EXPANDER_NEXT = "GPB6"
DEFAULT_EXPANDER_GREEN = "GPA7"
DEFAULT_EXPANDER_RED = "GPB7"

DEFAULT_BUTTONS_AND_LEDS: dict[str, dict[str, Any]] = {
    "gpio": {"roll": DEFAULT_GPIO_ROLL, "next": DEFAULT_GPIO_NEXT,
             "green_led": DEFAULT_GPIO_GREEN, "red_led": DEFAULT_GPIO_RED},
    "mcp23017": {"roll": DEFAULT_EXPANDER_ROLL, "next": DEFAULT_EXPANDER_NEXT,
                 "green_led": DEFAULT_EXPANDER_GREEN, "red_led": DEFAULT_EXPANDER_RED},
}

_EXPANDER_NAME = re.compile(r"GP([AB])([0-7])")


@dataclass(frozen=True)
class ExpanderPin:
    """One pin of an MCP23017: ``index`` 0..15 is GPA0..GPA7 then GPB0..GPB7."""
    address: int
    index: int

    @property
    def port(self) -> str:
        return "AB"[self.index // 8]

    @property
    def bit(self) -> int:
        return self.index % 8

    @property
    def name(self) -> str:
        return f"GP{self.port}{self.bit}"

    @property
    def input_capable(self) -> bool:
        """GPA7/GPB7 as inputs can corrupt SDA (datasheet DS20001952 revision)."""
        return self.bit != 7

    def __str__(self) -> str:
        return f"{self.name}@0x{self.address:02X}"


Pin = int | ExpanderPin


def pin_text(pin: Pin) -> str:
    return f"BCM {pin}" if isinstance(pin, int) else str(pin)


def parse_flaps(table: Mapping[str, Any], key: str, tiles: int, pins: PinBook,
                 address: int | None, *, required: bool) -> tuple[Pin, ...]:
    """One pin per tile 1..N; ``key.T`` names tile T in every message."""
    output = key == "flap_leds"
    if address is None:
        default: tuple[Any, ...] = DEFAULT_GPIO_FLAPS
    else:
        default = DEFAULT_EXPANDER_FLAPS
    value = table.get(key, list(default[:tiles]) if required else [])
    if not isinstance(value, list):
        pins.check.add(key, f"expected a list with one pin per tile 1..{tiles}, "
                            f"got {shown(value)}")
        return ()
    if len(value) < tiles:
        first = len(value) + 1
        missing = f"tile {first}" if first == tiles else f"tiles {first}..{tiles}"
        pins.check.add(key, f"{len(value)} entries for {tiles} tiles: no pin for {missing}")
    for tile in range(tiles + 1, len(value) + 1):
        pins.check.add(f"{key}.{tile}", f"a pin for tile {tile}, but the rules have "
                                        f"{tiles} tiles")
    what = "the LED of flap" if output else "flap"
    result = []
    for tile, raw in enumerate(value[:tiles], start=1):
        pin = pins.claim_value(f"{key}.{tile}", raw, f"{what} {tile}", address, output=output)
        if pin is not None:
            result.append(pin)
    return tuple(result)


def parse_service(table: Mapping[str, Any], pins: PinBook,
                   chip: int | None) -> Pin | None:
    """The optional service button (no default: absent, none). An input like
    ROLL; with the expander backend a number puts it on a Pi pin instead,
    since a 12-flap box has no input left on the expander. Claimed after
    every other pin, so that a clash names this key and the pin's other use."""
    if "service" not in table:
        return None
    raw = table["service"]
    on_pi = isinstance(raw, int) and not isinstance(raw, bool)
    return pins.claim_value("service", raw, "the service button", None if on_pi else chip,
                            output=False)


class PinBook:
    """Which pin is used by what, so a second use names the first."""

    def __init__(self, check: Problems, *, i2c_in_use: bool, allow_reserved: bool) -> None:
        self.check = check
        self.i2c_in_use = i2c_in_use
        self.allow_reserved = allow_reserved
        self.used: dict[Pin, str] = {}

    def take(self, table: Mapping[str, Any], key: str, default: Any, what: str,
             address: int | None, *, output: bool, optional: bool = False) -> Pin | None:
        raw = table.get(key, default)
        if optional and raw == "none":
            return None
        # status LEDs may sit on the Pi even when the switches are on the expander
        if isinstance(raw, int) and not isinstance(raw, bool) and output:
            address = None
        return self.claim_value(key, raw, what, address, output=output)

    def claim_value(self, key: str, raw: Any, what: str, address: int | None, *,
                    output: bool) -> Pin | None:
        pin = self._parse(key, raw, address, output)
        if pin is not None:
            self.claim(key, pin, what)
        return pin

    def _parse(self, key: str, raw: Any, address: int | None, output: bool) -> Pin | None:
        if address is None:
            if isinstance(raw, bool) or not isinstance(raw, int):
                self.check.add(key, f"expected a BCM pin number 0..27, got {shown(raw)}")
                return None
            if raw not in BCM_RANGE:
                self.check.add(key, f"BCM pin {raw} is outside 0..27")
                return None
            return raw
        match = _EXPANDER_NAME.fullmatch(raw) if isinstance(raw, str) else None
        if match is None:
            self.check.add(key, f"expected an expander pin GPA0..GPA7 or GPB0..GPB7, "
                                f"got {shown(raw)}")
            return None
        pin = ExpanderPin(address, "AB".index(match[1]) * 8 + int(match[2]))
        if not output and not pin.input_capable:
            self.check.add(key, f"{pin.name} can only be an output on the MCP23017 "
                                "(inputs: GPA0..GPA6, GPB0..GPB6)")
            return None
        return pin

    def claim(self, key: str, pin: Pin, what: str) -> None:
        if pin in self.used:
            shown = f"pin {pin}" if isinstance(pin, int) else f"{pin.name} (0x{pin.address:02X})"
            self.check.add(key, f"{shown} is also used by {self.used[pin]}")
            return
        if isinstance(pin, int) and pin in I2C_PINS and self.i2c_in_use:
            self.check.add(key, f"BCM {pin} is I2C {I2C_PINS[pin]}, in use by the "
                                "display or the MCP23017")
            return
        if isinstance(pin, int) and pin in RESERVED_PINS and not self.allow_reserved:
            self.check.add(key, f"BCM {pin} is {RESERVED_PINS[pin]}; use another pin, or set "
                                "allow_reserved_pins = true if the Pi does not need it")
            return
        self.used[pin] = what
