"""The box's switches, whatever carries them: one flap bank, one pair of buttons
and the optional service button.

Pi pins (:class:`~.gpio.PiPins`) and expander pins
(:class:`~.expander.ExpanderPins`) are both *edge sources*: they give the
levels at start, raw edges stamped with the time they were seen, the
faults of the hardware itself (a chip that stopped answering), and
register when they next need a read in the box's scheduler (the same one
the debouncers register in). :class:`Switches` takes the edges of all its
sources and hands each to the timestamp debouncing of :mod:`.debounce`;
its :attr:`~Switches.flaps` is the box's :class:`~.ports.FlapBank` and
its :attr:`~Switches.buttons` its :class:`~.ports.Buttons`. So a box may
have its flaps on an expander and its buttons on the Pi, and both
backends debounce exactly alike.

A source whose hardware reports on another thread (gpiozero's callbacks,
the expander's INT line) records the edge and then calls the ``wake`` it
was made with (:class:`~.poll.Waker.wake` on the box), so the loop, which
otherwise sleeps until the next deadline, reads it at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ...base.events import ButtonEvent, ButtonName, FlapChanged, InputFault
from ...base.lifecycle import Closable
from ...base.scheduler import Scheduler
from ..contracts.config import HardwareConfig
from ..contracts.debounce import SERVICE, ButtonInputs, FlapInputs, ServiceLine

Line = int | ButtonName | ServiceLine
"""A switch: a tile number for a flap, "roll" or "next" for a button, "service"
for the service button (debounced with the buttons, see :class:`~.debounce.ButtonInputs`)."""

BUTTONS: tuple[ButtonName, ...] = ("roll", "next")


@dataclass(frozen=True)
class Edge:
    """A switch seen ``closed`` (shut, pressed) or open at ``at_ms``; may repeat a level."""
    line: Line
    closed: bool
    at_ms: int


class EdgeSource(Protocol):
    """Raw switch levels from one kind of pin."""

    def levels(self) -> dict[Line, bool]:
        """Every line's level as read when the source was made (closed = True)."""

    def edges(self, now_ms: int | None = None) -> list[Edge]:
        """The edges seen since the last call, in the order seen; with ``now_ms``
        also what a read that is due by then shows (this may use the bus). The
        source keeps a timer for when it next needs this call (an edge
        recorded, a periodic read, a retry)."""

    def take_faults(self) -> list[InputFault]:
        """The source's own faults since the last call (lost, back, reset)."""

    def close(self) -> None: ...


class Switches(Closable):
    """Flaps and buttons over one or more edge sources; use :attr:`flaps`, :attr:`buttons`.

    Both views read all sources (a source may carry flaps and buttons), so
    whichever is polled first at a given time does the reading. The
    debouncers' deadlines go to ``timers``, the scheduler the sources were
    made with.
    """

    def __init__(self, sources: Sequence[EdgeSource], *,
                 debounce_ms: int = HardwareConfig.debounce_ms, chatter_ms: int = 1000,
                 hold_ms: int = HardwareConfig.hold_ms, timers: Scheduler | None = None) -> None:
        self.sources = list(sources)
        self.timers = Scheduler() if timers is None else timers
        levels: dict[Line, bool] = {}
        for source in self.sources:
            for line, level in source.levels().items():
                if line in levels:
                    raise ValueError(f"switch {line!r} is wired twice")
                levels[line] = level
        flaps = {line: level for line, level in levels.items() if isinstance(line, int)}
        pressed = {line: level for line, level in levels.items()
                   if not isinstance(line, int)}
        if pressed and sorted(line for line in pressed if line != SERVICE) != sorted(BUTTONS):
            raise ValueError("give both ROLL and NEXT (and the service button if any), "
                             "or none of them")
        self._faults: list[InputFault] = []
        self.flaps = FlapSwitches(self, FlapInputs(flaps, debounce_ms=debounce_ms,
                                                   chatter_ms=chatter_ms, timers=self.timers))
        self.buttons = ButtonSwitches(self, ButtonInputs(
            pressed, hold_ms=hold_ms, debounce_ms=debounce_ms,
            chatter_ms=chatter_ms, timers=self.timers)) if pressed else None

    def pump(self, now_ms: int | None = None) -> None:
        """Hand every edge the sources have (reading them if due by ``now_ms``)
        to the debouncers; keep the sources' faults for the flap view."""
        self._check_open()
        for source in self.sources:
            for edge in source.edges(now_ms):
                if isinstance(edge.line, int):
                    self.flaps.logic.edge(edge.line, edge.closed, edge.at_ms)
                elif self.buttons is not None:
                    self.buttons.logic.edge(edge.line, edge.closed, edge.at_ms)
            self._faults += source.take_faults()

    def take_faults(self) -> list[InputFault]:
        out, self._faults = self._faults, []
        return out

    def known_until(self, now_ms: int) -> int:
        """Up to when every line's level is known: a source with a read still to
        come (an expander's interrupt not yet read) holds the debouncers back,
        so that a change it will report is not settled over."""
        return min((source.known_until(now_ms) for source in self.sources
                    if hasattr(source, "known_until")), default=now_ms)

    def _close(self) -> None:
        for source in self.sources:
            source.close()
        self.flaps.logic.cancel_timers()
        if self.buttons is not None:
            self.buttons.logic.cancel_timers()


class _View(Closable):
    """A view of :class:`Switches`: closing either view closes the switches."""

    _switches: Switches

    @property
    def closed(self) -> bool:
        return self._switches.closed

    def close(self) -> None:
        self._switches.close()


class FlapSwitches(_View):
    """The flap view of :class:`Switches` (a :class:`~.ports.FlapBank`); it also
    carries the faults of the sources, as a flap view of the hardware."""

    def __init__(self, switches: Switches, logic: FlapInputs) -> None:
        self._switches = switches
        self.logic = logic
        self.tiles = max(logic.lines, default=0)

    def shut_mask(self) -> int:
        return self.logic.shut_mask()

    def poll(self, now_ms: int) -> Sequence[FlapChanged | InputFault]:
        self._switches.pump(now_ms)
        events: list[FlapChanged | InputFault] = [
            *self._switches.take_faults(), *self.logic.poll(self._switches.known_until(now_ms))]
        return sorted(events, key=lambda e: e.at_ms)


class ButtonSwitches(_View):
    """The ROLL/NEXT view of :class:`Switches` (a :class:`~.ports.Buttons`), with
    the service button when there is one."""

    def __init__(self, switches: Switches, logic: ButtonInputs) -> None:
        self._switches = switches
        self.logic = logic

    def poll(self, now_ms: int) -> Sequence[ButtonEvent]:
        self._switches.pump(now_ms)
        return self.logic.poll(self._switches.known_until(now_ms))
