"""What the referee tells whoever shows the game, as it happens.

The referee never builds a screen or writes a sentence: it tells an
:class:`Observer` what happened, at the moment it happens (while the state is
as that moment left it: an end is put on the screen before the next round
changes the totals), and why, as plain values (:mod:`.reasons`). The display
(:class:`shutbox_hw.game.display.presenter.Presenter`) is the observer the box
uses; :class:`Unseen` is one that shows nothing (a referee on its own, in a test
or a tool). The one thing the referee asks back is whether an end's steps are
still being shown (the mode stack's ``ends`` mode owns the buttons then), and the
words of a refused flap, which its ``flap_rejected`` event carries.
"""

from __future__ import annotations

from typing import Protocol

from ...base.events import TurnRated
from ..model.events import RoundEnded, TurnEnded
from ..model.state import GameState, Turn
from .reasons import Misfit, Reason


class Observer(Protocol):
    """The referee's listener (the display, on the box)."""

    def ends_queued(self) -> bool:
        """The steps of an end are still queued to be seen."""
        ...

    def give_way(self) -> None:
        """The next player is at it: the last end's steps still queued go."""

    def acted(self) -> None:
        """A flap moved or a button was pressed: a reason flashing for the last press ends."""

    def refuse(self, state: GameState, why: Reason) -> None:
        """A press (or a seat's claim) could not act: say why for a moment."""

    def note(self, state: GameState, what: Reason | None) -> None:
        """A remark about the throw in play (None: nothing to remark any more)."""

    def new_turn(self) -> None:
        """A turn (or a game) starts: nothing said of the last one stays."""

    def turn_ended(self, state: GameState, turn: Turn, ended: TurnEnded) -> None:
        """A turn is over (``state`` as its end left it)."""

    def round_ended(self, state: GameState, ended: RoundEnded) -> None:
        """A round is over (``state`` as its end left it)."""

    def turn_rated(self, state: GameState, rated: TurnRated) -> None:
        """The move rater's word on a turn just ended."""

    def game_ended(self) -> None:
        """The game ended, or a saved one was restored: nothing rests on the screen."""

    def tick(self, state: GameState) -> None:
        """Time passed (``state.now``): a step of an end seen long enough gives way."""

    def step_seen(self, state: GameState) -> None:
        """A press between two turns while an end's steps are shown: the next step."""

    def question_gone(self, now: int) -> None:
        """The question was answered or lapsed: the step it covered is seen in full."""

    def flap_lifted(self, tile: int) -> None:
        """A flap was lifted: what was said of it goes."""

    def flap_rejected(self, state: GameState, misfit: Misfit) -> str:
        """A flap does not fit: shown until it is lifted; the words it is shown with."""
        ...


class Unseen:
    """An observer that shows nothing: the referee alone (its refused flaps'
    events carry no words)."""

    def ends_queued(self) -> bool:
        return False

    def give_way(self) -> None:
        pass

    def acted(self) -> None:
        pass

    def refuse(self, state: GameState, why: Reason) -> None:
        pass

    def note(self, state: GameState, what: Reason | None) -> None:
        pass

    def new_turn(self) -> None:
        pass

    def turn_ended(self, state: GameState, turn: Turn, ended: TurnEnded) -> None:
        pass

    def round_ended(self, state: GameState, ended: RoundEnded) -> None:
        pass

    def turn_rated(self, state: GameState, rated: TurnRated) -> None:
        pass

    def game_ended(self) -> None:
        pass

    def tick(self, state: GameState) -> None:
        pass

    def step_seen(self, state: GameState) -> None:
        pass

    def question_gone(self, now: int) -> None:
        pass

    def flap_lifted(self, tile: int) -> None:
        pass

    def flap_rejected(self, state: GameState, misfit: Misfit) -> str:
        return ""
