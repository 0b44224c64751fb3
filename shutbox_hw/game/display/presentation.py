"""What the screen holds besides the game: the view side's own small state.

The game (:mod:`.state`) knows the match, the turn and the flaps; how they are
put on the screen over time is kept here: the steps of an end queued to be
seen one after another, the resting screen between two turns, the reason a
press could not act flashing on the problem bar, a passing remark about the
throw, why a rejected flap does not fit. The referee's observer on the box
(:mod:`.presenter`) changes it with what the referee tells it (:mod:`.end_screens`
queues the ends' screens as they are told); the view (:mod:`.view`) draws the
state and this together.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .screens import ScoreboardScreen, Screen, TurnEndScreen

QUICK_SHOW_MS = 600
"""A step of an end a press between two turns moves past is still seen this long."""


def quick_show_ms(pause_ms: int) -> int:
    """The least a step of an end is seen before a press between two turns moves
    on (once the next turn is played, the steps still queued give way to it)."""
    return min(pause_ms, QUICK_SHOW_MS)


@dataclass
class Presentation:
    """The view side's state, changed only by what the referee tells (:mod:`.presenter`)."""
    queue: list[Screen] = field(default_factory=list)  # the ends still to be seen, each
    #                                for pause_ms or until a button, before the resting screen
    since: int = 0                 # when the head of ``queue`` appeared
    hurried: int = 0               # how many of ``queue`` a press between two turns cut
    #                                short: each is seen for QUICK_SHOW_MS, not pause_ms
    resting: TurnEndScreen | ScoreboardScreen | None = None  # until the flaps are lifted
    flash: str = ""                # why the last press could not act (the bar flashes it)
    flash_since: int = 0
    note: str = ""                 # a passing remark about the throw, for the footer
    reasons: dict[int, str] = field(default_factory=dict)   # rejected flap: why

    def add(self, now: int, *screens: Screen) -> None:
        """Queue screens to be seen in turn (the first starts now if none is up)."""
        if not self.queue:
            self.since = now
        self.queue.extend(screens)

    def head_until(self, pause_ms: int, question: bool) -> int | None:
        """When the head of the queue gives way to the next (never while a
        question covers the screen: the steps wait for it)."""
        if not self.queue or question:
            return None
        return self.since + (quick_show_ms(pause_ms) if self.hurried else pause_ms)

    def next_one(self, now: int) -> None:
        """The head of the queue has been seen: the next one starts."""
        self.queue.pop(0)
        self.hurried = max(0, self.hurried - 1)
        self.since = now

    def give_way(self) -> None:
        """The next player is at it: the steps of the last end still queued go,
        so the screen is the turn being played (never a previous player's end,
        with its "lift", over it)."""
        self.queue = []
        self.hurried = 0

    def refuse(self, why: str, now: int) -> None:
        """A press that cannot act: the problem bar flashes why."""
        self.flash, self.flash_since = why, now

    def new_turn(self) -> None:
        """A turn starts (or a game): nothing said about the last one stays, and
        the steps of the last end still queued pass quickly (each still seen
        for QUICK_SHOW_MS) until the new turn is played (:meth:`give_way`)."""
        self.hurried = len(self.queue)
        self.resting = None
        self.reasons = {}
        self.note = ""
