"""What "tonight" is: the one definition the idle screen, the TV, ``/tonight``,
the live JSON and Home Assistant all count by.

Tonight is every game *started* in the last 12 hours by the box's own clock,
as the game's row recorded it (``games.started_at``), whether or not that
clock had been synchronised: a box whose network has no time server still
counts its evening's games. Only the times are then not shown (``history``
hides a time taken on an unset clock), so every surface that counts by this
definition also says which clock it counted by (:func:`clock_state`):

- ``"set"``: every game of tonight started on a synchronised clock;
- ``"not set"``: at least one started before the clock was synchronised
  (its time is not shown, and "the last 12 hours" is by the box's unset clock);
- ``"unknown"``: a game recorded before the box noted its clock (schema 1).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from ..tables.capability import Capability, offers, stamped

TONIGHT_S = 12 * 3600
"""How far back tonight reaches."""

ClockState = str   # "set", "not set" or "unknown"


def tonight_since(now: float) -> float:
    """The first start time that is tonight's (by the box's clock at ``now``)."""
    return now - TONIGHT_S


def is_tonight(started_at: float, now: float) -> bool:
    """Whether a game recorded as started at ``started_at`` is one of tonight's."""
    return started_at >= tonight_since(now)


WEEK_S = 7 * 24 * 3600
"""How far back "this week" reaches (the high scores): the last 7 days, by the same
clock as tonight (the box's own, as each game's row recorded its start)."""


def week_since(now: float) -> float:
    """The first start time that is this week's."""
    return now - WEEK_S


def started_since_sql(table: str = "") -> str:
    """The window's test in SQL over ``games`` (``table``: its alias in the query), its
    parameter the window's first start: :func:`tonight_since` or :func:`week_since`."""
    return f"{table}.started_at >= ?" if table else "started_at >= ?"


TONIGHT_WHERE = started_since_sql()
"""The same test in SQL over ``games`` (its parameter: :func:`tonight_since`)."""


def tonight_games(db: sqlite3.Connection, now: float) -> list[tuple[int, bool | None]]:
    """Tonight's games, newest first: ``(id, started on a set clock)`` (None: not noted)."""
    synced = "started_synced" if offers(stamped(db), Capability.CLOCK_SYNC) else "NULL"
    return [(int(i), None if s is None else bool(s)) for i, s in db.execute(
        # "+id": ordered by a sort of tonight's rows, so that SQLite reads them through the
        # index on started_at (ORDER BY id alone has it walk every game by its rowid)
        f"SELECT id, {synced} FROM games WHERE {TONIGHT_WHERE} ORDER BY +id DESC",
        (tonight_since(now),))]


def clock_state(synced: Iterable[bool | None]) -> ClockState:
    """Which clock tonight's games were counted by (see the module's text)."""
    flags = list(synced)
    if any(f is False for f in flags):
        return "not set"
    if any(f is None for f in flags):
        return "unknown"
    return "set"
