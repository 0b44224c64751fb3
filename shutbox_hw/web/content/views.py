"""Pages made from the record: what a route reads and the words it puts it in.

The routes (:mod:`.app`) call these (the reads in their worker threads), and so
does the truth test across the surfaces (``tests/pub_truth.py``), so that what
it reads is what a browser gets.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from ...base.events import Tonight
from ...base.i18n import ngettext, tr
from ...store.read.audit import tonight
from ...store.read.tonight import tonight_games
from ...store.tables.ratings import last_turn_accuracy
from ...words.record import CLOCK_NOTES
from . import pages


def tonight_of(db: sqlite3.Connection, now: float) -> tuple[Tonight, set[int]]:
    """Tonight's figures (the idle screen's and the TV's) and its games' ids: the one
    definition of tonight (:mod:`shutbox_hw.store.read.tonight`)."""
    return tonight(db, now), {game for game, _ in tonight_games(db, now)}


def with_rules(db: sqlite3.Connection, games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``games`` (``recent_games``'s), each with its rules table as ``rules_table``: a
    page names the rule set in its own language from it (``rules_shown``), where the
    record's title is English ("House rules (9 tiles, ...)"). A row that cannot be
    read gets none (the page shows the record's title)."""
    ids = [int(g["id"]) for g in games]
    tables: dict[int, Any] = {}
    if ids:
        marks = ", ".join("?" * len(ids))
        for game_id, rules in db.execute(f"SELECT id, rules FROM games WHERE id IN ({marks})",
                                         ids):
            try:
                tables[int(game_id)] = json.loads(rules)
            except (TypeError, ValueError):
                continue
    for g in games:
        if isinstance(tables.get(int(g["id"])), dict):
            g["rules_table"] = tables[int(g["id"])]
    return games


def tonight_html(figures: Tonight, ids: set[int], games: list[dict[str, Any]],
                 pager: str = "") -> str:
    """``/tonight``: the figures, and those of ``games`` (a page of them) that are tonight's."""
    shown = [g for g in games if g["id"] in ids]
    return pages.layout(tr("Tonight"),
                        pages.tonight_body(figures, shown, CLOCK_NOTES[figures.clock]) + pager)


def history_html(games: list[dict[str, Any]], limit: int, pager: str = "") -> str:
    """``/history``: a page of ``limit`` games, newest first."""
    body = ("<h1>" + tr("History") + "</h1><p class=note>"
            + ngettext("{n} game a page, newest first.", "{n} games a page, newest first.",
                       limit).format(n=limit) + "</p>"
            + pages.games_table(games) + pager)
    return pages.layout(tr("History"), body)


def with_accuracy(db: sqlite3.Connection, summary: dict[str, Any]) -> dict[str, Any]:
    """The TV's live summary with the move accuracy of the game's last rated turn
    ("Anna: 6 of 7 best moves"; ``accuracy`` null when there is none)."""
    game = summary.get("game")
    summary["accuracy"] = last_turn_accuracy(db, game) if isinstance(game, int) else None
    return summary
