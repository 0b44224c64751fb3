"""The idle screen's pages: the rule set, tonight's figures, then each high-score
table with somebody in it (a longer period's only where it differs), every page
:data:`ATTRACT_PAGE_MS` long (turned by the controller's ticks, which the daemon never
counts as activity: the display dims and blanks on its idle timers)."""

from __future__ import annotations

from table import Table

from shutbox_hw.base.events import Figures, HighScores, Tick, Tonight
from shutbox_hw.game.display.attract import ATTRACT_PAGE_MS
from shutbox_hw.render import render, text
from shutbox_hw.render.fonts import role
from shutbox_hw.render.high_scores import place_lines

TONIGHT = Tonight(3, 1, ("Ann", 2))
BEST_TONIGHT = HighScores("tonight", "best_turn", (("Ann", 2.0), ("Ben", 5.0)))
TABLES = (BEST_TONIGHT, HighScores("tonight", "wins", ()),           # nobody: no page
          HighScores("week", "best_turn", BEST_TONIGHT.entries),    # the same: no page
          HighScores("week", "wins", (("Ben", 4.0),)),
          HighScores("all_time", "best_turn", (("Cleo", 0.0), ("Ann", 2.0))),
          HighScores("all_time", "wins", (("Ben", 4.0),)))          # the week's: no page


def test_the_idle_screen_cycles_through_the_high_scores():
    t = Table()
    t.send(Figures(TONIGHT, (), 0, TABLES))
    shown = []
    for now in range(0, 5 * ATTRACT_PAGE_MS, ATTRACT_PAGE_MS):
        t.send(Tick(now + 1))
        shown.append((t.screen.tonight, t.screen.high_score))
    assert shown == [(None, None), (TONIGHT, None), (None, BEST_TONIGHT), (None, TABLES[3]),
                     (None, TABLES[4])]
    t.send(Tick(5 * ATTRACT_PAGE_MS + 1))
    assert (t.screen.tonight, t.screen.high_score) == (None, None)   # round again
    assert t.controller.next_deadline_ms() == 6 * ATTRACT_PAGE_MS


def test_a_box_with_no_figures_keeps_one_page():
    t = Table()
    t.send(Figures(Tonight(0, 0), (), 0, (HighScores("tonight", "wins", ()),)))
    t.send(Tick(ATTRACT_PAGE_MS + 1))
    assert t.screen.high_score is None and t.controller.next_deadline_ms() is None


def test_a_long_name_is_shortened_never_the_figure():
    table = HighScores("all_time", "accuracy", (("Wolfgang-Amadeus", 96.2),))
    font, scale = role("figures")
    for width in (127, 70):               # the whole panel; beside the join page's QR code
        (who, figure), = place_lines(table, width)
        assert figure == "96.2%" and who.startswith("1 Wolf") and who != "1 Wolfgang-Amadeus"
        assert text.width(who, font, scale) + 3 + text.width(figure, font, scale) <= width


def test_the_page_is_drawn_with_its_label_and_places():
    from shutbox_hw.game.display.screens import AttractScreen
    image = render(AttractScreen("Klappenspiel", "9 tiles", ("Ann",), high_score=BEST_TONIGHT))
    plain = render(AttractScreen("Klappenspiel", "9 tiles", ("Ann",)))
    assert image.tobytes() != plain.tobytes()
    assert image.crop((0, 32, 128, 64)).tobytes() == plain.crop((0, 32, 128, 64)).tobytes()
    assert image.getpixel((127, 0)) == 0 and image.getpixel((0, 63)) == 0   # orbit room
