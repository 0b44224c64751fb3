"""Pages made from the record: what a route reads and the words it puts it in.

The routes (:mod:`.app`) call these (the reads in their worker threads), and so
does the truth test across the surfaces (``tests/pub_truth.py``), so that what
it reads is what a browser gets.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from ..events import Tonight
from ..store.audit import tonight
from ..store.tonight import CLOCK_NOTES, tonight_games
from . import pages


def tonight_of(db: sqlite3.Connection, now: float) -> tuple[Tonight, set[int]]:
    """Tonight's figures (the idle screen's and the TV's) and its games' ids: the one
    definition of tonight (:mod:`shutbox_hw.store.tonight`)."""
    return tonight(db, now), {game for game, _ in tonight_games(db, now)}


def tonight_html(figures: Tonight, ids: set[int], games: list[dict[str, Any]],
                 pager: str = "") -> str:
    """``/tonight``: the figures, and those of ``games`` (a page of them) that are tonight's."""
    shown = [g for g in games if g["id"] in ids]
    return pages.layout("Tonight", pages.tonight_body(figures, shown, CLOCK_NOTES[figures.clock])
                        + pager)


def history_html(games: list[dict[str, Any]], limit: int, pager: str = "") -> str:
    """``/history``: a page of ``limit`` games, newest first."""
    body = (f"<h1>History</h1><p class=note>{limit} games a page, newest first.</p>"
            + pages.games_table(games) + pager)
    return pages.layout("History", body)
