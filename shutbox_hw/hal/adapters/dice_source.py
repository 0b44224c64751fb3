"""Where a throw's faces come from: software dice, or the dice module with
software dice as its fallback.

The daemon asks a :class:`DiceSource` to ``roll`` when the rules want a throw
(ROLL); faces returned at once are software dice. The module's throws arrive
later, from :meth:`DiceSource.poll`, as :class:`~shutbox_hw.base.events.DiceRolled`
events with ``source="module"``, whether the box asked for them or the
player threw on the module itself; the controller decides whether a throw
was due. ``expect`` tells the source how many dice the rules want next, so
the module's own button throws that many.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

from ...base.events import DiceRolled, Event, InputFault
from ...base.lifecycle import Closable
from ...base.scheduler import Scheduler
from ..contracts.clock import Clock
from ..contracts.i2c_bus import I2cBus
from .dice_module import DiceLink, DiceModule, LinkEvent

MODULE = "dice module"     # the fault's source, as the screen names it


class DiceSource(Closable):
    """Software-only sources need only :meth:`roll`."""

    def roll(self, count: int) -> tuple[int, ...] | None:
        """The faces now, or None if they will arrive later from :meth:`poll`."""
        raise NotImplementedError

    def expect(self, count: int | None, now_ms: int) -> None:
        """The number of dice the rules want for the next throw (None: no throw due)."""

    def poll(self, now_ms: int) -> list[Event]:
        """Throws and faults that happened since the last call."""
        return []



class SoftwareDice(DiceSource):
    """ROLL rolls in software, with the operating system's randomness."""

    def __init__(self) -> None:
        self._random = secrets.SystemRandom()

    def roll(self, count: int) -> tuple[int, ...]:
        self._check_open()
        return tuple(self._random.randint(1, 6) for _ in range(count))


class ModuleDice(DiceSource):
    """The dice module through :class:`~.dice_module.DiceLink`; ``fallback`` rolls
    while the module is missing (a ``fault`` then, ``ok`` when it answers again)."""

    def __init__(self, link: DiceLink, clock: Clock, fallback: DiceSource | None = None,
                 on_close: Callable[[], None] | None = None) -> None:
        self.link = link
        self.clock = clock
        self.fallback = fallback or SoftwareDice()
        self.on_close = on_close
        self._started = False
        self._count: int | None = None
        self._events: list[Event] = []

    def roll(self, count: int) -> tuple[int, ...] | None:
        self._check_open()
        now = self.clock.now_ms()
        self._start(now)
        ok, events = self.link.request_roll(count, now)
        self._take(events, now)
        if ok:
            return None
        return self.fallback.roll(count)

    def expect(self, count: int | None, now_ms: int) -> None:
        if count is None or count == self._count:
            return
        self._count = count
        self._start(now_ms)
        self._take(self.link.set_count(count, now_ms), now_ms)

    def poll(self, now_ms: int) -> list[Event]:
        self._check_open()
        self._start(now_ms)
        self._take(self.link.tick(now_ms), now_ms)
        out, self._events = self._events, []
        return out

    def _close(self) -> None:
        if self.on_close is not None:
            self.on_close()

    def _start(self, now: int) -> None:
        if not self._started:
            self._started = True
            self._take(self.link.start(now), now)

    def _take(self, events: list[LinkEvent], now: int) -> None:
        for event in events:
            if event.kind == "throw" and event.throw is not None:
                self._events.append(DiceRolled(event.throw.faces, now, source="module"))
            elif event.kind == "lost":    # the link logged it (hal/contracts/link.py)
                self._events.append(InputFault(MODULE, "no answer: software dice", now))
            elif event.kind == "recovered":
                self._events.append(InputFault(MODULE, "answers again", now, ok=True))


def build_module_dice(bus: I2cBus, address: int, clock: Clock, *,
                      ready: Callable[[], bool] | None = None,
                      on_close: Callable[[], None] | None = None,
                      fallback: DiceSource | None = None,
                      timers: Scheduler | None = None) -> ModuleDice:
    """The module at ``address`` on ``bus``; ``ready()`` True while its ready line is low;
    its polls and searches are a timer in ``timers``."""
    return ModuleDice(DiceLink(DiceModule(bus, address, ready=ready), timers=timers), clock,
                      fallback=fallback, on_close=on_close)
