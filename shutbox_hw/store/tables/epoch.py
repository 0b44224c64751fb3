"""The record's epoch (schema 8): a random name made once per database.

``seq`` starts again at 1 in a new database, so a box whose SD card was
re-imaged or replaced would collide with its own past in anything that keeps
its messages (the league: :mod:`shutbox_hw.league`). The epoch tells the two
records apart: made when the database is created (or upgraded to schema 8),
never changed afterwards, and carried by every message the box publishes
(``shutbox/<box>/event``, ``/state``, ``/game``).
"""

from __future__ import annotations

import secrets
import sqlite3
import time

TABLE = ("CREATE TABLE IF NOT EXISTS record (id INTEGER PRIMARY KEY CHECK (id = 1),"
         " epoch TEXT NOT NULL, made_at REAL NOT NULL)")


def new_epoch() -> str:
    """16 hex digits from the system's random source (64 bits: two boxes' records
    never share one by chance)."""
    return secrets.token_hex(8)


def make_epoch(db: sqlite3.Connection) -> None:
    """Schema 8's step: the record's table and its epoch (inside the migration's
    transaction; a record that already has one keeps it)."""
    db.execute(TABLE)
    db.execute("INSERT OR IGNORE INTO record (id, epoch, made_at) VALUES (1, ?, ?)",
               (new_epoch(), time.time()))


def epoch_of(db: sqlite3.Connection) -> str | None:
    """The record's epoch (None: a database older than schema 8, not migrated yet)."""
    try:
        row = db.execute("SELECT epoch FROM record WHERE id = 1").fetchone()
    except sqlite3.OperationalError:
        return None   # no such table
    return None if row is None else str(row[0])
