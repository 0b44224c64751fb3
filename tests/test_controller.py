"""The referee, driven event by event without hardware (see table.py)."""

from table import Table

from shutbox_hw.base.events import Tick
from shutbox_hw.game.display.presentation import QUICK_SHOW_MS
from shutbox_hw.game.display.screens import (
    AttractScreen,
    ConfirmScreen,
    PlayScreen,
    ResultScreen,
    ScoreboardScreen,
    ShutScreen,
    TurnEndScreen,
)


def play(table, throws):
    for dice, closed in throws:
        table.roll(*dice)
        if closed:
            table.close(*closed)


def lift_all(table):
    table.open(*range(1, table.rules.tiles + 1))


def test_practice_round_of_seed_001(practice):
    t = Table("crafthouse-12", {"match": "single-round"})
    t.start(2)
    play(t, practice.player_a)
    assert t.names("turn_ended")[-1] == {"event": "turn_ended", "player": "P1", "score": 4,
                                         "open": [1, 3], "shut": False, "round": 1}
    lift_all(t)
    play(t, practice.player_b)
    ended = t.names("turn_ended")[-1]
    assert (ended["player"], ended["score"], ended["open"]) == ("P2", 2, [2])
    rnd = t.names("round_ended")[0]
    assert rnd["scores"] == {"P1": 4, "P2": 2} and rnd["winners"] == ["P2"]
    assert t.names("game_ended")[0]["winners"] == ["P2"]
    # the last throw of each player used one die: the box rolled one
    assert t.rolls.count(1) == 2
    t.pass_ends()
    assert isinstance(t.screen, ResultScreen) and t.screen.winners == ("P2",)


def test_turn_waits_for_every_flap_open():
    t = Table("klappenspiel", shut=(1 << 2) | (1 << 6))  # flaps 3 and 7 shut at power on
    t.start(1)
    assert not t.names("turn_started")
    assert t.screen.message == "lift 3, 7"
    assert t.leds.flaps[2] == "blink" and t.leds.flaps[6] == "blink"
    t.open(3)
    assert not t.names("turn_started")
    t.open(7)
    assert t.names("turn_started") == [{"event": "turn_started", "player": "P1", "round": 1}]


def test_rejected_flap_names_it_and_waits_until_lifted():
    t = Table("klappenspiel")
    t.start(1)
    t.roll(3, 4)
    t.close(8)
    assert t.names("flap_rejected") == [{"event": "flap_rejected", "player": "P1", "flap": 8,
                                         "reason": "8 doesn't fit 3+4", "conflicts": []}]
    assert t.screen.message == "8 doesn't fit 3+4"
    assert t.leds.flaps[7] == "blink" and t.leds.red == "on"
    t.close(7)  # legal, but play waits for 8 to be lifted
    assert not t.names("throw_committed")
    t.open(8)
    assert t.names("throw_committed")[0]["closed"] == [7]
    assert t.leds.red == "off" and t.screen.message is None


def test_a_rejected_flap_names_the_flap_it_conflicts_with():
    t = Table("klappenspiel")
    t.start(1)
    t.roll(4, 6)
    t.close(7)
    t.close(6)
    assert t.names("flap_rejected") == [{"event": "flap_rejected", "player": "P1", "flap": 6,
                                         "reason": "6 doesn't fit with 7: 4+6 is 10",
                                         "conflicts": [7]}]
    assert t.screen.message == "6 doesn't fit with 7: 4+6 is 10"


def test_partial_closure_that_cannot_complete_is_rejected():
    t = Table("klappenspiel")
    t.start(1)
    t.roll(3, 4)
    t.close(3)
    t.close(5)  # 3 + 5 is already over 7
    assert t.names("flap_rejected")[0]["flap"] == 5
    t.open(5)
    t.close(4)
    assert t.names("throw_committed")[0]["closed"] == [3, 4]


def test_lifting_a_flap_of_this_throw_takes_it_back():
    t = Table("klappenspiel")
    t.start(1)
    t.roll(3, 4)
    t.close(1)
    t.open(1)
    t.close(7)
    assert t.names("throw_committed")[0]["closed"] == [7]
    assert not t.names("flap_rejected")


def test_flap_shut_before_the_roll_is_rejected():
    t = Table("klappenspiel")
    t.start(1)
    t.close(5)
    assert t.names("flap_rejected")[0]["reason"] == "5 was shut before the roll"
    t.roll(2, 3)   # ROLL does nothing until 5 is lifted
    assert t.rolls == [] and not t.names("rolled")
    t.open(5)
    t.roll()       # the queued 2+3 is used now
    assert t.names("rolled")[0]["dice"] == [2, 3]


def test_reopened_earlier_flap_must_be_shut_again():
    t = Table("klappenspiel")
    t.start(1)
    t.roll(2, 3)
    t.close(5)
    t.open(5)
    assert t.names("flap_reopened") == [{"event": "flap_reopened", "player": "P1", "flap": 5}]
    assert t.screen.message == "flap 5 was shut earlier: shut it again"
    t.roll(3, 4)
    assert not t.names("rolled")[1:]  # play waits
    t.close(5)     # restored, not part of the next closure
    t.roll()
    t.close(7)
    assert [e["closed"] for e in t.names("throw_committed")] == [[5], [7]]


def test_multiplication_settles_after_settle_ms_or_roll():
    t = Table("crafthouse-12", {"multiplication": True}, settle_ms=2500)
    t.start(1)
    t.roll(4, 6)
    t.close(2, 12)       # 2x12 = 24, but 2+10+12 = 24 could follow
    assert not t.names("throw_committed")
    assert t.screen.prompt == "more? ROLL: done"
    t.wait(2000)
    assert not t.names("throw_committed")
    t.close(10)          # a change restarts the wait; {2,10,12} cannot grow any more
    assert t.names("throw_committed")[0]["closed"] == [2, 10, 12]
    t.roll(4, 6)
    t.close(3, 8)        # 3x8 = 24; 1x3x8 could follow
    t.wait(2600)
    assert t.names("throw_committed")[1]["closed"] == [3, 8]
    t.roll(3, 5)
    t.close(5)           # 3x5 = 15? no: 5 alone is only part of 3+5 or 15
    t.close(11)          # 5 + 11 = 16? no: rejected
    assert t.names("flap_rejected")[-1]["flap"] == 11
    t.open(11)
    t.close(1)           # 1 x 5 x 3? 3 is shut; 1+5 = 6? no; {1, 5, 9} = 15 fits
    t.close(9)
    assert t.names("throw_committed")[-1]["closed"] == [1, 5, 9]


def test_roll_commits_an_extendable_closure_at_once():
    t = Table("crafthouse-12", {"multiplication": True})
    t.start(1)
    t.roll(4, 6)
    t.close(10)          # 10, and 1x10 could follow
    assert not t.names("throw_committed")
    t.roll(2, 2)         # ROLL: this throw is done, then the next one
    assert t.names("throw_committed")[0]["closed"] == [10]
    assert t.names("rolled")[-1]["dice"] == [2, 2]


def test_one_die_on_a_long_press_where_the_rules_allow():
    t = Table("klappenspiel")
    t.start(1)
    for dice, tiles in [((4, 5), [9]), ((4, 4), [8]), ((3, 4), [7])]:
        t.roll(*dice)
        t.close(*tiles)
    t.roll(6, long=True)
    assert t.rolls[-1] == 1 and t.names("rolled")[-1]["dice"] == [6]


def test_no_move_ends_the_turn_at_once_and_shutting_scores_zero():
    t = Table("klappenspiel", {"match": "single-round"})
    t.start(2)
    t.roll(6, 6)  # 12 on a 9 board: 3+9, 4+8, ... are fine
    t.close(3, 9)
    t.roll(1, 1)
    t.close(2)
    t.roll(6, 6)
    t.close(4, 8)
    t.roll(6, 6)
    t.close(5, 7)
    t.roll(1, 6, long=False)  # open 1, 6: 7 = 1 + 6 shuts the box
    t.close(1, 6)
    ended = t.names("turn_ended")[0]
    assert ended["shut"] and ended["score"] == 0 and ended["open"] == []
    assert isinstance(t.screen, ShutScreen)
    t.pass_ends()
    assert isinstance(t.screen, TurnEndScreen) and t.screen.shut
    lift_all(t)
    t.roll(6, 6)
    t.close(3, 9)
    t.roll(6, 6)  # 12 again: 4+8, 5+7 ...
    t.close(4, 8)
    t.roll(1, 1)  # 2 is open: fine
    t.close(2)
    t.roll(5, 6)  # 11: 5+6
    t.close(5, 6)
    t.roll(6, 6)  # open 1, 7: 12? no move
    assert t.names("turn_ended")[1]["score"] == 8
    assert t.names("game_ended")[0]["winners"] == ["P1"]


def test_instant_win_ends_the_round_in_a_pool():
    t = Table("pub", {"stake": 2})
    t.start(3)
    for dice, tiles in [((4, 5), [9]), ((4, 4), [8]), ((3, 4), [7]), ((3, 3), [6]),
                        ((2, 3), [5]), ((2, 2), [4]), ((1, 2), [3]), ((1, 2), [1, 2])]:
        t.roll(*dice)
        t.close(*tiles)
    rnd = t.names("round_ended")[0]
    assert rnd["shut"] == ["P1"] and rnd["balances"] == {"P1": 8, "P2": -4, "P3": -4}
    assert not t.names("game_ended")  # a pool goes on
    t.pass_ends()
    assert isinstance(t.screen, ScoreboardScreen)
    lift_all(t)
    assert t.names("turn_started")[-1] == {"event": "turn_started", "player": "P1", "round": 2}
    t.press("next", long=True)
    assert isinstance(t.screen, ConfirmScreen)
    t.press("next")              # no: back to the game
    assert isinstance(t.screen, PlayScreen)
    t.press("next", long=True)
    t.press("roll")              # yes: the players stop the pool
    assert t.names("game_ended")[0]["winners"] == ["P1"]
    assert isinstance(t.screen, ResultScreen)
    t.press("roll")
    assert isinstance(t.screen, AttractScreen)


def test_elimination_to_the_end():
    t = Table("klappenspiel", {"threshold": 10})
    t.start(2)
    t.roll(6, 6)          # P1: 12 -> 3+9
    t.close(3, 9)
    t.roll(6, 6)
    t.close(4, 8)
    t.roll(6, 6)
    t.close(5, 7)
    t.roll(1, 1)          # open 1, 2, 6: 2
    t.close(2)
    t.roll(3, 4)          # open 1, 6: 7
    t.close(1, 6)         # shut: 0
    lift_all(t)
    t.roll(6, 6)          # P2: 12 -> 3+9; then no move with 1+1? 2 open -> close 2
    t.close(3, 9)
    t.roll(6, 6)          # 12 from 1,2,4,5,6,7,8: 4+8
    t.close(4, 8)
    t.roll(6, 6)          # 5+7
    t.close(5, 7)
    t.roll(6, 6)          # open 1, 2, 6: 12? no move -> 9 points
    rnd = t.names("round_ended")[0]
    assert rnd["totals"] == {"P1": 0, "P2": 9} and rnd["out"] == []
    lift_all(t)
    t.roll(6, 6)          # round 2, P1: no 12? 3+9 exists; close then stop
    t.close(3, 9)
    t.roll(6, 6)
    t.close(4, 8)
    t.roll(6, 6)
    t.close(5, 7)
    t.roll(6, 6)          # P1 stuck with 1, 2, 6: 9 points
    lift_all(t)
    t.roll(6, 6)          # P2: 12 -> 3+9
    t.close(3, 9)
    t.roll(6, 6)          # P2 gets 4+8, then stuck at 12 with 1,2,5,6,7 (=21 total)
    t.close(4, 8)
    t.roll(6, 6)
    t.close(5, 7)
    t.roll(6, 6)
    end = t.names("game_ended")[0]
    assert end["totals"] == {"P1": 9, "P2": 18} and end["winners"] == ["P1"]
    assert t.names("round_ended")[-1]["out"] == ["P2"]


def test_manual_dice_checks_against_any_throw():
    t = Table("klappenspiel", dice="manual")
    t.start(1)
    t.close(8)
    assert t.names("flap_rejected")[0]["reason"] == "8: press ROLL as you throw"
    t.open(8)
    t.press("roll")                       # the player throws (the box cannot see it)
    assert t.names("rolled")[0]["dice"] is None
    t.close(1)                            # 1 alone: not a throw of two dice, but 1+x can be
    t.close(9)                            # 1 + 9 = 10: fine (4+6, 5+5)
    t.close(8)                            # 18 is beyond two dice
    assert t.names("flap_rejected")[-1]["reason"] == "8 doesn't fit with 9"
    assert t.names("flap_rejected")[-1]["conflicts"] == [9]
    t.open(8)
    t.press("roll")                       # next throw: commits 1 + 9
    assert t.names("throw_committed")[0]["closed"] == [1, 9]
    t.close(2)
    t.press("next")                       # asks first: nothing ends yet
    assert not t.names("turn_ended") and t.screen.prompt == "No move? NEXT again"
    assert t.screen.message == "No move? NEXT again"
    t.press("next")                       # 2 is a legal throw (1+1): committed, turn ends
    ended = t.names("turn_ended")[0]
    assert ended["open"] == [3, 4, 5, 6, 7, 8] and ended["score"] == 33


def test_manual_next_with_an_incomplete_closure_is_refused():
    t = Table("klappenspiel", dice="manual")
    t.start(1)
    t.press("roll")
    t.close(1)          # 1 alone cannot come from two dice
    t.press("next")
    assert not t.names("turn_ended")
    assert t.screen.prompt == "not a whole move yet"
    assert t.screen.message == "not a whole move yet"


def test_manual_next_again_is_asked_anew_after_anything_else():
    t = Table("klappenspiel", dice="manual")
    t.start(1)
    t.press("roll")
    t.press("next")
    assert t.screen.prompt == "No move? NEXT again"
    t.close(9)                            # the player found a move after all
    assert t.screen.prompt != "No move? NEXT again"
    t.open(9)
    t.press("next")
    assert not t.names("turn_ended")
    t.press("next")
    assert t.names("turn_ended")[0]["score"] == 45


def flashes(t, text):
    """The bar's text at each change while a refusal flashes, until it is gone."""
    seen = [t.screen.message]
    while (due := t.controller.next_deadline_ms()) is not None:
        t.now = due
        t.send(Tick(due))
        seen.append(t.screen.message)
    return seen


def test_roll_with_a_flap_to_lift_flashes_why():
    t = Table("klappenspiel")
    t.start(1)
    t.roll(4, 6)
    t.close(7)
    t.close(6)                            # rejected: 6 doesn't fit with 7
    rolls = len(t.rolls)
    t.press("roll")
    assert len(t.rolls) == rolls          # nothing thrown
    assert flashes(t, "lift 6 first") == ["lift 6 first", None, "lift 6 first", None,
                                          "lift 6 first", "6 doesn't fit with 7: 4+6 is 10"]


def test_roll_with_half_a_closure_says_how_much_more():
    t = Table("klappenspiel")
    t.start(1)
    t.roll(4, 6)
    t.close(7)
    t.press("roll")
    assert t.screen.message == "shut 3 more" and not t.names("throw_committed")
    t.close(3)
    assert t.screen.message is None       # acting ends the flash
    assert t.names("throw_committed")[0]["closed"] == [3, 7]
    t.roll(2, 2)
    t.press("roll")
    assert t.screen.message == "shut flaps: total 4 first"   # never "2+2": flaps 2 and 2?


def test_next_with_software_dice_says_what_next_does():
    t = Table("pub")
    t.start(2)
    t.press("next")
    assert t.screen.message == "hold NEXT to settle up"
    t = Table("klappenspiel", shut=1 << 4)
    t.start(1)
    t.press("roll")
    assert t.screen.message == "lift 5 first" and not t.rolls


def test_attract_screen_cycles_players_with_configured_names():
    t = Table("pub", player_names=["Ann", "Bob", "Cy"])
    assert t.screen.players == ("Ann", "Bob", "Cy")
    t.press("next")
    assert t.screen.players == ("Ann", "Bob", "Cy", "P4")
    for _ in range(4):
        t.press("next")
    assert len(t.screen.players) == 8
    t.press("next")
    assert t.screen.players == ("Ann",)


def test_tile_lists_read_as_ranges():
    from shutbox_hw.game.display.text import tile_ranges
    assert tile_ranges([3, 7]) == "3, 7"
    assert tile_ranges([1, 2, 3, 4, 7]) == "1-4, 7"
    assert tile_ranges([2, 4, 5, 6, 7, 8, 9, 10, 11, 12]) == "2, 4-12"
    assert tile_ranges([5, 6]) == "5, 6"


# ---------------------------------------------------------------- every end is seen

def kinds(screens):
    """The shown screens as (kind, what marks it) for sequence checks."""
    out = []
    for s in screens:
        if isinstance(s, PlayScreen):
            out.append(("play", s.prompt))
        elif isinstance(s, TurnEndScreen):
            out.append(("turn_end", s.player))
        elif isinstance(s, ScoreboardScreen):
            out.append(("scoreboard", s.round))
        elif isinstance(s, ShutScreen):
            out.append(("shut", s.player))
        else:
            out.append((type(s).__name__, None))
    return out


def test_a_throw_with_no_move_is_shown_then_the_turn_end():
    t = Table("klappenspiel", pause_ms=2000)
    t.start(2)
    t.roll(6, 6)
    t.close(3, 9)
    before = len(t.shown)
    t.roll(6, 6)                       # 12 with 3 and 9 shut: 4+8, 5+7 ... a move
    t.close(4, 8)
    t.roll(6, 6)
    t.close(5, 7)
    t.roll(6, 6)                       # open 1, 2, 6: 12 has no move
    assert isinstance(t.screen, PlayScreen) and t.screen.dice == (6, 6)
    assert t.screen.prompt == "no move" and t.screen.open_tiles == (1, 2, 6)
    t.wait(1000)
    assert t.screen.prompt == "no move"        # still there within the pause
    assert t.controller.next_deadline_ms() == t.controller.shown.since + 2000
    t.wait(1000)
    assert isinstance(t.screen, TurnEndScreen) and t.screen.score == 9
    assert t.screen.prompt == "lift 3-5, 7-9"
    assert kinds(t.shown[before:])[-2:] == [("play", "no move"), ("turn_end", "P1")]
    t.pass_ends()
    assert t.controller.next_deadline_ms() is None   # the turn end stays until lifted
    assert isinstance(t.screen, TurnEndScreen)


def test_a_button_moves_on_to_the_next_step():
    t = Table("klappenspiel", {"match": "single-round"})
    t.start(1)
    t.roll(6, 6)
    t.close(3, 9)
    t.roll(6, 6)
    t.close(4, 8)
    t.roll(6, 6)
    t.close(5, 7)
    t.roll(6, 6)                       # no move: the last player of the match
    assert t.screen.prompt == "no move"
    t.press("roll")                    # at once: the step is cut to its brief showing
    assert t.screen.prompt == "no move"
    t.wait(QUICK_SHOW_MS)
    assert isinstance(t.screen, TurnEndScreen)
    t.wait(QUICK_SHOW_MS)              # the rest keep their full pause ...
    assert isinstance(t.screen, TurnEndScreen)
    t.press("next", long=True)         # ... and a press once seen moves on, even a long NEXT
    assert isinstance(t.screen, ScoreboardScreen)
    t.wait(QUICK_SHOW_MS)
    t.press("roll")
    assert isinstance(t.screen, ResultScreen)
    assert t.controller.phase == "over"
    t.press("roll")
    assert isinstance(t.screen, AttractScreen)


def test_last_player_of_a_round_sees_turn_end_then_scoreboard():
    t = Table("klappenspiel")         # elimination at 45: the match goes on
    t.start(2)
    t.roll(6, 6)                       # P1: no other move needed
    t.close(3, 9)
    t.roll(1, 1)
    t.close(2)
    t.roll(6, 6)
    t.close(4, 8)
    t.roll(6, 6)                       # open 1, 5, 6, 7: 12 = 5+7 or 1+5+6
    t.close(5, 7)
    t.roll(6, 6)                       # open 1, 6: no move
    t.pass_ends()
    lift_all(t)
    before = len(t.shown)
    t.roll(5, 5)                       # P2, the last of round 1
    t.close(1, 9)
    t.roll(6, 6)                       # 3+9 gone: 12 = 4+8
    t.close(4, 8)
    t.roll(6, 6)                       # 5+7
    t.close(5, 7)
    t.roll(6, 6)                       # open 2, 3, 6: no move
    t.pass_ends()
    seq = kinds(t.shown[before:])
    assert seq[-3:] == [("play", "no move"), ("turn_end", "P2"), ("scoreboard", 1)]
    assert t.screen.prompt == "lift 1, 4, 5, 7-9"
    assert not t.names("game_ended")


def test_last_player_of_the_match_sees_every_step_before_the_result():
    t = Table("klappenspiel", {"match": "single-round"})
    t.start(1)
    t.roll(6, 6)
    t.close(3, 9)
    t.roll(6, 6)                       # open 1, 2, 4-8: 12 = 4+8
    t.close(4, 8)
    t.roll(6, 6)
    t.close(5, 7)
    before = len(t.shown)
    t.roll(6, 6)                       # no move: turn, round and match end at once
    assert t.names("game_ended")
    t.pass_ends()
    assert kinds(t.shown[before:]) == [("play", "no move"), ("turn_end", "P1"),
                                       ("scoreboard", 1), ("ResultScreen", None)]


def test_an_instant_win_shut_has_its_screen_and_a_chase_before_the_result():
    t = Table("klappenspiel", {"match": "single-round", "shut_the_box": "instant-win"},
              pause_ms=1000)
    t.start(2)
    before = len(t.shown)
    for dice, tiles in [((4, 5), [9]), ((4, 4), [8]), ((3, 4), [7]), ((3, 3), [6]),
                        ((2, 3), [5]), ((2, 2), [4]), ((1, 2), [3]), ((1, 2), [1, 2])]:
        t.roll(*dice)
        t.close(*tiles)
    assert t.names("game_ended")[0]["winners"] == ["P1"]
    assert isinstance(t.screen, ShutScreen) and t.screen.note == "wins at once!"
    lit = []
    for _ in range(4):                 # the light runs round the flaps
        lit.append(t.leds.flaps.index("on"))
        assert t.leds.flaps.count("on") == 1
        t.send(Tick(t.controller.next_deadline_ms()))
    assert lit == [0, 1, 2, 3]
    t.now = t.controller.next_deadline_ms()
    t.pass_ends()
    assert kinds(t.shown[before:])[-4:] == [("shut", "P1"), ("turn_end", "P1"),
                                            ("scoreboard", 1), ("ResultScreen", None)]
    assert "on" not in t.leds.flaps


def test_a_pool_instant_win_is_shown_before_the_scoreboard():
    t = Table("pub")
    t.start(2)
    for dice, tiles in [((4, 5), [9]), ((4, 4), [8]), ((3, 4), [7]), ((3, 3), [6]),
                        ((2, 3), [5]), ((2, 2), [4]), ((1, 2), [3]), ((1, 2), [1, 2])]:
        t.roll(*dice)
        t.close(*tiles)
    before = len(t.shown) - 1
    t.pass_ends()
    assert kinds(t.shown[before:]) == [("shut", "P1"), ("turn_end", "P1"), ("scoreboard", 1)]


# ---------------------------------------------------------------- pools

def test_a_pool_play_screen_shows_the_pot_and_the_balance():
    t = Table("pub", {"stake": 2})
    t.start(2)
    assert (t.screen.pot, t.screen.balance) == (4, 0)   # both staked 2 as the round began
    t.roll(6, 6)
    t.close(3, 9)
    t.roll(6, 6)
    t.close(4, 8)
    t.roll(6, 6)
    t.close(5, 7)
    t.roll(6, 6)                       # P1 stuck at 9
    t.pass_ends()
    lift_all(t)
    t.roll(6, 6)
    t.close(3, 9)
    t.roll(6, 6)
    t.close(4, 8)
    t.roll(6, 6)
    t.close(5, 7)
    t.roll(1, 1)
    t.close(2)
    t.roll(6, 6)                       # P2 stuck at 7: takes the pot of 4
    t.pass_ends()
    lift_all(t)
    assert isinstance(t.screen, PlayScreen) and t.screen.player == "P1"
    assert (t.screen.pot, t.screen.balance) == (4, -2)  # round 2's stakes
    assert Table("klappenspiel").screen.__class__ is AttractScreen
    t.press("next", long=True)
    assert t.screen == ConfirmScreen(question="Stop and settle?")
    t.press("roll")
    assert t.names("game_ended")[0]["balances"] == {"P1": -2, "P2": 2}
    assert isinstance(t.screen, ResultScreen) and t.screen.winners == ("P2",)
    assert [(r.name, r.balance) for r in t.screen.rows] == [("P1", -2), ("P2", 2)]


def test_a_game_stopped_before_any_throw_is_abandoned_with_no_winners():
    for preset in ("pub", "klappenspiel"):
        t = Table(preset)
        t.start(4)
        t.press("next", long=True)
        t.press("roll")
        ended = t.names("game_ended")[0]
        assert ended["winners"] == [] and ended["abandoned"] is True
        assert t.screen.winners == ()
    t = Table("klappenspiel")
    t.start(2)
    assert t.screen.pot is None and t.screen.balance is None
    t.roll(6, 6)
    t.close(3, 9)
    t.press("next", long=True)
    assert t.screen == ConfirmScreen(question="New game?")
    t.press("roll")
    ended = t.names("game_ended")[0]
    assert ended["winners"] == [] and ended["abandoned"] is True   # stopped: nobody won
    assert t.screen.winners == ()


def test_every_step_of_an_instant_win_has_a_frame(tmp_path, capsys):
    """``sim --frames`` keeps a frame of each step, even after the script's last line."""
    from PIL import Image, ImageChops

    from shutbox_hw.commands.cli import main
    from shutbox_hw.render import render
    lines = ["start 2"]
    for dice, tiles in [((4, 5), [9]), ((4, 4), [8]), ((3, 4), [7]), ((3, 3), [6]),
                        ((2, 3), [5]), ((2, 2), [4]), ((1, 2), [3]), ((1, 2), [1, 2])]:
        lines += [f"dice {dice[0]} {dice[1]}", "roll", "close " + " ".join(map(str, tiles))]
    script = tmp_path / "shut.txt"
    script.write_text("\n".join(lines) + "\n")
    frames = tmp_path / "frames"
    assert main(["sim", "--rules", "klappenspiel", "--set", "match=single-round",
                 "--set", "shut_the_box=instant-win", "--script", str(script),
                 "--frames", str(frames), "--db", str(tmp_path / "db")]) == 0
    capsys.readouterr()
    def lit(image):
        return image.convert("L").point(lambda v: 255 if v else 0)

    saved = [lit(Image.open(f)).tobytes() for f in sorted(frames.glob("frame-*.png"))]

    def drawn(screen):   # the panel may shift the picture a pixel against burn-in
        want = lit(render(screen))
        return any(ImageChops.offset(want, dx, dy).tobytes() in saved
                   for dx in (-1, 0, 1) for dy in (-1, 0, 1))
    assert drawn(ShutScreen(player="P1", note="wins at once!"))
    assert drawn(TurnEndScreen(player="P1", score=0, open_tiles=(), shut=True,
                               note="wins at once!", prompt="press: go on"))
