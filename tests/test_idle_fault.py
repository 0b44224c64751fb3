"""Idle, a fault had only the red light: the idle screen gives it a page of its own
(issue 38: "SD card read-only" at start, a salvaged record, a record in RAM)."""

from __future__ import annotations

from shutbox_hw.base import i18n
from shutbox_hw.game.display import attract, view
from shutbox_hw.game.display.presentation import Presentation
from shutbox_hw.game.display.screens import AttractScreen, NoticeScreen
from shutbox_hw.game.model.config import GameConfig
from shutbox_hw.game.model.state import GameState
from shutbox_hw.render import render
from shutbox_hw.rules import build_rules

PAGE = attract.ATTRACT_PAGE_MS


def idle(**faults: str) -> GameState:
    return GameState(rules=build_rules("pub"), game=GameConfig(player_names=("Ann",)),
                     player_count=2, faults=dict(faults))


def test_the_idle_screen_turns_to_the_fault_and_back_to_the_way_in():
    state = idle(storage="cannot save: SD card read-only")
    # the rule set's page, then the fault's, each for a page's time (no other page yet)
    kinds = []
    for now in range(0, 4 * PAGE, PAGE // 2):
        state.now = now
        kinds.append(type(view.screen(state)).__name__)
    assert kinds == ["AttractScreen"] * 2 + ["NoticeScreen"] * 2 + \
        ["AttractScreen"] * 2 + ["NoticeScreen"] * 2
    state.now = PAGE
    notice = view.screen(state)
    assert notice == NoticeScreen("storage", ("cannot save: SD card read-only",
                                              "NEXT: +1  hold: names", "ROLL: start  hold: -1"))
    assert view.leds(state).red == "on"
    # the page turns by itself: the loop has a deadline for it
    state.now = 100
    assert attract.next_ms(state) == PAGE
    assert render(notice).size == (128, 64)


def test_without_a_fault_the_idle_screen_stays_as_it_was():
    state = idle()
    for now in (0, PAGE, 2 * PAGE):
        state.now = now
        assert isinstance(view.screen(state), AttractScreen)
    assert attract.next_ms(state) is None      # one page: nothing to turn


def test_a_refused_press_still_flashes_over_the_faults_page():
    state = idle(record="kept in RAM, lost at power-off")
    state.now = PAGE
    shown = Presentation(flash="4 players at most", flash_since=PAGE)
    screen = view.screen(state, shown)
    assert isinstance(screen, AttractScreen) and screen.message == "4 players at most"


def test_the_faults_page_speaks_the_boxs_language():
    state = idle(storage="record damaged: 1,234 of 1,240 games recovered")
    state.now = PAGE
    with i18n.speaking("de"):
        notice = view.screen(state)
    assert notice.title == "Speicher"
    assert notice.lines[0] == "Daten beschädigt: 1.234/1.240 Spiele gerettet"
