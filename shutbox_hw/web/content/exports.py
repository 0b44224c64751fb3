"""The CSV exports, streamed: a few hundred rows at a time off a cursor, in constant memory.

Each export has its own read-only connection (one read transaction: a
consistent file however long the download takes), read in worker threads by
Starlette's ``StreamingResponse`` and closed when the file is done or the
client goes away.
"""

from __future__ import annotations

import csv
import io
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from ...store.read.history import recent_games

BATCH = 500            # turns per chunk sent
GAME_BATCH = 50        # games per chunk sent (each is a few queries: history's own)

GAMES_HEAD = ["game", "started_at", "ended_at", "rules", "state", "rounds", "players",
              "winners", "totals", "boxes_shut"]
TURNS_HEAD = ["game", "round", "player", "started_at", "ended_at", "score", "final_score",
              "shut", "open"]


def csv_text(head: Sequence[str] | None, rows: Iterable[Sequence[Any]]) -> str:
    """CSV lines (the head first if given); a cell a spreadsheet would take for a formula
    gets a leading quote."""
    out = io.StringIO()
    writer = csv.writer(out)
    if head is not None:
        writer.writerow(head)
    writer.writerows([[_cell(c) for c in row] for row in rows])
    return out.getvalue()


def _cell(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@"):
        return "'" + value
    return value


def turns_csv(db: sqlite3.Connection) -> Iterator[str]:
    """Every turn, oldest first."""
    try:
        db.execute("BEGIN")
        cursor = db.execute(
            "SELECT t.game_id, t.round, p.name, t.started_at, t.ended_at, t.score,"
            " t.final_score, t.shut, t.open_tiles FROM turns t JOIN players p"
            " ON p.game_id = t.game_id AND p.seat = t.seat ORDER BY t.id")
        yield csv_text(TURNS_HEAD, ())
        while rows := cursor.fetchmany(BATCH):
            yield csv_text(None, rows)
    finally:
        db.close()


def games_csv(db: sqlite3.Connection, schema: int) -> Iterator[str]:
    """Every game, oldest first, as ``history`` lists it."""
    try:
        db.execute("BEGIN")
        yield csv_text(GAMES_HEAD, ())
        after = -1
        while ids := [i for i, in db.execute("SELECT id FROM games WHERE id > ? ORDER BY id"
                                               " LIMIT ?", (after, GAME_BATCH))]:
            after = ids[-1]
            games = recent_games(db, len(ids), schema, before=after + 1)
            yield csv_text(None, (_game_row(g) for g in reversed(games)))
    finally:
        db.close()


def _game_row(g: dict[str, Any]) -> list[Any]:
    return [g["id"], g["started_at"], g["ended_at"], g["preset"],
            "finished" if g["finished"] else "abandoned" if g["abandoned"] else "playing",
            g["rounds"], ";".join(g["players"]), ";".join(g["winners"]),
            ";".join(f"{p}={t}" for p, t in g["totals"].items()),
            sum(g["boxes_shut"].values())]
