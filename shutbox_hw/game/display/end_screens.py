"""The screens of an end, queued as the referee tells it (:mod:`.presenter`).

Every step of an end is queued to be seen (:class:`.presentation.Presentation`):
the throw that allowed no move, a shut box, the turn's score, the round's
scoreboard; then the result, or the last of them rests on the screen until
the flaps are lifted. Called as each end is scored (:mod:`.endings`), while
the state is as the end left it; the words come from :mod:`.view`.
"""

from __future__ import annotations

from dataclasses import replace

from ...base.events import TurnRated
from ...base.i18n import tr
from ..model.events import RoundEnded, TurnEnded
from ..model.state import GameState, Turn
from . import view
from .presentation import Presentation
from .screens import ScoreboardScreen, ShutScreen, TurnEndScreen


def turn_ended(state: GameState, shown: Presentation, turn: Turn, ended: TurnEnded) -> None:
    """The throw that ended the turn (if it had dice and left flaps open), a
    shut box, then the turn's score, which rests until the flaps are lifted."""
    open_mask = state.open_mask(turn)
    if turn.dice is not None and open_mask:
        shown.add(state.now, view.no_move(state, turn))
    note = view.turn_end_note(state, turn.player, ended.score, open_mask)
    if ended.shut:
        shown.add(state.now, ShutScreen(player=view.oled_player(state, turn.player), note=note))
    shown.resting = TurnEndScreen(player=view.oled_player(state, turn.player), score=ended.score,
                                  open_tiles=ended.open, shut=ended.shut, note=note)
    shown.add(state.now, shown.resting)


def turn_rated(state: GameState, shown: Presentation, rated: TurnRated) -> None:
    """With ``[game] show_accuracy``: the turn's best moves join its end screen, if that
    turn's end is still on it (a turn with no choice in it says nothing)."""
    resting = shown.resting
    if (not state.game.show_accuracy or rated.moves == 0
            or not isinstance(resting, TurnEndScreen) or state.phase != "play"
            or rated.round != state.round_number() or rated.seat >= len(state.players)
            or resting.player != state.players[rated.seat]):
        return
    new = replace(resting, accuracy=(rated.best, rated.moves))
    shown.queue = [new if screen is resting else screen for screen in shown.queue]
    shown.resting = new


def round_ended(state: GameState, shown: Presentation, ended: RoundEnded) -> None:
    """The round's scoreboard: it rests until the flaps are lifted, unless the
    match is over (the result follows it)."""
    assert state.match is not None
    result = state.match.rounds[-1]
    note = view.round_note(view.on_oled(state.players), ended.winners, ended.round)
    if ended.pot:
        note += tr(", pot {pot}").format(pot=ended.pot)
    rows = view.score_rows(state, result)
    if state.match.over:
        shown.add(state.now, ScoreboardScreen(round=ended.round, rows=rows, note=note))
        return
    shown.resting = ScoreboardScreen(round=ended.round, rows=rows, note=note,
                                     prompt=tr("lift all flaps"))
    shown.add(state.now, shown.resting)
