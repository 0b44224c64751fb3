"""The accented Latin letters of the bitmap fonts, and what stands in for the rest.

German, Italian and the names players type need more than ASCII: ä ö ü ß,
à è é ì ò ù, ç ñ å ø æ œ and the like. Most of them are a base letter with a
mark, so they are built from the font's own glyphs rather than drawn again:

- a **lower-case** letter keeps its body (SMALL: rows 2-6, the x-height) and
  takes the mark in row 0, with row 1 as the gap (as the dot of "i");
- a **capital** is squashed to leave room for the mark: rows that repeat the
  one above (a straight stroke) are dropped from the middle outwards until
  the mark and a one-row gap fit. LARGE keeps 8 of its 10 rows, SMALL 5 of 7:
  the plain capitals and digits keep their full height (the legibility rule
  measures them), the accented ones stay inside the line.

The letters that are not a base plus a mark (ß æ œ ø ð þ ...) are drawn here
by hand. Anything still outside a font is transliterated (:func:`spell`), so a
name never shows a "?" box.
"""

from __future__ import annotations

import unicodedata

from ..base.spelling import SPELLED

# combining mark -> its rows, 5 px wide (narrower bodies take the middle
# columns): a point or two dots need one row, a slanted stroke two
MARKS: dict[str, tuple[str, ...]] = {
    "\u0300": (".#...", "..#.."),   # grave      à
    "\u0301": ("...#.", "..#.."),   # acute      á
    "\u0302": ("..#..", ".#.#."),   # circumflex â
    "\u0303": (".##.#", "#..#."),   # tilde      ñ
    "\u030a": ("..##.", "..##."),   # ring       å (a small o)
    "\u030c": (".#.#.", "..#.."),   # caron      č
    "\u0306": ("#...#", ".###."),   # breve      ă
    "\u030b": ("..#.#", ".#.#."),   # double acute ő
    "\u0308": (".#.#.",),           # diaeresis  ä
    "\u0304": (".###.",),           # macron     ā
    "\u0307": ("..#..",),           # dot above  ż
}
# marks below the letter: the cedilla and ogonek hang in the bottom row,
# so the body is squashed from above instead
BELOW: dict[str, str] = {"\u0327": "..#..", "\u0328": "...#."}

# the letters built from a base and a mark: Latin-1 and Latin Extended-A
COMPOSED = "".join(
    ch for ch in map(chr, [*range(0xC0, 0x100), *range(0x100, 0x180)])
    if len(unicodedata.normalize("NFD", ch)) == 2
    and unicodedata.normalize("NFD", ch)[1] in MARKS.keys() | BELOW.keys())

# drawn by hand: SMALL is 5x7 (lower case in rows 2-6), LARGE 5x10 capitals
SMALL_EXTRA: dict[str, str] = {
    "ß": ".##.. #..#. #.#.. #..#. #...# #...# #.##.",
    "æ": "..... ..... ##.#. ..#.# .#### #.#.. .#.##",
    "Æ": ".#### #.#.. #.#.. ##### #.#.. #.#.. #.###",
    "œ": "..... ..... .#.#. #.#.# #.##. #.#.. .#.##",
    "Œ": ".#### #.#.. #.#.. #.##. #.#.. #.#.. .####",
    "ø": "..... ....# .###. #.#.# #.#.# .###. #....",
    "Ø": "....# .###. #..## #.#.# ##..# .###. #....",
    "ð": ".#.#. ..#.. .#.#. .###. #...# #...# .###.",
    "Ð": "###.. #..#. #...# ###.# #...# #..#. ###..",
    "þ": "#.... #.... ####. #...# ####. #.... #....",
    "Þ": "#.... ####. #...# #...# ####. #.... #....",
    "ı": "..... ..... .##.. ..#.. ..#.. ..#.. .###.",
    "ł": ".##.. ..#.. ..#.# ..##. .##.. ..#.. .###.",
    "Ł": ".#... .#... .#.#. .##.. ##... .#... .####",
    "€": "..##. .#..# ####. .#... ####. .#..# ..##.",
    "£": "..##. .#..# .#... ###.. .#... .#... #####",
    "°": ".##.. #..#. #..#. .##.. ..... ..... .....",
    "·": "..... ..... ..... .##.. .##.. ..... .....",
    "«": "..... ..#.# .#.#. #.#.. .#.#. ..#.# .....",
    "»": "..... #.#.. .#.#. ..#.# .#.#. #.#.. .....",
    "×": "..... #...# .#.#. ..#.. .#.#. #...# .....",
}
LARGE_EXTRA: dict[str, str] = {
    "ẞ": ".##.. #..#. #..#. #.#.. #..#. #...# #...# #...# #..#. #.##.",
    "Æ": ".#### #.#.. #.#.. #.#.. ##### #.#.. #.#.. #.#.. #.#.. #.###",
    "Œ": ".#### #.#.. #.#.. #.#.. #.##. #.#.. #.#.. #.#.. #.#.. .####",
    "Ø": "....# .###. #..## #..## #.#.# #.#.# ##..# ##..# .###. #....",
    "Ð": "###.. #..#. #...# #...# ###.# #...# #...# #...# #..#. ###..",
    "Þ": "#.... #.... ####. #...# #...# #...# ####. #.... #.... #....",
    "Ł": ".#... .#... .#... .#.#. .##.. ##... .#... .#... .#... .####",
    "€": "..##. .#..# .#... ####. .#... ####. .#... .#... .#..# ..##.",
    "£": "..##. .#..# .#... .#... ###.. .#... .#... .#... .#... #####",
    "°": ".##. #..# #..# .##. .... .... .... .... .... ....",
    "·": ".. .. .. .. ## ## .. .. .. ..",
    "×": "..... ..... #...# .#.#. ..#.. .#.#. #...# ..... ..... .....",
}
# the capital-only LARGE draws these lower-case letters as its capitals
# (ß as SS, the way German is set in capitals on signs and scoreboards)
LARGE_UPPER = {"ß": "SS", "ı": "I", "ł": "Ł", "ð": "Ð", "þ": "Þ"}

# what stands in for a character no font has: the letters NFKD cannot take
# apart, and signs; anything else not in the font is left out


def _squash(rows: list[str], keep: int, drop_from_top: bool = False) -> list[str]:
    """``rows`` cut to ``keep`` rows by dropping rows that repeat their
    neighbour, nearest the middle first (a straight stroke gets shorter);
    if none repeat, the middle rows go."""
    rows = list(rows)
    while len(rows) > keep:
        mid = (len(rows) - 1) / 2
        repeats = [i for i in range(1, len(rows)) if rows[i] == rows[i - 1]]
        if repeats:
            i = min(repeats, key=lambda i: (abs(i - mid), -i if drop_from_top else i))
        else:
            i = len(rows) // 2
        del rows[i]
    return rows


def _mark(pattern: str, width: int) -> str:
    """The mark's row for a body ``width`` px wide (centred)."""
    if width >= len(pattern):
        pad = width - len(pattern)
        return "." * (pad // 2) + pattern + "." * (pad - pad // 2)
    cut = (len(pattern) - width) // 2
    return pattern[cut:cut + width]


def compose(ch: str, glyphs: dict[str, tuple[str, ...]], height: int,
            lower_top: int | None, min_body: int) -> tuple[str, ...] | None:
    """The glyph of ``ch`` (a base letter and one mark) built from ``glyphs``,
    or None when the font has no base for it.

    ``lower_top``: the row where the font's lower case starts (None: the font
    has no lower case, so a lower-case letter is drawn as its capital);
    ``min_body``: the fewest rows a capital keeps (a row between mark and
    body only when that leaves them)."""
    decomposed = unicodedata.normalize("NFD", ch)
    base, mark = decomposed[0], decomposed[1]
    lower = base.islower()
    if lower and lower_top is None:
        base, lower = base.upper(), False
    if base == "i" and lower:
        base = "ı"                     # the dot gives way to the mark
    if base not in glyphs:
        return None
    rows = list(glyphs[base])
    w = len(rows[0])
    blank = "." * w
    if mark in BELOW:
        if lower and lower_top is not None:   # the body rises one row (as "g" does)
            body = rows[lower_top:]
            return tuple([blank] * (lower_top - 1) + body + [_mark(BELOW[mark], w)])
        return tuple(_squash(rows, height - 2, drop_from_top=True)
                     + [blank, _mark(BELOW[mark], w)])
    top = [_mark(row, w) for row in MARKS[mark]]
    if lower and lower_top is not None:
        if any("#" in r for r in rows[:lower_top]) or len(top) > lower_top:
            return None                # an ascender where the mark goes
        return tuple(top + [blank] * (lower_top - len(top)) + rows[lower_top:])
    gap = [blank] if height - len(top) - 1 >= min_body else []
    return tuple(top + gap + _squash(rows, height - len(top) - len(gap)))


def extend(glyphs: dict[str, tuple[str, ...]], height: int, lower_top: int | None,
           min_body: int, extra: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    """``glyphs`` with the hand-drawn ``extra`` letters and every composed one."""
    out = {**glyphs, **extra}
    for ch in COMPOSED:
        if ch not in out and (lower_top is not None or not ch.islower()):
            glyph = compose(ch, out, height, lower_top, min_body)
            if glyph is not None:
                out[ch] = glyph
    return out


def spell(ch: str, has: dict[str, tuple[str, ...]], upper_only: bool) -> str:
    """What ``ch`` becomes in a font whose glyphs are ``has``: itself, its
    capital, its letters without the mark ("ǅ" -> "Dž" -> "DZ"), a spelling
    (ß -> ss, ø -> o, € -> EUR), or nothing (an emoji, a sign no font has)."""
    if upper_only:
        upper = LARGE_UPPER.get(ch, ch.upper() if len(ch.upper()) == 1 else ch)
        if len(upper) > 1:
            return "".join(spell(c, has, upper_only) for c in upper)
        ch = upper
    if ch in has:
        return ch
    if ch in SPELLED:
        return "".join(spell(c, has, upper_only) for c in SPELLED[ch])
    parts = [c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c)]
    if parts and parts != [ch]:
        return "".join(spell(c, has, upper_only) for c in parts)
    if ch.isspace():
        return " " if " " in has else ""
    return ""
