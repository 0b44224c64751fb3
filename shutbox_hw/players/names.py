"""A player's name: what is accepted, and when two names are the same player.

One rule for every way a seat gets its name (the config file, the roster on
the box, a phone): at most :data:`MAX_NAME_CHARS` characters once trimmed and
with runs of spaces made one, no control characters, not blank. Two names are
the same player when they fold to the same :func:`name_key`: case and accents
do not count ("zoë" is "Zoe"), spaces at the ends and doubled inside neither.
"""

from __future__ import annotations

import unicodedata

from ..spelling import SPELLED

# a name on the TV's flap row at 720p and on one line of the OLED's small font
MAX_NAME_CHARS = 16


def tidy(name: str) -> str:
    """Trimmed, inner runs of white space made one space, in NFC."""
    return " ".join(unicodedata.normalize("NFC", name).split())


def name_problem(name: object) -> str | None:
    """Why ``name`` cannot be a player's name (None: it can, once :func:`tidy`)."""
    if not isinstance(name, str):
        return "a name must be text"
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") and ch not in " \t"
           for ch in name):
        return "a name cannot hold control characters"
    clean = tidy(name)
    if not clean:
        return "a name cannot be blank"
    if len(clean) > MAX_NAME_CHARS:
        return f"a name has at most {MAX_NAME_CHARS} characters ({clean[:20]!r} has {len(clean)})"
    if not name_key(clean):
        return "a name needs a letter or a digit"
    return None


def name_key(name: str) -> str:
    """The name as the roster compares it: case- and accent-insensitive."""
    spelled = "".join(SPELLED.get(ch, ch) for ch in tidy(name))
    decomposed = unicodedata.normalize("NFKD", spelled.casefold())
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
