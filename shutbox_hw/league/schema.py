"""The league's PostgreSQL tables and their versioned migrations.

``league_schema`` holds one row: the version. :func:`migrate` takes the
database from its version to :data:`VERSION` one step at a time, each step
in the same transaction as the new version (a failed step leaves the
database as it was); a database of a newer version is refused.
"""

from __future__ import annotations

from typing import Any

VERSION = 8

STEPS: dict[int, tuple[str, ...]] = {
    # 1: the boxes, their records (epochs), the games as the boxes recorded them, the
    # games still asked for, and the messages kept aside (a different duplicate, a
    # message for another box, one that cannot be read)
    1: (
        "CREATE TABLE boxes (box text PRIMARY KEY, venue text,"
        " first_seen timestamptz NOT NULL DEFAULT now(),"
        " last_seen timestamptz NOT NULL DEFAULT now())",
        "CREATE TABLE epochs (box text NOT NULL REFERENCES boxes(box), epoch text NOT NULL,"
        " first_seen timestamptz NOT NULL DEFAULT now(),"
        " last_seen timestamptz NOT NULL DEFAULT now(),"
        " latest integer, latest_at timestamptz, PRIMARY KEY (box, epoch))",
        "CREATE TABLE games (box text NOT NULL, epoch text NOT NULL, game integer NOT NULL,"
        " state text NOT NULL, started_at double precision, ended_at double precision,"
        " seq bigint, record jsonb NOT NULL, ratings jsonb NOT NULL,"
        " received_at timestamptz NOT NULL DEFAULT now(),"
        " PRIMARY KEY (box, epoch, game), FOREIGN KEY (box, epoch) REFERENCES epochs)",
        "CREATE TABLE seats (box text NOT NULL, epoch text NOT NULL, game integer NOT NULL,"
        " seat integer NOT NULL, name text NOT NULL, PRIMARY KEY (box, epoch, game, seat),"
        " FOREIGN KEY (box, epoch, game) REFERENCES games ON DELETE CASCADE)",
        "CREATE INDEX seats_name ON seats (lower(name))",
        "CREATE TABLE missing (box text NOT NULL, epoch text NOT NULL, game integer NOT NULL,"
        " noticed_at timestamptz NOT NULL DEFAULT now(), asked_at timestamptz,"
        " asks integer NOT NULL DEFAULT 0, PRIMARY KEY (box, epoch, game))",
        "CREATE TABLE set_aside (id bigserial PRIMARY KEY,"
        " received_at timestamptz NOT NULL DEFAULT now(), topic text NOT NULL, box text,"
        " epoch text, game integer, reason text NOT NULL, payload text NOT NULL)",
    ),
    # 2: seasons (issue 41, item 2): dates (inclusive, UTC), the rule sets and venues
    # whose games count (empty: every one), the games a player needs to be ranked
    2: (
        "CREATE TABLE seasons (name text PRIMARY KEY CHECK (name <> ''),"
        " starts date NOT NULL, ends date NOT NULL CHECK (ends >= starts),"
        " rules text[] NOT NULL DEFAULT '{}', venues text[] NOT NULL DEFAULT '{}',"
        " min_games integer NOT NULL DEFAULT 3 CHECK (min_games >= 1),"
        " created_at timestamptz NOT NULL DEFAULT now())",
    ),
    # 3: the kept values (issue 41, item 3): each season's ratings per player (key: the
    # name as the roster compares it) and standings (league-wide: venue ''; per venue),
    # replaced whole by each refresh (league/ratings.py); the rated games a player needs
    # for an accuracy band, per season
    3: (
        "ALTER TABLE seasons ADD COLUMN band_games integer NOT NULL DEFAULT 10"
        " CHECK (band_games >= 1)",
        "CREATE TABLE kept_ratings (season text NOT NULL REFERENCES seasons ON DELETE CASCADE,"
        " player text NOT NULL, mu double precision, sigma double precision,"
        " rating double precision, rating_games integer NOT NULL, band text,"
        " band_accuracy double precision, accuracy_games integer NOT NULL,"
        " PRIMARY KEY (season, player))",
        "CREATE TABLE kept_standings (season text NOT NULL REFERENCES seasons"
        " ON DELETE CASCADE, venue text NOT NULL, player text NOT NULL, row jsonb NOT NULL,"
        " PRIMARY KEY (season, venue, player))",
        "CREATE TABLE kept_state (games integer NOT NULL,"
        " refreshed_at timestamptz NOT NULL DEFAULT now())",
    ),
    # 4: luck beside skill (issue 41, item 4): each game's luck per player, kept once
    # (a game's throws never change), and its sum per season beside the ratings
    4: (
        "CREATE TABLE kept_luck (box text NOT NULL, epoch text NOT NULL, game integer"
        " NOT NULL, player text NOT NULL, luck double precision NOT NULL,"
        " turns integer NOT NULL, PRIMARY KEY (box, epoch, game, player),"
        " FOREIGN KEY (box, epoch, game) REFERENCES games ON DELETE CASCADE)",
        "ALTER TABLE kept_ratings ADD COLUMN luck double precision,"
        " ADD COLUMN luck_turns integer NOT NULL DEFAULT 0",
    ),
    # 5: trust marks (issue 41, item 7): a season that counts only games whose dice the
    # box saw (software or module); the games flagged as unlikely (a closure faster than
    # a hand, a player's dice far from fair over a season), the games each flag names,
    # and the operator's decision (cleared, or excluded: its games count nowhere)
    5: (
        "ALTER TABLE seasons ADD COLUMN checked_dice boolean NOT NULL DEFAULT false",
        "CREATE TABLE flags (id bigserial PRIMARY KEY, key text NOT NULL UNIQUE,"
        " kind text NOT NULL CHECK (kind IN ('fast', 'dice')), box text, epoch text,"
        " game integer, season text REFERENCES seasons ON DELETE CASCADE, player text,"
        " reason text NOT NULL, found_at timestamptz NOT NULL DEFAULT now(),"
        " decision text CHECK (decision IN ('cleared', 'excluded')), decided_at timestamptz)",
        "CREATE TABLE flag_games (flag bigint NOT NULL REFERENCES flags ON DELETE CASCADE,"
        " box text NOT NULL, epoch text NOT NULL, game integer NOT NULL,"
        " PRIMARY KEY (flag, box, epoch, game))",
        "CREATE INDEX flag_games_game ON flag_games (box, epoch, game)",
    ),
    # 6: the league's players (issue 41, item 1): a name (unique as the roster compares
    # names: ``key``) and what verifies their secret (a salted scrypt hash, its
    # parameters), never the secret itself; published to the boxes as the roster
    # (league/players.py)
    6: (
        "CREATE TABLE league_players (id serial PRIMARY KEY, name text NOT NULL,"
        " key text NOT NULL UNIQUE CHECK (key <> ''), salt bytea NOT NULL,"
        " hash bytea NOT NULL, n integer NOT NULL, r integer NOT NULL, p integer NOT NULL,"
        " created_at timestamptz NOT NULL DEFAULT now(),"
        " changed_at timestamptz NOT NULL DEFAULT now())",
    ),
    # 7: players own their data (issue 41, item 6): what the public tables show of a
    # player, and the tombstone of each player deleted (their id, pseudonym and the
    # fingerprint of their name, never the name: league/rights.py)
    7: (
        "ALTER TABLE league_players ADD COLUMN privacy text NOT NULL DEFAULT 'public'"
        " CHECK (privacy IN ('public', 'initials', 'hidden'))",
        "CREATE TABLE league_forgotten (player integer PRIMARY KEY,"
        " pseudonym text NOT NULL, fingerprint text NOT NULL,"
        " forgotten_at timestamptz NOT NULL DEFAULT now())",
    ),
    # 8: a game's record and ratings compressed with lz4, not pglz (issue 40, item 8):
    # PostgreSQL compresses every game's 5 KB in the ingest's transaction, and pglz
    # took 0.1 ms of the 0.3 ms of CPU PostgreSQL spent on a game; lz4 stores a quarter
    # more (benchmarks/README.md); games written before stay as they are. A
    # PostgreSQL built without lz4 keeps pglz.
    8: (
        "DO $$ BEGIN ALTER TABLE games ALTER COLUMN record SET COMPRESSION lz4,"
        " ALTER COLUMN ratings SET COMPRESSION lz4;"
        " EXCEPTION WHEN feature_not_supported THEN"
        " RAISE NOTICE 'no lz4 in this PostgreSQL: the games compressed with pglz'; END $$",
    ),
}


class LeagueSchemaError(Exception):
    """The database is not one this version of the league can use (message: why)."""


def version_of(conn: Any) -> int:
    """The league's schema version of the connected database (0: none yet)."""
    row = conn.execute("SELECT to_regclass('league_schema') IS NOT NULL").fetchone()
    if not row[0]:
        return 0
    found = conn.execute("SELECT version FROM league_schema").fetchone()
    return 0 if found is None else int(found[0])


def migrate(conn: Any) -> tuple[int, int]:
    """Bring the database to :data:`VERSION` (a psycopg connection in autocommit mode: each
    ``transaction()`` a real one);
    (old version, new version)."""
    with conn.transaction():
        # one migrator at a time: two league processes started together wait here
        conn.execute("SELECT pg_advisory_xact_lock(4040)")
        old = version_of(conn)
        if old > VERSION:
            raise LeagueSchemaError(f"the league's database has schema {old}, newer than this "
                                    f"shutbox-hw's ({VERSION}): upgrade shutbox-hw")
        if old == 0:
            conn.execute("CREATE TABLE IF NOT EXISTS league_schema (version integer NOT NULL)")
        for step in range(old + 1, VERSION + 1):
            for statement in STEPS[step]:
                conn.execute(statement)
        conn.execute("DELETE FROM league_schema")
        conn.execute("INSERT INTO league_schema (version) VALUES (%s)", (VERSION,))
    return old, VERSION


def check(conn: Any) -> None:
    """Refuse a database that is not at :data:`VERSION` (ingest and status need it)."""
    version = version_of(conn)
    if version != VERSION:
        raise LeagueSchemaError(
            f"the league's database has schema {version}, this shutbox-hw needs {VERSION}: "
            + ("run shutbox-hw league migrate --dsn DSN first" if version < VERSION
               else "upgrade shutbox-hw"))
