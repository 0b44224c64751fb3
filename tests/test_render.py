"""The OLED renderer: golden images plus layout properties.

Golden images: every screen in ``shutbox_hw.render.samples.SAMPLES`` is
compared pixel for pixel with ``tests/golden/<name>.png``.  After an
intended change of the look, regenerate them and LOOK at each one:

    SHUTBOX_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_render.py

(the test then writes the PNGs instead of comparing, and is skipped).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from shutbox_hw.game.screens import (AttractScreen, ConfirmScreen, NoticeScreen, PlayScreen,
                                     ResultScreen, ScoreboardScreen, ScoreRow, TurnEndScreen)
from shutbox_hw.render import render, text
from shutbox_hw.render.fonts import NARROW, SMALL, TINY
from shutbox_hw.render.samples import SAMPLES
from shutbox_hw.render.widgets import number

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
    for ch in "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -+.:?":
        assert ch in TINY.glyphs
    for ch in "0123456789":
        assert ch in NARROW.glyphs and len(NARROW.glyphs[ch][0]) == 3


def test_width_counts_glyphs_and_gaps():
    # digits keep 5 px, one px between glyphs; double size doubles both
    assert text.width("12", SMALL) == 5 + 1 + 5
    assert text.width("12", SMALL, 2) == 10 + 2 + 10
    assert text.width("12", SMALL, 2, spacing=1) == 10 + 1 + 10
    assert text.width("", SMALL) == 0


def test_accents_and_unknown_characters_still_draw():
    assert SMALL.normalise("Jürgen") == "Jurgen"
    assert SMALL.normalise("a€b") == "a?b"
    assert TINY.normalise("Anna") == "ANNA"


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


def test_long_name_stays_double_size_and_clear_of_the_header_numbers():
    s = PlayScreen(LONG_NAME, 12, 9, tuple(range(1, 10)), 123, prompt="ROLL to throw")
    image = render(s)
    right_col = 128 - max(text.width("ROUND 12", TINY), text.width("TOT", TINY) + 2 + 17)
    # the name is double size (14 rows tall) ...
    name_box = image.crop((0, 0, right_col, 14)).getbbox()
    assert name_box is not None and name_box[3] - name_box[1] == 14
    # ... and a dark column separates it from the round/total column
    assert any(lit(image, (x, 0, x, 13)) == 0 for x in range(name_box[2], right_col))
    assert name_box[2] < right_col


def test_long_message_is_wrapped_inside_its_bar():
    s = PlayScreen(LONG_NAME, 1, 12, (1, 2, 3), 0, dice=(6, 6), message=LONG_MESSAGE)
    image = render(s)
    # the bar: fully lit edges from y 48 down, dark text inside it
    assert lit(image, (0, 48, 0, 63)) == 16 and lit(image, (127, 48, 127, 63)) == 16
    assert lit(image, (2, 49, 125, 62)) < 14 * 124


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
    row = (0, 37, 127, 46)
    # open: numbers; shut: a bar in every slot; both inside 128 px
    for image in (all_open, all_shut):
        box = image.crop((0, 37, 128, 47)).getbbox()
        assert box is not None and box[0] >= 0 and box[2] <= 128
    # count separate shut bars on the slot's bottom line: one per flap
    bottom = [all_shut.getpixel((x, 46)) for x in range(128)]
    runs = sum(1 for x in range(128) if bottom[x] and (x == 0 or not bottom[x - 1]))
    assert runs == tiles
    assert lit(all_open, row) != lit(all_shut, row)


def test_hint_tiles_are_inverted():
    plain = render(PlayScreen("P1", 1, 9, (1, 2, 3), 0, dice=(1, 2)))
    hinted = render(PlayScreen("P1", 1, 9, (1, 2, 3), 0, dice=(1, 2), hint=(3,)))
    # slot of flap 3 (x 28..41 for 9 slots of 14 px from x 1): mostly lit when hinted
    slot = (1 + 2 * 14, 37, 1 + 2 * 14 + 12, 46)
    assert lit(hinted, slot) > 13 * 10 // 2 > lit(plain, slot)


# --- dice and scoreboard content -----------------------------------------

@pytest.mark.parametrize("face", range(1, 7))
def test_die_shows_its_number_of_pips(face):
    from PIL import ImageDraw
    from shutbox_hw.render.widgets import die
    image = Image.new("1", (20, 20))
    die(ImageDraw.Draw(image), 0, 0, face)
    # pips are dark 4x4 squares inside a lit square, corners cut
    dark_inside = sum(1 for y in range(1, 19) for x in range(1, 19) if not image.getpixel((x, y)))
    assert dark_inside == 16 * face


def test_scoreboard_marks_shut_and_out_rows():
    rows = (ScoreRow("A", 4, 4, 4), ScoreRow("B", 0, 0, 0, shut=True),
            ScoreRow("C", 9, 9, 50, out=True))
    image = render(ScoreboardScreen(1, rows))
    mark_column = (120, 8, 127, 34)
    plain = render(ScoreboardScreen(1, (ScoreRow("A", 4, 4, 4), ScoreRow("B", 0, 0, 0),
                                        ScoreRow("C", 9, 9, 50))))
    assert lit(plain, mark_column) == 0 and lit(image, mark_column) > 0
    assert lit(image, (120, 8, 127, 15)) == 0         # row A: no mark
