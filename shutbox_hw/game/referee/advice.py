"""Hints: the advisor's figures kept on the turn, and the events that show them.

The advisor (the solver, behind :class:`Advisor`) is optional; without one
these functions do nothing.
"""

from __future__ import annotations

from typing import Protocol

from ...rules import Dice, Mask, tiles_of
from ..model.events import Chances, Hint
from ..model.state import GameState, Turn
from .effects import Effect, Emit


class Advisor(Protocol):
    """Optimal-play figures for hints (the solver); optional."""

    def best_closure(self, open_mask: Mask, dice: Dice) -> Mask | None: ...

    def shut_probability(self, open_mask: Mask) -> float: ...

    def move_probability(self, open_mask: Mask) -> float: ...


def ready(advisor: Advisor | None) -> bool:
    """Whether the advisor's tables are made (they are solved off the loop); an
    advisor without ``ready`` always is."""
    return advisor is not None and getattr(advisor, "ready", lambda: True)()


def chances(state: GameState, advisor: Advisor | None, turn: Turn) -> list[Effect]:
    """After a commit: the chance to shut from here, and that the next throw moves."""
    state.hints_ready = advisor is None or ready(advisor)
    if advisor is None or not state.hints_ready:
        return []
    open_mask = state.open_mask(turn)
    turn.shut_chance = shut = advisor.shut_probability(open_mask)
    turn.move_chance = move = advisor.move_probability(open_mask)
    return [Emit(Chances(seat=turn.player, player=state.players[turn.player],
                         open=tuple(tiles_of(open_mask)), shut_probability=shut,
                         move_probability=move))]


def prepare_hint(state: GameState, advisor: Advisor | None, turn: Turn) -> None:
    """Once the dice are known (or after a restart): the best closure and the chances."""
    state.hints_ready = advisor is None or ready(advisor)
    if advisor is None or not state.hints_ready:
        return
    open_mask = state.open_mask(turn)
    if turn.shut_chance is None:
        turn.shut_chance = advisor.shut_probability(open_mask)
        turn.move_chance = advisor.move_probability(open_mask)
    if turn.dice is not None:
        turn.hint = advisor.best_closure(open_mask, turn.dice)


def hint_effects(state: GameState, turn: Turn) -> list[Effect]:
    """The hint event, when the hint is to be shown (always, or asked for)."""
    if not state.hint_visible(turn):
        return []
    return [Emit(Hint(seat=turn.player, player=state.players[turn.player],
                      dice=turn.dice or (), closure=tuple(tiles_of(turn.hint or 0)),
                      shut_probability=turn.shut_chance, move_probability=turn.move_chance))]
