"""Building the box's ports from the ``[hardware]`` table.

One builder for the real box and the simulator: they differ only in the pin
factory (lgpio / MockFactory), the I2C bus (smbus2 / SimBus) and the display
device (luma.oled / luma's dummy) passed in, as with gpiozero's pin factories.

Pins are grouped by their kind, not by the backend: switches on Pi pins
become one :class:`~.gpio.PiPins` source, switches on the expander one
:class:`~.expander.ExpanderPins` source, and one :class:`~.switches.Switches`
reads both; LEDs likewise go to :class:`~.gpio.PiLamps` and
:class:`~.expander.ExpanderLamps`, both under one :class:`~.lights.Lights`.
Every part registers its deadlines in the one scheduler passed in (the
box's: the loop that polls the ports sleeps on it).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ...base.scheduler import Scheduler
from ..contracts.clock import Clock
from ..contracts.config import DiceConfig, ExpanderConfig, ExpanderPin, HardwareConfig, Pin
from ..contracts.i2c_bus import I2cBus, OpenBus
from ..contracts.poll import Wake, no_wake
from ..contracts.ports import Buttons, FlapBank, Indicators
from .dice_source import DiceSource, build_module_dice
from .expander import ExpanderLamps, ExpanderPins, Reader
from .gpio import PiLamps, PiPins
from .lights import LampSink, Lights
from .mcp23017 import Mcp23017
from .switches import EdgeSource, Line, Switches


@dataclass
class Ports:
    flaps: FlapBank
    buttons: Buttons
    indicators: Indicators
    timers: Scheduler
    """Where the ports register their deadlines."""


def on_pi(pins: Mapping[Any, Pin | None]) -> dict[Any, int]:
    """The entries wired to the Pi's own pins."""
    return {k: p for k, p in pins.items() if isinstance(p, int)}


def on_expander(pins: Mapping[Any, Pin | None]) -> dict[Any, int]:
    """The entries wired to an expander, as pin indexes 0..15."""
    return {k: p.index for k, p in pins.items() if isinstance(p, ExpanderPin)}


def build_ports(hw: HardwareConfig, clock: Clock, *, pin_factory: Any,
                bus: OpenBus | None = None,
                sleep: Callable[[float], None] = time.sleep, wake: Wake = no_wake,
                reader: Callable[[I2cBus, int], Reader] | None = None,
                kernel_ticks: bool = False, timers: Scheduler | None = None) -> Ports:
    """Flaps, buttons and LEDs as the config wires them.

    ``bus(number)`` opens an I2C bus (only called when something is on an expander);
    ``wake`` is called from the pins' threads after an edge (see :class:`~.poll.Waker`).
    ``reader(bus, address)`` makes the input expander's reader (the box: a
    :class:`~.expander.ThreadReader`); without one the loop reads the chip.
    ``kernel_ticks``: Pi-pin edges carry the kernel's timestamps (the box's
    monotonic clock; see :class:`~.gpio.PiPins`). ``timers``: the scheduler
    every port registers its deadlines in (a new one if not given).
    """
    timers = Scheduler() if timers is None else timers
    switches: dict[Line, Pin] = {**dict(enumerate(hw.flaps, start=1)),
                                 "roll": hw.roll, "next": hw.next}
    if hw.service is not None:   # on the Pi or the expander, read like the buttons
        switches["service"] = hw.service
    led_pins = dict(enumerate(hw.flap_leds, start=1))
    status = {"green": hw.green_led, "red": hw.red_led}
    expander = hw.mcp23017
    i2c = None
    if on_expander(switches) or on_expander(led_pins) or on_expander(status):
        assert expander is not None and bus is not None, "expander pins need [hardware.mcp23017]"
        i2c = bus(expander.bus)

    sources: list[EdgeSource] = []
    input_chip: Mcp23017 | None = None
    sinks: list[LampSink] = []
    try:
        if on_pi(switches):
            sources.append(PiPins(on_pi(switches), clock, pin_factory, hw.read_interval_ms,
                                  wake=wake, kernel_ticks=kernel_ticks, timers=timers))
        if on_expander(switches):
            assert expander is not None and i2c is not None
            pins = ExpanderPins(i2c, clock, on_expander(switches), int_pin=expander.int_pin,
                                address=expander.address, debounce_ms=hw.debounce_ms,
                                read_ms=hw.read_interval_ms, pin_factory=pin_factory,
                                sleep=sleep, wake=wake,
                                reader=reader(i2c, expander.address) if reader else None,
                                timers=timers)
            sources.append(pins)
            input_chip = pins.chip
        inputs = Switches(sources, debounce_ms=hw.debounce_ms, hold_ms=hw.hold_ms,
                          timers=timers)
        assert inputs.buttons is not None   # the config always wires both buttons

        add_lamps(sinks, led_pins, status, expander, i2c, input_chip, pin_factory=pin_factory,
                  sleep=sleep, timers=timers)
    except Exception:
        for source in sources:
            source.close()
        for sink in sinks:
            sink.close()
        raise
    return Ports(inputs.flaps, inputs.buttons, Lights(sinks, timers=timers), timers)


def add_lamps(sinks: list[LampSink], led_pins: Mapping[int, Pin | None],
              status: Mapping[str, Pin | None], expander: ExpanderConfig | None,
              i2c: I2cBus | None, input_chip: Mcp23017 | None, *, pin_factory: Any,
              sleep: Callable[[float], None], timers: Scheduler) -> None:
    """The LEDs' sinks, appended to ``sinks`` one by one (so that the caller
    closes those made before one that fails): the expander's, then the Pi's."""
    chip_leds, chip_status = on_expander(led_pins), on_expander(status)
    if chip_leds or chip_status:
        assert expander is not None and i2c is not None
        if chip_status and input_chip is None:
            raise ValueError("status LEDs on the expander need its switches there too")
        sinks.append(ExpanderLamps(
            i2c, address=expander.led_address, flap_pins=chip_leds, status=input_chip,
            green_pin=chip_status.get("green"), red_pin=chip_status.get("red"),
            sleep=sleep, timers=timers))
    pi_leds, pi_status = on_pi(led_pins), on_pi(status)
    if pi_leds or pi_status:
        sinks.append(PiLamps({**pi_leds, **pi_status}, pin_factory))


def build_module(dice: DiceConfig, clock: Clock, *, pin_factory: Any,
                 bus: OpenBus, fallback: DiceSource | None = None,
                 wake: Wake = no_wake, timers: Scheduler | None = None) -> DiceSource:
    """The dice module of ``[hardware.dice]``: read when its ready line falls
    (a Pi pin with the pull-up; the module pulls it low) or, without one, polled.
    The falling edge calls ``wake``, so the loop reads a result at once, not at
    its next timer. It rolls ``fallback`` (software dice) while the module is missing.
    Its polls and searches are a timer in ``timers`` (the box's scheduler)."""
    i2c = bus(dice.bus)
    if dice.ready_pin is None:
        return build_module_dice(i2c, dice.address, clock, fallback=fallback, timers=timers)
    from gpiozero import DigitalInputDevice
    line = DigitalInputDevice(dice.ready_pin, pull_up=True, pin_factory=pin_factory)
    line.when_activated = wake      # low: a result waits (gpiozero's thread)
    return build_module_dice(i2c, dice.address, clock, ready=lambda: bool(line.is_active),
                             on_close=line.close, fallback=fallback, timers=timers)
