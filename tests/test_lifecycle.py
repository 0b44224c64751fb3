"""Every port and adapter closes like a gpiozero device: once, however often it is
asked; ``closed`` says so; ``with`` closes it; using it afterwards is one clear error;
and its deadlines leave the box's scheduler with it."""

from __future__ import annotations

from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from shutbox_hw.base.events import FlapChanged
from shutbox_hw.base.lifecycle import PartClosed
from shutbox_hw.base.scheduler import Scheduler
from shutbox_hw.config.config_file import load_config
from shutbox_hw.daemon.daemon import Box
from shutbox_hw.game.model.events import GameStarted
from shutbox_hw.hal.adapters.box import build_ports
from shutbox_hw.hal.adapters.dice_source import SoftwareDice, build_module_dice
from shutbox_hw.hal.adapters.display import NullDisplay, OledDisplay, dummy_device
from shutbox_hw.hal.adapters.expander import ExpanderLamps, ExpanderPins
from shutbox_hw.hal.adapters.gpio import PiLamps, PiPins
from shutbox_hw.hal.adapters.lights import Lights
from shutbox_hw.hal.adapters.switches import Switches
from shutbox_hw.hal.contracts.config import HardwareConfig
from shutbox_hw.hal.contracts.ports import LedFrame
from shutbox_hw.hal.simulated import SimBus, SimMcp23017, SimWorld
from shutbox_hw.sim.box import SimulatedBox
from shutbox_hw.store import Store

HERE = Path(__file__).resolve().parent
GPIO_9 = HERE.parent / "hardware" / "gpio-9" / "shutbox.toml"


@pytest.fixture
def factory():
    f = MockFactory()
    yield f
    f.reset()


def test_pi_pins_close_once_release_their_pins_and_refuse_use(factory):
    timers = Scheduler()
    pins = PiPins({1: 5}, SimWorld().clock, factory, timers=timers)
    pins.edges(0)                                  # the periodic read is now registered
    assert timers.next_ms() == 250 and not pins.closed
    pins.close()
    pins.close()                                   # a second close does nothing
    assert pins.closed and timers.next_ms() is None
    with pytest.raises(PartClosed, match="PiPins is closed"):
        pins.edges(300)
    again = PiPins({1: 5}, SimWorld().clock, factory)   # the pin is free again
    again.close()


def test_with_closes_a_part_even_when_the_block_fails(factory):
    with pytest.raises(RuntimeError, match="boom"):
        with PiLamps({"red": 23}, factory) as lamps:
            lamps.write({"red": True}, 0)
            assert factory.pin(23).state
            raise RuntimeError("boom")
    assert lamps.closed
    with pytest.raises(PartClosed):
        lamps.write({"red": False}, 10)
    with pytest.raises(PartClosed):       # a closed part cannot be entered again
        with lamps:
            pass


def test_switches_close_their_sources_once_from_either_view_and_drop_their_timers(factory):
    world = SimWorld()
    pins = PiPins({1: 5, "roll": 17, "next": 27}, world.clock, factory, timers=world.timers)
    switches = Switches([pins], timers=world.timers)
    assert switches.buttons is not None
    factory.pin(5).drive_low()           # flap 1 shuts: the debouncer's deadline
    switches.flaps.poll(0)
    assert world.timers.next_ms() == 20
    switches.flaps.close()
    assert switches.closed and switches.buttons.closed and pins.closed
    switches.buttons.close()             # the box closes both views: nothing more happens
    assert world.timers.next_ms() is None
    with pytest.raises(PartClosed):
        switches.buttons.poll(100)


def test_expander_parts_close_once_and_leave_the_lights_off():
    bus = SimBus(1)
    in_chip, led_chip = SimMcp23017(), SimMcp23017()
    bus.attach(0x20, in_chip)
    bus.attach(0x21, led_chip)
    timers = Scheduler()
    pins = ExpanderPins(bus, SimWorld().clock, {1: 0}, sleep=lambda s: None, timers=timers)
    lamps = ExpanderLamps(bus, flap_pins={1: 0}, status=pins.chip, sleep=lambda s: None,
                          timers=timers)
    lights = Lights([lamps], timers=timers)
    lights.show(LedFrame(flaps=("blink",), green="on", red="off"), 0)
    assert led_chip.output_level(0) and in_chip.output_level(7)
    lights.close()
    lights.close()
    pins.close()
    pins.close()
    assert lights.closed and lamps.closed and pins.closed
    assert led_chip.output_level(0) is False and in_chip.output_level(7) is False
    assert timers.next_ms() is None
    for use in (lambda: lights.poll(500), lambda: lamps.write({}, 500),
                lambda: pins.edges(500)):
        with pytest.raises(PartClosed):
            use()


def test_displays_close_once():
    device = dummy_device()
    timers = Scheduler()
    display = OledDisplay(lambda: device, timers=timers)
    display.poll(0)
    assert timers.next_ms() is not None          # the idle timers
    display.close()
    display.close()
    assert display.closed and timers.next_ms() is None
    with pytest.raises(PartClosed, match="OledDisplay is closed"):
        display.poll(10)
    with NullDisplay() as none:
        assert none.poll(0) == []
    with pytest.raises(PartClosed):
        none.poll(1)


def test_dice_close_once():
    closed: list[int] = []
    module = build_module_dice(SimBus(1), 0x42, SimWorld().clock,
                               on_close=lambda: closed.append(1))
    module.close()
    module.close()
    assert module.closed and closed == [1]      # the ready line is released once
    with pytest.raises(PartClosed):
        module.poll(0)
    with SoftwareDice() as dice:
        assert len(dice.roll(2)) == 2
    with pytest.raises(PartClosed):
        dice.roll(2)


def test_a_box_closes_every_part_once_and_says_so(factory):
    ports = build_ports(HardwareConfig(), SimWorld().clock, pin_factory=factory)
    box = Box(ports.flaps, ports.buttons, ports.indicators, NullDisplay(), SoftwareDice(),
              ports.timers)
    with box:
        assert not box.closed
    assert box.closed and box.display.closed and box.dice.closed
    assert ports.flaps.closed and ports.buttons.closed and ports.indicators.closed
    box.close()                                   # nothing left to close: no error
    assert ports.timers.next_ms() is None


def test_the_daemons_store_closes_once_and_refuses_writes_after(tmp_path):
    store = Store(tmp_path / "box.db")
    store.close()
    store.close()
    assert store.closed
    with pytest.raises(PartClosed, match="Store is closed"):
        store.record(GameStarted(players=("A",), rules={}, dice="software"))


def test_the_simulated_box_after_a_power_cut_runs_on_new_parts():
    sim = SimulatedBox(load_config(GPIO_9))
    old = sim.box
    sim.power_cut()
    assert old.closed and not sim.box.closed
    sim.move_flap(1, True, sim.world.now_ms())
    events = sim.world.run([sim.box.flaps], 1000)
    assert [e for e in events if isinstance(e, FlapChanged)] == [
        FlapChanged(1, True, events[0].at_ms)]
    sim.box.close()
