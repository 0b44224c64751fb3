"""What the box shows right now, kept in the record for the other screens.

The daemon replaces the one row of ``shown`` (schema 6) after every step that
changes the picture (:func:`shutbox_hw.game.shown.shown`): a flap shut but not
taken yet, or refused with its reason, is in no game row, yet the TV page and
Home Assistant must show it as the box does. The row is a mirror, not a
record: it is written without waiting for the disk (``synchronous=NORMAL``, in
WAL mode still never a damaged file) and never counted among the game's writes;
a write the disk refuses is simply skipped, and a power cut that loses it loses
nothing (the box writes it again at its first step).
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from .schema import VERSION

NORMAL = 1  # PRAGMA synchronous: 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA


def publish(store: Any, data: dict[str, Any]) -> bool:
    """Replace the shown row through ``store``'s connection (True if written).

    Nothing is written while the store is degraded or inside a transaction.
    """
    db: sqlite3.Connection | None = getattr(store, "db", None)
    if db is None or getattr(store, "fault", None) is not None or db.in_transaction:
        return False
    try:
        # one cursor kept for these writes: a new one a step would pile up in the
        # connection's list of its cursors until the next sweep (test_sim_memory.py)
        cursor: sqlite3.Cursor | None = getattr(store, "_shown_cursor", None)
        if cursor is None or cursor.connection is not db:
            cursor = db.cursor()
            store._shown_cursor = cursor
        # the connection's own level is put back as it was (FULL for the record,
        # whatever a test or a drop-in made it): this write only lowers it for itself
        level = int(cursor.execute("PRAGMA synchronous").fetchone()[0])
        cursor.execute(f"PRAGMA synchronous={min(level, NORMAL)}")
        try:
            cursor.execute("INSERT OR REPLACE INTO shown (id, game_id, at, data)"
                           " VALUES (1, ?, ?, ?)",
                           (store.game_id, store._clock(), json.dumps(data)))
        finally:
            cursor.execute(f"PRAGMA synchronous={level}")
    except sqlite3.Error:
        return False
    return True


def read_shown(db: sqlite3.Connection, version: int = VERSION) -> dict[str, Any] | None:
    """The picture the box last wrote, with its ``game`` (None: a database from
    before schema 6, or the box has drawn nothing yet)."""
    if version < 6:
        return None
    row = db.execute("SELECT game_id, data FROM shown WHERE id = 1").fetchone()
    if row is None:
        return None
    try:
        data = json.loads(row[1])
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    data["game"] = row[0]
    return data
