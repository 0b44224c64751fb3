"""The OLED renderer: golden images plus layout properties.

Golden images: every screen in ``shutbox_hw.render.samples.SAMPLES`` is
compared pixel for pixel with ``tests/golden/<name>.png``.  After an
intended change of the look, regenerate them and LOOK at each one:

    SHUTBOX_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_render.py

(the test then writes the PNGs instead of comparing, and is skipped).
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from shutbox_hw.base.events import Tonight
from shutbox_hw.game.display.screens import (
    AttractScreen,
    ConfirmScreen,
    MenuScreen,
    NoticeScreen,
    PlayScreen,
    ResultScreen,
    ScoreboardScreen,
    ScoreRow,
    ShutScreen,
    SwitchTestScreen,
    TurnEndScreen,
)
from shutbox_hw.render import render, text
from shutbox_hw.render.fonts import LARGE, NARROW, PRIMARY, PRIMARY_MIN_PX, ROLES, SMALL, cap_height
from shutbox_hw.render.play import BAR_TOP, TILES_Y
from shutbox_hw.render.samples import SAMPLES
from shutbox_hw.render.service import LIST_Y, PITCH, RULE_Y, VISIBLE, window
from shutbox_hw.render.simple import SHUT_BAND
from shutbox_hw.render.widgets import DIE, number, pip_size

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("SHUTBOX_UPDATE_GOLDEN") == "1"


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_golden(name):
    image = render(SAMPLES[name])
    path = GOLDEN / f"{name}.png"
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        image.save(path)
        pytest.skip("golden image written")
    expected = Image.open(path)
    assert expected.mode == "1" and expected.size == (128, 64)
    diff = ImageChops.logical_xor(image, expected).getbbox()
    assert diff is None, f"{name}: pixels differ in {diff}"


def test_every_golden_has_a_sample():
    # a stale PNG would otherwise sit in the repository untested
    assert {p.stem for p in GOLDEN.glob("*.png")} == set(SAMPLES)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_every_screen_is_128x64_one_bit_and_pure(name):
    a, b = render(SAMPLES[name]), render(SAMPLES[name])
    assert a.mode == "1" and a.size == (128, 64)
    assert a.tobytes() == b.tobytes()
    assert a.getbbox() is not None          # something is drawn


def test_not_a_screen_is_a_type_error():
    with pytest.raises(TypeError):
        render("hello")


def lit(image, box):
    """Number of lit pixels inside box (x0, y0, x1, y1), inclusive."""
    return sum(image.crop((box[0], box[1], box[2] + 1, box[3] + 1)).histogram()[1:])


# --- fonts ---------------------------------------------------------------

def test_fonts_cover_what_screens_need():
    for ch in map(chr, range(32, 127)):
        assert ch in SMALL.glyphs
    for ch in "0123456789":
        assert ch in NARROW.glyphs and len(NARROW.glyphs[ch][0]) == 3
    for ch in "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 !',-.:;?+/%()=":
        assert ch in LARGE.glyphs
    assert LARGE.normalise("doesn't") == "DOESN'T"


def test_width_counts_glyphs_and_gaps():
    # digits keep 5 px, one px between glyphs; double size doubles both
    assert text.width("12", SMALL) == 5 + 1 + 5
    assert text.width("12", SMALL, 2) == 10 + 2 + 10
    assert text.width("12", SMALL, 2, spacing=1) == 10 + 1 + 10
    assert text.width("", SMALL) == 0


def test_accents_and_unknown_characters_still_draw():
    assert SMALL.normalise("Jürgen") == "Jürgen"
    assert LARGE.normalise("Niccolò") == "NICCOLÒ"
    assert LARGE.normalise("Anna") == "ANNA"
    # outside the fonts: spelled with their letters, a sign left out, never "?"
    assert SMALL.normalise("Ŧom 🎲 Ħans") == "Tom  Hans"
    assert LARGE.normalise("Straße") == "STRASSE"
    assert NARROW.normalise("12€") == "12"


def test_drawn_text_is_as_wide_as_measured():
    image = Image.new("1", (128, 16))
    from PIL import ImageDraw
    end = text.draw(ImageDraw.Draw(image), 0, 0, "HI 42", SMALL)
    box = image.getbbox()
    assert box[0] == 0 and box[2] == end == text.width("HI 42", SMALL)


# --- long text never leaves the screen ----------------------------------

LONG_NAME = "WWWWWWWW"                      # 8 of the widest letter
LONG_MESSAGE = "flap 12 was shut earlier by somebody else: shut it again before you go on"


def test_shorten_and_wrap_respect_width():
    assert text.shorten("WWWWWWWWWWWWWWWWWWWWWWWW", SMALL, 60).endswith("..")
    assert text.width(text.shorten("WWWWWWWWWWWWWWWWWWWWWWWW", SMALL, 60), SMALL) <= 60
    lines = text.wrap(LONG_MESSAGE, SMALL, 124, 2)
    assert len(lines) == 2 and lines[-1].endswith("..")
    assert all(text.width(line, SMALL) <= 124 for line in lines)
    assert text.wrap("open flaps 3, 7", SMALL, 124, 2) == ["open flaps 3, 7"]


def test_long_name_stays_10px_and_clear_of_the_round_and_total():
    s = PlayScreen(LONG_NAME, 12, 9, tuple(range(1, 10)), 123, prompt="ROLL to throw")
    image = render(s)
    name_box = image.crop((0, 0, 60, 10)).getbbox()
    assert name_box is not None and name_box[3] - name_box[1] == 10
    # a dark column separates the name from the round/total at the right
    row = [lit(image, (x, 0, x, 9)) for x in range(128)]
    first_gap = next(x for x in range(name_box[2], 128) if row[x] == 0)
    assert any(row[x] for x in range(first_gap, 127))      # something right of it


def test_long_message_is_wrapped_inside_its_bar():
    s = PlayScreen(LONG_NAME, 1, 12, (1, 2, 3), 0, dice=(6, 6), message=LONG_MESSAGE)
    image = render(s)
    # the bar: fully lit edges from BAR_TOP to row 61, dark text inside it
    height = 62 - BAR_TOP
    assert lit(image, (0, BAR_TOP, 0, 61)) == height
    assert lit(image, (125, BAR_TOP, 125, 61)) == height
    assert lit(image, (2, BAR_TOP + 1, 123, 60)) < (height - 2) * 122


@pytest.mark.parametrize("screen", [
    TurnEndScreen(LONG_NAME, 123456789, tuple(range(1, 13)), False, note=LONG_MESSAGE,
                  prompt=LONG_MESSAGE),
    AttractScreen("A title far too long for the screen", LONG_MESSAGE,
                  tuple(f"Player{i}" for i in range(8)), prompt=LONG_MESSAGE),
    ConfirmScreen("Really start a completely new game now?"),
    NoticeScreen("A very long notice title", (LONG_MESSAGE, LONG_MESSAGE)),
    ScoreboardScreen(99, tuple(ScoreRow(LONG_NAME, 123456, 246912, 9999999, True, True)
                               for _ in range(8)), note=LONG_MESSAGE),
    ResultScreen(tuple(LONG_NAME for _ in range(3)),
                 tuple(ScoreRow(LONG_NAME, 1, 2, 123456789, out=True) for _ in range(8))),
    AttractScreen("Klappenspiel", LONG_MESSAGE, tuple(f"Player{i}" for i in range(8)),
                  tonight=Tonight(123456, 98765, (LONG_MESSAGE, 123456789))),
    ShutScreen(LONG_MESSAGE, LONG_MESSAGE),
    MenuScreen(LONG_MESSAGE, tuple(LONG_MESSAGE for _ in range(20)), selected=19,
               values=tuple(LONG_MESSAGE for _ in range(20)), prompt=LONG_MESSAGE),
    MenuScreen(LONG_MESSAGE, (LONG_MESSAGE,) * 3, selected=None, first=99, values=("x",)),
    MenuScreen("", (), selected=5),
    SwitchTestScreen(12, tuple(range(1, 13)), (123456789,) * 12, 123456789, 123456789,
                     prompt=LONG_MESSAGE),
    SwitchTestScreen(16, (99,), (), 0, 0),
], ids=["turn_end", "attract", "confirm", "notice", "scoreboard", "result", "attract_tonight",
        "shut", "menu", "menu_read", "menu_empty", "switch_test", "switch_test_odd"])
def test_extreme_text_renders_without_error(screen):
    # the fitting functions shorten everything; nothing raises
    image = render(screen)
    assert image.size == (128, 64) and image.getbbox() is not None
    # ... and leave the burn-in orbit its blank last column and row
    assert lit(image, (127, 0, 127, 63)) == 0 and lit(image, (0, 63, 127, 63)) == 0


def test_huge_scores_are_shortened():
    assert number(123456789, 4) == "123M"
    assert number(45678, 3) == "45k"
    assert number(999, 3) == "999"
    assert number(None, 3) == "-"
    assert number(4, 3, signed=True) == "+4" and number(-2, 3, signed=True) == "-2"


# --- the row of flaps ---------------------------------------------------

@pytest.mark.parametrize("tiles", [9, 10, 11, 12])
def test_every_tile_row_fits_and_shows_each_slot(tiles):
    all_open = render(PlayScreen("P1", 1, tiles, tuple(range(1, tiles + 1)), 0))
    all_shut = render(PlayScreen("P1", 1, tiles, (), 0))
    bottom_y = TILES_Y + 9
    row = (0, TILES_Y, 127, bottom_y)
    for image in (all_open, all_shut):
        box = image.crop((0, TILES_Y, 128, bottom_y + 1)).getbbox()
        assert box is not None and box[0] >= 0 and box[2] <= 127
    # count separate shut bars on the slot's bottom line: one per flap
    bottom = [all_shut.getpixel((x, bottom_y)) for x in range(128)]
    runs = sum(1 for x in range(128) if bottom[x] and (x == 0 or not bottom[x - 1]))
    assert runs == tiles
    assert lit(all_open, row) != lit(all_shut, row)


def _dark_runs(image, y0, y1):
    """Lengths of the dark column runs between lit columns in rows y0..y1."""
    cols = [lit(image, (x, y0, x, y1)) > 0 for x in range(128)]
    first, last = cols.index(True), 127 - cols[::-1].index(True)
    runs, n = [], 0
    for x in range(first, last + 1):
        if cols[x]:
            if n:
                runs.append(n)
            n = 0
        else:
            n += 1
    return runs


def test_two_digit_flaps_have_a_wider_gap_between_them_than_inside():
    image = render(PlayScreen("P1", 1, 12, (10, 11, 12), 0))
    runs = _dark_runs(image, TILES_Y, TILES_Y + 7)   # the digits, above the shut bars
    # "10 11 12": gaps inside a number are 1-2 px, gaps between numbers at least 3
    gaps_between = [r for r in runs if r >= 3]
    gaps_inside = [r for r in runs if r < 3]
    assert len(gaps_between) == 2 and len(gaps_inside) == 3
    assert min(gaps_between) >= max(gaps_inside) + 2


def test_hint_tiles_are_inverted():
    plain = render(PlayScreen("P1", 1, 9, (1, 2, 3), 0, dice=(1, 2)))
    hinted = render(PlayScreen("P1", 1, 9, (1, 2, 3), 0, dice=(1, 2), hint=(3,)))
    # slot of flap 3: 9 slots of 14 px from x 0
    slot = (2 * 14, TILES_Y, 2 * 14 + 12, TILES_Y + 9)
    assert lit(hinted, slot) > 13 * 10 // 2 > lit(plain, slot)


# --- dice and scoreboard content -----------------------------------------

@pytest.mark.parametrize("face", range(1, 7))
def test_die_shows_its_number_of_pips(face):
    from PIL import ImageDraw

    from shutbox_hw.render.widgets import die
    image = Image.new("1", (DIE, DIE))
    die(ImageDraw.Draw(image), 0, 0, face)
    # pips are dark squares inside a lit square, corners cut
    pip = pip_size(DIE)
    dark_inside = sum(1 for y in range(1, DIE - 1) for x in range(1, DIE - 1)
                      if not image.getpixel((x, y)))
    assert pip >= 3 and dark_inside == pip * pip * face


def test_scoreboard_marks_shut_and_out_rows():
    rows = (ScoreRow("A", 4, 4, 4), ScoreRow("B", 0, 0, 0, shut=True),
            ScoreRow("C", 9, 9, 50, out=True))
    image = render(ScoreboardScreen(1, rows))
    mark_column = (116, 10, 126, 42)
    plain = render(ScoreboardScreen(1, (ScoreRow("A", 4, 4, 4), ScoreRow("B", 0, 0, 0),
                                        ScoreRow("C", 9, 9, 50))))
    assert lit(plain, mark_column) == 0 and lit(image, mark_column) > 0
    assert lit(image, (116, 10, 126, 19)) == 0         # row A: no mark


# --- legible from a bar stool, and room for the burn-in orbit ------------

@pytest.mark.parametrize("name", PRIMARY)
def test_primary_roles_are_at_least_10px_tall(name):
    font, scale = ROLES[name]
    assert cap_height(font, scale) >= PRIMARY_MIN_PX


def test_cap_height_measures_the_glyphs():
    assert cap_height(LARGE) == 10 and cap_height(SMALL) == 7 and cap_height(SMALL, 2) == 14
    assert cap_height(NARROW) == 7


def _ink_height(image, box):
    found = image.crop(box).getbbox()
    return 0 if found is None else found[3] - found[1]


def test_what_a_player_reads_now_is_drawn_10px_tall():
    # whose turn and what to do, on the screen itself
    play = render(PlayScreen("Anna", 1, 9, tuple(range(1, 10)), 0, prompt="ROLL to throw"))
    assert _ink_height(play, (0, 0, 40, 11)) >= 10
    assert _ink_height(play, (0, TILES_Y + 11, 127, 63)) >= 10
    # a problem to fix: dark letters inside the bar
    bar = render(PlayScreen("Anna", 1, 9, (1, 2), 0, dice=(3, 4), message="8 doesn't fit 3+4"))
    inverted = ImageChops.invert(bar.convert("L")).convert("1")
    assert _ink_height(inverted, (2, BAR_TOP + 2, 124, 61)) >= 10
    # the turn's score
    end = render(TurnEndScreen("Anna", 7, (7,), False))
    assert _ink_height(end, (30, 11, 127, 33)) >= 20
    # who shut the box: under the lit band, bigger still
    shut = render(ShutScreen("Anna", "wins at once!"))
    assert _ink_height(shut, (0, SHUT_BAND + 1, 127, 54)) >= 20
    # tonight's figures, between the "tonight" rule and the players line
    tonight = render(SAMPLES["attract_tonight"])
    assert _ink_height(tonight, (0, 9, 127, 19)) >= 10
    assert _ink_height(tonight, (0, 21, 127, 31)) >= 10
    # the operator's menu: the lines, the highlighted line inside its bar, the buttons
    menu = render(MenuScreen("menu", ("one", "two", "three")))
    inverted = ImageChops.invert(menu.convert("L")).convert("1")
    assert _ink_height(inverted, (1, LIST_Y, 125, LIST_Y + 10)) >= 10
    assert _ink_height(menu, (0, LIST_Y + PITCH, 127, LIST_Y + PITCH + 11)) >= 10
    assert _ink_height(menu, (0, RULE_Y + 1, 127, 63)) >= 10


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_last_column_and_row_stay_blank_so_the_orbit_can_move(name):
    # hal/adapters/display.py moves the picture one pixel only into a blank edge
    image = render(SAMPLES[name])
    assert lit(image, (127, 0, 127, 63)) == 0 and lit(image, (0, 63, 127, 63)) == 0


def _contains(image, word, font):
    """Whether ``word`` drawn in ``font`` appears somewhere in ``image`` as is: at
    any place on the screen's 128 x 64 (where the image does not reach: dark).

    Compared a row at a time as integers (a row's pixels its bits), not by a crop
    at each of the thousands of places: the same places and pixels, a
    hundredth of the time."""
    from PIL import ImageDraw
    assert image.mode == "1", image.mode
    w, h = text.width(word, font), font.height
    stamp = Image.new("1", (w, h))
    text.draw(ImageDraw.Draw(stamp), 0, 0, word, font)
    want = _rows(stamp)
    screen = Image.new("1", (128, 64))     # dark beyond the image, as a crop pads it
    screen.paste(image.crop((0, 0, min(image.width, 128), min(image.height, 64))), (0, 0))
    rows = _rows(screen)
    mask = (1 << w) - 1
    for x in range(128 - w + 1):
        shift = 128 - x - w
        column = [(row >> shift) & mask for row in rows]     # the w pixels from x
        if any(column[y] == want[0] and column[y:y + h] == want for y in range(64 - h + 1)):
            return True
    return False


def _rows(image):
    """Each row of a mode "1" image as an integer, its leftmost pixel the highest bit."""
    stride = (image.width + 7) // 8
    data = image.tobytes()
    pad = stride * 8 - image.width
    return [int.from_bytes(data[y * stride:(y + 1) * stride], "big") >> pad
            for y in range(image.height)]


def test_hint_figures_are_labelled_as_chances():
    # "shut 3%" above "shut 2+2" read as an instruction: the figures sit under "chance"
    s = PlayScreen("P1", 1, 9, (1, 2, 3, 4), 0, dice=(2, 2), prompt="shut 2+2",
                   shut_chance=0.03, move_chance=1.0)
    image = render(s)
    assert _contains(image, "chance", SMALL) and _contains(image, "100%", SMALL)
    assert _contains(image, "3%", SMALL)
    no_hints = render(PlayScreen("P1", 1, 9, (1, 2, 3, 4), 0, dice=(2, 2), prompt="shut 2+2"))
    assert not _contains(no_hints, "chance", SMALL)


def test_one_question_box_when_one_die_will_be_thrown():
    one = SAMPLES["play_before_one_die"]
    two = render(replace(one, throw_dice=2))
    drawn = render(one)
    # the one-die screen is the two-dice screen less the second box
    assert ImageChops.logical_and(drawn, two) == drawn.convert("1")
    assert ImageChops.logical_xor(drawn, two).getbbox() is not None


# --- the operator's menu and switch test --------------------------------

def _bars(image):
    """Rows of the list area lit at both edges (the lines' text starts a
    column in): the highlight bar."""
    return [y for y in range(LIST_Y - 1, RULE_Y)
            if image.getpixel((0, y)) and image.getpixel((126, y))]


def _inverted(image):
    return ImageChops.invert(image.convert("L")).convert("1")


TWELVE = tuple(f"item {i}" for i in range(1, 13))


@pytest.mark.parametrize("selected", range(12))
def test_the_highlighted_line_is_inverted_and_visible_however_far_down(selected):
    image = render(MenuScreen("twelve", TWELVE, selected=selected))
    bars = _bars(image)
    assert len(bars) == 12                     # one bar, as tall as a line and its margins
    assert bars == list(range(bars[0], bars[0] + 12))
    assert lit(image, (0, bars[0], 126, bars[0])) == 127        # its top and bottom edges
    assert lit(image, (0, bars[-1], 126, bars[-1])) == 127
    # the bar holds that line's text, dark on lit; no other line is drawn so
    band = _inverted(image).crop((0, bars[0], 127, bars[-1] + 1))
    assert _contains(band, TWELVE[selected], LARGE)
    assert not any(_contains(band, t, LARGE) for i, t in enumerate(TWELVE)
                   if i != selected and t != TWELVE[selected][:len(t)])


def _arrows(image):
    """(up, down): whether the scroll marks at the title's right are drawn."""
    return lit(image, (122, 0, 126, 2)) > 0, lit(image, (122, 4, 126, 6)) > 0


def test_scroll_marks_say_where_more_lines_are():
    assert _arrows(render(MenuScreen("m", TWELVE, selected=0))) == (False, True)
    assert _arrows(render(MenuScreen("m", TWELVE, selected=5))) == (True, True)
    assert _arrows(render(MenuScreen("m", TWELVE, selected=11))) == (True, False)
    assert _arrows(render(MenuScreen("m", TWELVE[:VISIBLE], selected=2))) == (False, False)
    assert _arrows(render(MenuScreen("m", TWELVE, selected=None, first=9))) == (True, False)


def test_the_line_after_the_highlighted_one_shows_when_there_is_one():
    assert window(12, 0, 0) == 0 and window(12, 1, 0) == 0
    assert window(12, 5, 0) == 4               # 5 highlighted, 6 below it
    assert window(12, 11, 0) == 12 - VISIBLE
    assert window(12, 6, 5) == 5               # a given first is kept if it shows the line
    assert window(12, 9, 5) == 8
    assert window(3, 2, 1) == 0                # everything fits: from the top
    assert window(12, None, 7) == 7 and window(12, None, 99) == 11


def test_a_list_to_read_has_no_bar_and_starts_at_first():
    image = render(MenuScreen("audits", TWELVE, selected=None, first=5))
    assert _bars(image) == []
    top_line = image.crop((0, LIST_Y, 127, LIST_Y + 10))
    assert _contains(top_line, "item 6", LARGE) and not _contains(image, "item 5", LARGE)


def test_a_value_sits_at_the_right_of_its_line_and_inverts_with_it():
    plain = render(MenuScreen("adjust", ("hints", "players"), selected=1,
                              values=("always", "4")))
    row = plain.crop((0, LIST_Y, 127, LIST_Y + 10))
    assert _contains(row, "always", LARGE)
    box = row.getbbox()
    assert box is not None and box[2] >= 120    # ends at the right edge
    chosen = _inverted(render(MenuScreen("adjust", ("hints", "players"), selected=0,
                                         values=("always", "4"))))
    assert _contains(chosen.crop((0, LIST_Y, 127, LIST_Y + 10)), "always", LARGE)


def test_a_long_line_keeps_its_value_whole():
    image = render(MenuScreen("adjust", ("a very long setting name indeed",), selected=None,
                              values=("2500",)))
    assert _contains(image, "2500", LARGE)


def _flap_box(tiles, t):
    """(x0, y0, x1, y1) of flap t's box on the switch test, found from an
    image where only that flap is closed (its filled box)."""
    closed = render(SwitchTestScreen(tiles, (t,), (0,) * tiles, 0, 0))
    open_ = render(SwitchTestScreen(tiles, (), (0,) * tiles, 0, 0))
    return ImageChops.logical_xor(closed, open_).getbbox()


@pytest.mark.parametrize("tiles", [9, 10, 11, 12])
def test_a_closed_flap_is_drawn_filled_and_only_it_changes(tiles):
    counts = (3,) * tiles
    open_ = render(SwitchTestScreen(tiles, (), counts, 0, 0))
    for t in (1, tiles // 2 + 1, tiles):
        closed = render(SwitchTestScreen(tiles, (t,), counts, 0, 0))
        diff = ImageChops.logical_xor(closed, open_).getbbox()
        assert diff is not None
        x0, y0, x1, y1 = diff
        # the change is one small box, mostly lit now
        assert x1 - x0 <= 128 // ((tiles + 1) // 2) and y1 - y0 <= 12
        assert lit(closed, (x0, y0, x1 - 1, y1 - 1)) > 0.6 * (x1 - x0) * (y1 - y0)
        assert lit(open_, (x0, y0, x1 - 1, y1 - 1)) < 0.5 * (x1 - x0) * (y1 - y0)
    # every flap has a box of its own, none overlapping
    boxes = [_flap_box(tiles, t) for t in range(1, tiles + 1)]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]


def test_switch_test_counts_show_under_their_flap():
    base = render(SwitchTestScreen(9, (), (0,) * 9, 0, 0))
    counted = render(SwitchTestScreen(9, (), (0, 0, 0, 0, 0, 0, 17, 0, 0), 0, 0))
    x0, y0, x1, y1 = _flap_box(9, 7)
    diff = ImageChops.logical_xor(base, counted).getbbox()
    assert diff is not None and diff[1] >= y1 and diff[0] < x1 and diff[2] > x0
    assert _contains(counted, "17", SMALL)
    buttons = render(SwitchTestScreen(9, (), (0,) * 9, 42, 7))
    assert _contains(buttons, "ROLL 42", SMALL) and _contains(buttons, "NEXT 7", SMALL)


# --- tonight on the idle screen, and the shut box -------------------------

def test_tonight_replaces_the_rule_set_and_keeps_the_players_and_the_way_in():
    tonight = SAMPLES["attract_tonight"]
    with_figures = render(tonight)
    without = render(replace(tonight, tonight=None))
    # the top differs, the players line and the prompt bar below are the same
    assert ImageChops.logical_xor(with_figures, without).getbbox()[3] <= 32
    below = (0, 32, 128, 64)
    assert with_figures.crop(below).tobytes() == without.crop(below).tobytes()
    assert _contains(without, "elimination", SMALL)
    assert not _contains(with_figures, "elimination", SMALL)
    assert _contains(with_figures, "tonight", SMALL)
    assert _contains(with_figures, "4 games", LARGE)
    assert _contains(with_figures, "1 box shut", LARGE)
    assert _contains(with_figures, "best 3 Anna", LARGE)


def test_tonight_wording_counts_and_shortens():
    from shutbox_hw.render.simple import tonight_lines
    assert tonight_lines(Tonight(1, 2, None), LARGE) == ["1 game  2 boxes shut"]
    assert tonight_lines(Tonight(0, 0, None), LARGE) == ["no games yet"]
    lines = tonight_lines(Tonight(112, 10, ("Franziska-Maria Huber", 0)), LARGE)
    assert lines[0] == "112 games  10 shut" and lines[1].startswith("best 0 Franz")
    assert lines[1].endswith("..")
    assert all(text.width(line, LARGE) <= 127 for line in lines)


def test_shut_screen_has_its_own_layout():
    image = render(ShutScreen("Anna", "others score double"))
    # SHUT THE BOX! dark on a lit band across the top
    assert lit(image, (0, 0, 126, SHUT_BAND - 1)) > 0.6 * 127 * SHUT_BAND
    band = _inverted(image).crop((0, 0, 127, SHUT_BAND))
    assert band.getbbox() is not None
    # the name big under it, the note small at the bottom
    assert _ink_height(image, (0, SHUT_BAND + 1, 127, 53)) >= 20
    assert _contains(image, "others score double", SMALL)
    assert render(ShutScreen("Anna")).tobytes() != image.tobytes()
    assert not _contains(render(ShutScreen("Anna")), "others", SMALL)
