"""The referee without the display (issue 39, item 3): it returns what happened and
why, as plain values, and the box's words come from the display alone."""

import itertools

import pytest

from shutbox_hw.base.events import ButtonPressed, DiceRolled, FlapChanged
from shutbox_hw.game.display import reason_words
from shutbox_hw.game.machine.controller import Controller
from shutbox_hw.game.machine.effects import Emit, Lights, Show
from shutbox_hw.game.model.config import GameConfig
from shutbox_hw.game.model.state import GameState
from shutbox_hw.game.referee import reasons
from shutbox_hw.game.referee.referee import Referee
from shutbox_hw.rules import AnyThrow, Throw, build_rules, full_board, tile_bit, tiles_of

SCRIPT = [   # a flap that does not fit the dice, a wrong count of dice, a flap that clashes
    ButtonPressed("roll", False, 10), DiceRolled((3, 4), 20), FlapChanged(8, True, 30),
    FlapChanged(8, False, 40), FlapChanged(7, True, 50), ButtonPressed("roll", False, 70),
    DiceRolled((1,), 75), DiceRolled((6, 6), 80), FlapChanged(5, True, 90),
    FlapChanged(9, True, 100),
]


def play(driver):
    out = list(driver.start(0, 0))
    for event in SCRIPT:
        out += driver.handle(event)
    return out


def test_the_referee_alone_decides_the_same_game_and_shows_nothing():
    rules, game = build_rules("klappenspiel"), GameConfig()
    box, alone = Controller(rules, game), Referee(rules, game)
    on_box, by_itself = play(box), play(alone)
    assert not any(isinstance(e, (Show, Lights)) for e in by_itself)
    events = [e.event for e in on_box if isinstance(e, Emit)]
    assert [e.event for e in by_itself if isinstance(e, Emit)] == [
        e if e.name != "flap_rejected" else type(e)(**{**e.__dict__, "reason": ""})
        for e in events]     # an observer that shows nothing gives a refused flap no words
    rejected = [e.as_json() for e in events if e.name == "flap_rejected"]
    assert rejected == [{"event": "flap_rejected", "player": "P1", "flap": 8,
                         "reason": "8 doesn't fit 3+4", "conflicts": []},
                        {"event": "flap_rejected", "player": "P1", "flap": 9,
                         "reason": "9 doesn't fit with 5: 6+6 is 12", "conflicts": [5]}]
    assert alone.state.turn is not None and alone.state.turn.dice == (6, 6)
    assert box.screen().message == "9 doesn't fit with 5: 6+6 is 12"


def by_hand(throw, tile, pending):
    """The flaps of ``pending`` that keep ``tile`` out, counted from the legal
    closures themselves (independently of reasons.conflicting)."""
    closures = throw.legal_closures()
    bit = tile_bit(tile)
    if not any(c & bit for c in closures):
        return ()
    with_tile = [c for c in closures if c & bit]
    clash = [p for p in tiles_of(pending) if not any(c & tile_bit(p) for c in with_tile)]
    rest = pending & ~sum(tile_bit(p) for p in clash)
    if not any(c & (bit | rest) == bit | rest for c in with_tile):
        return tuple(tiles_of(pending))
    return tuple(clash)


@pytest.mark.parametrize("dice", [(3, 4), (6, 6), (1, 2), (5,)])
def test_a_misfit_is_a_plain_reason_with_its_conflicts(dice):
    rules = build_rules("klappenspiel")
    board = full_board(rules.tiles)
    throw = Throw(rules, board, dice)
    for tile, pending in itertools.product(range(1, 10), range(0, 1 << 9, 7)):
        if pending & tile_bit(tile) or not throw.can_complete(pending):
            continue
        if throw.can_complete(pending | tile_bit(tile)):
            continue                                 # it fits: no misfit to give
        misfit = reasons.misfit(False, tile, throw, pending)
        assert misfit.conflicts == by_hand(throw, tile, pending)
        assert misfit.kind == ("not-with" if misfit.conflicts else "not-this-throw")
        assert (misfit.tile, misfit.dice) == (tile, dice)


def test_each_kind_of_misfit_has_its_words():
    state = GameState(rules=build_rules("klappenspiel"), game=GameConfig())
    board = full_board(9)
    unseen = AnyThrow(state.rules, board)
    said = {
        reasons.misfit(False, 8, None, 0): "8 was shut before the roll",
        reasons.misfit(True, 8, None, 0): "8: press ROLL as you throw",
        reasons.misfit(True, 8, unseen, 0): "8 doesn't fit any throw",
        reasons.misfit(True, 8, unseen, tile_bit(1) | tile_bit(9)): "8 doesn't fit with 9",
        reasons.misfit(False, 8, Throw(state.rules, board, (3, 4)), 0): "8 doesn't fit 3+4",
    }
    assert {m.kind for m in said} == {"before-roll", "roll-as-you-throw", "no-throw",
                                      "not-with-any", "not-this-throw"}
    for misfit, words in said.items():
        assert reason_words.said(state, misfit) == words


def test_every_remark_has_words_and_none_is_said_twice():
    state = GameState(rules=build_rules("klappenspiel"), game=GameConfig())
    kinds = reasons.RemarkKind.__args__
    words = [reason_words.said(state, reasons.Remark(kind)) for kind in kinds]
    assert set(kinds) == set(reason_words.REMARKS) and len(set(words)) == len(kinds)
    assert reason_words.said(state, reasons.WrongDice(3, (2,))) == "throw 2 dice, not 3"
