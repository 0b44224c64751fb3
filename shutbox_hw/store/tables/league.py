"""The league's roster on the box, and the league names it verified (schema 9).

``league_roster``: the last roster the league sent (one row per league player, as
its retained message said: :mod:`shutbox_hw.network.league_roster`), kept in the
record so that a box restarted while the pub's internet is down still verifies
claims. ``league_table`` (schema 11): the last venue table the league sent for the
TV (:mod:`shutbox_hw.store.tables.league_table`). ``league_claims``: each league name
whose secret the box verified, with the game being set up then (``game``: the id the
next game takes); the game's message for the league says which of its seats were
verified (:func:`verified`, called by :func:`.game_record.game_record`), and the
league checks it again.
"""

from __future__ import annotations

import sqlite3

from ...players.league_secret import Entry, EntryError, parse_entry
from ...players.names import name_key

TABLES = (
    "CREATE TABLE IF NOT EXISTS league_roster (player INTEGER PRIMARY KEY,"
    " key TEXT NOT NULL, name TEXT NOT NULL, entry TEXT NOT NULL, received_at REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS league_roster_key ON league_roster (key)",
    "CREATE TABLE IF NOT EXISTS league_claims (id INTEGER PRIMARY KEY, game INTEGER NOT NULL,"
    " key TEXT NOT NULL, player INTEGER NOT NULL, at REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS league_claims_game ON league_claims (game)",
)
# schema 10: each league tombstone the box applied (network/league_forget.py), noted in
# the removal's own transaction so that it is applied once. Before schema 10 the first
# tombstone made it (with this same statement): the migration leaves such a table as it is
FORGOTTEN = ("CREATE TABLE IF NOT EXISTS league_forgotten (player INTEGER PRIMARY KEY,"
             " fingerprint TEXT NOT NULL, games INTEGER NOT NULL, applied_at REAL NOT NULL)")
# schema 11: the last TV table the league sent this box (one row: its message as sent,
# store/tables/league_table.py), kept so that the TV shows it between games offline
TV_TABLE = (
    "CREATE TABLE IF NOT EXISTS league_table (id INTEGER PRIMARY KEY CHECK (id = 1),"
    " payload TEXT NOT NULL, received_at REAL NOT NULL)",
)
CLAIMS_KEPT = 500        # games back whose verified claims are kept (a resend needs them)


def keep_entry(db: sqlite3.Connection, entry: Entry, text: str, now: float) -> None:
    """The league's entry for a player, replacing the one before (its own statement)."""
    db.execute("INSERT INTO league_roster (player, key, name, entry, received_at)"
               " VALUES (?, ?, ?, ?, ?) ON CONFLICT (player) DO UPDATE SET key = excluded.key,"
               " name = excluded.name, entry = excluded.entry,"
               " received_at = excluded.received_at",
               (entry.player, entry.key, entry.name, text, now))


def forget_entry(db: sqlite3.Connection, player: int) -> None:
    db.execute("DELETE FROM league_roster WHERE player = ?", (player,))


def league_entry(db: sqlite3.Connection, name: str) -> Entry | None:
    """The league player called ``name`` (compared as the roster compares names), if
    the last roster has one; an entry that no longer parses is none."""
    row = db.execute("SELECT player, entry FROM league_roster WHERE key = ?"
                     " ORDER BY player LIMIT 1", (name_key(name),)).fetchone()
    if row is None:
        return None
    try:
        return parse_entry(row[1], int(row[0]))
    except EntryError:
        return None


def league_keys(db: sqlite3.Connection) -> set[str]:
    """The league players' names as the roster compares them (none before schema 9)."""
    try:
        return {key for key, in db.execute("SELECT key FROM league_roster")}
    except sqlite3.OperationalError:
        return set()


def roster_size(db: sqlite3.Connection) -> int:
    return int(db.execute("SELECT count(*) FROM league_roster").fetchone()[0])


def note_verified(db: sqlite3.Connection, entry: Entry, now: float) -> None:
    """The box verified ``entry``'s secret for the game being set up (the next id)."""
    game, = db.execute("SELECT coalesce(max(id), 0) + 1 FROM games").fetchone()
    db.execute("INSERT INTO league_claims (game, key, player, at) VALUES (?, ?, ?, ?)",
               (game, entry.key, entry.player, now))
    db.execute("DELETE FROM league_claims WHERE game < ?", (game - CLAIMS_KEPT,))


def verified(db: sqlite3.Connection, game_id: int) -> dict[str, int]:
    """The league names verified for the game ``game_id``: name key -> league player id."""
    try:
        rows = db.execute("SELECT key, player FROM league_claims WHERE game = ? ORDER BY id",
                          (game_id,)).fetchall()
    except sqlite3.OperationalError:
        return {}       # a record older than schema 9, read as it is
    return {key: int(player) for key, player in rows}
