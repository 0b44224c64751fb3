"""Flaps, buttons and LEDs on simulated MCP23017s, with their INT line on a mock pin."""

import random

import pytest
from gpiozero.pins.mock import MockFactory
from hypothesis import given, settings, strategies as st

from shutbox_hw.events import ButtonPressed, FlapChanged, InputFault
from shutbox_hw.hal.expander import ExpanderIndicators, ExpanderInputs
from shutbox_hw.hal.ports import LedFrame
from shutbox_hw.hal.sim import SimBus, SimMcp23017, SimSwitch, SimWorld, expander_pin_setter

# tiles 1..7 on GPA0..GPA6, tiles 8..12 on GPB0..GPB4, ROLL GPB5, NEXT GPB6
FLAPS = {t: t - 1 for t in range(1, 8)} | {t: t for t in range(8, 13)}
ROLL, NEXT = 13, 14
SOURCE = "MCP23017 0x20"


class Rig:
    def __init__(self, *, with_int=True, attempts=4, **chip_kw):
        self.factory = MockFactory()
        self.world = SimWorld()
        self.bus = SimBus(1)
        self.int_pin = self.factory.pin(4)
        self.chip = SimMcp23017(int_pin=self.int_pin, **chip_kw)
        self.bus.attach(0x20, self.chip)
        self.sleeps = []
        self.inputs = ExpanderInputs(
            self.bus, self.world.clock, flap_pins=FLAPS, roll_pin=ROLL, next_pin=NEXT,
            int_pin=4 if with_int else None, pin_factory=self.factory,
            sleep=self.sleeps.append, attempts=attempts)

    def switch(self, pin, seed=0):
        return SimSwitch(self.world, expander_pin_setter(self.chip, pin), rng=random.Random(seed))

    def flip(self, pin, closed, at):
        self.world.at(at, lambda: self.chip.set_input(pin, False if closed else None))

    def run(self, until):
        return self.world.run([self.inputs.flaps, self.inputs.buttons], until)

    def close(self):
        self.inputs.close()
        self.factory.reset()


@pytest.fixture
def rig():
    r = Rig()
    yield r
    r.close()


def flaps_only(events):
    return [e for e in events if isinstance(e, FlapChanged)]


def test_starts_with_the_state_it_reads():
    bus = SimBus(1)
    chip = SimMcp23017()
    chip.set_input(FLAPS[3], False)
    bus.attach(0x20, chip)
    ins = ExpanderInputs(bus, SimWorld().clock, flap_pins=FLAPS, roll_pin=ROLL, next_pin=NEXT)
    assert ins.flaps.tiles == 12
    assert ins.flaps.shut_mask() == 1 << 2
    assert ins.flaps.poll(1000) == [] and ins.buttons.poll(1000) == []


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans(),
       st.lists(st.tuples(st.sampled_from([1, 5, 8, 12]), st.integers(30, 400)),
                min_size=1, max_size=12))
def test_bouncing_flaps_give_one_event_per_real_change(seed, lossy, script):
    r = Rig(error_rate=0.0)
    try:
        rng = random.Random(seed)
        switches = {t: SimSwitch(r.world, expander_pin_setter(r.chip, FLAPS[t]), rng=rng)
                    for t in (1, 5, 8, 12)}
        shut = dict.fromkeys(switches, False)
        expected = []
        t = 0
        for tile, gap in script:
            t += gap
            shut[tile] = not shut[tile]
            last = switches[tile].set(shut[tile], t)
            expected.append(FlapChanged(tile, shut[tile], last + 20))
        events = r.run(t + 1000)
        key = lambda e: (e.at_ms, e.tile)
        assert sorted(events, key=key) == sorted(expected, key=key)
    finally:
        r.close()


def test_missed_interrupt_is_caught_by_the_periodic_read(rig):
    rig.chip.int_pin = None            # the INT wire is broken: no edge ever reaches the Pi
    rig.flip(FLAPS[4], True, 1100)
    # reads every 250 ms from 0: the first one after 1100 is at 1250
    assert rig.run(2000) == [FlapChanged(4, True, 1270)]


def test_interrupt_is_read_at_once(rig):
    rig.flip(FLAPS[4], True, 1100)
    assert rig.run(2000) == [FlapChanged(4, True, 1120)]


def test_brownout_is_detected_and_reconfigured_without_losing_a_change(rig):
    rig.flip(FLAPS[1], True, 100)
    rig.world.at(500, rig.chip.brownout)
    rig.flip(FLAPS[2], True, 600)     # no interrupt: GPINTEN was reset
    rig.flip(FLAPS[1], False, 650)
    events = rig.run(2000)
    # Reads: 100 (interrupt), then every 250 ms after the last read: 350, 600.
    # The read at 600 finds power-on registers, reconfigures, then reads again.
    assert events == [FlapChanged(1, True, 120),
                      InputFault(SOURCE, "registers were reset (brownout?)", 600),
                      InputFault(SOURCE, "reconfigured after reset", 600, ok=True),
                      FlapChanged(2, True, 620),
                      FlapChanged(1, False, 670)]     # interrupts work again
    assert rig.inputs.flaps.shut_mask() == 0b10
    rig.flip(FLAPS[3], True, 2100)
    assert rig.run(3000) == [FlapChanged(3, True, 2120)]
