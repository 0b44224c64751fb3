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

from shutbox_hw.game.screens import (AttractScreen, ConfirmScreen, NoticeScreen, PlayScreen,
                                     ResultScreen, ScoreboardScreen, ScoreRow, TurnEndScreen)
from shutbox_hw.render import render, text
from shutbox_hw.render.fonts import (LARGE, NARROW, PRIMARY, PRIMARY_MIN_PX, ROLES, SMALL,
                                     cap_height)
from shutbox_hw.render.play import BAR_TOP, TILES_Y
from shutbox_hw.render.samples import SAMPLES
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
    assert SMALL.normalise("Jürgen") == "Jurgen"
    assert SMALL.normalise("a€b") == "a?b"
    assert LARGE.normalise("Anna") == "ANNA"


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
], ids=["turn_end", "attract", "confirm", "notice", "scoreboard", "result"])
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


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_last_column_and_row_stay_blank_so_the_orbit_can_move(name):
    # hal/display.py moves the picture one pixel only into a blank edge
    image = render(SAMPLES[name])
    assert lit(image, (127, 0, 127, 63)) == 0 and lit(image, (0, 63, 127, 63)) == 0


def _contains(image, word, font):
    """Whether ``word`` drawn in ``font`` appears somewhere in ``image`` as is."""
    from PIL import ImageDraw
    w = text.width(word, font)
    stamp = Image.new("1", (w, font.height))
    text.draw(ImageDraw.Draw(stamp), 0, 0, word, font)
    want = stamp.tobytes()
    return any(image.crop((x, y, x + w, y + font.height)).tobytes() == want
               for y in range(64 - font.height + 1) for x in range(128 - w + 1))


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
