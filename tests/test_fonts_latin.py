"""The fonts draw German, Italian and the names players type (issue 33):
the letters are there, inside the line's height, told apart, and anything
still outside a font is spelled with letters it has, never a "?"."""

from __future__ import annotations

import unicodedata
from itertools import combinations

from hypothesis import given
from hypothesis import strategies as st

from shutbox_hw.render.fonts import LARGE, NARROW, SMALL, Font, cap_height

GERMAN = "äöüßÄÖÜ"
ITALIAN = "àèéìíòóùúÀÈÉÌÍÒÓÙÚ"
NAMES = "çÇñÑåÅøØæÆœŒëËïÏÿâêîôûÂÊÎÔÛãõÃÕáÁýÝčšžČŠŽłŁćĆńŃśŚźŹżŻőŐűŰ"


def _ink_rows(rows: tuple[str, ...]) -> list[int]:
    return [i for i, r in enumerate(rows) if "#" in r]


def test_every_letter_the_languages_need_is_drawn():
    for font in (SMALL, LARGE):
        for ch in GERMAN + ITALIAN + NAMES:
            shown = font.normalise(ch)
            assert shown == (ch if font is SMALL or not ch.islower() else
                             {"ß": "SS"}.get(ch, ch.upper())), (font.name, ch, shown)
            for c in shown:
                rows = font.glyphs[c]
                assert len(rows) == font.height and len({len(r) for r in rows}) == 1


def test_plain_capitals_keep_their_height():
    # the legibility rule is measured on the plain capitals and digits
    assert cap_height(LARGE) == 10 and cap_height(SMALL) == 7


def test_accented_capitals_keep_a_readable_body_under_the_mark():
    for font, body in ((LARGE, 7), (SMALL, 5)):
        for ch in "ÄÖÜÀÈÉÌÒÙÑÇ":
            rows = font.glyphs[ch]
            base = unicodedata.normalize("NFD", ch)[0]
            ink = _ink_rows(rows)
            assert ink[0] == 0 and ink[-1] == font.height - 1     # inside the line
            # the body is the base letter's columns, at least `body` rows tall
            assert len(rows[0]) == len(font.glyphs[base][0])
            assert font.height - sum(1 for r in rows if "#" not in r) >= body, ch


def test_lower_case_marks_sit_above_the_x_height():
    for ch in "äöüàèéìòùñ":
        rows = SMALL.glyphs[ch]
        base = unicodedata.normalize("NFD", ch)[0]
        assert "#" in rows[0]                                      # the mark
        assert rows[2:] == SMALL.glyphs["ı" if base == "i" else base][2:]   # the body as is


def test_no_two_letters_look_the_same():
    # (a capital and its own small letter may share a shape in the 5x7 font,
    # as on a character LCD: Ö/ö; two different letters never do)
    for font in (SMALL, LARGE):
        letters = [c for c in font.glyphs if c.isalpha() or c.isdigit()]
        same = [(a, b) for a, b in combinations(letters, 2)
                if font.glyphs[a] == font.glyphs[b] and a.casefold() != b.casefold()]
        assert same == [], font.name


def test_names_the_fonts_lack_are_spelled_not_boxed():
    assert SMALL.normalise("Ŋora") == "Nora"
    assert SMALL.normalise("Đorđe") == "Dorde"
    assert LARGE.normalise("łukasz") == "ŁUKASZ"
    assert LARGE.normalise("ǅemal") == "DZEMAL"     # one letter, two in the font
    assert SMALL.normalise("Bob 🍺") == "Bob "       # an emoji is left out
    assert SMALL.normalise("5 €") == "5 €" and LARGE.normalise("5 €") == "5 €"
    assert NARROW.normalise("12 Ø") == "12 "


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=20))
def test_whatever_is_typed_draws_in_the_font_without_question_marks(name):
    for font in (SMALL, LARGE, NARROW):
        shown = font.normalise(name)
        assert all(c in font.glyphs for c in shown)
        assert shown.count("?") <= name.count("?")


def _font_has_only_even_glyphs(font: Font) -> bool:
    return all(len(rows) == font.height and len({len(r) for r in rows}) == 1
               for rows in font.glyphs.values())


def test_every_glyph_is_a_full_box():
    assert all(_font_has_only_even_glyphs(f) for f in (SMALL, LARGE, NARROW))
