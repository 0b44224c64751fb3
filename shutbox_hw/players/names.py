"""A player's name: what is accepted, and when two names are the same player.

One rule for every way a seat gets its name (the config file, the roster on
the box, a phone): at most :data:`MAX_NAME_CHARS` characters once trimmed, in
NFKC and with runs of spaces made one; no control characters, no invisible ones
(zero-width, the Hangul fillers such as U+3164, the Braille blank, variation
selectors); at most :data:`MAX_MARKS` accents on one letter; the letters of one
script (or of a mix a language writes with: Latin with Han and Kana, Han with
Hangul, after Unicode's UTS #39), so "Аnna" with a Cyrillic A is refused rather
than taken as a new player who looks like Anna; not blank. Two names are the
same player when they fold to the same :func:`name_key`: compatibility forms,
case and accents do not count ("zoë" is "Zoe", "𝐀nna" is "Anna"), spaces at
the ends and doubled inside neither.
"""

from __future__ import annotations

import unicodedata

from ..base.spelling import SPELLED

# a name on the TV's flap row at 720p and on one line of the OLED's small font
MAX_NAME_CHARS = 16
MAX_MARKS = 2        # accents on one letter (Vietnamese stacks two: "ệ")
# letters that show as nothing (the control and format characters are refused as such)
INVISIBLE = frozenset(
    [0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800, 0x034F, 0x17B4, 0x17B5, *range(0x180B, 0x1810),
     *range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)])
# scripts a language writes together (UTS #39, "highly restrictive"); the first word
# of a letter's Unicode name is its script here
TOGETHER = (frozenset({"LATIN", "CJK", "HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA"}),
            frozenset({"LATIN", "CJK", "BOPOMOFO"}), frozenset({"LATIN", "CJK", "HANGUL"}))
NO_SCRIPT = frozenset({"MODIFIER"})


def tidy(name: str) -> str:
    """Trimmed, inner runs of white space made one space, in NFKC (a bold
    mathematical A is an A)."""
    return " ".join(unicodedata.normalize("NFKC", name).split())


def name_problem(name: object) -> str | None:
    """Why ``name`` cannot be a player's name (None: it can, once :func:`tidy`)."""
    if not isinstance(name, str):
        return "a name must be text"
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") and ch not in " \t"
           for ch in name):
        return "a name cannot hold control characters"
    if any(ord(ch) in INVISIBLE or unicodedata.category(ch) in ("Co", "Cn", "Cs")
           for ch in name):
        return "a name cannot hold invisible characters"
    if _most_marks(name) > MAX_MARKS:
        return f"a name has at most {MAX_MARKS} accents on a letter"
    if not _one_script(name):
        return "a name is written in one alphabet (letters of two look alike)"
    clean = tidy(name)
    if not clean:
        return "a name cannot be blank"
    if len(clean) > MAX_NAME_CHARS:
        # the name itself is quoted by the caller (cut if long): never a cut name with
        # the whole one's length, as if the 20 characters shown were 26
        return f"a name has at most {MAX_NAME_CHARS} characters, this one has {len(clean)}"
    if not name_key(clean):
        return "a name needs a letter or a digit"
    return None


def _most_marks(name: str) -> int:
    """The most combining marks on one letter of ``name``: every mark (categories Mn,
    Mc, Me), not only those with a combining class (an enclosing circle U+20DD, a
    spacing sign U+0903 have class 0 and stack all the same)."""
    most = run = 0
    for ch in unicodedata.normalize("NFD", name):
        run = run + 1 if unicodedata.category(ch).startswith("M") else 0
        most = max(most, run)
    return most


def _one_script(name: str) -> bool:
    """The letters of ``name`` (in their compatibility forms) of one script, or of
    scripts a language writes together."""
    scripts = {unicodedata.name(ch, "?").split(" ")[0]
               for ch in unicodedata.normalize("NFKD", name) if ch.isalpha()} - NO_SCRIPT
    return len(scripts) <= 1 or any(scripts <= allowed for allowed in TOGETHER)


def name_key(name: str) -> str:
    """The name as the roster compares it: compatibility forms, case and accents
    folded (Unicode's order: decomposed, then case-folded, then decomposed again)."""
    spelled = "".join(SPELLED.get(ch, ch) for ch in tidy(name))
    decomposed = unicodedata.normalize(
        "NFKD", unicodedata.normalize("NFKD", spelled).casefold())
    kept = "".join(ch for ch in decomposed
                   if not unicodedata.combining(ch) and (ch.isalnum() or ch == " "))
    return " ".join(kept.split())


def same_player(a: str, b: str) -> bool:
    return name_key(a) == name_key(b)


def seat_label(seat: int) -> str:
    """The label of a seat nobody named: P1 for the first (seat 0)."""
    return f"P{seat + 1}"


def is_seat_label(name: str) -> bool:
    """P1, P2, ...: the name of a seat nobody named (no player of the roster)."""
    return len(name) >= 2 and name[0] == "P" and name[1:].isdigit() and name[1] != "0"
