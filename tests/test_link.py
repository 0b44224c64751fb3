"""A device's connection state: transitions told once, one schedule, on every adapter."""

import logging

from shutbox_hw.hal.adapters import dice_module as dm
from shutbox_hw.hal.adapters.display import OledDisplay, dummy_device
from shutbox_hw.hal.adapters.expander import ExpanderPins
from shutbox_hw.hal.contracts.link import DeviceLink, Link
from shutbox_hw.hal.simulated import SimBus, SimMcp23017
from shutbox_hw.hal.simulated.dice_module import SimDiceModule

LOGGER = "shutbox_hw"


def lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOGGER]


def test_the_first_failure_is_absent_and_news_once(caplog):
    caplog.set_level(logging.INFO, LOGGER)
    link = DeviceLink("thing", retry_ms=2000, check_ms=250)
    assert link.state is Link.STARTING and link.due(0)        # the first try: at once
    assert link.down("no answer", 100) is True
    assert link.state is Link.ABSENT and link.reason == "no answer" and link.next_ms == 2100
    assert link.down("other words", 2100) is False             # not news again
    assert link.reason == "no answer" and link.next_ms == 4100  # the wait starts again
    assert lines(caplog) == ["thing: no answer (trying again every 2 s; the game goes on)"]


def test_connected_then_silent_is_lost_and_back_is_news(caplog):
    caplog.set_level(logging.INFO, LOGGER)
    link = DeviceLink("thing", retry_ms=1000, check_ms=250, meanwhile="rolling by itself")
    assert link.up(0) is False and link.connected and link.next_ms == 250
    assert link.up(250) is False and link.next_ms == 500        # a check is not news
    assert link.down("gone", 300) is True and link.state is Link.LOST
    assert not link.due(1299) and link.due(1300)
    assert link.up(1300) is True and link.connected and link.reason == ""
    assert lines(caplog) == ["thing: connected",
                             "thing: gone (trying again every 1 s; rolling by itself)",
                             "thing: answering again"]


def test_one_schedule_checks_while_connected_and_retries_while_down():
    link = DeviceLink("thing", retry_ms=1000, check_ms=None)
    link.up(0)
    assert link.next_ms is None                  # nothing to check by itself
    link.up(10, check_ms=40)
    assert link.next_ms == 50                    # the owner's own interval this time
    link.down("x", None)
    assert link.next_ms is None and not link.due(10**9)   # the owner starts the wait
    link.wait(70)
    assert link.next_ms == 1070
    link.clear()
    assert link.next_ms is None


# -- the adapters ---------------------------------------------------------------------

class Clock:
    def __init__(self) -> None:
        self.ms = 0

    def now_ms(self) -> int:
        return self.ms


def test_the_expander_link_follows_the_chip_and_schedules_its_reads():
    bus, chip, clock = SimBus(), SimMcp23017(), Clock()
    bus.attach(0x20, chip)
    bus.unplug(0x20)
    pins = ExpanderPins(bus, clock, {("flap", 1): 0}, retry_ms=1000, read_ms=250,
                        sleep=lambda s: None)
    assert pins.link.state is Link.ABSENT and pins.timer.when == 1000
    assert [f.ok for f in pins.take_faults()] == [False]
    bus.plug(0x20)
    clock.ms = 1000
    pins.edges(clock.ms)
    every = pins.poll_ms                 # no INT wire: polled every debounce_ms / 2
    assert pins.link.state is Link.CONNECTED and pins.timer.when == 1000 + every
    assert [f.ok for f in pins.take_faults()] == [True]
    bus.unplug(0x20)
    clock.ms = 1000 + every
    pins.edges(clock.ms)
    assert pins.link.state is Link.LOST and pins.timer.when == 2000 + every
    assert [f.ok for f in pins.take_faults()] == [False]
    clock.ms = 2000 + every
    pins.edges(clock.ms)                          # still silent: no second fault
    assert pins.take_faults() == [] and pins.timer.when == 3000 + every
    pins.close()


def test_the_dice_link_is_one_device_link():
    bus, clock = SimBus(), Clock()
    module = SimDiceModule(clock=clock)
    bus.attach(0x42, module)
    link = dm.DiceLink(dm.DiceModule(bus, 0x42, sleep=lambda s: None), poll_ms=250,
                       retry_ms=2000)
    assert link.start(0) == [] and link.link.state is Link.CONNECTED   # its schedule: a timer
    assert link.link.timer.when == 250
    bus.unplug(0x42)
    events = link.tick(250)
    assert [e.kind for e in events] == ["lost"] and link.link.state is Link.LOST
    assert link.link.timer.when == 2250 and link.tick(2250) == []
    bus.plug(0x42)
    assert [e.kind for e in link.tick(4250)] == ["recovered"] and link.online


def test_the_display_link_goes_absent_then_connected():
    attempts = []

    def factory():
        attempts.append(len(attempts))
        if len(attempts) <= 3:                   # the first try, all 3 attempts of it
            raise OSError(121, "Remote I/O error")
        return dummy_device()

    display = OledDisplay(factory, retry_ms=5000, sleep=lambda s: None,
                          refresh_every_ms=60_000)
    try:
        assert display.wait_idle(10)
        assert display.link.state is Link.ABSENT
        assert [f.ok for f in display.poll(0)] == [False]
        assert display.timer.when == 5000        # the retry's wait, from the poll
        display.poll(5000)
        assert display.wait_idle(10)
        assert display.link.state is Link.CONNECTED and len(attempts) == 4
        assert [f.ok for f in display.poll(5000)] == [True]
    finally:
        display.close()
