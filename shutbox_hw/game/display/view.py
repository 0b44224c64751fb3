"""What the box shows for a state: pure functions from :class:`.state.GameState`
and the view side's :class:`.presentation.Presentation` to a screen, the
lights and the texts on them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ...base.events import HighScores, Tonight
from ...base.i18n import ngettext, tr
from ...base.leds import LedFrame, LedState
from ...players.display import oled_name
from ...players.names import same_player, seat_label
from ...rules import Mask, Position, RoundResult, RuleSet, dice_choice, tiles_of
from ...words import devices as device_words
from ...words import rules as rule_words
from ..model import modes
from ..model.flaps import flap_states, open_tiles
from ..model.modes import turn_begun
from ..model.state import GameState, Turn
from ..referee import reasons
from . import attract, service_view
from .presentation import Presentation
from .reason_words import misfit_text
from .screens import (
    AttractScreen,
    ConfirmScreen,
    MenuScreen,
    NoticeScreen,
    PlayScreen,
    ResultScreen,
    ScoreboardScreen,
    ScoreRow,
    Screen,
    ShutScreen,
    TurnEndScreen,
)
from .text import flaps_word, shut_text, tile_ranges

ATTRACT_PAGE_MS = attract.ATTRACT_PAGE_MS
attract_next_ms = attract.next_ms


def on_oled(names: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The seats' names as the OLED shows them (what no font draws left out; a
    name with nothing left is its seat's label). The TV takes them as typed."""
    return tuple(oled_name(name, seat_label(seat)) for seat, name in enumerate(names))


def oled_player(state: GameState, seat: int) -> str:
    """One seat's name of the game under way, as the OLED shows it."""
    return oled_name(state.players[seat], seat_label(seat))


def join_next_ms(state: GameState) -> int | None:
    """While the box is set up, when its join code expires (the QR code goes)."""
    code = state.join.code
    if state.phase != "idle" or code is None or state.now >= code.until_ms:
        return None
    return code.until_ms


def second_seat_screen(state: GameState, shown: Presentation) -> Screen:
    """The box asking about a second seat from one phone (game/referee/phones.py)."""
    question = state.join.question
    assert question is not None
    return ConfirmScreen(tr("Same phone: seat {name}?").format(
        name=oled_name(question.claim.name, "?")))


def screen(state: GameState, shown: Presentation | None = None) -> Screen:
    """The screen for the game now, with what the view side holds (``shown``:
    none by default, e.g. in tests of the game alone): the screen of the top
    mode of the stack (game/model/modes.py)."""
    shown = shown if shown is not None else Presentation()
    return SCREENS[modes.on_screen(state, bool(shown.queue))](state, shown)


def service_screen(state: GameState, shown: Presentation) -> Screen:
    """The operator menu's screen."""
    assert state.service is not None
    return service_view.screen(state.service, state.rules.tiles, state.audits)


def attract_screen(state: GameState, shown: Presentation) -> Screen:
    """The idle screen's page now: the rule set, tonight, a high score, a fault."""
    page = attract.page(state)
    if page == attract.FAULT and _flashing(state, shown) is None:
        return fault_notice(state)
    tonight = page if isinstance(page, Tonight) else None
    if tonight is not None and tonight.best is not None:
        tonight = replace(tonight, best=(oled_name(tonight.best[0], ""), tonight.best[1]))
    high_score = page if isinstance(page, HighScores) else None
    if high_score is not None:
        high_score = replace(high_score, entries=tuple(
            (oled_name(name, ""), value) for name, value in high_score.entries))
    return AttractScreen(title=title(state.rules), rules_line=rule_words.summary(state.rules),
                         players=on_oled(state.names(state.player_count)),
                         tonight=tonight, high_score=high_score,
                         message=_flashing(state, shown),
                         join=state.join.url(state.now))


def confirm_screen(state: GameState, shown: Presentation) -> Screen:
    """The question a long NEXT asked."""
    return ConfirmScreen(question=tr("Stop and settle?") if state.rules.match == "pool"
                         else tr("New game?"))


def ends_screen(state: GameState, shown: Presentation) -> Screen:
    """The step of an end now on the screen."""
    return _queued(state, shown.queue[0])


def result_screen(state: GameState, shown: Presentation) -> Screen:
    """The match's result; a new game starts with every flap open: until they
    are, that is what to do."""
    match = state.match
    assert match is not None
    still_shut = tiles_of(state.shut & state.board)
    return ResultScreen(winners=tuple(oled_player(state, p) for p in match.winners),
                        rows=score_rows(state, match.rounds[-1] if match.rounds else None),
                        **({"prompt": tr("lift {flaps}").format(flaps=tile_ranges(still_shut))}
                           if still_shut
                           else {}))


def play_screen(state: GameState, shown: Presentation) -> Screen:
    """A match in play: the turn, or what to do between two turns."""
    match = state.match
    assert match is not None
    turn = state.turn
    if turn is None:
        to_open = _to_open(state)
        must_open = tiles_of(state.shut)
        if shown.resting is not None:
            return replace(shown.resting, prompt=to_open)
        player = state.next_player()
        return PlayScreen(player=oled_player(state, player) if player is not None else "",
                          round=match.round_number, tiles=state.rules.tiles,
                          open_tiles=open_tiles(flap_states(state)),
                          total=match.totals[player] if player is not None else 0,
                          prompt=to_open,
                          message=_bar(state, shown,
                                       to_open if must_open else message(state, shown)),
                          **_pool_fields(state, player))
    open_mask = state.board & ~(turn.committed | turn.pending)
    return PlayScreen(player=oled_player(state, turn.player), round=match.round_number,
                      tiles=state.rules.tiles, open_tiles=open_tiles(flap_states(state)),
                      total=match.totals[turn.player], dice=turn.dice,
                      throw_dice=1 if dice_choice(state.rules, open_mask) == "one" else 2,
                      prompt=shown.note or prompt(state, turn), message=_bar(state, shown),
                      **_hint_fields(state, turn), **_pool_fields(state, turn.player))


FLASH_MS = 1500
"""How long the problem bar says why a press could not act."""
FLASH_BLINK_MS = 250
"""It blinks twice (on, off, on, off), then stays for the rest of FLASH_MS."""


def _flash_phase(state: GameState, shown: Presentation) -> int | None:
    if not shown.flash or state.now - shown.flash_since >= FLASH_MS:
        return None
    return (state.now - shown.flash_since) // FLASH_BLINK_MS


def flash_next_ms(state: GameState, shown: Presentation) -> int | None:
    """When the flashing bar next changes."""
    phase = _flash_phase(state, shown)
    if phase is None:
        return None
    if phase < 4:
        return shown.flash_since + (phase + 1) * FLASH_BLINK_MS
    return shown.flash_since + FLASH_MS


def _flashing(state: GameState, shown: Presentation) -> str | None:
    """Why a press could not act, while it flashes (None in its dark blinks)."""
    phase = _flash_phase(state, shown)
    if phase is None:
        return None
    return shown.flash if phase % 2 == 0 or phase >= 4 else None


def fault_notice(state: GameState) -> NoticeScreen:
    """The idle screen's page for the box's current fault (the first, as the
    playing screen's bar says it): the part, what is wrong, and how to start."""
    source, text = next(iter(state.faults.items()))
    start = tr("NEXT: +1  hold: names\nROLL: start  hold: -1").split("\n")   # the idle's own
    return NoticeScreen(title=device_words.device(source),
                        lines=(device_words.problem(text), *start))


def roster_screen(state: GameState, shown: Presentation) -> MenuScreen:
    """The roster on the setup screen: the record's players, most recent first,
    each seated one with its seat; then "back". The title says who sits where."""
    assert state.picking is not None
    seats = state.names(state.player_count)
    seated = {name: i for i, name in enumerate(seats)}
    lines = [oled_name(name, f"#{i + 1}") for i, name in enumerate(state.roster)]
    values = []
    for name in state.roster:
        seat = next((i for n, i in seated.items() if same_player(n, name)), None)
        values.append("" if seat is None else tr("seat {n}").format(n=seat + 1))
    picked = state.picking
    on_seat = picked < len(values) and bool(values[picked])
    prompt = (tr("NEXT: move  ROLL: back") if picked >= len(state.roster)
              else tr("NEXT: move  ROLL: leave") if on_seat else tr("NEXT: move  ROLL: sit"))
    count = len(seats)
    heading = ngettext("{n} player:", "{n} players:", count).format(n=count)
    return MenuScreen(title=f"{heading} {' '.join(on_oled(seats))}",
                      lines=(*lines, tr("back")), values=(*values, ""), selected=picked,
                      prompt=_flashing(state, shown) or prompt)


def _bar(state: GameState, shown: Presentation, problem: str | None = None) -> str | None:
    """The problem bar: a refused press flashes its reason, else the problem to fix."""
    phase = _flash_phase(state, shown)
    if phase is None:
        return problem if problem is not None else message(state, shown)
    return shown.flash if phase % 2 == 0 or phase >= 4 else None


def title(rules: RuleSet) -> str:
    """The preset's name, unless overrides changed its rules (the rules line
    below says what they are)."""
    return rule_words.title(rules)


def end_step(state: GameState, shown: Presentation) -> Screen | None:
    """The step of an end on the screen now, if one is: the head of the queue,
    unless the next turn has begun (the controller drops the queue as it does)."""
    if not shown.queue or turn_begun(state):
        return None
    return shown.queue[0]


def _to_open(state: GameState) -> str:
    """What the players do between two turns: lift what is still shut; once
    every flap is open the next turn is under way (never "lift" with nothing shut)."""
    must_open = tiles_of(state.shut)
    if must_open:
        return tr("lift {flaps}").format(flaps=tile_ranges(must_open))
    turn = state.turn
    return (tr("{player} to play").format(player=oled_player(state, turn.player))
            if turn is not None else "")


def _queued(state: GameState, shown: Screen) -> Screen:
    """A step of an end: during a match it says which flaps to lift, at the end
    that a button goes on."""
    if isinstance(shown, (TurnEndScreen, ScoreboardScreen)):
        return replace(shown, prompt=_to_open(state) if state.phase == "play"
                       else tr("press: go on"))
    return shown


def no_move(state: GameState, turn: Turn) -> PlayScreen:
    """The throw that allows no move, as it was thrown: it ends the turn."""
    assert state.match is not None
    return PlayScreen(player=oled_player(state, turn.player), round=state.match.round_number,
                      tiles=state.rules.tiles, open_tiles=tuple(tiles_of(state.open_mask(turn))),
                      total=state.match.totals[turn.player], dice=turn.dice, prompt=tr("no move"),
                      **_pool_fields(state, turn.player))


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
        for p, name in enumerate(on_oled(state.players)))


def round_note(names: tuple[str, ...] | list[str], winners: tuple[int, ...], number: int) -> str:
    """Who won the round, in words that stay true when shortened: a tie says
    so first ("3-way tie: ..."), an all-way tie says everyone."""
    if not winners:
        return ""
    if len(winners) == 1:
        return tr("{name} wins round {round}").format(name=names[winners[0]], round=number)
    if len(winners) == 2:
        return tr("{name} & {other} win round {round}").format(
            name=names[winners[0]], other=names[winners[1]], round=number)
    if len(winners) == len(names):
        return tr("round {round}: all {n} tie").format(round=number, n=len(names))
    return tr("{n}-way tie: {names}").format(n=len(winners),
                                             names=", ".join(names[p] for p in winners))


def turn_end_note(state: GameState, player: int, score: int, open_mask: Mask) -> str:
    """The consequence of a turn's end, said on its screen: a shut box's reward,
    or in an elimination the threshold reached (doubling only adds, so a
    player there now is out at the round's end)."""
    rules = state.rules
    if open_mask == 0:
        if rules.shut_the_box == "instant-win":
            return tr("wins the pot x2!") if rules.match == "pool" else tr("wins at once!")
        if rules.shut_the_box == "double-others":
            return tr("others score double")
        return ""
    if rules.match == "elimination" and state.match is not None \
            and rules.threshold is not None:
        total = state.match.totals[player] + score
        if total >= rules.threshold:
            return tr("reached {threshold}: out").format(threshold=rules.threshold)
    return ""


def message(state: GameState, shown: Presentation | None = None) -> str | None:
    """The problem to fix first: a flap to lift (and why it does not fit, as
    said when it was shut), one to shut again, a fault."""
    rejected, reopened = tiles_of(state.rejected()), tiles_of(state.reopened())
    if rejected:
        reason = shown.reasons.get(rejected[0]) if shown is not None else None
        return reason or tr("lift {flaps}").format(flaps=flaps_word(rejected))
    if reopened:
        return ngettext("{flaps} was shut earlier: shut it again",
                        "{flaps} were shut earlier: shut them again",
                        len(reopened)).format(flaps=flaps_word(reopened))
    return fault_line(state)


def fault_line(state: GameState) -> str | None:
    """The box's first fault as the problem bar says it ("storage: cannot save: SD
    card read-only"), or None."""
    if state.faults:
        source, text = next(iter(state.faults.items()))
        return device_words.fault(source, text)
    return None


def prompt(state: GameState, turn: Turn) -> str:
    """What the player does next."""
    choice = dice_choice(state.rules, state.open_mask(turn))
    if state.unseen_dice:
        if turn.throw is None:
            return tr("throw, then ROLL") if choice != "one" else tr("throw 1 die, then ROLL")
        return tr("shut, then ROLL again. No move? NEXT")
    if turn.dice is None:
        if state.game.dice == "module":
            return tr("throw the dice")
        return {"two": tr("ROLL: throw"), "one": tr("ROLL: throw 1 die"),
                "one-or-two": tr("ROLL: 2 dice, hold: 1")}[choice]
    if turn.settle_at is not None:
        return tr("more? ROLL: done")
    return shut_text(state.rules, turn.dice)


def misfit(state: GameState, tile: int, throw: Position | None,
           pending: Mask) -> tuple[str, tuple[int, ...]]:
    """Why ``tile`` may not join the flaps shut since the throw, in words, and the
    flaps among those it conflicts with (lifting them would let it fit)."""
    reason = reasons.misfit(state.unseen_dice, tile, throw, pending)
    return misfit_text(state, reason), reason.conflicts


def _pool_fields(state: GameState, player: int | None) -> dict[str, Any]:
    """In a pool: the pot and the player's balance, what the players play for."""
    if state.rules.match != "pool" or state.match is None:
        return {}
    balance = state.match.balances[player] if player is not None else None
    return {"pot": round_pot(state), "balance": balance}


def round_pot(state: GameState) -> int:
    """What the round being played is for: every player in it staked at its
    start, on top of what an uneven split left in the pot. (The balances are
    settled when the round ends.)"""
    match = state.match
    assert match is not None
    return match.pot + state.rules.stake * len(match.active())


def _hint_fields(state: GameState, turn: Turn) -> dict[str, Any]:
    if not state.hints_on:
        return {}
    if not state.hints_ready:
        return {"hints_pending": True}
    if state.game.hints == "on-request" and not turn.hint_shown:
        return {}                 # asked for with a long ROLL, figures and all
    hint = tuple(tiles_of(turn.hint)) if state.hint_visible(turn) and turn.hint else None
    return {"hint": hint, "shut_chance": turn.shut_chance, "move_chance": turn.move_chance}


CHASE_MS = 120
"""How long each flap's LED stays lit as the light runs round a shut box."""


def chase_next_ms(state: GameState, shown: Presentation) -> int | None:
    """When the chase moves on, while a shut box is shown."""
    if not isinstance(end_step(state, shown), ShutScreen):
        return None
    steps = (state.now - shown.since) // CHASE_MS + 1
    return shown.since + steps * CHASE_MS


def lights(state: GameState, shown: Presentation) -> LedFrame:
    """The lights of the mode on top of the stack: the operator menu's own, else the game's."""
    if modes.on_screen(state, bool(shown.queue)) == "service":
        assert state.service is not None
        return service_view.leds(state.service, state.rules.tiles)
    return leds(state, shown)


def leds(state: GameState, shown: Presentation | None = None) -> LedFrame:
    """Blinking flaps to fix, the hint lit, green for all well, red for a problem;
    a light running round the flaps while a shut box is shown."""
    flaps: list[LedState] = ["off"] * state.rules.tiles
    if shown is not None and isinstance(end_step(state, shown), ShutScreen):
        lit = (state.now - shown.since) // CHASE_MS % state.rules.tiles
        flaps[lit] = "on"
        return LedFrame(flaps=tuple(flaps), green="on", red="on" if state.faults else "off")
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


SCREENS: dict[modes.ModeName, Callable[[GameState, Presentation], Screen]] = {
    "service": service_screen, "confirm": confirm_screen, "ends": ends_screen,
    "result": result_screen, "play": play_screen, "second-seat": second_seat_screen,
    "roster": roster_screen, "attract": attract_screen,
}
"""Each mode's screen (the stack's order is game/model/modes.py's)."""
