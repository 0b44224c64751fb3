"""The league's table on the box's TV (issue 41, item 5).

The league publishes, retained, each box's TV table on ``shutbox/league/table/<box>``
(league/tables.py): the season running, the box's venue's table and the league's top
players, as ``league standings`` ranks them and the public may see them, and when the
league made it (``as_of``). The pub's bridge brings it in beside the roster; the box
subscribes to its own (network/session.py), keeps the last one in its record
(``league_table``, schema 11: :func:`take`), and the TV page shows it between games
(:func:`shown`, the live summary's ``league``), with its date, however long the pub's
internet is down. An empty retained message removes it. A message is validated
(at most 4 KB like every packet the box takes, v 1, its fields' types); one that is
not a table is refused in one line and the box keeps the one it had.

A player deleted at the league leaves the kept table as the tombstone is applied
(:func:`forget`, from network/league_forget.py), before the league's next table comes.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any

BOX_TABLE = "shutbox/league/table"
MAX_TABLE = 4096
ROW_INTS = ("rank", "games", "wins", "points")


def table_topic(box: str) -> str:
    return f"{BOX_TABLE}/{box}"


class TableError(ValueError):
    """Not a table the box takes (message: why, one line)."""


def _rows(data: Any, where: str) -> list[dict[str, Any]]:
    if not isinstance(data, list) or len(data) > 50:
        raise TableError(f"its {where} is not a list of rows")
    rows = []
    for row in data:
        if not isinstance(row, dict):
            raise TableError(f"a row of its {where} is not an object")
        player = row.get("player")
        if not isinstance(player, str) or not player.strip() or len(player) > 120:
            raise TableError(f"a row of its {where} has no player's name")
        if not all(isinstance(row.get(k), int) and not isinstance(row.get(k), bool)
                   for k in ROW_INTS):
            raise TableError(f"the row of {player!r} in its {where} lacks a whole number of "
                             + ", ".join(ROW_INTS))
        rows.append({"rank": row["rank"], "player": player, "games": row["games"],
                     "wins": row["wins"], "points": row["points"]})
    return rows


def parse(payload: bytes) -> dict[str, Any]:
    """The table a message holds, as the box keeps and shows it."""
    if len(payload) > MAX_TABLE:
        raise TableError(f"longer than {MAX_TABLE} bytes")
    try:
        data = json.loads(payload)
    except (ValueError, UnicodeDecodeError):
        raise TableError("not JSON") from None
    if not isinstance(data, dict) or data.get("v") != 1:
        raise TableError("not a table of version 1")
    season, venue, as_of = data.get("season"), data.get("venue"), data.get("as_of")
    if season is not None and not isinstance(season, str):
        raise TableError("its season is not a name")
    if not isinstance(venue, str) or not isinstance(as_of, str) or len(as_of) > 40:
        raise TableError("it has no venue or no date")
    return {"v": 1, "season": season, "venue": venue, "as_of": as_of,
            "table": _rows(data.get("table"), "table"), "top": _rows(data.get("top"), "top")}


def take(db: sqlite3.Connection, payload: bytes, now: float) -> str | None:
    """The league's table kept in the record (None), or why it was not (one line)."""
    if not payload:
        db.execute("DELETE FROM league_table")
        return None
    try:
        table = parse(payload)
    except TableError as error:
        return f"the league's table was refused: {error}"
    db.execute("INSERT INTO league_table (id, payload, received_at) VALUES (1, ?, ?)"
               " ON CONFLICT (id) DO UPDATE SET payload = excluded.payload,"
               " received_at = excluded.received_at", (json.dumps(table), now))
    return None


def kept(db: sqlite3.Connection) -> dict[str, Any] | None:
    """The last table the league sent, as kept (None: none, or a record before schema
    10, or a row that no longer parses)."""
    try:
        row = db.execute("SELECT payload FROM league_table WHERE id = 1").fetchone()
    except sqlite3.OperationalError:     # a record before schema 11
        return None
    if row is None:
        return None
    try:
        return parse(str(row[0]).encode("utf-8"))
    except TableError:
        return None


def shown(db: sqlite3.Connection) -> dict[str, Any] | None:
    """What the TV shows between games: the kept table while it has a season and a row
    (``season``, ``venue``, ``as_of``, ``table``, ``top``), else None."""
    table = kept(db)
    if table is None or table["season"] is None or not (table["table"] or table["top"]):
        return None
    return {k: table[k] for k in ("season", "venue", "as_of", "table", "top")}


def forget(db: sqlite3.Connection, deleted: Callable[[str], bool]) -> None:
    """The kept table without the rows of the player ``deleted`` says is the one
    deleted at the league (the caller's transaction)."""
    table = kept(db)
    if table is None:
        return
    left = {**table, "table": [r for r in table["table"] if not deleted(r["player"])],
            "top": [r for r in table["top"] if not deleted(r["player"])]}
    if left != table:
        db.execute("UPDATE league_table SET payload = ? WHERE id = 1", (json.dumps(left),))
