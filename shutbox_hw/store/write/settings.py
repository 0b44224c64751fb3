"""The box's own adjustments (service menu): a small key/value table.

Kept apart from the game-event writes: a setting is written when the
operator chooses it, read at start and laid over the config file.
"""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any


def load_settings(db: sqlite3.Connection) -> dict[str, Any]:
    """Every adjustment made on the box, by key (empty when none)."""
    rows = db.execute("SELECT key, value FROM settings ORDER BY key").fetchall()
    return {key: json.loads(value) for key, value in rows}


def save_setting(db: sqlite3.Connection, key: str, value: Any,
                 now: float | None = None) -> None:
    """Store one adjustment (replacing the last one of that key)."""
    db.execute("INSERT OR REPLACE INTO settings (key, value, changed_at) VALUES (?, ?, ?)",
               (key, json.dumps(value), time.time() if now is None else now))


def clear_settings(db: sqlite3.Connection) -> None:
    """Back to the config file: forget every adjustment made on the box."""
    db.execute("DELETE FROM settings")
