"""The ends of turns, rounds and games: scores, the match and the screens between.

Functions of the state (:mod:`.state`) that return the game events; the
controller calls them when a turn has nothing left. Every step of an end is
queued to be seen (``state.show``): the throw that allowed no move, a shut
box, the turn's score, the round's scoreboard; then the result, or the last
of them stays until the flaps are lifted.
"""

from __future__ import annotations

from dataclasses import replace

from ..rules import ends_round_at_once, finish_round, stop_match, tiles_of, turn_score
from . import view
from .effects import Effect, Emit
from .events import GameEnded, RoundEnded, TurnEnded
from .screens import ScoreboardScreen, ShutScreen, TurnEndScreen
from .state import GameState, Turn


def end_turn(state: GameState, turn: Turn) -> list[Effect]:
    """The turn is over: its score, the turn end screen, and the round's end if it came."""
    assert state.match is not None
    open_mask = state.open_mask(turn)
    if turn.dice is not None and open_mask:
        state.show(view.no_move(state, turn))   # the throw that ended the turn
    score = turn_score(state.rules, open_mask)
    name = state.players[turn.player]
    state.round_played[turn.player] = open_mask
    state.turn = None
    out: list[Effect] = [Emit(TurnEnded(seat=turn.player, player=name, score=score,
                                        open=tuple(tiles_of(open_mask)),
                                        shut=open_mask == 0, round=state.match.round_number))]
    note = view.turn_end_note(state, turn.player, score, open_mask)
    if open_mask == 0:
        state.show(ShutScreen(player=name, note=note))
    state.between = TurnEndScreen(player=name, score=score, open_tiles=tuple(tiles_of(open_mask)),
                                  shut=open_mask == 0, note=note)
    state.show(state.between)
    if ends_round_at_once(state.rules, open_mask) or state.next_player() is None:
        out += end_round(state)
    return out


def end_round(state: GameState) -> list[Effect]:
    """Every turn of the round is played (or an instant win cut it short)."""
    assert state.match is not None
    open_masks = [state.round_played.get(p) for p in range(len(state.players))]
    state.match = match = finish_round(state.rules, state.match, open_masks)
    result = match.rounds[-1]
    state.round_played = {}
    pool = state.rules.match == "pool"
    out: list[Effect] = [Emit(RoundEnded(
        players=state.players, round=result.number, final=result.final, raw=result.raw,
        totals=match.totals, out=tuple(sorted(match.out)), shut=result.shutters,
        winners=result.winners, balances=match.balances if pool else None,
        pot=match.pot if pool else None))]
    note = view.round_note(state.players, result.winners, result.number)
    if pool and match.pot:
        note += f", pot {match.pot}"
    if match.over:
        state.show(ScoreboardScreen(round=result.number, rows=view.score_rows(state, result),
                                    note=note))
        return out + end_game(state, abandoned=False)
    state.between = ScoreboardScreen(round=result.number, rows=view.score_rows(state, result),
                                     note=note, prompt="lift all flaps")
    state.show(state.between)
    return out


def end_game(state: GameState, abandoned: bool) -> list[Effect]:
    """The match is decided, or the players stopped it. Stopped early it is
    ``abandoned`` and nobody won; a pool is settled instead (the highest
    balance wins) once a round was finished, abandoned before that."""
    assert state.match is not None
    if not state.match.over and not state.match.rounds:
        abandoned = True          # a pool with no round settled has nothing to share
    if not state.match.over:
        state.match = stop_match(state.rules, state.match)
    match = state.match
    if abandoned:                 # a game stopped before its end has no winner
        state.match = match = replace(match, winners=())
    winners = match.winners
    state.phase = "over"
    state.turn = None
    state.between = None
    return [Emit(GameEnded(
        players=state.players, winners=winners, totals=match.totals,
        rounds=len(match.rounds),
        balances=match.balances if state.rules.match == "pool" else None, abandoned=abandoned))]
