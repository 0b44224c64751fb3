"""Building the box's ports from the ``[hardware]`` table.

One builder for the real box and the simulator: they differ only in the pin
factory (lgpio / MockFactory), the I2C bus (smbus2 / SimBus) and the display
device (luma.oled / luma's dummy) passed in, as with gpiozero's pin factories.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import UserError
from .config import ExpanderPin, HardwareConfig, Pin
from .expander import ExpanderIndicators, ExpanderInputs
from .gpio import Clock, GpioButtons, GpioFlapBank, GpioIndicators
from .ports import Buttons, FlapBank, Indicators, LedFrame


class CombinedIndicators:
    """LEDs split between Pi pins and an expander: every frame goes to both."""

    def __init__(self, *parts: Indicators) -> None:
        self.parts = parts

    def show(self, frame: LedFrame, now_ms: int) -> None:
        for part in self.parts:
            part.show(frame, now_ms)

    def poll(self, now_ms: int) -> None:
        for part in self.parts:
            part.poll(now_ms)

    def next_deadline_ms(self) -> int | None:
        return min((d for d in (p.next_deadline_ms() for p in self.parts) if d is not None),
                   default=None)

    def close(self) -> None:
        for part in self.parts:
            part.close()


@dataclass
class Ports:
    flaps: FlapBank
    buttons: Buttons
    indicators: Indicators


def _pi_pins(pins: Mapping[Any, Pin | None]) -> dict[Any, int]:
    return {k: p for k, p in pins.items() if isinstance(p, int)}


def _expander_pins(pins: Mapping[Any, Pin | None]) -> dict[Any, int]:
    return {k: p.index for k, p in pins.items() if isinstance(p, ExpanderPin)}


def build_ports(hw: HardwareConfig, clock: Clock, *, pin_factory: Any,
                bus: Callable[[int], Any] | None = None,
                sleep: Callable[[float], None] = time.sleep) -> Ports:
    """Flaps, buttons and LEDs as the config wires them.

    ``bus(number)`` opens an I2C bus (only called for the MCP23017 backend).
    """
    flap_pins = dict(enumerate(hw.flaps, start=1))
    led_pins = dict(enumerate(hw.flap_leds, start=1))
    status = {"green": hw.green_led, "red": hw.red_led}
    if hw.backend == "gpio":
        flaps = GpioFlapBank(_pi_pins(flap_pins), clock, debounce_ms=hw.debounce_ms,
                             read_ms=hw.read_interval_ms, pin_factory=pin_factory)
        buttons = GpioButtons(hw.roll, hw.next, clock, hold_ms=hw.hold_ms,
                              debounce_ms=hw.debounce_ms, read_ms=hw.read_interval_ms,
                              pin_factory=pin_factory)
        pi_status = _pi_pins(status)
        indicators = GpioIndicators(_pi_pins(led_pins), pi_status.get("green"),
                                    pi_status.get("red"), pin_factory=pin_factory)
        return Ports(flaps, buttons, indicators)

    expander = hw.mcp23017
    assert expander is not None and bus is not None
    i2c = bus(expander.bus)
    inputs = ExpanderInputs(
        i2c, clock, flap_pins=_expander_pins(flap_pins),
        roll_pin=hw.roll.index if isinstance(hw.roll, ExpanderPin) else None,
        next_pin=hw.next.index if isinstance(hw.next, ExpanderPin) else None,
        int_pin=expander.int_pin, address=expander.address, debounce_ms=hw.debounce_ms,
        hold_ms=hw.hold_ms, read_ms=hw.read_interval_ms, pin_factory=pin_factory,
        sleep=sleep)
    if inputs.buttons is None:
        raise UserError("[hardware] roll, next: with the mcp23017 backend both buttons "
                        "must be on the expander")
    chip_status = _expander_pins(status)
    parts: list[Indicators] = [ExpanderIndicators(
        i2c, address=expander.led_address, flap_pins=_expander_pins(led_pins),
        status=inputs.chip, green_pin=chip_status.get("green"),
        red_pin=chip_status.get("red"), sleep=sleep)]
    pi_status = _pi_pins(status)
    if pi_status:
        parts.append(GpioIndicators({}, pi_status.get("green"), pi_status.get("red"),
                                    pin_factory=pin_factory))
    indicators = parts[0] if len(parts) == 1 else CombinedIndicators(*parts)
    return Ports(inputs.flaps, inputs.buttons, indicators)
