"""The mode stack (game/model/modes.py): the one priority chain the buttons and the
screen both follow, checked against the phase rules written out by hand."""

import itertools

import pytest

from shutbox_hw.base.events import SeatClaim
from shutbox_hw.game.model import modes
from shutbox_hw.game.model.config import GameConfig
from shutbox_hw.game.model.service import ServiceMenu
from shutbox_hw.game.model.state import GameState, Turn
from shutbox_hw.rules import build_rules, mask_of, new_match


def a_state(phase, turn, begun, picking, queued_shut, asked=False):
    state = GameState(rules=build_rules("pub"), game=GameConfig(), phase=phase,
                      players=("Ann", "Ben"), match=new_match(2))
    if phase == "service":
        state.service = ServiceMenu.open({}, (), ())
    if turn:
        state.turn = Turn(player=0, throws=1 if begun else 0)
    state.picking = 0 if picking else None
    state.shut = mask_of([3]) if queued_shut else 0
    if asked:     # a phone with a seat asked for a second one
        state.join.ask(SeatClaim("Bob", "phone", 0, code="1234", phone="10.0.0.5"), 0)
    return state


def by_hand_buttons(state, queued):
    """The chain as Controller._button wrote it before the stack."""
    if queued and (state.phase == "over" or (state.phase == "play" and state.turn is None)):
        return "ends"
    if state.service is not None:
        return "service"
    if state.phase == "idle":
        if state.join.question is not None:
            return "second-seat"
        return "roster" if state.picking is not None else "attract"
    return {"over": "result", "confirm": "confirm", "play": "play"}[state.phase]


def by_hand_screen(state, queued):
    """The chain as view.screen wrote it before the stack."""
    if state.service is not None:
        return "service"
    if state.phase == "idle":
        if state.join.question is not None:
            return "second-seat"
        return "roster" if state.picking is not None else "attract"
    if state.phase == "confirm":
        return "confirm"
    begun = state.phase == "play" and state.turn is not None and (
        state.turn.throw is not None or state.turn.throws > 0
        or bool(state.turn.committed | state.shut))
    if queued and not begun:
        return "ends"
    return "result" if state.phase == "over" else "play"


CASES = [case for case in itertools.product(("idle", "play", "confirm", "over", "service"),
                                           (False, True), (False, True), (False, True),
                                           (False, True), (False, True), (False, True))
         if (case[0] in ("play", "confirm") or not case[1])      # a turn only in a match
         and (case[0] in ("idle", "service") or not case[6])]    # asked while setting up


@pytest.mark.parametrize("phase,turn,begun,picking,shut,queued,asked", CASES)
def test_the_stack_answers_as_the_chains_did(phase, turn, begun, picking, shut, queued, asked):
    state = a_state(phase, turn, begun, picking, shut, asked)
    assert modes.buttons(state, queued) == by_hand_buttons(state, queued)
    assert modes.on_screen(state, queued) == by_hand_screen(state, queued)


def test_the_stack_is_ordered_by_priority_and_names_each_mode_once():
    priorities = [m.priority for m in modes.MODES]
    assert priorities == sorted(priorities, reverse=True) and len(set(priorities)) == 8
    assert [m.name for m in modes.MODES] == ["service", "confirm", "ends", "result", "play",
                                            "second-seat", "roster", "attract"]


def test_a_waiting_turn_takes_the_press_while_the_last_end_is_still_shown():
    state = a_state("play", turn=True, begun=False, picking=False, queued_shut=False)
    assert modes.on_screen(state, True) == "ends"      # the end is on the screen ...
    assert modes.buttons(state, True) == "play"        # ... the press is the turn's
    assert [m.name for m in modes.active(state, True)] == ["ends", "play"]


def test_every_mode_has_its_buttons_and_its_screen():
    from typing import get_args

    from shutbox_hw.game.display import view
    from shutbox_hw.game.referee.referee import Referee

    names = set(get_args(modes.ModeName))
    assert {m.name for m in modes.MODES} == names
    assert set(view.SCREENS) == names
    assert set(Referee(build_rules("pub"))._buttons) == names
