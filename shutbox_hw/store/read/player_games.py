"""One player's own games, read for their page, its charts and their downloads.

Every read starts from the player's seats through ``players_player
(player_id, game_id)``, newest first, and takes a bounded number of them (a
page, the charts' last games); a game's turns are found by the turns' own
index on ``game_id``. So a page costs the same for a regular of five years as
for tonight's newcomer, and the record's size does not matter. The downloads
walk the player's seats from a cursor, a batch at a time (constant memory).

A time taken while the box's clock was not set is not given (``None``), as in
``history``: the Pi has no battery clock.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

from ...words.record import game_state
from ..tables.figures import preset_of
from ..tables.player_stats import winner_names

CHART_GAMES = 50       # the charts show the player's last games, this many
BATCH = 200            # download rows read at a time

_GAME = (
    "SELECT p.game_id, p.seat, p.name, g.started_at, g.started_synced, g.ended_at,"
    " g.abandoned, g.rules, g.winners,"
    " (SELECT COUNT(*) FROM turns t WHERE t.game_id = p.game_id AND t.seat = p.seat"
    "  AND t.ended_at IS NOT NULL AND t.score IS NOT NULL),"
    " (SELECT SUM(t.score) FROM turns t WHERE t.game_id = p.game_id AND t.seat = p.seat"
    "  AND t.ended_at IS NOT NULL AND t.score IS NOT NULL),"
    " (SELECT COUNT(*) FROM turns t WHERE t.game_id = p.game_id AND t.seat = p.seat"
    "  AND t.shut),"
    " (SELECT 100.0 * r.best / r.moves FROM player_game_ratings r WHERE r.player_id ="
    "  p.player_id AND r.game_id = p.game_id AND r.moves > 0)"
    " FROM players p JOIN games g ON g.id = p.game_id WHERE p.player_id = ?")

FIELDS = ("game", "started_at", "rules", "seat", "name", "state", "won", "turns", "score_sum",
          "boxes_shut", "accuracy")


def _row(row: tuple[Any, ...]) -> dict[str, Any]:
    (game, seat, name, started, synced, ended, abandoned, rules, winners, turns, score_sum,
     shut, accuracy) = row
    finished = ended is not None and not abandoned
    state = game_state({"finished": finished, "abandoned": bool(abandoned)})
    return {"game": game, "started_at": None if synced == 0 else started,
            "rules": preset_of(rules), "seat": seat + 1, "name": name, "state": state,
            "won": finished and name in winner_names(winners), "turns": turns,
            "score_sum": score_sum or 0, "boxes_shut": shut,
            "accuracy": None if accuracy is None else round(accuracy, 1)}


def games_of(db: sqlite3.Connection, player_id: int, limit: int,
             before: int | None = None) -> list[dict[str, Any]]:
    """A page of the player's games, newest first (only games below ``before``)."""
    return [_row(r) for r in db.execute(
        f"{_GAME} AND p.game_id < ? ORDER BY p.game_id DESC LIMIT ?",
        (player_id, 2**63 - 1 if before is None else before, limit))]


def turn_scores(db: sqlite3.Connection, player_id: int) -> list[tuple[int, int]]:
    """``(game, score)`` of each scored turn in the player's last :data:`CHART_GAMES`
    games, oldest first (the turn-score chart)."""
    return [(int(g), int(s)) for g, s in db.execute(
        "WITH last AS (SELECT game_id, seat FROM players WHERE player_id = ?"
        " ORDER BY game_id DESC LIMIT ?) SELECT t.game_id, t.score FROM last CROSS JOIN turns t"
        " ON t.game_id = last.game_id AND t.seat = last.seat WHERE t.ended_at IS NOT NULL"
        " AND t.score IS NOT NULL ORDER BY t.game_id, t.round", (player_id, CHART_GAMES))]


def skill(db: sqlite3.Connection, player_id: int) -> list[tuple[int, float]]:
    """``(game, percentage of best moves)`` of the player's last :data:`CHART_GAMES`
    rated games with a move to rate, oldest first (the skill chart)."""
    rows = db.execute("SELECT game_id, 100.0 * best / moves FROM player_game_ratings"
                      " WHERE player_id = ? AND moves > 0 ORDER BY game_id DESC LIMIT ?",
                      (player_id, CHART_GAMES)).fetchall()
    return [(int(g), round(float(p), 1)) for g, p in reversed(rows)]


def all_games(db: sqlite3.Connection, player_id: int) -> Iterator[list[dict[str, Any]]]:
    """Every game of the player, oldest first, in batches (the downloads: one read
    transaction, so the file is one consistent picture however long it takes)."""
    db.execute("BEGIN")
    try:
        cursor = db.execute(f"{_GAME} ORDER BY p.game_id", (player_id,))
        while rows := cursor.fetchmany(BATCH):
            yield [_row(r) for r in rows]
    finally:
        db.execute("ROLLBACK")
