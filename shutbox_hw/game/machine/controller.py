"""The controller: the referee and the display stepped together, as the box runs them.

The one class the real daemon, the simulator and the tests drive. Each entry
point hands the input to the referee (:class:`~shutbox_hw.game.referee.referee.Referee`:
the game's events and the dice to throw, nothing shown), whose observer is the
display (:class:`~shutbox_hw.game.display.presenter.Presenter`: what the screen
holds over time, :class:`~shutbox_hw.game.display.presentation.Presentation`),
then adds the screen and lights the display draws for the state the step left
(:mod:`shutbox_hw.game.display.view`), when they changed. The mode on top of the
stack (:mod:`shutbox_hw.game.model.modes`) owns both the buttons and the screen.

Pure like both: no I/O, no clock reads, no random numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...base.events import Event
from ...base.leds import LedFrame
from ...rules import Mask, RuleSet
from ..display import view
from ..display.presentation import Presentation
from ..display.presenter import Presenter
from ..display.screens import Screen
from ..model.config import GameConfig
from ..model.events import SeatClaimed
from ..model.saved import SavedGame
from ..model.state import Phase
from ..referee.advice import Advisor
from ..referee.referee import QUESTION_MS, Referee
from .effects import Effect, Lights, Show

__all__ = ["QUESTION_MS", "Controller"]


class Controller:
    """One game box: its referee and its screen. Feed :meth:`start` once, then :meth:`handle`."""

    def __init__(self, rules: RuleSet, game: GameConfig | None = None,
                 advisor: Advisor | None = None) -> None:
        self.shown = Presentation()   # the view side's own: what the screen holds over time
        self.presenter = Presenter(self.shown)
        self.referee = Referee(rules, game, advisor, self.presenter)
        self.state = self.referee.state
        self._last_screen: Screen | None = None
        self._last_leds: LedFrame | None = None

    def configure(self, rules: RuleSet, game: GameConfig, advisor: Advisor | None,
                  settings: Mapping[str, Any]) -> None:
        """The box's adjustments (:meth:`Referee.configure`)."""
        self.referee.configure(rules, game, advisor, settings)

    @property
    def advisor(self) -> Advisor | None:
        """The hints' solver, when hints are on."""
        return self.referee.advisor

    @property
    def last_claim(self) -> SeatClaimed | str | None:
        """The answer to the last seat claim (the daemon hands it back to the phone)."""
        return self.referee.last_claim

    @last_claim.setter
    def last_claim(self, answer: SeatClaimed | str | None) -> None:
        self.referee.last_claim = answer

    # ------------------------------------------------------------------ entry points

    def start(self, now_ms: int, shut_mask: Mask, saved: SavedGame | None = None) -> list[Effect]:
        """Power on: the flaps as read now, and the unfinished game if there is one."""
        out: list[Effect] = [*self.referee.start(now_ms, shut_mask, saved)]
        return out + self.refresh()

    def handle(self, event: Event) -> list[Effect]:
        out: list[Effect] = [*self.referee.handle(event)]
        return out + self.refresh()

    def hints_ready(self) -> list[Effect]:
        """The advisor's tables, solved off the loop, are ready: the turn's hint
        and chances now, and the screen that shows them."""
        self.referee.hints_ready()
        return self.refresh()

    def next_deadline_ms(self) -> int | None:
        """When the controller next needs a :class:`Tick`: the referee's (a
        question's lapse, the settle timer) and the display's (the end of a shown
        step, the chase round a shut box, a flashing reason, the idle screen's
        next page, the join code's expiry)."""
        s, shown = self.state, self.shown
        times = (self.referee.next_deadline_ms(), self.presenter.head_until(s),
                 view.chase_next_ms(s, shown), view.flash_next_ms(s, shown),
                 view.attract_next_ms(s), view.join_next_ms(s))
        return min((t for t in times if t is not None), default=None)

    def dice_wanted(self) -> int | None:
        """How many dice the next throw takes when one is due, else None."""
        return self.referee.dice_wanted()

    @property
    def phase(self) -> Phase:
        return self.state.phase

    @property
    def player_count(self) -> int:
        """The players NEXT has chosen for the next game."""
        return self.state.player_count

    # ------------------------------------------------------------------ output

    def screen(self) -> Screen:
        """What the OLED shows now."""
        return view.screen(self.state, self.shown)

    @property
    def showing(self) -> bool:
        """A step of a turn's end is on the screen for its pause."""
        return bool(self.shown.queue)

    def refresh(self) -> list[Effect]:
        """The screen and lights for the current state, when they changed
        (after :meth:`configure`; every entry point ends with it)."""
        out: list[Effect] = []
        screen = self.screen()
        if screen != self._last_screen:
            self._last_screen = screen
            out.append(Show(screen))
        leds = view.lights(self.state, self.shown)
        if leds != self._last_leds:
            self._last_leds = leds
            out.append(Lights(leds))
        return out
