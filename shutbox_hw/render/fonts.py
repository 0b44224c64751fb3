"""Bitmap fonts defined as data, so every machine draws the same pixels.

System fonts and Pillow's built-in font can change between installs and
Pillow releases; golden images must not.  Each glyph is written as rows of
``#`` (lit) and ``.`` (dark), one row per space-separated word.

- ``SMALL``: 5x7, printable ASCII (HD44780-like shapes, lowercase kept
  inside the 7 rows so a text line is 8 px): secondary figures and notes.
  Drawn at scale 2 (10x14) it is the headline font (the rule set's title,
  SHUT THE BOX!, questions).
- ``NARROW``: 3x7 digits (with the signs and k/M/G of big numbers), for
  two-digit flap numbers when 10..12 flaps must share 128 px, and the
  scores of a scoreboard of 5..8 players.
- ``LARGE``: 5x10 capitals, digits and punctuation (lower case is drawn in
  capitals): what a player must read now, 10 px tall so it reads from a bar
  stool on a 2.42" panel (10 px = 4.3 mm, ~10 arc-minutes at 1.5 m).

Which font each piece of a screen uses is :data:`ROLES`: the test suite
measures the primary roles' capital height there, so a layout cannot
quietly shrink them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .latin import LARGE_EXTRA, SMALL_EXTRA, extend, spell

NORMALISED_KEPT = 4096     # texts a font keeps normalised (Font.normalise)


@dataclass(frozen=True, eq=False)
class Font:
    """A bitmap font: glyph rows per character, plus how to space them.

    Compared and hashed by identity (the glyph cache keys on it)."""
    name: str
    height: int
    glyphs: dict[str, tuple[str, ...]]
    fixed: str = "0123456789"      # characters kept at full width (columns align)
    space_width: int = 3
    widths: dict[str, int] = field(default_factory=dict, compare=False)
    # texts already normalised (every screen measures and draws the same few words
    # again at each frame), at most NORMALISED_KEPT, then started afresh
    normalised: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    def normalise(self, text: str) -> str:
        """Map text onto the characters this font has: upper-case for
        capital-only fonts, a letter the font lacks spelled with those it has
        ("Ŧ" -> "T", "ø" -> "o" where there is no "ø"), anything else left out
        (:func:`.latin.spell`): never a "?" for a letter."""
        done = self.normalised.get(text)
        if done is None:
            upper_only = "a" not in self.glyphs
            done = "".join(ch if ch in self.glyphs and not (upper_only and ch.islower())
                           else spell(ch, self.glyphs, upper_only) for ch in text)
            if len(self.normalised) >= NORMALISED_KEPT:
                self.normalised.clear()
            self.normalised[text] = done
        return done

    def glyph_width(self, ch: str) -> int:
        """Width of one glyph in pixels: letters are trimmed to their ink
        (proportional, so more fits), digits keep full width."""
        if ch not in self.widths:
            rows = self.glyphs[ch]
            full = len(rows[0])
            if ch == " ":
                w = self.space_width
            elif ch in self.fixed:
                w = full
            else:
                cols = [c for c in range(full) if any(r[c] == "#" for r in rows)]
                w = (max(cols) - min(cols) + 1) if cols else self.space_width
            self.widths[ch] = w
        return self.widths[ch]

    def glyph_offset(self, ch: str) -> int:
        """First column drawn for ``ch`` (the ink's left edge when trimmed)."""
        rows = self.glyphs[ch]
        if ch == " " or ch in self.fixed:
            return 0
        cols = [c for c in range(len(rows[0])) if any(r[c] == "#" for r in rows)]
        return min(cols) if cols else 0


def _parse(table: dict[str, str], height: int) -> dict[str, tuple[str, ...]]:
    glyphs = {}
    for ch, spec in table.items():
        rows = tuple(spec.split())
        if len(rows) != height or len({len(r) for r in rows}) != 1:
            raise ValueError(f"glyph {ch!r} is not {height} even rows")
        glyphs[ch] = rows
    return glyphs


_SMALL = {
    " ": "..... ..... ..... ..... ..... ..... .....",
    "!": "..#.. ..#.. ..#.. ..#.. ..#.. ..... ..#..",
    '"': ".#.#. .#.#. .#.#. ..... ..... ..... .....",
    "#": ".#.#. .#.#. ##### .#.#. ##### .#.#. .#.#.",
    "$": "..#.. .#### #.#.. .###. ..#.# ####. ..#..",
    "%": "##... ##..# ...#. ..#.. .#... #..## ...##",
    "&": ".##.. #..#. #.#.. .#... #.#.# #..#. .##.#",
    "'": "..#.. ..#.. .#... ..... ..... ..... .....",
    "(": "...#. ..#.. .#... .#... .#... ..#.. ...#.",
    ")": ".#... ..#.. ...#. ...#. ...#. ..#.. .#...",
    "*": "..... ..#.. #.#.# .###. #.#.# ..#.. .....",
    "+": "..... ..#.. ..#.. ##### ..#.. ..#.. .....",
    ",": "..... ..... ..... ..... .##.. ..#.. .#...",
    "-": "..... ..... ..... ##### ..... ..... .....",
    ".": "..... ..... ..... ..... ..... .##.. .##..",
    "/": "..... ....# ...#. ..#.. .#... #.... .....",
    "0": ".###. #...# #..## #.#.# ##..# #...# .###.",
    "1": "..#.. .##.. ..#.. ..#.. ..#.. ..#.. .###.",
    "2": ".###. #...# ....# ...#. ..#.. .#... #####",
    "3": "##### ...#. ..#.. ...#. ....# #...# .###.",
    "4": "...#. ..##. .#.#. #..#. ##### ...#. ...#.",
    "5": "##### #.... ####. ....# ....# #...# .###.",
    "6": "..##. .#... #.... ####. #...# #...# .###.",
    "7": "##### ....# ...#. ..#.. .#... .#... .#...",
    "8": ".###. #...# #...# .###. #...# #...# .###.",
    "9": ".###. #...# #...# .#### ....# ...#. .##..",
    ":": "..... .##.. .##.. ..... .##.. .##.. .....",
    ";": "..... .##.. .##.. ..... .##.. ..#.. .#...",
    "<": "...#. ..#.. .#... #.... .#... ..#.. ...#.",
    "=": "..... ..... ##### ..... ##### ..... .....",
    ">": ".#... ..#.. ...#. ....# ...#. ..#.. .#...",
    "?": ".###. #...# ....# ...#. ..#.. ..... ..#..",
    "@": ".###. #...# ....# .##.# #.#.# #.#.# .###.",
    "A": ".###. #...# #...# ##### #...# #...# #...#",
    "B": "####. #...# #...# ####. #...# #...# ####.",
    "C": ".###. #...# #.... #.... #.... #...# .###.",
    "D": "###.. #..#. #...# #...# #...# #..#. ###..",
    "E": "##### #.... #.... ####. #.... #.... #####",
    "F": "##### #.... #.... ####. #.... #.... #....",
    "G": ".###. #...# #.... #.### #...# #...# .####",
    "H": "#...# #...# #...# ##### #...# #...# #...#",
    "I": ".###. ..#.. ..#.. ..#.. ..#.. ..#.. .###.",
    "J": "..### ...#. ...#. ...#. ...#. #..#. .##..",
    "K": "#...# #..#. #.#.. ##... #.#.. #..#. #...#",
    "L": "#.... #.... #.... #.... #.... #.... #####",
    "M": "#...# ##.## #.#.# #.#.# #...# #...# #...#",
    "N": "#...# #...# ##..# #.#.# #..## #...# #...#",
    "O": ".###. #...# #...# #...# #...# #...# .###.",
    "P": "####. #...# #...# ####. #.... #.... #....",
    "Q": ".###. #...# #...# #...# #.#.# #..#. .##.#",
    "R": "####. #...# #...# ####. #.#.. #..#. #...#",
    "S": ".#### #.... #.... .###. ....# ....# ####.",
    "T": "##### ..#.. ..#.. ..#.. ..#.. ..#.. ..#..",
    "U": "#...# #...# #...# #...# #...# #...# .###.",
    "V": "#...# #...# #...# #...# #...# .#.#. ..#..",
    "W": "#...# #...# #...# #.#.# #.#.# #.#.# .#.#.",
    "X": "#...# #...# .#.#. ..#.. .#.#. #...# #...#",
    "Y": "#...# #...# #...# .#.#. ..#.. ..#.. ..#..",
    "Z": "##### ....# ...#. ..#.. .#... #.... #####",
    "[": ".###. .#... .#... .#... .#... .#... .###.",
    "\\": "..... #.... .#... ..#.. ...#. ....# .....",
    "]": ".###. ...#. ...#. ...#. ...#. ...#. .###.",
    "^": "..#.. .#.#. #...# ..... ..... ..... .....",
    "_": "..... ..... ..... ..... ..... ..... #####",
    "`": ".#... ..#.. ...#. ..... ..... ..... .....",
    "a": "..... ..... .###. ....# .#### #...# .####",
    "b": "#.... #.... #.##. ##..# #...# #...# ####.",
    "c": "..... ..... .###. #.... #.... #...# .###.",
    "d": "....# ....# .##.# #..## #...# #...# .####",
    "e": "..... ..... .###. #...# ##### #.... .###.",
    "f": "..##. .#..# .#... ###.. .#... .#... .#...",
    "g": "..... .#### #...# #...# .#### ....# .###.",
    "h": "#.... #.... #.##. ##..# #...# #...# #...#",
    "i": "..#.. ..... .##.. ..#.. ..#.. ..#.. .###.",
    "j": "...#. ..... ..##. ...#. ...#. #..#. .##..",
    "k": "#.... #.... #..#. #.#.. ##... #.#.. #..#.",
    "l": ".##.. ..#.. ..#.. ..#.. ..#.. ..#.. .###.",
    "m": "..... ..... ##.#. #.#.# #.#.# #...# #...#",
    "n": "..... ..... #.##. ##..# #...# #...# #...#",
    "o": "..... ..... .###. #...# #...# #...# .###.",
    "p": "..... ..... ####. #...# ####. #.... #....",
    "q": "..... ..... .##.# #..## .#### ....# ....#",
    "r": "..... ..... #.##. ##..# #.... #.... #....",
    "s": "..... ..... .###. #.... .###. ....# ####.",
    "t": ".#... .#... ###.. .#... .#... .#..# ..##.",
    "u": "..... ..... #...# #...# #...# #..## .##.#",
    "v": "..... ..... #...# #...# #...# .#.#. ..#..",
    "w": "..... ..... #...# #...# #.#.# #.#.# .#.#.",
    "x": "..... ..... #...# .#.#. ..#.. .#.#. #...#",
    "y": "..... ..... #...# #...# .#### ....# .###.",
    "z": "..... ..... ##### ...#. ..#.. .#... #####",
    "{": "...#. ..#.. ..#.. .#... ..#.. ..#.. ...#.",
    "|": "..#.. ..#.. ..#.. ..#.. ..#.. ..#.. ..#..",
    "}": ".#... ..#.. ..#.. ...#. ..#.. ..#.. .#...",
    "~": "..... ..... .#... #.#.# ...#. ..... .....",
}

_NARROW = {
    "0": "### #.# #.# #.# #.# #.# ###",
    "1": ".#. ##. .#. .#. .#. .#. .#.",
    "2": "### ..# ..# ### #.. #.. ###",
    "3": "### ..# ..# ### ..# ..# ###",
    "4": "#.# #.# #.# ### ..# ..# ..#",
    "5": "### #.. #.. ### ..# ..# ###",
    "6": "### #.. #.. ### #.# #.# ###",
    "7": "### ..# ..# .#. .#. .#. .#.",
    "8": "### #.# #.# ### #.# #.# ###",
    "9": "### #.# #.# ### ..# ..# ###",
    "?": "### ..# ..# .## .#. ... .#.",
    " ": "... ... ... ... ... ... ...",
    "-": "... ... ... ### ... ... ...",
    "+": "... ... .#. ### .#. ... ...",
    "k": "#.. #.. #.# ##. #.# #.# #.#",
    "M": "#.# ### ### #.# #.# #.# #.#",
    "G": "### #.. #.. #.# #.# #.# ###",
}

_LARGE = {
    "A": ".###. #...# #...# #...# #...# ##### #...# #...# #...# #...#",
    "B": "####. #...# #...# #...# ####. #...# #...# #...# #...# ####.",
    "C": ".###. #...# #.... #.... #.... #.... #.... #.... #...# .###.",
    "D": "###.. #..#. #...# #...# #...# #...# #...# #...# #..#. ###..",
    "E": "##### #.... #.... #.... ####. #.... #.... #.... #.... #####",
    "F": "##### #.... #.... #.... ####. #.... #.... #.... #.... #....",
    "G": ".###. #...# #.... #.... #.### #...# #...# #...# #...# .###.",
    "H": "#...# #...# #...# #...# ##### #...# #...# #...# #...# #...#",
    "I": "### .#. .#. .#. .#. .#. .#. .#. .#. ###",
    "J": "..### ...#. ...#. ...#. ...#. ...#. ...#. #..#. #..#. .##..",
    "K": "#...# #..#. #..#. #.#.. ##... #.#.. #..#. #..#. #...# #...#",
    "L": "#.... #.... #.... #.... #.... #.... #.... #.... #.... #####",
    "M": "#...# ##.## #.#.# #.#.# #...# #...# #...# #...# #...# #...#",
    "N": "#...# #...# ##..# ##..# #.#.# #.#.# #..## #..## #...# #...#",
    "O": ".###. #...# #...# #...# #...# #...# #...# #...# #...# .###.",
    "P": "####. #...# #...# #...# ####. #.... #.... #.... #.... #....",
    "Q": ".###. #...# #...# #...# #...# #...# #...# #.#.# #..#. .##.#",
    "R": "####. #...# #...# #...# ####. #.#.. #..#. #..#. #...# #...#",
    "S": ".###. #...# #.... #.... .###. ....# ....# ....# #...# .###.",
    "T": "##### ..#.. ..#.. ..#.. ..#.. ..#.. ..#.. ..#.. ..#.. ..#..",
    "U": "#...# #...# #...# #...# #...# #...# #...# #...# #...# .###.",
    "V": "#...# #...# #...# #...# #...# #...# .#.#. .#.#. ..#.. ..#..",
    "W": "#...# #...# #...# #...# #...# #.#.# #.#.# #.#.# ##.## #...#",
    "X": "#...# #...# .#.#. .#.#. ..#.. ..#.. .#.#. .#.#. #...# #...#",
    "Y": "#...# #...# #...# .#.#. .#.#. ..#.. ..#.. ..#.. ..#.. ..#..",
    "Z": "##### ....# ...#. ...#. ..#.. ..#.. .#... .#... #.... #####",
    "0": ".###. #...# #...# #..## #.#.# #.#.# ##..# #...# #...# .###.",
    "1": "..#.. .##.. #.#.. ..#.. ..#.. ..#.. ..#.. ..#.. ..#.. #####",
    "2": ".###. #...# ....# ....# ...#. ..#.. .#... #.... #.... #####",
    "3": ".###. #...# ....# ....# ..##. ....# ....# ....# #...# .###.",
    "4": "...#. ..##. ..##. .#.#. .#.#. #..#. ##### ...#. ...#. ...#.",
    "5": "##### #.... #.... ####. ....# ....# ....# ....# #...# .###.",
    "6": ".###. #...# #.... #.... ####. #...# #...# #...# #...# .###.",
    "7": "##### ....# ....# ...#. ...#. ..#.. ..#.. .#... .#... .#...",
    "8": ".###. #...# #...# #...# .###. #...# #...# #...# #...# .###.",
    "9": ".###. #...# #...# #...# #...# .#### ....# ....# #...# .###.",
    " ": "... ... ... ... ... ... ... ... ... ...",
    "!": "# # # # # # # . # #",
    ".": ".. .. .. .. .. .. .. .. ## ##",
    ",": ".. .. .. .. .. .. .. ## ## #.",
    ":": ".. .. ## ## .. .. .. .. ## ##",
    ";": ".. .. ## ## .. .. .. ## ## #.",
    "'": "# # # . . . . . . .",
    '"': "#.# #.# #.# ... ... ... ... ... ... ...",
    "-": ".... .... .... .... .... #### .... .... .... ....",
    "+": "..... ..... ..#.. ..#.. ..#.. ##### ..#.. ..#.. ..#.. .....",
    "=": "..... ..... ..... ##### ..... ..... ##### ..... ..... .....",
    "/": "....# ....# ...#. ...#. ..#.. ..#.. .#... .#... #.... #....",
    "%": "##..# ##..# ...#. ...#. ..#.. ..#.. .#... .#... #..## #..##",
    "?": ".###. #...# ....# ....# ...#. ..#.. ..#.. ..... ..#.. ..#..",
    "(": "..# .#. #.. #.. #.. #.. #.. #.. .#. ..#",
    ")": "#.. .#. ..# ..# ..# ..# ..# ..# .#. #..",
    "<": "..... ...## ..#.. .#... #.... .#... ..#.. ...## ..... .....",
    ">": "..... ##... ..#.. ...#. ....# ...#. ..#.. ##... ..... .....",
    "*": "..... ..... #.#.# .###. ##### .###. #.#.# ..... ..... .....",
    "&": ".##.. #..#. #..#. .##.. .#... #.#.# #..#. #..#. #..## .##.#",
    "#": "..... .#.#. .#.#. ##### .#.#. .#.#. ##### .#.#. .#.#. .....",
    "_": "..... ..... ..... ..... ..... ..... ..... ..... ..... #####",
}

SMALL = Font("small", 7, extend(_parse(_SMALL, 7), 7, 2, 5, _parse(SMALL_EXTRA, 7)))
# the narrow "1" is trimmed to its 2 px of ink, so "10" packs tight and the
# gap between two flaps' numbers stays clearly wider than inside a number
NARROW = Font("narrow", 7, _parse(_NARROW, 7), fixed="023456789")
LARGE = Font("large", 10, extend(_parse(_LARGE, 10), 10, None, 8, _parse(LARGE_EXTRA, 10)))


# What each piece of a screen is drawn in: (font, scale). "Primary" roles are
# what a player must read now; they must stay at least PRIMARY_MIN_PX tall.
PRIMARY_MIN_PX = 10
ROLES: dict[str, tuple[Font, int]] = {
    "player": (LARGE, 1),        # whose turn
    "prompt": (LARGE, 1),        # what to do now
    "message": (LARGE, 1),       # what to fix now
    "score": (LARGE, 2),         # the turn's score
    "scores": (LARGE, 1),        # the scoreboard's rows (up to 4 players)
    "winner": (LARGE, 1),
    "headline": (SMALL, 2),      # SHUT THE BOX!, the rule set's title, questions
    "secondary": (SMALL, 1),     # round, totals, chances, notes, headers
    "tiles": (SMALL, 1),         # the flap numbers (the flaps themselves are in view)
    "menu": (LARGE, 1),          # the operator menu's lines and their values
    "figures": (LARGE, 1),       # tonight's figures on the idle screen
    "shut_player": (LARGE, 2),   # who shut the box, on its own screen
    "counts": (SMALL, 1),        # the switch test's counts (the flaps themselves are live)
}
PRIMARY = ("player", "prompt", "message", "score", "scores", "winner", "headline", "menu",
           "figures", "shut_player")


def role(name: str) -> tuple[Font, int]:
    """The (font, scale) a screen piece is drawn in."""
    return ROLES[name]


def cap_height(font: Font, scale: int = 1) -> int:
    """Lit rows of the capitals and digits (the tallest), in pixels."""
    rows = [i for ch in "EHT0123456789" if ch in font.glyphs
            for i, row in enumerate(font.glyphs[ch]) if "#" in row]
    return (max(rows) - min(rows) + 1) * scale
