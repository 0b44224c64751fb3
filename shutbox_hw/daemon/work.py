"""The daemon's queue of work, and the order in which one step acts on the box.

A *step* is one thing handled: an input from the box, or work that an earlier
step left queued. The controller answers each with effects; :class:`Step`
puts them in the one order the box carries them out (stated here, nowhere
else), and whatever carrying them out leads to (the faces of thrown dice,
the settings just changed, tonight's figures re-read, the disk refusing or
taking a write again) is queued as more work, never handed back to the
controller from inside the step. The daemon drains the queue first in, first
out (:meth:`WorkQueue.drain`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from ..base.events import Event
from ..base.leds import LedFrame
from ..game.display.screens import Screen
from ..game.machine.effects import Effect, Emit, Lights, RollDice, Show
from ..game.model.events import (
    AnyGameEvent,
    AuditsReset,
    GameEnded,
    PlayerRemoved,
    ServiceEntered,
    SettingChanged,
)


@dataclass(frozen=True)
class Step:
    """One step's effects, in the order the box carries them out:

    1. ``lights``: a flap's LED changes before anything is written (a shut
       flap is its own record: after a power cut the box reads the flaps again);
    2. ``events``: every game event of the step is written durably in one
       transaction, with the audit counts;
    3. then they are reported (the journal; the simulator prints them);
    4. ``screen``: only then does the screen say what was taken. It is drawn
       once the step is over, so that the disk's answer to the write (a fault,
       a recovery), handled as part of the same step, replaces it;
    5. then the work the step leads to is queued behind it
       (:meth:`leads_to`): the settings changed on the menu put in force,
       tonight's figures and the roster read again, and last the dice (``dice``), since
       their faces start a step of their own.

    Of several frames for the LEDs or the screen, the last one counts.
    """
    lights: LedFrame | None = None
    events: tuple[AnyGameEvent, ...] = ()
    screen: Screen | None = None
    dice: tuple[int, ...] = ()

    @classmethod
    def of(cls, effects: Iterable[Effect]) -> Step:
        lights: LedFrame | None = None
        screen: Screen | None = None
        events: list[AnyGameEvent] = []
        dice: list[int] = []
        for effect in effects:
            if isinstance(effect, Lights):
                lights = effect.leds
            elif isinstance(effect, Emit):
                events.append(effect.event)
            elif isinstance(effect, Show):
                screen = effect.screen
            elif isinstance(effect, RollDice):
                dice.append(effect.count)
        return cls(lights, tuple(events), screen, tuple(dice))

    def leads_to(self, now: int) -> list[Queued]:
        """The work this step leaves for after it, in order."""
        out: list[Queued] = []
        changes = tuple(e for e in self.events if isinstance(e, SettingChanged))
        if changes:
            out.append(Queued(Reconfigure(changes), now))
        removed = any(isinstance(e, PlayerRemoved) for e in self.events)
        if any(isinstance(e, (ServiceEntered, AuditsReset)) for e in self.events) or removed:
            out.append(Queued(ReadFigures(audits=True, settings=removed), now, activity=False))
        elif any(isinstance(e, GameEnded) for e in self.events):
            out.append(Queued(ReadFigures(), now, activity=False))
        out += [Queued(Roll(count), now) for count in self.dice]
        return out


@dataclass(frozen=True)
class Carry:
    """Effects already decided outside a step (power on, a retried write, the
    hints made ready): carried out as a step of their own."""
    effects: tuple[Effect, ...] = ()


@dataclass(frozen=True)
class Reconfigure:
    """Adjustments made on the menu (already on disk): in force from now on."""
    changes: tuple[SettingChanged, ...]


@dataclass(frozen=True)
class ReadFigures:
    """Tonight's figures and the roster for the idle screen (at start, after a
    game); with ``audits``, the audit lines too (the menu opened, its audits were
    reset, a player was removed); with ``settings``, the box's adjustments again
    (a removed player's seat name went back to its label)."""
    audits: bool = False
    settings: bool = False


@dataclass(frozen=True)
class Roll:
    """Throw ``count`` dice; their faces are the next step's input."""
    count: int


Work = Event | Carry | Reconfigure | ReadFigures | Roll


@dataclass(frozen=True)
class Queued:
    """Work waiting its turn. ``same_step``: the disk's answer to the step
    before it (its screen waits for this one's); ``activity`` False: the box
    changed by itself (time passed), which does not wake a dimmed screen."""
    work: Work
    at_ms: int
    activity: bool = True
    same_step: bool = False


class WorkQueue:
    """First in, first out; the disk's answer to a write goes to the front, so
    that it belongs to the step that wrote."""

    def __init__(self) -> None:
        self._items: deque[Queued] = deque()

    def add(self, item: Queued) -> None:
        if item.same_step:
            self._items.appendleft(item)
        else:
            self._items.append(item)

    def __len__(self) -> int:
        return len(self._items)

    def drain(self, end_of_step: Callable[[], None]) -> Iterator[Queued]:
        """Each queued item in turn (more may be added while it is handled);
        ``end_of_step`` runs before every item that starts a new step, and
        once the queue is empty."""
        while self._items:
            item = self._items.popleft()
            if not item.same_step:
                end_of_step()
            yield item
        end_of_step()
