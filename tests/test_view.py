"""The view: screens, lights and texts straight from a state, with no controller."""

from shutbox_hw.game import view
from shutbox_hw.game.config import GameConfig
from shutbox_hw.game.screens import AttractScreen, PlayScreen
from shutbox_hw.game.state import GameState, Turn
from shutbox_hw.rules import AnyThrow, Throw, build_rules, mask_of, new_match


def playing(dice="software", **turn):
    rules = build_rules("klappenspiel")
    state = GameState(rules=rules, game=GameConfig(dice=dice), phase="play",
                      players=("Ann", "Ben"), match=new_match(2))
    state.turn = Turn(player=1, **turn)
    return state


def test_idle_shows_the_rules_and_the_chosen_players():
    state = GameState(rules=build_rules("pub"), game=GameConfig(player_names=("Ann",)),
                      player_count=3)
    screen = view.screen(state)
    assert isinstance(screen, AttractScreen)
    assert screen.players == ("Ann", "P2", "P3") and screen.title == "Pub Pool"
    assert view.leds(state).green == "on"


def test_a_rejected_flap_blinks_and_turns_the_red_light_on():
    state = playing(committed=mask_of([9]))
    state.turn.throw = Throw(state.rules, state.open_mask(state.turn), (3, 4))
    state.shut = mask_of([8, 9])
    state.reasons[8] = "8 doesn't fit 3+4"
    leds = view.leds(state)
    assert leds.flaps[7] == "blink" and leds.flaps[8] == "off"
    assert (leds.red, leds.green) == ("on", "off")
    screen = view.screen(state)
    assert isinstance(screen, PlayScreen)
    assert screen.player == "Ben" and screen.dice == (3, 4)
    assert screen.message == "8 doesn't fit 3+4" and 9 not in screen.open_tiles


def test_a_lifted_earlier_flap_asks_to_be_shut_again():
    state = playing(committed=mask_of([5, 9]))
    state.shut = mask_of([9])
    assert view.message(state) == "flap 5 was shut earlier: shut it again"
    assert view.leds(state).flaps[4] == "blink"


def test_waiting_for_the_throw_blinks_green_and_prompts_for_it():
    state = playing()
    assert view.leds(state).green == "blink"
    assert view.prompt(state, state.turn) == "ROLL: throw"
    manual = playing(dice="manual")
    assert view.prompt(manual, manual.turn) == "throw, then ROLL"
    manual.turn.throw = AnyThrow(manual.rules, manual.board)
    assert view.prompt(manual, manual.turn) == "shut; ROLL: next; NEXT: stuck"


def test_misfit_names_the_throw_or_the_flaps_it_does_not_fit():
    state = playing()
    board = state.board
    assert view.misfit(state, 8, None, 0) == "8 was shut before the roll"
    assert view.misfit(state, 8, Throw(state.rules, board, (3, 4)), 0) == "8 doesn't fit 3+4"
    manual = playing(dice="manual")
    assert view.misfit(manual, 8, None, 0) == "8: press ROLL as you throw"
    unseen = AnyThrow(manual.rules, board)
    assert view.misfit(manual, 8, unseen, 0) == "8 doesn't fit any throw"
    assert view.misfit(manual, 8, unseen, mask_of([1, 2, 3, 9])) == \
        "8 doesn't fit with 1-3, 9"
