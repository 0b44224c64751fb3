"""Pages made from the record: what a route reads and the words it puts it in.

The routes (:mod:`.app`) call these, and so does the truth test across the
surfaces (``tests/pub_truth.py``), so that what it reads is what a browser gets.
"""

from __future__ import annotations

import sqlite3

from ..store.audit import tonight
from ..store.history import recent_games
from ..store.tonight import CLOCK_NOTES, tonight_games
from . import pages


def tonight_html(db: sqlite3.Connection, now: float, schema: int) -> str:
    """``/tonight``: the figures the idle screen and the TV show, and tonight's games
    (one definition of tonight: :mod:`shutbox_hw.store.tonight`)."""
    ids = {game for game, _ in tonight_games(db, now)}
    newer, = db.execute("SELECT COUNT(*) FROM games WHERE id >= ?",
                        (min(ids, default=0),)).fetchone()
    games = [g for g in recent_games(db, newer, schema) if g["id"] in ids]
    figures = tonight(db, now)
    return pages.layout("Tonight", pages.tonight_body(figures, games, CLOCK_NOTES[figures.clock]))


def history_html(db: sqlite3.Connection, limit: int, more: int, schema: int) -> str:
    """``/history``: the ``limit`` newest games (``more``: the next page's limit)."""
    games = recent_games(db, limit, schema)
    body = (f"<h1>History</h1><p class=note>The {limit} newest games "
            f'(<a href="?limit={more}">more</a>).</p>' + pages.games_table(games))
    return pages.layout("History", body)
