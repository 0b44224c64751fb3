"""What a schema version offers, by name: the one place a schema's number is compared.

A reader that must also read an older record (the web pages and the commands open a
file as it is, without migrating it) asks ``offers(version, Capability.PLAYERS)``
rather than ``version >= 7``, so that what each schema brought is written once, here,
beside the migration that brings it (:data:`.schema.MIGRATIONS`).
``tests/test_one_meaning.py`` fails on a bare schema number compared anywhere else.

This module imports nothing of the package: the tables' own modules (imported by
:mod:`.schema`) may ask it too.
"""

from __future__ import annotations

import sqlite3
from enum import IntEnum


class Capability(IntEnum):
    """Each what a schema offers, valued by the first schema that has it."""

    GAMES = 1          # the record's tables (0: an empty file, nothing written yet)
    CLOCK_SYNC = 2     # games' started_synced / ended_synced
    COUNTERS = 3       # the audits' counters and the service menu's settings
    OUTBOX = 4         # the MQTT outbox
    KEPT_FIGURES = 5   # the audits' figures kept by every write
    SHOWN = 6          # the box's picture (the mirror) and the fault log
    PLAYERS = 7        # the roster, the move ratings and each player's kept statistics
    EPOCH = 8          # the record's epoch and the outbox's topic
    LEAGUE = 9         # the league's roster and the league names verified
    FORGOTTEN = 10     # the league's tombstones applied; rejected flaps indexed by turn
    LEAGUE_TABLE = 11  # the last venue table the league sent for the TV


def offers(version: int, capability: Capability) -> bool:
    """Whether a record of schema ``version`` (0: empty, or schema 1 unstamped where
    the stamp is read as it is) has ``capability``."""
    return version >= capability


def stamped(db: sqlite3.Connection) -> int:
    """The schema the record is stamped with (``PRAGMA user_version``: 0 for an empty
    file and for schema 1, written before the stamp; :func:`.schema.version_of` tells
    those two apart and checks the file is ours)."""
    version, = db.execute("PRAGMA user_version").fetchone()
    return int(version)
