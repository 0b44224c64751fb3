"""Real play on the whole simulated box, written with the test vocabulary of
``boxcase.py``: what a person does (flaps, buttons, time) and what they see
(events, the screen, the lights). Klappenspiel, 9 flaps, software dice."""

from __future__ import annotations

from pathlib import Path

from boxcase import BoxCase

from shutbox_hw.game.display.screens import PlayScreen, TurnEndScreen

SETTLE_MS = 100   # after a flap moves: its bounce and the debounce are over


def test_a_throw_taken_and_the_next_one_asked_for(tmp_path):
    box = BoxCase(tmp_path, players=1)
    box.assert_event("game_started", players=["P1"])
    box.assert_event("turn_started", player="P1", round=1)
    box.assert_screen_says("ROLL: throw")
    box.assert_light_blinking("green")           # waiting for a throw

    box.forget_events()
    box.throw(3, 4)
    box.press_button_and_run("roll")
    box.assert_event("rolled", player="P1", dice=(3, 4), throw=1)
    box.assert_screen_says("shut flaps: total 7")
    box.assert_light_on("green")

    box.forget_events()
    box.hit_switch_and_run(7, SETTLE_MS)         # 7 is the whole of 3+4: taken at once
    box.assert_event("throw_committed", dice=(3, 4), closed=(7,), open=(1, 2, 3, 4, 5, 6, 8, 9))
    box.assert_screen_says("ROLL: throw")
    box.assert_light_blinking("green")
    box.assert_light_off(7)


def test_a_flap_that_does_not_fit_blinks_until_it_is_lifted(tmp_path):
    box = BoxCase(tmp_path, players=1)
    box.throw(3, 4)
    box.press_button_and_run("roll")
    box.forget_events()

    box.hit_switch_and_run(9, SETTLE_MS)
    box.assert_event("flap_rejected", flap=9, reason="9 doesn't fit 3+4")
    box.assert_screen_says("9 doesn't fit 3+4")
    box.assert_light_blinking(9)
    box.assert_light_on("red")
    box.assert_light_off("green")

    box.forget_events()
    box.release_switch_and_run(9, SETTLE_MS)
    box.assert_no_event("throw_committed")
    box.assert_light_off(9)
    box.assert_light_off("red")
    box.assert_light_on("green")
    box.hit_switch_and_run(3, SETTLE_MS)         # 3 then 4: the move, the right way
    box.hit_switch_and_run(4, SETTLE_MS)
    box.assert_event("throw_committed", closed=(3, 4))


def test_a_throw_with_no_move_ends_the_turn_and_lifting_hands_over(tmp_path):
    box = BoxCase(tmp_path, players=2)
    for faces, flaps in (((3, 4), (7,)), ((6, 6), (3, 9)), ((6, 6), (4, 8)), ((5, 6), (5, 6))):
        box.throw(*faces)
        box.press_button_and_run("roll")
        for flap in flaps:
            box.hit_switch_and_run(flap, SETTLE_MS)
    box.assert_event("throw_committed", closed=(5, 6), open=(1, 2))

    box.forget_events()
    box.throw(6, 6)                              # 12 with 1 and 2 open: no move
    box.press_button_and_run("roll")
    box.assert_event("turn_ended", player="P1", score=1 + 2, open=(1, 2), shut=False)
    box.assert_screen_is(PlayScreen)             # first the throw that allows no move
    box.assert_screen_says("no move")
    for flap in (3, 4, 5, 6, 7, 8, 9):           # every shut flap blinks: lift it
        box.assert_light_blinking(flap)
    box.assert_light_off(1)

    box.advance_time_and_run(box.config.game.pause_ms)
    box.assert_screen_is(TurnEndScreen)          # then the turn's score, until lifted
    box.assert_screen_says("lift 3-9")
    box.assert_no_event("turn_started")

    for flap in (3, 4, 5, 6, 7, 8, 9):
        box.release_switch_and_run(flap, SETTLE_MS)
    box.assert_event("turn_started", player="P2", round=1)
    # the turn's score was up over 0.6 s while they were lifted: P2's own screen now
    box.assert_screen_is(PlayScreen)
    box.assert_screen_says("P2")
    box.assert_screen_says("ROLL: throw")
    box.assert_light_blinking("green")
    for flap in range(1, 10):
        box.assert_light_off(flap)


def test_the_turn_a_person_reads_from_the_events_is_the_one_on_the_record(tmp_path):
    """The person's two ways of knowing the turn under way agree at every line
    of a whole game: the events the box printed in this process, and the
    record on disk (how a person who came later, a new process, knows it)."""
    from shutbox_hw.sim.observed import turn_on_record
    from shutbox_hw.sim.script import load_script

    box = BoxCase(tmp_path)
    script = Path(__file__).parent / "scripts" / "two-player-klappenspiel.txt"
    turns = 0
    for step in load_script(script, box.config.rules.tiles):
        box.runner.run(step)
        seen = box.view.turn()
        assert seen == turn_on_record(box.runner.db_path), step
        turns += seen is not None
    box.assert_event("round_ended", round=2)
    assert turns > 10
