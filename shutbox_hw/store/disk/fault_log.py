"""Each fault the box noticed, with its time, detail and recovery (schema 6).

The daemon writes a ``fault`` event's row and marks it recovered at the
matching ``recovered`` event (:mod:`.game_rows`); the disk's own faults are not
written (the disk was refusing). The counts per part since the audits were
reset stay in ``counters`` (:mod:`.audit`).
"""

from __future__ import annotations

import sqlite3
from typing import Any

LIMIT = 100   # the newest faults the faults page lists


def recent_faults(db: sqlite3.Connection, version: int, limit: int = LIMIT) -> list[dict[str, Any]]:
    """Newest first: part, detail, when (None where the clock was not set), recovered
    (None: not yet), ``clock_synced`` as ``history`` has it."""
    if version < 6:
        return []
    return [{"device": device, "detail": detail,
             "at": None if synced == 0 else at, "clock_synced": None if synced is None
             else bool(synced),
             "recovered": recovered is not None,
             "recovered_at": None if recovered is None or synced == 0 else recovered}
            for device, detail, at, synced, recovered in db.execute(
                "SELECT device, detail, at, at_synced, recovered_at FROM fault_log"
                " ORDER BY id DESC LIMIT ?", (limit,))]
