"""A virtual time line for simulated hardware, and switches that bounce.

:class:`SimWorld` owns a :class:`~shutbox_hw.hal.contracts.clock.VirtualClock` and a
queue of timed actions (pin edges, mostly). ``advance_to(t)`` runs every
action due by ``t`` in time order, setting the clock to each action's time
first, so gpiozero callbacks that read the clock stamp the edge exactly.
It also owns the simulated box's :class:`~shutbox_hw.base.scheduler.Scheduler`
(:attr:`SimWorld.timers`), the one the box's parts and daemon register
their deadlines in, and registers its own next action there: the loop that
runs the simulated box sleeps (jumps) on that one scheduler, as the real
loop sleeps on the box's. :meth:`SimWorld.run` is the loop the daemon would
run: it polls ports at every action and every deadline and collects the
events they produce.

A :class:`SimSwitch` is a microswitch: asked to close or open at time t, it
schedules a seeded burst of edges over a few milliseconds before it settles,
on a gpiozero mock pin or on an input of a :class:`~.mcp23017.SimMcp23017`.

Typical use (flaps on mock GPIO pins)::

    factory = MockFactory()
    world = SimWorld()
    pins = PiPins({1: 5, 2: 6}, world.clock, factory, timers=world.timers)
    bank = Switches([pins], timers=world.timers).flaps
    flap1 = SimSwitch(world, mock_pin_setter(factory.pin(5)), rng=random.Random(7))
    flap1.set(True, 1000)              # shut at t=1000, bouncing for a few ms
    events = world.run([bank], 2000)   # [FlapChanged(1, True, <last edge + 20>)]

On an expander use ``expander_pin_setter(chip, pin)`` instead, and
:class:`~shutbox_hw.hal.adapters.expander.ExpanderPins` as the source.
"""

from __future__ import annotations

import functools
import heapq
import itertools
import random
from collections.abc import Callable, Iterable
from typing import Any

from ...base.scheduler import Scheduler
from ..contracts.clock import VirtualClock
from ..contracts.poll import Pollable, poll_all, run_loop

ACTIONS = "world"    # the world's key in the scheduler: its next action


class SimWorld:
    """Virtual time plus the actions scheduled on it."""

    def __init__(self, start_ms: int = 0) -> None:
        self.clock = VirtualClock(start_ms)
        self.timers = Scheduler()
        self._queue: list[tuple[int, int, Callable[[], None]]] = []
        self._seq = itertools.count()   # keeps actions at the same time in order
        self._acting = 0                # > 0 while an action runs (another "thread")

    def now_ms(self) -> int:
        return self.clock.now_ms()

    def at(self, at_ms: int, action: Callable[[], None]) -> None:
        """Run ``action`` when time reaches ``at_ms`` (not before now)."""
        heapq.heappush(self._queue, (max(at_ms, self.now_ms()), next(self._seq), action))
        self._schedule()

    def _schedule(self) -> None:
        self.timers.at(ACTIONS, self.next_action_ms())

    def next_action_ms(self) -> int | None:
        """When the next action runs (the world's own queue, not the box's deadlines)."""
        return self._queue[0][0] if self._queue else None

    def power_cut(self) -> None:
        """The box lost power: every deadline its parts and daemon registered is
        gone with them; the world's actions stay."""
        self.timers.clear()
        self._schedule()

    def advance_to(self, t_ms: int) -> None:
        """Run every action due by ``t_ms`` in time order, then set the clock to
        ``t_ms`` (a time already passed: nothing)."""
        while self._queue and self._queue[0][0] <= t_ms:
            at, _, action = heapq.heappop(self._queue)
            self._schedule()
            self.clock.set(at)
            self._acting += 1
            try:
                action()
            finally:
                self._acting -= 1
        self.clock.set(max(t_ms, self.clock.now_ms()))

    def now_us(self) -> int:
        return self.clock.now_ms() * 1000

    def spend_until_us(self, end_us: int) -> None:
        """The loop waited for I/O that ends at ``end_us``: time passes to there
        (whole milliseconds; the bus keeps the rest), running what falls due
        meanwhile, as the world goes on while the loop is blocked. An action
        (a switch, an interrupt, the expander's reader: the world's own
        threads) never holds up the clock."""
        if self._acting:
            return
        target = end_us // 1000
        if target > self.clock.now_ms():
            self.advance_to(target)

    def spend_ms(self, ms: int) -> None:
        """The loop was blocked ``ms`` milliseconds (a disk sync)."""
        self.spend_until_us(self.now_us() + ms * 1000)

    def wait(self, until_ms: int | None) -> None:
        """Let time pass towards ``until_ms``, stopping at the next scheduled action
        (so no edge is read late); with no ``until_ms``, to the next action."""
        nxt = self.next_action_ms()
        target = until_ms if nxt is None else nxt if until_ms is None else min(nxt, until_ms)
        if target is not None:
            self.advance_to(target)

    def run(self, ports: Iterable[Pollable], until_ms: int) -> list[Any]:
        """Advance to ``until_ms`` stopping at every action and every deadline in
        :attr:`timers` (the ports must register theirs there), polling all
        ports at each stop; returns everything the polls returned."""
        ports = list(ports)
        events: list[Any] = []
        run_loop(self.clock, lambda now: events.extend(poll_all(ports, now)), self.timers,
                 lambda t: self.advance_to(until_ms if t is None else t), until_ms)
        return events


def mock_pin_setter(pin: Any) -> Callable[[bool], None]:
    """Closing a switch wired to ground pulls a gpiozero mock pin low."""
    def set_closed(closed: bool) -> None:
        pin.drive_low() if closed else pin.drive_high()
    return set_closed


def expander_pin_setter(chip: Any, pin: int) -> Callable[[bool], None]:
    """Closing a switch grounds the expander pin; open leaves it to the pull-up."""
    def set_closed(closed: bool) -> None:
        chip.set_input(pin, False if closed else None)
    return set_closed


class SimSwitch:
    """A microswitch that bounces: ``set(closed, at_ms)`` schedules up to
    ``max_bounces`` extra edges within ``bounce_ms`` (seeded), ending closed/open."""

    def __init__(self, world: SimWorld, setter: Callable[[bool], None], *,
                 rng: random.Random | None = None, bounce_ms: int = 5,
                 max_bounces: int = 6) -> None:
        self.world = world
        self.setter = setter
        self.rng = rng or random.Random(0)
        self.bounce_ms = bounce_ms
        self.max_bounces = max_bounces

    def set(self, closed: bool, at_ms: int) -> int:
        """Schedule the change; returns the time of its last edge."""
        # an even number of bounce edges, so the burst starts and ends on the new level
        n = self.rng.randint(0, self.max_bounces // 2) * 2
        offsets = sorted(self.rng.randint(0, self.bounce_ms) for _ in range(n + 1))
        level = closed
        for off in offsets[:-1]:
            self.world.at(at_ms + off, functools.partial(self._set, level))
            level = not level
        last = at_ms + offsets[-1]
        self.world.at(last, functools.partial(self._set, closed))
        return last

    def _set(self, closed: bool) -> None:
        self.setter(closed)     # looked up when it runs: a test may rewire the switch
