"""A game's seats as the league counts them: which seats league players sat in, and
their keys (the name as the box's roster compares names). Beneath the standings'
neighbours that need it (the ratings, the trust marks, the pages' views)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..players.names import is_seat_label, name_key, tidy


@lru_cache(maxsize=65536)
def seat_key(name: str) -> tuple[str, bool]:
    """A seat's name: its key as the roster compares names, and whether it is a seat
    label (P1, P2, ...): a league's few names, many games."""
    shown = tidy(name)
    return name_key(shown), is_seat_label(shown)


def players_of(record: dict[str, Any]) -> dict[int, str]:
    """seat -> the player's key, for the seats league players sat in (a seat label
    such as P1 is casual; a name twice in a game counts at its first seat)."""
    found: dict[int, str] = {}
    for seat in record.get("seats") or []:
        key, label = seat_key(str(seat.get("name", "")))
        if key and not label and key not in found.values():
            found[int(seat["seat"])] = key
    return found
