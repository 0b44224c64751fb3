"""The view: screens, lights and texts straight from a state, with no controller."""

from shutbox_hw.game.display import view
from shutbox_hw.game.display.presentation import Presentation
from shutbox_hw.game.display.screens import AttractScreen, PlayScreen
from shutbox_hw.game.model.config import GameConfig
from shutbox_hw.game.model.state import GameState, Turn
from shutbox_hw.rules import AnyThrow, Throw, build_rules, mask_of, new_match


def playing(dice="software", overrides=None, **turn):
    rules = build_rules("klappenspiel", overrides or {})
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
    shown = Presentation(reasons={8: "8 doesn't fit 3+4"})   # said as 8 was shut
    leds = view.leds(state)
    assert leds.flaps[7] == "blink" and leds.flaps[8] == "off"
    assert (leds.red, leds.green) == ("on", "off")
    assert view.screen(state).message == "lift flap 8"
    screen = view.screen(state, shown)
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
    assert view.prompt(manual, manual.turn) == "shut, then ROLL again. No move? NEXT"


def test_misfit_names_the_throw_or_the_flaps_it_does_not_fit():
    state = playing()
    board = state.board
    assert view.misfit(state, 8, None, 0) == ("8 was shut before the roll", ())
    assert view.misfit(state, 8, Throw(state.rules, board, (3, 4)), 0) == \
        ("8 doesn't fit 3+4", ())
    manual = playing(dice="manual")
    assert view.misfit(manual, 8, None, 0) == ("8: press ROLL as you throw", ())
    unseen = AnyThrow(manual.rules, board)
    assert view.misfit(manual, 8, unseen, 0) == ("8 doesn't fit any throw", ())
    assert view.misfit(manual, 8, unseen, mask_of([1, 2, 3, 9])) == \
        ("8 doesn't fit with 1-3, 9", (1, 2, 3, 9))   # only all together
    assert view.misfit(manual, 8, unseen, mask_of([1, 9])) == ("8 doesn't fit with 9", (9,))


def test_misfit_names_the_conflict_and_the_target():
    state = playing()
    throw = Throw(state.rules, state.board, (4, 6))
    assert view.misfit(state, 6, throw, mask_of([7])) == \
        ("6 doesn't fit with 7: 4+6 is 10", (7,))
    # 1, 2 pending: 5 goes with 2 (7) but not with 1 as well
    throw = Throw(state.rules, state.board, (3, 4))
    assert view.misfit(state, 5, throw, mask_of([1, 2])) == \
        ("5 doesn't fit with 1: 3+4 is 7", (1,))
    times = playing(overrides={"multiplication": True})
    throw = Throw(times.rules, times.board, (1, 2))
    assert view.misfit(times, 2, throw, mask_of([3])) == \
        ("2 doesn't fit with 3: 1+2 is 3 or 1x2 is 2", (3,))


def test_title_is_the_preset_unless_overrides_changed_it():
    assert view.title(build_rules("crafthouse-12")) == build_rules("crafthouse-12").title
    assert view.title(build_rules("crafthouse-12", {"match": "single-round"})) == "House rules"
    assert view.title(build_rules("crafthouse-12", {"threshold": 100})) != "House rules"


def test_on_request_hints_show_no_chances_until_asked():
    state = playing()
    state.turn.throw = Throw(state.rules, state.board, (3, 4))
    state.hints_on = True
    state.game = GameConfig(hints="on-request")
    turn = state.turn
    turn.hint, turn.shut_chance, turn.move_chance = mask_of([7]), 0.1, 0.9
    assert view.screen(state).shut_chance is None and view.screen(state).hint is None
    turn.hint_shown = True
    assert view.screen(state).shut_chance == 0.1 and view.screen(state).hint == (7,)


def test_pause_ms_is_read_and_checked():
    from shutbox_hw.game.model.config import parse_game
    problems: list[str] = []
    assert parse_game({}, problems).pause_ms == 2000 and not problems
    assert parse_game({"pause_ms": 0}, problems).pause_ms == 0 and not problems
    assert parse_game({"pause_ms": 60_001}, problems).pause_ms == 2000
    assert parse_game({"pause_ms": True}, problems).pause_ms == 2000
    assert problems == ["[game] pause_ms: expected a number of milliseconds 0..60000, got 60001",
                        "[game] pause_ms: expected a number of milliseconds 0..60000, got True"]


def test_the_screen_says_how_many_dice_the_next_throw_uses():
    # one_die = below-6: one die once the open tiles add up to less than 6
    assert view.screen(playing(overrides={"one_die": "below-6"})).throw_dice == 2
    low = playing(overrides={"one_die": "below-6"}, committed=mask_of(range(3, 10)))
    assert view.prompt(low, low.turn) == "ROLL: throw 1 die"
    assert view.screen(low).throw_dice == 1
