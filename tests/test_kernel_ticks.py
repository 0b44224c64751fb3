"""Pi-pin edges carry the kernel's timestamps (issue 20, point 5): lgpio hands
gpiozero the time of each edge (``ticks``, on the monotonic clock); a callback
that runs late must not stretch or squeeze a bounce or a glitch."""

from __future__ import annotations

from gpiozero.pins.mock import MockFactory, MockPin
from gpiozero.pins.pi import PiPin as GpiozeroPiPin

from shutbox_hw.base.events import ButtonPressed
from shutbox_hw.hal.adapters.gpio import PiPins
from shutbox_hw.hal.adapters.switches import Switches
from shutbox_hw.hal.contracts.clock import VirtualClock


class LatePin(MockPin):
    """A pin whose callbacks come late, carrying the early time of the edge."""

    def edge(self, low: bool, at_s: float) -> None:
        self._state = not low
        GpiozeroPiPin._call_when_changed(self, at_s, self._state)


def rig(kernel_ticks: bool):
    factory = MockFactory(pin_class=LatePin)
    clock = VirtualClock(0)
    pins = PiPins({"roll": 5, "next": 6}, clock, factory, kernel_ticks=kernel_ticks)
    return factory, clock, Switches([pins], hold_ms=800)


def late_edges(factory, clock, switches, edges):
    """Each edge ``(low, at_ms, seen_ms)``: made at ``at_ms``, its callback run at ``seen_ms``."""
    pin = factory.pin(5)
    out = []
    for i, (low, at_ms, seen_ms) in enumerate(edges):
        clock.set(seen_ms)
        pin.edge(low, at_ms / 1000)
        if i + 1 == len(edges) or edges[i + 1][2] != seen_ms:   # the loop wakes after a bunch
            out += switches.buttons.poll(clock.now_ms())
    clock.set(clock.now_ms() + 1000)
    return out + list(switches.buttons.poll(clock.now_ms()))


def presses(events):
    return [e for e in events if isinstance(e, ButtonPressed)]


def test_a_glitch_whose_callbacks_come_late_stays_a_glitch():
    # a 3 ms glitch at 1000 ms; the first callback runs 2 ms late, the second 30 ms late
    glitch = [(True, 1000, 1002), (False, 1003, 1033)]
    factory, clock, switches = rig(kernel_ticks=True)
    assert presses(late_edges(factory, clock, switches, glitch)) == []
    # stamped when Python got to them, the same edges look like a 31 ms press
    factory, clock, switches = rig(kernel_ticks=False)
    assert len(presses(late_edges(factory, clock, switches, glitch))) == 1


def test_a_press_whose_callbacks_come_early_in_a_bunch_is_one_press_at_its_own_time():
    # a 60 ms press whose two callbacks run together, 5 ms after it ended
    press = [(True, 2000, 2065), (False, 2060, 2065)]
    factory, clock, switches = rig(kernel_ticks=True)
    got = presses(late_edges(factory, clock, switches, press))
    assert len(got) == 1 and got[0].at_ms == 2060 + 20
    factory, clock, switches = rig(kernel_ticks=False)
    assert presses(late_edges(factory, clock, switches, press)) == []   # squeezed to nothing


def test_ticks_ahead_of_the_loops_clock_are_never_trusted_beyond_it():
    factory, clock, switches = rig(kernel_ticks=True)
    clock.set(500)
    factory.pin(5).edge(True, 0.9)     # 900 ms: later than the clock says it is
    source = switches.sources[0]
    assert [e.at_ms for e in source.edges()] == [500]
