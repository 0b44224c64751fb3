"""One flap bank, one pair of buttons and one set of lights over any mix of pins.

Pins are grouped by kind (Pi or expander), not by the backend: these boxes
are built straight from a HardwareConfig, wired in ways the reference
builds are not, to show that nothing depends on all pins being of one kind.
"""

from __future__ import annotations

import random

import pytest
from gpiozero.pins.mock import MockFactory

from shutbox_hw.base.events import (
    ButtonLevel,
    ButtonPressed,
    FlapChanged,
    InputFault,
    ServiceRequested,
)
from shutbox_hw.hal.adapters.box import build_ports
from shutbox_hw.hal.adapters.switches import Edge, Switches
from shutbox_hw.hal.contracts.config import (
    ExpanderConfig,
    ExpanderPin,
    HardwareConfig,
    parse_hardware,
)
from shutbox_hw.hal.contracts.debounce import ButtonInputs
from shutbox_hw.hal.contracts.poll import run_loop
from shutbox_hw.hal.contracts.ports import LedFrame
from shutbox_hw.hal.simulated import (
    SimBus,
    SimMcp23017,
    SimSwitch,
    SimWorld,
    expander_pin_setter,
    mock_pin_setter,
)


def presses(events):
    """The events without the buttons' levels (ButtonLevel: the switch test's)."""
    return [e for e in events if not isinstance(e, ButtonLevel)]


def on_chip(index: int) -> ExpanderPin:
    return ExpanderPin(0x20, index)


class MixedBox:
    """Flaps 1-3 on the expander, ROLL and NEXT on Pi pins 23/24; flap LEDs on
    the LED chip, the green LED on the Pi (pin 12), the red one on GPB7."""

    def __init__(self) -> None:
        self.world = SimWorld()
        self.factory = MockFactory()
        self.bus = SimBus(1)
        self.chip = SimMcp23017(int_pin=self.factory.pin(4))
        self.led_chip = SimMcp23017()
        self.bus.attach(0x20, self.chip)
        self.bus.attach(0x21, self.led_chip)
        self.hw = HardwareConfig(
            backend="mcp23017", tiles=3, flaps=(on_chip(0), on_chip(1), on_chip(2)),
            roll=23, next=24, green_led=12, red_led=on_chip(15),
            flap_leds=(ExpanderPin(0x21, 0), ExpanderPin(0x21, 1), ExpanderPin(0x21, 2)),
            hold_ms=800, mcp23017=ExpanderConfig(address=0x20, int_pin=4, led_address=0x21))
        self.ports = build_ports(self.hw, self.world.clock, pin_factory=self.factory,
                                 bus=lambda number: self.bus, sleep=lambda s: None,
                                 timers=self.world.timers)
        rng = random.Random(3)
        self.flap = {t: SimSwitch(self.world, expander_pin_setter(self.chip, t - 1), rng=rng)
                     for t in (1, 2, 3)}
        self.roll = SimSwitch(self.world, mock_pin_setter(self.factory.pin(23)), rng=rng)

    def run(self, until: int) -> list:
        ports = self.ports
        return self.world.run([ports.flaps, ports.buttons, ports.indicators], until)

    def close(self) -> None:
        for port in (self.ports.flaps, self.ports.buttons, self.ports.indicators):
            port.close()
        self.factory.reset()


@pytest.fixture
def box():
    b = MixedBox()
    yield b
    b.close()


def test_flaps_on_the_expander_and_buttons_on_the_pi_play_together(box):
    shut = box.flap[2].set(True, 100)
    up = box.roll.set(False, box.roll.set(True, 300) + 100)
    events = presses(box.run(2000))
    assert events == [FlapChanged(2, True, shut + 20), ButtonPressed("roll", False, up + 20)]
    assert box.ports.flaps.shut_mask() == 0b010


def test_a_lost_expander_is_a_fault_while_the_pi_buttons_go_on(box):
    box.world.at(500, lambda: setattr(box.chip, "absent", True))
    up = box.roll.set(False, box.roll.set(True, 1000) + 100)
    events = presses(box.run(2000))
    assert events == [InputFault("MCP23017 0x20", "no answer after 4 attempts (errno 121)", 500),
                      ButtonPressed("roll", False, up + 20)]


def test_lights_on_pi_pins_and_expanders_blink_in_one_phase(box):
    box.ports.indicators.show(LedFrame(flaps=("blink", "on", "off"), green="blink",
                                       red="blink"), 0)
    seen = []
    for t in (0, 399, 400, 800):
        box.run(t)
        seen.append((box.led_chip.output_level(0), bool(box.factory.pin(12).state),
                     box.chip.output_level(15)))
        assert box.led_chip.output_level(1) and not box.led_chip.output_level(2)
    assert seen == [(True, True, True), (True, True, True), (False, False, False),
                    (True, True, True)]


class Source:
    """An edge source given its edges by hand."""

    def __init__(self, levels, faults=()):
        self._levels = levels
        self.pending: list[Edge] = []
        self.faults = list(faults)
        self.closed = 0

    def levels(self):
        return dict(self._levels)

    def edges(self, now_ms=None):
        out, self.pending = self.pending, []
        return out

    def take_faults(self):
        out, self.faults = self.faults, []
        return out

    def close(self):
        self.closed += 1


def test_edges_go_to_the_flap_or_button_they_name_whatever_the_source():
    a = Source({1: False, "roll": False})
    b = Source({2: True, "next": False}, faults=[InputFault("chip", "gone", 5)])
    switches = Switches([a, b])
    assert switches.flaps.tiles == 2 and switches.flaps.shut_mask() == 0b10
    a.pending = [Edge(2 - 1, True, 10), Edge("roll", True, 10), Edge("roll", False, 100)]
    b.pending = [Edge(2, False, 10)]
    assert switches.buttons is not None
    assert presses(switches.buttons.poll(200)) == [ButtonPressed("roll", False, 120)]
    # the sources' faults travel with the flaps, in time order
    assert switches.flaps.poll(200) == [InputFault("chip", "gone", 5), FlapChanged(1, True, 30),
                                        FlapChanged(2, False, 30)]
    switches.flaps.close()
    assert (a.closed, b.closed) == (1, 1)


def test_a_switch_wired_twice_or_half_the_buttons_is_refused():
    with pytest.raises(ValueError, match="wired twice"):
        Switches([Source({1: False}), Source({1: False})])
    with pytest.raises(ValueError, match="ROLL and NEXT"):
        Switches([Source({1: False, "roll": False})])
    assert Switches([Source({1: False})]).buttons is None


def test_the_service_line_asks_for_the_menu_and_is_no_button():
    inputs = ButtonInputs({"roll": False, "next": False, "service": False}, hold_ms=1000,
                          debounce_ms=20)
    out = []
    for at, line, level in [(100, "service", True), (103, "service", False),  # a bounce
                            (105, "service", True), (300, "roll", True),
                            (400, "roll", False), (3000, "service", False)]:
        out += inputs.poll(at)
        inputs.edge(line, level, at)
    out += inputs.poll(5000)
    assert out == [ServiceRequested(125), ButtonLevel("roll", True, 320),
                   ButtonLevel("roll", False, 420), ButtonPressed("roll", False, 420)]
    assert set(inputs.holds) == {"roll", "next"}


def test_the_service_line_alone_or_half_the_buttons_is_refused():
    with pytest.raises(ValueError, match="ROLL and NEXT"):
        Switches([Source({1: False, "service": False})])
    with pytest.raises(ValueError, match="ROLL and NEXT"):
        Switches([Source({"roll": False, "service": False})])


def test_build_b_with_the_service_button_on_a_pi_pin():
    """Twelve flaps and both buttons fill the expander's inputs: the service
    button goes on a Pi pin, as hardware/README.md suggests for build (b)."""
    problems: list[str] = []
    hw = parse_hardware({"backend": "mcp23017", "service": 7, "display": {"driver": "none"}},
                        12, problems)
    assert problems == [] and hw.service == 7 and len(hw.flaps) == 12
    world, factory, bus = SimWorld(), MockFactory(), SimBus(1)
    chip = SimMcp23017(int_pin=factory.pin(4))
    bus.attach(0x20, chip)
    ports = build_ports(hw, world.clock, pin_factory=factory, bus=lambda n: bus,
                        sleep=lambda s: None, timers=world.timers)
    try:
        rng = random.Random(6)
        service = SimSwitch(world, mock_pin_setter(factory.pin(7)), rng=rng)
        flap = SimSwitch(world, expander_pin_setter(chip, 12), rng=rng)   # GPB4: flap 12
        pressed = service.set(True, 200)
        service.set(False, 300)
        shut = flap.set(True, 500)
        events = world.run([ports.flaps, ports.buttons], 2000)
        assert events == [ServiceRequested(pressed + 20), FlapChanged(12, True, shut + 20)]
    finally:
        for port in (ports.flaps, ports.buttons, ports.indicators):
            port.close()
        factory.reset()


def test_the_loop_steps_at_each_deadline_ahead_and_stops_at_until_or_done():
    world = SimWorld()
    timers = world.timers
    steps: list[int] = []
    ahead = (150, 300)

    def step(now: int) -> None:
        steps.append(now)
        timers.at("now", now)     # one due now (just handled by the step): not waited for
        timers.at("ahead", next((t for t in ahead if t > now), None))

    run_loop(world.clock, step, timers, lambda t: world.advance_to(400 if t is None else t), 400)
    assert steps == [0, 150, 300, 400]
    steps.clear()
    timers.clear()

    def every_10_ms(now: int) -> None:
        steps.append(now)
        timers.at("tick", now + 10)

    run_loop(world.clock, every_10_ms, timers, lambda t: world.advance_to(t or 0), None,
             done=lambda: len(steps) == 3)
    assert steps == [400, 410, 420]
