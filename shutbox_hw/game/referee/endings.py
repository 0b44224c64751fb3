"""The ends of turns, rounds and games: the scores, the match and the events.

Functions of the state (:mod:`.state`) that score an end and return its game
event; the referee calls them when a turn has nothing left, and tells its observer
(:mod:`.observer`; on the box the display puts them on the screen).
"""

from __future__ import annotations

from dataclasses import replace

from ...rules import ends_round_at_once, finish_round, stop_match, tiles_of, turn_score
from ..model.events import GameEnded, RoundEnded, TurnEnded
from ..model.state import GameState, Turn


def end_turn(state: GameState, turn: Turn) -> TurnEnded:
    """The turn is over: its score, and the seat has played this round."""
    assert state.match is not None
    open_mask = state.open_mask(turn)
    score = turn_score(state.rules, open_mask)
    state.round_played[turn.player] = open_mask
    state.turn = None
    return TurnEnded(seat=turn.player, player=state.players[turn.player], score=score,
                     open=tuple(tiles_of(open_mask)), shut=open_mask == 0,
                     round=state.match.round_number)


def round_over(state: GameState, ended: TurnEnded) -> bool:
    """The turn just ended ends the round too: every seat played, or an instant win."""
    open_mask = state.round_played[ended.seat]
    return ends_round_at_once(state.rules, open_mask) or state.next_player() is None


def end_round(state: GameState) -> RoundEnded:
    """Every turn of the round is played (or an instant win cut it short)."""
    assert state.match is not None
    open_masks = [state.round_played.get(p) for p in range(len(state.players))]
    state.match = match = finish_round(state.rules, state.match, open_masks)
    result = match.rounds[-1]
    state.round_played = {}
    pool = state.rules.match == "pool"
    return RoundEnded(
        players=state.players, round=result.number, final=result.final, raw=result.raw,
        totals=match.totals, out=tuple(sorted(match.out)), shut=result.shutters,
        winners=result.winners, balances=match.balances if pool else None,
        pot=match.pot if pool else None)


def end_game(state: GameState, abandoned: bool) -> GameEnded:
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
    state.phase = "over"
    state.turn = None
    return GameEnded(
        players=state.players, winners=match.winners, totals=match.totals,
        rounds=len(match.rounds),
        balances=match.balances if state.rules.match == "pool" else None, abandoned=abandoned)
