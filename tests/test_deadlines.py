"""The parts' deadlines in the one scheduler: registered where they change, never
computed by a query that changes anything."""

from __future__ import annotations

from gpiozero.pins.mock import MockFactory
from hypothesis import example, given, settings
from hypothesis import strategies as st

from shutbox_hw.base.scheduler import Scheduler
from shutbox_hw.hal.adapters.gpio import PiPins
from shutbox_hw.hal.adapters.switches import Switches
from shutbox_hw.hal.contracts.debounce import Debouncer
from shutbox_hw.hal.simulated import SimWorld

# (gap, level): an edge after the gap, or only a poll (None); short gaps make chatter
steps_st = st.lists(st.tuples(st.integers(0, 4) | st.integers(0, 60),
                              st.sampled_from([True, False, None])), max_size=40)


@settings(max_examples=200, deadline=None)
@given(steps_st, st.integers(1, 30), st.integers(40, 150))
@example([(0, True), (10, False), (10, True), (10, False), (10, True), (10, None)], 20, 50)
@example([(0, True), (10, False), (10, True), (10, False), (10, True), (10, True)], 20, 50)
def test_a_debouncer_registers_the_first_moment_anything_can_come(steps, debounce, chatter):
    """Nothing is due before the registered time, nothing ever comes while none is
    registered (until another edge), and following the deadlines settles the
    line: checked on a twin fed the same history, then polled ahead."""
    def line() -> Debouncer:
        return Debouncer(False, debounce_ms=debounce, chatter_ms=chatter, recover_ms=50,
                         timer=Scheduler().timer("line"))

    def twin(history: list[tuple[bool | None, int]]) -> Debouncer:
        d = line()
        for level, at in history:
            if level is not None:
                d.edge(level, at)
            d.poll(at)
        return d

    d, history, now, last = line(), [], 0, False
    for gap, level in steps:
        now += gap
        if level is not None:
            d.edge(level, now)
            last = level
        d.poll(now)
        history.append((level, now))
        when = d.timer.when
        if when is None:
            assert twin(history).poll(now + 10 * chatter) == []
            continue
        assert when > now
        assert twin(history).poll(when - 1) == []
        later = twin(history)
        for _ in range(5):                    # every deadline leads somewhere, and soon
            if later.timer.when is None:
                break
            later.poll(later.timer.when)
        assert later.timer.when is None
        assert later.level == last and not later.faulty    # settled on the last level


def test_an_edge_recorded_by_a_callback_registers_itself_and_changes_nothing_else():
    factory = MockFactory()
    world = SimWorld(1000)
    pins = PiPins({1: 5}, world.clock, factory, timers=world.timers)
    switches = Switches([pins], timers=world.timers)
    try:
        switches.flaps.poll(1000)                      # the periodic read: due at 1250
        assert world.timers.next_ms() == 1250
        world.advance_to(1100)
        factory.pin(5).drive_low()                     # gpiozero calls back: flap 1 shuts
        assert pins.timer.when == 1100                 # "read me now", as the wake-up says
        logic = switches.flaps.logic.lines[1]
        assert logic.timer.when is None and logic.level is False   # not fed by anyone yet
        assert switches.flaps.poll(1100) == []
        assert (pins.timer.when, logic.timer.when) == (1250, 1120)   # read, debounce
    finally:
        switches.close()
        factory.reset()
