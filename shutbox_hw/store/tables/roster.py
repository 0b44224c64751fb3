"""The roster: every player the box has seen, by name (schema 7).

A seat's name becomes a player the first time a game starts with it
(:func:`seen`, in the step's own transaction); the same name again, in any
case or with or without its accents (:func:`~shutbox_hw.players.names.name_key`),
is the same player, whose ``last_seen`` moves on and whose name is shown as
last typed. Seat labels (P1..P8) are nobody: their seats point at no player.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from ...players.names import is_seat_label, name_key


@dataclass(frozen=True)
class Player:
    id: int
    name: str
    first_seen: float
    last_seen: float


def seen(db: sqlite3.Connection, name: str, now: float) -> int | None:
    """The roster id of the player ``name`` (added, or its ``last_seen`` moved to
    ``now``); None for a seat label."""
    key = name_key(name)
    if is_seat_label(name) or not key:
        return None
    row = db.execute("SELECT id FROM roster WHERE key = ?", (key,)).fetchone()
    if row is None:
        return db.execute("INSERT INTO roster (name, key, first_seen, last_seen)"
                          " VALUES (?, ?, ?, ?)", (name, key, now, now)).lastrowid
    db.execute("UPDATE roster SET name = ?, last_seen = max(last_seen, ?) WHERE id = ?",
               (name, now, row[0]))
    return int(row[0])


def recent(db: sqlite3.Connection, limit: int = 40) -> list[Player]:
    """The players most recently seen first (read through ``roster_last_seen``)."""
    return [Player(*row) for row in db.execute(
        "SELECT id, name, first_seen, last_seen FROM roster"
        " ORDER BY last_seen DESC, id DESC LIMIT ?", (limit,))]


def find(db: sqlite3.Connection, name: str) -> Player | None:
    """The player called ``name`` (case and accents folded), if the roster has one."""
    row = db.execute("SELECT id, name, first_seen, last_seen FROM roster WHERE key = ?",
                     (name_key(name),)).fetchone()
    return Player(*row) if row else None


def migrate_to_7(db: sqlite3.Connection) -> None:
    """The roster built once from the names already in the record: each name's
    first and last game, the seats pointed at their player."""
    rows = db.execute(
        "SELECT p.name, min(g.started_at), max(g.started_at) FROM players p"
        " JOIN games g ON g.id = p.game_id GROUP BY p.name ORDER BY max(g.started_at)").fetchall()
    db.execute("CREATE TEMP TABLE roster_names (name TEXT PRIMARY KEY, key TEXT NOT NULL)")
    for name, first, last in rows:
        key = name_key(name)
        if is_seat_label(name) or not key:
            continue
        db.execute("INSERT INTO roster (name, key, first_seen, last_seen) VALUES (?, ?, ?, ?)"
                   " ON CONFLICT (key) DO UPDATE SET name = excluded.name,"
                   " first_seen = min(first_seen, excluded.first_seen),"
                   " last_seen = max(last_seen, excluded.last_seen)", (name, key, first, last))
        db.execute("INSERT INTO temp.roster_names VALUES (?, ?)", (name, key))
    # one pass over the seats, each name looked up through the temporary table's key
    db.execute("UPDATE players SET player_id = (SELECT r.id FROM temp.roster_names n"
               " JOIN roster r ON r.key = n.key WHERE n.name = players.name)")
    db.execute("DROP TABLE temp.roster_names")
