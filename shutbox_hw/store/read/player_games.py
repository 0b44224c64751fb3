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

from ...strategy.rating import accuracy_percent
from ..tables.figures import preset_of
from .game_summary import GameSummary, summaries_of

CHART_GAMES = 50       # the charts show the player's last games, this many
BATCH = 200            # download rows read at a time

_SEATS = (
    "SELECT p.game_id, p.seat, r.best, r.moves FROM players p LEFT JOIN player_game_ratings r"
    " ON r.player_id = p.player_id AND r.game_id = p.game_id AND r.moves > 0"
    " WHERE p.player_id = ?")

FIELDS = ("game", "started_at", "rules", "seat", "name", "state", "won", "turns", "score_sum",
          "boxes_shut", "accuracy")


def _rows(db: sqlite3.Connection, seats: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
    """The player's ``seats`` (game, seat, best moves, moves rated), each told from
    the one projection of its game (:mod:`.game_summary`)."""
    games = summaries_of(db, sorted({int(s[0]) for s in seats}))
    return [_row(games[int(game)], int(seat), best, moves) for game, seat, best, moves in seats]


def _row(game: GameSummary, number: int, best: int | None,
         moves: int | None) -> dict[str, Any]:
    seat = game.seat(number)
    return {"game": game.id, "started_at": game.times()["started_at"],
            "rules": preset_of(game.rules_json), "seat": number + 1, "name": seat.name,
            "state": game.state, "won": game.finished and seat.name in game.winners,
            "turns": seat.turns, "score_sum": seat.score_sum, "boxes_shut": seat.boxes_shut,
            "accuracy": None if moves is None else accuracy_percent(best or 0, moves)}


def games_of(db: sqlite3.Connection, player_id: int, limit: int,
             before: int | None = None) -> list[dict[str, Any]]:
    """A page of the player's games, newest first (only games below ``before``)."""
    return _rows(db, db.execute(
        f"{_SEATS} AND p.game_id < ? ORDER BY p.game_id DESC LIMIT ?",
        (player_id, 2**63 - 1 if before is None else before, limit)).fetchall())


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
    rows = db.execute("SELECT game_id, best, moves FROM player_game_ratings"
                      " WHERE player_id = ? AND moves > 0 ORDER BY game_id DESC LIMIT ?",
                      (player_id, CHART_GAMES)).fetchall()
    return [(int(g), percent) for g, best, moves in reversed(rows)
            if (percent := accuracy_percent(int(best), int(moves))) is not None]  # (moves > 0)


def all_games(db: sqlite3.Connection, player_id: int) -> Iterator[list[dict[str, Any]]]:
    """Every game of the player, oldest first, in batches (the downloads: one read
    transaction, so the file is one consistent picture however long it takes)."""
    db.execute("BEGIN")
    try:
        cursor = db.execute(f"{_SEATS} ORDER BY p.game_id", (player_id,))
        while rows := cursor.fetchmany(BATCH):
            yield _rows(db, rows)
    finally:
        db.execute("ROLLBACK")
