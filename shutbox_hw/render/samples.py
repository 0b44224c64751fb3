"""One example of every main screen: the golden images, the benchmark and
anyone wanting to see the renderer at work draw these."""

from __future__ import annotations

from ..base.events import HighScores, Tonight
from ..game.display.screens import (
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
    SwitchTestScreen,
    TurnEndScreen,
)

_EIGHT = (
    ScoreRow("Anna", 12, 24, 57),
    ScoreRow("Bernhard", 0, 0, 31, shut=True),
    ScoreRow("Carla", 7, 14, 45, out=True),
    ScoreRow("Dieter", 9, 18, 40),
    ScoreRow("Eva", 3, 6, 22),
    ScoreRow("Franziska", 21, 42, 88),
    ScoreRow("Gustav", None, None, 47, out=True),
    ScoreRow("Hanna", 5, 10, 19),
)

_MAIN_MENU = ("switch test", "LED test", "audits", "adjustments", "reset audits", "exit")
_ADJUST = ("rules", "players", "hints", "settle ms", "contrast", "reset to config", "back")
_ADJUST_VALUES = ("1-12 Race", "4", "always", "2500", "128", "", "")   # presets by their titles
# as the box lists them (words/audits.py): headings, then label and value
_AUDITS = ("games", "played", "rounds", "boxes shut", "avg score a turn", "Klappenspiel",
           "Pub Pool", "best turns", "Anna 2024-05-03", "Bernhard 2024-04-12", "flap moves",
           "flap 1", "flap 2", "button presses", "ROLL", "NEXT", "faults", "expander")
_AUDIT_VALUES = ("", "1234", "5012", "87", "", "21.3", "17", "", "0", "2", "", "20113",
                 "19876", "", "40210", "8812", "", "2")
_AUDIT_HEADINGS = tuple(i for i, v in enumerate(_AUDIT_VALUES) if not v)

SAMPLES: dict[str, Screen] = {
    "attract": AttractScreen("Klappenspiel", "9 tiles, any-sum, elimination 45",
                             ("P1", "P2", "P3")),
    "attract_tonight": AttractScreen("Klappenspiel", "9 tiles, any-sum, elimination 45",
                                     ("P1", "P2", "P3"), tonight=Tonight(4, 1, ("Anna", 3))),
    "attract_tonight_clock": AttractScreen("Klappenspiel", "9 tiles, any-sum, elimination 45",
                                           ("P1", "P2"),
                                           tonight=Tonight(2, 1, ("Anna", 3), clock="not set")),
    "attract_high_score": AttractScreen(
        "Klappenspiel", "9 tiles, any-sum, elimination 45", ("P1", "P2"),
        high_score=HighScores("week", "best_turn", (("Bernadette-Sophie", 0), ("Zoe", 3)))),
    "attract_accuracy": AttractScreen(
        "Klappenspiel", "9 tiles, any-sum, elimination 45", ("Anna", "Ben"),
        high_score=HighScores("all_time", "accuracy", (("Anna", 96.2), ("Ben", 88.5)))),
    "play_before_throw": PlayScreen("Anna", 1, 9, tuple(range(1, 10)), 0,
                                    prompt="ROLL to throw"),
    "play_dice_message": PlayScreen("Bernhard", 3, 9, (1, 2, 5, 6, 7, 8, 9), 27, dice=(3, 4),
                                    message="8 doesn't fit 3+4"),
    "play_long_message": PlayScreen("Franzi", 2, 9, (1, 3, 4, 6, 9), 12, dice=(6, 2),
                                    message="flap 5 was shut earlier: shut it again"),
    "play_hint": PlayScreen("P1", 1, 12, (1, 2, 3, 5, 7, 8, 10, 11, 12), 0, dice=(6, 5),
                            prompt="shut flaps for 11", hint=(11,), shut_chance=0.034,
                            move_chance=0.82),
    "play_one_die": PlayScreen("P2", 4, 10, (1, 2), 55, dice=(3,), prompt="shut flaps for 3"),
    "play_before_one_die": PlayScreen("P2", 4, 10, (1, 2), 55, prompt="ROLL: throw 1 die",
                                      throw_dice=1),
    "turn_end_shut": TurnEndScreen("Carla", 0, (), True, note="others doubled"),
    "turn_end_open": TurnEndScreen("P1", 4, (1, 3), False),
    "turn_end_next_up": TurnEndScreen("Anna", 45, tuple(range(1, 10)), False,
                                      prompt="Ben to play"),
    "play_lift_first": PlayScreen("P1", 1, 9, (1, 2, 3, 4, 5, 6, 8, 9), 0, prompt="lift 7"),
    "scoreboard_2": ScoreboardScreen(1, (ScoreRow("P1", 4, 4, 4), ScoreRow("P2", 2, 2, 2)),
                                     note="P2 wins the round"),
    "scoreboard_8": ScoreboardScreen(5, _EIGHT, note="Hanna lowest"),
    "scoreboard_4_doubled": ScoreboardScreen(3, (ScoreRow("Bernhard", 7, 14, 30),
                                                 ScoreRow("Anna", 0, 0, 12, shut=True),
                                                 ScoreRow("Carla", 5, 10, 40, out=True),
                                                 ScoreRow("Dieter", 9, 18, 45)),
                                             note="Anna shut the box"),
    "scoreboard_pool": ScoreboardScreen(2, (ScoreRow("P1", 7, 7, 9, balance=-2),
                                            ScoreRow("P2", 0, 0, 3, shut=True, balance=4),
                                            ScoreRow("P3", 11, 11, 20, balance=-2)),
                                        note="P2 takes the pot"),
    "result": ResultScreen(("P2",), (ScoreRow("P1", 4, 4, 104), ScoreRow("P2", 2, 2, 96))),
    "result_8": ResultScreen(("Hanna", "Eva"), _EIGHT),
    "result_marks": ResultScreen(("Anna",), (ScoreRow("Anna", 0, 0, 12, shut=True),
                                            ScoreRow("Bernhard", 7, 7, 30),
                                            ScoreRow("Carla", 5, 5, 47, out=True))),
    "result_stopped": ResultScreen((), (ScoreRow("P1", None, None, 12),
                                        ScoreRow("P2", None, None, 30))),
    "confirm": ConfirmScreen("New game?"),
    "shut": ShutScreen("Anna"),
    "shut_note": ShutScreen("Bernhard", "others score double"),
    "menu": MenuScreen("service menu", _MAIN_MENU, selected=0),
    "menu_scrolled": MenuScreen("service menu", _MAIN_MENU, selected=3),
    "menu_values": MenuScreen("adjustments", _ADJUST, selected=2, values=_ADJUST_VALUES),
    "menu_edit": MenuScreen("RULES", ("Klappenspiel", "1-12 Race", "Pub Pool"), selected=1),
    "menu_audits": MenuScreen("hold: back", _AUDITS, selected=None, first=13,
                              values=_AUDIT_VALUES, headings=_AUDIT_HEADINGS,
                              prompt="NEXT: down  ROLL: up"),
    "switch_test_9": SwitchTestScreen(9, (3, 7), (2, 0, 5, 1, 1, 0, 12, 1, 0), 3, 1,
                                      held=("ROLL",)),
    "switch_test_12": SwitchTestScreen(12, (1, 12), (1, 1, 1, 1, 2, 1, 1, 1, 1, 999, 1234, 8),
                                       17, 4),
    "notice": NoticeScreen("Flap 7", ("switch reads shut and open 40 times a second:",
                                      "check its wire")),
}
