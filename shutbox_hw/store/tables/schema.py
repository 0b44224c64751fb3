"""The database's layout, its version, and the steps from each version to the next.

A shutbox-hw database carries ``PRAGMA application_id`` (ours) and
``PRAGMA user_version`` (the schema). Databases written before the version
existed have neither but have our tables: they are schema 1. Opening for
writing migrates forward one step at a time in one transaction; a newer
schema or somebody else's database is refused with one plain line.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from ...base.errors import shown_path
from ...base.textfile import file_kind, os_problem
from .epoch import make_epoch
from .figures import migrate_to_5
from .game_record import add_topic
from .league import FORGOTTEN as LEAGUE_FORGOTTEN
from .league import TABLES as LEAGUE_TABLES
from .league import TV_TABLE
from .player_stats import migrate_player_stats
from .ratings import TABLES as RATING_TABLES
from .ratings import start_mark
from .roster import migrate_to_7

APP_ID = 0x53425857  # "SBHW"
VERSION = 11

# schema 1: the tables as first released (no version stamp)
SCHEMA_1 = """
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    started_at REAL NOT NULL,
    ended_at REAL,
    rules TEXT NOT NULL,
    dice_mode TEXT NOT NULL,
    winners TEXT,
    abandoned INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE players (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE rounds (
    game_id INTEGER NOT NULL REFERENCES games(id),
    number INTEGER NOT NULL,
    ended_at REAL NOT NULL,
    result TEXT NOT NULL,
    PRIMARY KEY (game_id, number)
);
CREATE TABLE turns (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    round INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    started_at REAL NOT NULL,
    ended_at REAL,
    open_tiles TEXT,
    score INTEGER,
    final_score INTEGER,
    shut INTEGER,
    UNIQUE (game_id, round, seat)
);
CREATE TABLE throws (
    id INTEGER PRIMARY KEY,
    turn_id INTEGER NOT NULL REFERENCES turns(id),
    number INTEGER NOT NULL,
    dice TEXT,
    closed TEXT,
    rolled_at REAL NOT NULL,
    committed_at REAL,
    UNIQUE (turn_id, number)
);
CREATE TABLE rejected_flaps (
    id INTEGER PRIMARY KEY,
    turn_id INTEGER NOT NULL REFERENCES turns(id),
    flap INTEGER NOT NULL,
    reason TEXT NOT NULL,
    at REAL NOT NULL
);
"""

# MIGRATIONS[n] takes schema n to n + 1: SQL statements, or a function of the
# connection for a step SQL alone cannot take
Migration = str | Callable[[sqlite3.Connection], None]
MIGRATIONS: dict[int, tuple[Migration, ...]] = {
    # 2: whether the clock was synchronised when a game started / ended (the Pi has no
    # RTC: before NTP its clock is wherever it stopped). NULL: not recorded (schema 1).
    1: ("ALTER TABLE games ADD COLUMN started_synced INTEGER",
        "ALTER TABLE games ADD COLUMN ended_synced INTEGER"),
    # 3: audit counters (switch actuations "switch:flap 7", faults "fault:MCP23017 0x20",
    # and "since:game", the last game before the audits were reset), and the
    # adjustments made on the box's service menu, which override the config file
    # until reset from the menu (value: JSON text)
    2: ("CREATE TABLE IF NOT EXISTS counters (key TEXT PRIMARY KEY,"
        " count INTEGER NOT NULL DEFAULT 0)",
        "CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL,"
        " changed_at REAL NOT NULL)"),
    # 4: the MQTT outbox (store/tables/outbox.py): every event queued for the broker in the
    # transaction that records it; AUTOINCREMENT so a sequence number is never reused
    # after its row is deleted on the broker's PUBACK (consumers drop duplicates by it)
    3: ("CREATE TABLE IF NOT EXISTS outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT,"
        " at REAL NOT NULL, event TEXT NOT NULL)",),
    # 5: nothing the daemon reads grows with the record (issue 29): the audits' figures
    # kept up to date by each write (store/tables/figures.py), built here once from the rows;
    # tonight's window read through an index on started_at; the unfinished game (at
    # every start, and abandoned by every new game) found through a partial index
    4: ("CREATE INDEX IF NOT EXISTS games_started_at ON games (started_at)",
        "CREATE INDEX IF NOT EXISTS games_unfinished ON games (id) WHERE ended_at IS NULL",
        migrate_to_5),
    # 6: what the box shows right now (store/read/shown.py): one row the daemon replaces
    # after every step it changes, read by the TV page and Home Assistant's state;
    # and each fault with its time, detail and recovery (the faults page)
    5: ("CREATE TABLE IF NOT EXISTS shown (id INTEGER PRIMARY KEY CHECK (id = 1),"
        " game_id INTEGER, at REAL NOT NULL, data TEXT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS fault_log (id INTEGER PRIMARY KEY, device TEXT NOT NULL,"
        " detail TEXT NOT NULL, at REAL NOT NULL, at_synced INTEGER, recovered_at REAL)"),
    # 7: the players who come back (issue 34, store/tables/roster.py): every name a seat was
    # given, once per player (``key``: case and accents folded), with when it was first
    # and last seen; each seat of a game points at its player (NULL: a seat label
    # P1..P8, or a player removed from the roster, whose games were anonymised);
    # the move accuracy (store/tables/ratings.py): each rated move, turn and player, and the
    # mark of what is rated; each player's statistics kept up to date by every write,
    # built once here from the games already played (store/tables/player_stats.py)
    6: ("CREATE TABLE IF NOT EXISTS roster (id INTEGER PRIMARY KEY, name TEXT NOT NULL,"
        " key TEXT NOT NULL UNIQUE, first_seen REAL NOT NULL, last_seen REAL NOT NULL)",
        "CREATE INDEX IF NOT EXISTS roster_last_seen ON roster (last_seen)",
        "ALTER TABLE players ADD COLUMN player_id INTEGER REFERENCES roster(id)",
        "CREATE INDEX IF NOT EXISTS players_player ON players (player_id, game_id)",
        migrate_to_7, *RATING_TABLES, start_mark, migrate_player_stats),
    # 8: the record knows itself (issue 40, store/tables/epoch.py): a random epoch made once,
    # carried by every message, so a new database's seq never collides with an old one's;
    # the outbox's topic (NULL: an event; "game": a whole ended game for the league,
    # store/tables/game_record.py)
    7: (make_epoch, add_topic),
    # 9: the league's players (issue 41, item 1; store/tables/league.py): the last roster the
    # league sent (names and what verifies their secrets), kept so that a box restarted
    # offline verifies claims; and each league name verified for a game being set up
    8: LEAGUE_TABLES,
    # 10: a turn's rejected flaps read through an index on their turn (the scorecard's
    # count and the league's game message join them by turn: without it each read scans
    # every rejected flap of the record, benchmarks/rejected_flaps.py); the league's
    # tombstones applied (store/tables/league.py), made till now by the first one applied:
    # both IF NOT EXISTS, so a record where that table is already is migrated as it is
    9: ("CREATE INDEX IF NOT EXISTS rejected_flaps_turn ON rejected_flaps (turn_id)",
        LEAGUE_FORGOTTEN),
    # 11: the last venue table the league sent for the TV (issue 41, item 5;
    # store/tables/league_table.py), shown between games however long the pub is offline
    10: TV_TABLE,
}

TABLES_1 = {"games", "players", "rounds", "turns", "throws", "rejected_flaps"}
GAME_COLUMNS_1 = {"id", "started_at", "ended_at", "rules", "dice_mode", "winners", "abandoned"}


class SchemaError(Exception):
    """The file is not a database this version of shutbox-hw can use (message: the reason)."""


def version_of(db: sqlite3.Connection, path: str | Path) -> int:
    """The schema of an open database: 0 for an empty one, else 1..VERSION.

    Raises :class:`SchemaError` for somebody else's database or a newer schema.
    """
    name = shown_path(path)
    app_id, = db.execute("PRAGMA application_id").fetchone()
    version, = db.execute("PRAGMA user_version").fetchone()
    tables = {t for t, in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if app_id == APP_ID:
        if version > VERSION:
            raise SchemaError(f"{name} was written by a newer shutbox-hw (schema {version}); "
                              f"upgrade shutbox-hw (this one reads schema {VERSION})")
        if 1 <= version and TABLES_1 <= tables:
            return int(version)
        raise SchemaError(f"{name} is not a shutbox-hw database (damaged: schema {version})")
    if app_id != 0 or version != 0:
        raise SchemaError(f"{name} is not a shutbox-hw database (another program's schema)")
    if not tables:
        return 0
    columns = {c for _, c, *_ in db.execute("PRAGMA table_info(games)")}
    if TABLES_1 <= tables and GAME_COLUMNS_1 <= columns:
        return 1  # written before the schema had a version
    raise SchemaError(f"{name} is not a shutbox-hw database (other tables)")


def steps(db: sqlite3.Connection, old: int, to: int) -> None:
    """Build schema ``to`` from schema ``old`` (0: an empty file), one step at a time,
    in the caller's transaction, without stamping it (:func:`migrate`; tests build a
    record of each older schema with it)."""
    if old == 0:
        for table in filter(str.strip, SCHEMA_1.split(";")):
            db.execute(table)
    for step in range(max(old, 1), to):
        for statement in MIGRATIONS[step]:
            if isinstance(statement, str):
                db.execute(statement)
            else:
                statement(db)


def migrate(db: sqlite3.Connection, path: str | Path) -> int:
    """Create or bring the schema up to :data:`VERSION` in one transaction; the old version."""
    db.execute("BEGIN IMMEDIATE")
    try:
        old = version_of(db, path)
        if old == VERSION:
            db.execute("ROLLBACK")  # nothing to write: a full disk can still be read
            return old
        steps(db, old, VERSION)
        db.execute(f"PRAGMA application_id = {APP_ID}")
        db.execute(f"PRAGMA user_version = {VERSION}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return old


def not_a_regular_file(path: Path) -> str | None:
    """Why ``path`` cannot be a database file (None if it is one or does not exist yet).

    SQLite would open a FIFO and wait on it for ever, so this is checked first.
    """
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return None
    except OSError as error:
        return os_problem(error, "database")
    kind = file_kind(mode)
    return f"is {kind}, not a database file" if kind else None


def sqlite_problem(error: sqlite3.Error) -> str:
    """A plain phrase for an SQLite failure: locked, read-only, unreadable, not a database."""
    code = getattr(error, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else -1   # -1: no SQLite code
    phrases = {
        sqlite3.SQLITE_BUSY: "is locked by another program (try again)",
        sqlite3.SQLITE_LOCKED: "is locked by another program (try again)",
        sqlite3.SQLITE_READONLY: "is read-only here",
        sqlite3.SQLITE_CANTOPEN: "cannot be opened (its directory or file is unreadable"
                                 " or read-only)",
        sqlite3.SQLITE_PERM: "cannot be opened (permission denied)",
        sqlite3.SQLITE_AUTH: "cannot be opened (permission denied)",
        sqlite3.SQLITE_NOTADB: "is not a shutbox-hw database (not an SQLite file)",
        sqlite3.SQLITE_CORRUPT: "is damaged (SQLite reports corruption)",
        sqlite3.SQLITE_FULL: "cannot be written: the disk is full",
        sqlite3.SQLITE_IOERR: "cannot be read (input/output error)",
    }
    return phrases.get(primary, f"cannot be used: {error}")
