"""Debouncing on timestamps, the same for every backend.

gpiozero's backends debounce differently (lgpio delays every edge by the
bounce time) and its MockFactory not at all (gpiozero 2.0: a 5-edge burst
gives 6 press and 6 release callbacks whatever ``bounce_time`` says), so
adapters record raw edges with the time they saw them and
everything below decides, from those times alone, what really happened.
Nothing here reads a clock: the same edges give the same events on the box,
in the simulator and in tests. Each line, hold timer and the operator's
gesture keeps its next deadline as a :class:`~shutbox_hw.base.scheduler.Timer`
in the box's scheduler, moved whenever an edge or a poll changes it.

Rules, per input line:

- A change counts once the level has been stable for ``debounce_ms``
  (default 20). Its event carries the time it became stable (last edge +
  ``debounce_ms``), so the result does not depend on when ``poll`` runs.
  A glitch that returns to the reported level before settling gives nothing.
- Chatter: a line that has no stable period of ``debounce_ms`` for
  ``chatter_ms`` (default 1000) while edges keep coming is reported once as
  faulty ("switch chattering"), at the moment that window ran out. While
  faulty it needs ``recover_ms`` of quiet (default 250, never less than
  ``debounce_ms``) to be reported ok again; then its level is reported as a
  normal change if it differs from the last one reported. So a broken
  switch gives two fault events, not a storm of moves.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from ...base.events import (
    ButtonEvent,
    ButtonLevel,
    ButtonName,
    ButtonPressed,
    FlapChanged,
    InputFault,
    ServiceRequested,
)
from ...base.scheduler import Scheduler, Timer
from .config import HardwareConfig

K = TypeVar("K", bound=Hashable)

ServiceLine = Literal["service"]
SERVICE: ServiceLine = "service"
"""The optional service button inside the box: a settled press asks for the menu."""
_BUTTON_NAMES: tuple[ButtonName, ...] = ("roll", "next")

CHATTER_MESSAGE = "switch chattering"
SERVICE_HOLD_MS = 5000   # ROLL and NEXT held together this long: the operator menu
SETTLED_MESSAGE = "switch settled again"


@dataclass(frozen=True)
class Settled:
    """The line's level changed and held: ``level`` True = active (shut / pressed)."""
    level: bool
    at_ms: int


@dataclass(frozen=True)
class Chatter:
    """The line started (``ok`` False) or stopped (``ok`` True) chattering."""
    ok: bool
    at_ms: int


class Debouncer:
    """One input line: raw edges in, settled changes and chatter reports out."""

    def __init__(self, level: bool, *, debounce_ms: int = HardwareConfig.debounce_ms,
                 chatter_ms: int = 1000, recover_ms: int = 250,
                 timer: Timer | None = None) -> None:
        if debounce_ms < 0 or chatter_ms <= debounce_ms:
            raise ValueError("need 0 <= debounce_ms < chatter_ms")
        self.debounce_ms = debounce_ms
        self.chatter_ms = chatter_ms
        self.recover_ms = max(recover_ms, debounce_ms)
        self.level = level          # last level reported (or the starting level)
        self.faulty = False
        self._raw = level
        self._last_edge: int | None = None
        self._unstable_since: int | None = None   # first edge after the last stable period
        self._out: list[Settled | Chatter] = []
        self._polled: int | None = None
        self.timer = timer or Scheduler().timer("debounce")   # when something may next be due

    def edge(self, level: bool, at_ms: int) -> None:
        """Record a raw level seen at ``at_ms``; a repeat of the raw level is ignored."""
        # Never before the last edge or the last poll: threads may stamp slightly
        # out of order, and an edge read late (an interrupt captured while the
        # bus was down) must not produce an event older than ones already given.
        for floor in (self._last_edge, self._polled):
            if floor is not None and at_ms < floor:
                at_ms = floor
        self._advance(at_ms)
        if level == self._raw:
            return
        self._raw = level
        self._last_edge = at_ms
        if self._unstable_since is None:
            self._unstable_since = at_ms
        self._schedule()

    def poll(self, now_ms: int) -> list[Settled | Chatter]:
        """Everything that became due by ``now_ms``, oldest first."""
        self._advance(now_ms)
        self._polled = now_ms if self._polled is None else max(self._polled, now_ms)
        out, self._out = self._out, []
        return out

    def _schedule(self) -> None:
        """Register when something may next become due (nothing: no timer)."""
        if self._unstable_since is None:
            self.timer.cancel()
        elif self.faulty:
            self.timer.at(self._settle_at())
        else:
            self.timer.at(min(self._settle_at(), self._unstable_since + self.chatter_ms))

    def _settle_at(self) -> int:
        assert self._last_edge is not None
        return self._last_edge + (self.recover_ms if self.faulty else self.debounce_ms)

    def _advance(self, now_ms: int) -> None:
        if self._unstable_since is None:
            return
        fault_at = self._unstable_since + self.chatter_ms
        if not self.faulty and fault_at < self._settle_at() and fault_at <= now_ms:
            self.faulty = True
            self._out.append(Chatter(ok=False, at_ms=fault_at))
            self._schedule()
        settle_at = self._settle_at()
        if settle_at > now_ms:
            return
        if self.faulty:
            self.faulty = False
            self._out.append(Chatter(ok=True, at_ms=settle_at))
        if self._raw != self.level:
            self.level = self._raw
            self._out.append(Settled(level=self._raw, at_ms=settle_at))
        self._unstable_since = None
        self.timer.cancel()


class HoldTimer:
    """Short press on release before ``hold_ms``; long press once held ``hold_ms``.

    Fed settled levels (from a :class:`Debouncer`). The long press fires when
    the hold time is reached, not on release, and that release gives nothing.
    """

    def __init__(self, hold_ms: int = HardwareConfig.hold_ms, timer: Timer | None = None) -> None:
        if hold_ms <= 0:
            raise ValueError("hold_ms must be positive")
        self.hold_ms = hold_ms
        self.timer = timer or Scheduler().timer("hold")   # set while pressed: the long press
        self._out: list[tuple[bool, int]] = []   # (long, at_ms)

    def press(self, at_ms: int) -> None:
        self._advance(at_ms)
        self.timer.at(at_ms + self.hold_ms)

    def release(self, at_ms: int) -> None:
        self._advance(at_ms)
        if self.timer.when is not None:
            self._out.append((False, at_ms))
        self.timer.cancel()

    def cancel(self) -> None:
        """Forget a press in progress (the switch became untrustworthy)."""
        self.timer.cancel()

    def poll(self, now_ms: int) -> list[tuple[bool, int]]:
        """Presses due by ``now_ms`` as (long, at_ms), oldest first."""
        self._advance(now_ms)
        out, self._out = self._out, []
        return out

    def _advance(self, now_ms: int) -> None:
        long_at = self.timer.when
        if long_at is not None and long_at <= now_ms:
            self._out.append((True, long_at))
            self.timer.cancel()


class BothHeld:
    """The operator's gesture: ROLL and NEXT both down for ``hold_ms`` (5 s).

    Fed the settled level of each button; :meth:`poll` gives the time it
    fired, once per gesture (both must be released before it fires again).
    """

    def __init__(self, hold_ms: int = SERVICE_HOLD_MS, timer: Timer | None = None) -> None:
        if hold_ms <= 0:
            raise ValueError("hold_ms must be positive")
        self.hold_ms = hold_ms
        self._down: dict[str, bool] = {}
        self.timer = timer or Scheduler().timer("both held")   # set while both are down
        self._fired = False

    def level(self, button: str, down: bool, at_ms: int) -> None:
        self._down[button] = down
        both = len(self._down) == 2 and all(self._down.values())
        if both and self.timer.when is None and not self._fired:
            self.timer.at(at_ms + self.hold_ms)
        elif not both:
            self.timer.cancel()
            if not any(self._down.values()):
                self._fired = False

    def poll(self, now_ms: int) -> int | None:
        """When the gesture completed, if it did by ``now_ms`` (reported once)."""
        due = self.timer.when
        if due is None or due > now_ms:
            return None
        self.timer.cancel()
        self._fired = True
        return due


class _Lines(Generic[K]):
    """Debouncers for named lines, fed raw edges in time order."""

    def __init__(self, levels: Mapping[K, bool], debounce_ms: int, chatter_ms: int,
                 recover_ms: int, timers: Scheduler | None) -> None:
        self.timers = Scheduler() if timers is None else timers
        self.lines = {key: Debouncer(level, debounce_ms=debounce_ms, chatter_ms=chatter_ms,
                                     recover_ms=recover_ms,
                                     timer=self.timers.timer(f"debounce {key}"))
                      for key, level in levels.items()}

    def edge(self, key: K, level: bool, at_ms: int) -> None:
        self.lines[key].edge(level, at_ms)

    def cancel_timers(self) -> None:
        """The lines are no longer read: their deadlines go."""
        for line in self.lines.values():
            line.timer.cancel()


class FlapInputs(_Lines[int]):
    """The debounce logic of a flap bank, whatever carries its switches."""

    def __init__(self, shut: Mapping[int, bool], *,
                 debounce_ms: int = HardwareConfig.debounce_ms,
                 chatter_ms: int = 1000, recover_ms: int = 250,
                 timers: Scheduler | None = None) -> None:
        super().__init__(shut, debounce_ms, chatter_ms, recover_ms, timers)

    def shut_mask(self) -> int:
        """Bit t-1 set for every tile whose last reported state is shut."""
        return sum(1 << (tile - 1) for tile, d in self.lines.items() if d.level)

    def poll(self, now_ms: int) -> list[FlapChanged | InputFault]:
        events: list[tuple[int, int, FlapChanged | InputFault]] = []
        for tile, d in self.lines.items():
            for i, item in enumerate(d.poll(now_ms)):
                if isinstance(item, Settled):
                    ev: FlapChanged | InputFault = FlapChanged(tile, item.level, item.at_ms)
                else:
                    ev = InputFault(f"flap {tile}", SETTLED_MESSAGE if item.ok else CHATTER_MESSAGE,
                                    item.at_ms, ok=item.ok)
                events.append((item.at_ms, i, ev))
        events.sort(key=lambda e: (e[0], e[1]))   # stable: per-line order kept
        return [e[2] for e in events]


class ButtonInputs(_Lines[ButtonName | ServiceLine]):
    """The debounce and hold logic of ROLL and NEXT (True = pressed), and of the
    optional service button (:data:`SERVICE`).

    The service line is debounced and chatter-checked like a button, but it is
    no button: a settled press gives one :class:`ServiceRequested` at the
    settled time, with no hold; its release gives nothing.
    """

    def __init__(self, pressed: Mapping[ButtonName | ServiceLine, bool], *,
                 hold_ms: int = HardwareConfig.hold_ms,
                 debounce_ms: int = HardwareConfig.debounce_ms, chatter_ms: int = 1000,
                 recover_ms: int = 250, service_hold_ms: int = SERVICE_HOLD_MS,
                 timers: Scheduler | None = None) -> None:
        super().__init__(pressed, debounce_ms, chatter_ms, recover_ms, timers)
        # A button already held at start is not a press: it must be released first.
        self.holds: dict[ButtonName, HoldTimer] = {
            name: HoldTimer(hold_ms, self.timers.timer(f"hold {name}"))
            for name in _BUTTON_NAMES if name in pressed}
        self.both = BothHeld(service_hold_ms, self.timers.timer("both held"))

    def poll(self, now_ms: int) -> list[ButtonEvent]:
        # every line's settled changes in time order: holding both buttons is
        # judged across the two lines
        items = sorted(((item.at_ms, seq, name, item) for name, d in self.lines.items()
                        for seq, item in enumerate(d.poll(now_ms))),
                       key=lambda e: (e[0], e[1]))
        events: list[tuple[int, int, ButtonEvent]] = []
        for _, _, line, item in items:
            if line == SERVICE:
                self._service_line(events, item)
                continue
            name: ButtonName = line
            timer = self.holds[name]
            if isinstance(item, Chatter):
                for long, at in timer.poll(item.at_ms):
                    events.append((at, len(events), ButtonPressed(name, long, at)))
                if not item.ok:
                    timer.cancel()
                    self.both.level(name, False, item.at_ms)
                events.append((item.at_ms, len(events), _fault(name, item)))
                continue
            for long, at in timer.poll(item.at_ms):   # a long press due before this change
                events.append((at, len(events), ButtonPressed(name, long, at)))
            self._service(events, item.at_ms)
            if item.level:
                timer.press(item.at_ms)
            else:
                timer.release(item.at_ms)
            self.both.level(name, item.level, item.at_ms)
            events.append((item.at_ms, len(events), ButtonLevel(name, item.level, item.at_ms)))
        for name, timer in self.holds.items():
            for long, at in timer.poll(now_ms):
                events.append((at, len(events), ButtonPressed(name, long, at)))
        self._service(events, now_ms)
        events.sort(key=lambda e: (e[0], e[1]))
        return [e[2] for e in events]

    @staticmethod
    def _service_line(events: list[tuple[int, int, ButtonEvent]],
                      item: Settled | Chatter) -> None:
        """The service button: a settled press asks for the menu; chatter is a fault."""
        if isinstance(item, Chatter):
            events.append((item.at_ms, len(events), _fault(SERVICE, item)))
        elif item.level:
            events.append((item.at_ms, len(events), ServiceRequested(item.at_ms)))

    def _service(self, events: list[tuple[int, int, ButtonEvent]], now_ms: int) -> None:
        at = self.both.poll(now_ms)
        if at is not None:
            events.append((at, len(events), ServiceRequested(at)))

    def cancel_timers(self) -> None:
        super().cancel_timers()
        for hold in self.holds.values():
            hold.cancel()
        self.both.timer.cancel()


def _fault(line: str, item: Chatter) -> InputFault:
    """A button's chatter report: "ROLL", "NEXT" or "SERVICE" for a person."""
    return InputFault(line.upper(), SETTLED_MESSAGE if item.ok else CHATTER_MESSAGE,
                      item.at_ms, ok=item.ok)
