"""What a finished game is, once: played to its end, not stopped before it.

A game row is finished when it has an end (``ended_at``) and was not abandoned
(stopped from the service menu, or closed by the next game's start). The audits'
and tonight's counts, the kept tallies, the high scores' wins, ``history`` and the
players' pages all ask here: in SQL through :func:`finished_sql`, on a row already
read through :func:`is_finished` (``words.record.game_state`` turns the answer
into the word a person reads).
"""

from __future__ import annotations


def finished_sql(table: str = "") -> str:
    """The test in SQL over ``games`` (``table``: its alias in the query, e.g. ``g``)."""
    prefix = f"{table}." if table else ""
    return f"{prefix}ended_at IS NOT NULL AND NOT {prefix}abandoned"


def is_finished(ended_at: float | None, abandoned: int | bool) -> bool:
    """The same test on a row's ``ended_at`` and ``abandoned``."""
    return ended_at is not None and not abandoned
