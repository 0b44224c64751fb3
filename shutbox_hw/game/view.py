"""What the box shows for a state: pure functions from :class:`.state.GameState`
to a screen, the lights and the texts on them."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..leds import LedFrame, LedState
from ..rules import Mask, Position, RoundResult, Throw, dice_choice, tiles_of
from .screens import AttractScreen, ConfirmScreen, PlayScreen, ResultScreen, ScoreRow, Screen
from .state import GameState, Turn
from .text import flaps_word, throw_text, tile_ranges


def screen(state: GameState) -> Screen:
    if state.phase == "idle":
        return AttractScreen(title=state.rules.title, rules_line=state.rules.summary(),
                             players=state.names(state.player_count))
    if state.phase == "confirm":
        return ConfirmScreen(question="New game?")
    match = state.match
    assert match is not None
    if state.phase == "over":
        return ResultScreen(winners=tuple(state.players[p] for p in match.winners),
                            rows=score_rows(state, match.rounds[-1] if match.rounds else None))
    turn = state.turn
    if turn is None:
        must_open = tiles_of(state.shut)
        to_open = f"open {flaps_word(must_open)}" if must_open else "lift all flaps"
        if state.between is not None:
            return replace(state.between, prompt=to_open)
        player = state.next_player()
        return PlayScreen(player=state.players[player] if player is not None else "",
                          round=match.round_number, tiles=state.rules.tiles,
                          open_tiles=tuple(range(1, state.rules.tiles + 1)),
                          total=match.totals[player] if player is not None else 0,
                          prompt="lift all flaps",
                          message=to_open if must_open else message(state))
    open_mask = state.board & ~(turn.committed | turn.pending)
    return PlayScreen(player=state.players[turn.player], round=match.round_number,
                      tiles=state.rules.tiles, open_tiles=tuple(tiles_of(open_mask)),
                      total=match.totals[turn.player], dice=turn.dice,
                      prompt=turn.note or prompt(state, turn), message=message(state),
                      **_hint_fields(state, turn))


def score_rows(state: GameState, result: RoundResult | None = None) -> tuple[ScoreRow, ...]:
    """One row per player: this round (if any) and the match so far."""
    match = state.match
    assert match is not None
    return tuple(ScoreRow(
        name=name,
        raw=result.raw[p] if result else None,
        final=result.final[p] if result else None,
        total=match.totals[p], out=p in match.out,
        shut=bool(result and p in result.shutters),
        balance=match.balances[p] if state.rules.match == "pool" else None)
        for p, name in enumerate(state.players))


def message(state: GameState) -> str | None:
    """The problem to fix first: a flap to lift, one to shut again, a fault."""
    rejected, reopened = tiles_of(state.rejected()), tiles_of(state.reopened())
    if rejected:
        return state.reasons.get(rejected[0]) or f"lift {flaps_word(rejected)}"
    if reopened:
        if len(reopened) == 1:
            return f"{flaps_word(reopened)} was shut earlier: shut it again"
        return f"{flaps_word(reopened)} were shut earlier: shut them again"
    if state.faults:
        source, text = next(iter(state.faults.items()))
        return f"{source}: {text}"
    return None


def prompt(state: GameState, turn: Turn) -> str:
    """What the player does next."""
    choice = dice_choice(state.rules, state.open_mask(turn))
    if state.unseen_dice:
        if turn.throw is None:
            return "throw, then ROLL" if choice != "one" else "throw 1 die, then ROLL"
        return "shut; ROLL: next; NEXT: stuck"
    if turn.dice is None:
        if state.game.dice == "module":
            return "throw the dice"
        return {"two": "ROLL: throw", "one": "ROLL: throw 1 die",
                "one-or-two": "ROLL: 2 dice, hold: 1"}[choice]
    if turn.settle_at is not None:
        return "more? ROLL: done"
    return f"shut {throw_text(state.rules, turn.dice)}"


def misfit(state: GameState, tile: int, throw: Position | None, pending: Mask) -> str:
    """Why ``tile`` may not join the flaps shut since the throw."""
    if throw is None:
        return f"{tile}: press ROLL as you throw" if state.unseen_dice \
            else f"{tile} was shut before the roll"
    if isinstance(throw, Throw):
        return f"{tile} doesn't fit {throw_text(state.rules, throw.dice)}"
    if not pending:
        return f"{tile} doesn't fit any throw"
    return f"{tile} doesn't fit with {tile_ranges(tiles_of(pending))}"


def _hint_fields(state: GameState, turn: Turn) -> dict[str, Any]:
    if not state.hints_on:
        return {}
    hint = tuple(tiles_of(turn.hint)) if state.hint_visible(turn) and turn.hint else None
    return {"hint": hint, "shut_chance": turn.shut_chance, "move_chance": turn.move_chance}


def leds(state: GameState) -> LedFrame:
    """Blinking flaps to fix, the hint lit, green for all well, red for a problem."""
    flaps: list[LedState] = ["off"] * state.rules.tiles
    problem = False
    if state.phase == "play":
        blink = state.shut if state.turn is None else (state.rejected() | state.reopened())
        for tile in tiles_of(blink):
            flaps[tile - 1] = "blink"
        problem = bool(state.turn is not None and blink)
        for tile in tiles_of(_lit_hint(state)):
            if flaps[tile - 1] == "off":
                flaps[tile - 1] = "on"
    problem = problem or bool(state.faults)
    waiting = state.turn is not None and state.turn.dice is None and not problem
    green: LedState = "off" if problem else ("blink" if waiting else "on")
    return LedFrame(flaps=tuple(flaps), green=green, red="on" if problem else "off")


def _lit_hint(state: GameState) -> Mask:
    """Hinted tiles not shut yet: their flap LEDs light."""
    turn = state.turn
    if turn is None or not state.hint_visible(turn):
        return 0
    return (turn.hint or 0) & ~state.shut
