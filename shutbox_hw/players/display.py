"""A player's name as each surface shows it.

- The OLED (:func:`oled_name`): what none of its bitmap fonts can draw (an
  emoji, a script they lack) is left out, the rest is drawn or spelled by the
  fonts themselves (:mod:`shutbox_hw.render.latin`: "Ø" is drawn, "ŧ" spelled
  "t"); a name with no letter or digit left shows its seat's label (P2).
- The TV page and the live feed show the name as typed, or with ``[players]
  public = false`` its initials only (:func:`initials`, :func:`hide_names`):
  "Anna Lena" is "A. L.". Seat labels are nobody's name and stay as they are.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import Any

from ..base.spelling import SPELLED
from .names import is_seat_label, tidy

# where a name sits in the events' JSON (game/model/events.py: the outbox, rounds.result),
# the live summary and the pages' data (network/live.py, store/read/history.py): a name,
# a list of names, a table keyed by names ("shut" is a list in a round, a table in
# a game of the history)
NAME_KEYS = frozenset({"player", "name"})
NAMES_KEYS = frozenset({"players", "winners", "out", "shut"})
KEYED_BY_NAME = frozenset({"scores", "raw", "totals", "balances", "shut", "boxes_shut"})


def _drawn(ch: str) -> str:
    """What the OLED's fonts make of ``ch``: printable ASCII they all have, the
    Latin letters they draw or spell (a base letter and its mark, ß, Ø, ...);
    "" for anything else."""
    if " " <= ch <= "~":
        return ch
    if ch in SPELLED:
        return SPELLED[ch]
    base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
    return base if base != ch and all(" " <= c <= "~" for c in base) else ""


def oled_name(name: str, label: str) -> str:
    """``name`` as the OLED shows it: what no font draws left out, and ``label``
    (the seat's, "P2") when no letter or digit would be left."""
    kept = tidy("".join(ch if _drawn(ch) else " " for ch in tidy(name)))
    if not any(c.isalnum() for ch in kept for c in _drawn(ch)):
        return label
    return kept


def initials(name: str) -> str:
    """"Anna Lena" -> "A. L.": each word's first letter or digit, in capitals
    (a word of signs alone, an emoji, gives none); a seat label stays whole."""
    name = tidy(name)
    if is_seat_label(name):
        return name
    letters = [next((c for c in word if c.isalnum()), "") for word in name.split()]
    return " ".join(f"{c.upper()}." for c in letters if c) or "?"


def public_name(name: str, public: bool) -> str:
    """The name as the TV shows it: as typed, or (``public`` false) its initials."""
    return name if public else initials(name)


def rename(data: Any, new: Callable[[str], str]) -> Any:
    """A copy of JSON data (an event, a summary, a game as the pages give it)
    with every player's name ``name`` made ``new(name)``: the values of
    :data:`NAME_KEYS`, the names listed under :data:`NAMES_KEYS`, the keys of
    the tables under :data:`KEYED_BY_NAME`. Nothing else is touched (a rule
    set's ``preset`` that happens to be spelled like a name stays)."""
    if isinstance(data, list):
        return [rename(v, new) for v in data]
    if not isinstance(data, dict):
        return data
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key in NAME_KEYS and isinstance(value, str):
            out[key] = new(value)
        elif key in NAMES_KEYS and isinstance(value, list):
            out[key] = [new(v) if isinstance(v, str) else rename(v, new) for v in value]
        elif key in KEYED_BY_NAME and isinstance(value, dict):
            out[key] = {new(k): v for k, v in value.items()}
        else:
            out[key] = rename(value, new)
    return out


def hide_names(data: Any) -> Any:
    """A copy of a summary (the live feed, a game as the pages give it) with every
    player's name made its initials (:func:`rename`)."""
    return rename(data, initials)
