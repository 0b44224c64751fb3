"""The display as the referee's observer: what it is told becomes what the screen holds.

The referee (:mod:`shutbox_hw.game.referee`) tells an observer what happened
(:class:`~shutbox_hw.game.referee.observer.Observer`); :class:`Presenter` is
the one the box uses. It keeps the view side's state (:class:`.presentation.Presentation`:
the ends queued to be seen, the reason flashing on the bar, a remark about the
throw, why a refused flap does not fit), queues the ends' screens as they are
told (:mod:`.end_screens`) and words the referee's reasons (:mod:`.reason_words`).
"""

from __future__ import annotations

from ...base.events import TurnRated
from ..model.events import RoundEnded, TurnEnded
from ..model.state import GameState, Turn
from ..referee.reasons import Misfit, Reason
from . import end_screens
from .presentation import Presentation, quick_show_ms
from .reason_words import said


class Presenter:
    """The referee's observer on the box: it changes ``shown`` only."""

    def __init__(self, shown: Presentation) -> None:
        self.shown = shown

    def head_until(self, state: GameState) -> int | None:
        """When the step of an end now on the screen gives way to the next."""
        return self.shown.head_until(state.game.pause_ms, question=state.phase == "confirm")

    # ------------------------------------------------------------------ the Observer

    def ends_queued(self) -> bool:
        return bool(self.shown.queue)

    def give_way(self) -> None:
        self.shown.give_way()

    def acted(self) -> None:
        self.shown.flash = ""

    def refuse(self, state: GameState, why: Reason) -> None:
        self.shown.refuse(said(state, why), state.now)

    def note(self, state: GameState, what: Reason | None) -> None:
        self.shown.note = said(state, what) if what is not None else ""

    def new_turn(self) -> None:
        self.shown.new_turn()

    def turn_ended(self, state: GameState, turn: Turn, ended: TurnEnded) -> None:
        end_screens.turn_ended(state, self.shown, turn, ended)

    def round_ended(self, state: GameState, ended: RoundEnded) -> None:
        end_screens.round_ended(state, self.shown, ended)

    def turn_rated(self, state: GameState, rated: TurnRated) -> None:
        end_screens.turn_rated(state, self.shown, rated)

    def game_ended(self) -> None:
        self.shown.resting = None

    def tick(self, state: GameState) -> None:
        until = self.head_until(state)
        if until is not None and state.now >= until:
            self.shown.next_one(state.now)

    def step_seen(self, state: GameState) -> None:
        """The next step, once this one was seen for the least time; else this
        one is cut short to that."""
        shown = self.shown
        if state.now - shown.since >= quick_show_ms(state.game.pause_ms):
            shown.next_one(state.now)
        else:
            shown.hurried = max(shown.hurried, 1)

    def question_gone(self, now: int) -> None:
        self.shown.since = now

    def flap_lifted(self, tile: int) -> None:
        self.shown.reasons.pop(tile, None)

    def flap_rejected(self, state: GameState, misfit: Misfit) -> str:
        words = self.shown.reasons[misfit.tile] = said(state, misfit)
        return words
