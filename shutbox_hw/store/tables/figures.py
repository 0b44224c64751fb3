"""The audits' figures, kept up to date as games are written (schema 5).

The audits (games played, rounds, boxes shut, turns and score sums per rule
set, the best turns) count every game since the last reset. Reading them from
the rows would cost one pass over the whole record each time the operator
menu opens: at 100,000 games that is seconds and hundreds of MB on the box's
one loop. Instead each game event adds to them in the step's own transaction
(a tally, :mod:`.tally`: :data:`AUDITS` adds a scored turn and a game played to
its end; :func:`game_started` and :func:`round_ended` the audits' own rows), so
the menu reads a few small rows
whatever the record's size, and a power cut leaves rows and figures agreeing
(both or neither).

``audit_figures`` holds the counts by key ("games", "rounds", "boxes_shut",
"rules:<preset>:games|turns|score_sum"); ``audit_best`` the best :data:`BEST`
turns (lowest score, then oldest game, then oldest turn). A reset of the
audits empties both (:func:`clear`). :func:`recount` computes the same figures
from the rows in SQL (the migration builds them once with it; a reader of an
older schema, which has no figures, uses it directly).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field

from .finished import finished_sql
from .tally import SCORED, PlayedGame, ScoredTurn

SINCE = "since:game"   # the counters row holding the last game before the reset
BEST = 5               # how many best scores the audits list
TOTALS = ("games", "rounds", "boxes_shut")

CREATE = (
    "CREATE TABLE IF NOT EXISTS audit_figures (key TEXT PRIMARY KEY,"
    " value INTEGER NOT NULL DEFAULT 0)",
    "CREATE TABLE IF NOT EXISTS audit_best (turn_id INTEGER PRIMARY KEY,"
    " score INTEGER NOT NULL, game_id INTEGER NOT NULL)",
)


@dataclass
class RulesFigures:
    games: int = 0       # finished, not abandoned
    turns: int = 0       # turns ended with a score
    score_sum: int = 0


@dataclass
class AuditFigures:
    """The maintained audit figures (or their recount from the rows)."""
    since: int = 0
    games: int = 0
    rounds: int = 0
    boxes_shut: int = 0
    rules: dict[str, RulesFigures] = field(default_factory=dict)
    best: list[int] = field(default_factory=list)   # turn ids, best first


def preset_of(rules_json: str | None) -> str:
    """The rule set's name as the audits file a game under ("?": unreadable rules)."""
    try:
        return str(json.loads(rules_json or "").get("preset"))
    except (ValueError, TypeError, AttributeError):
        return "?"


def since(db: sqlite3.Connection) -> int:
    """The last game before the audits were last reset (0: never reset)."""
    row = db.execute("SELECT count FROM counters WHERE key = ?", (SINCE,)).fetchone()
    return int(row[0]) if row else 0


def _add(db: sqlite3.Connection, amounts: dict[str, int]) -> None:
    db.executemany("INSERT INTO audit_figures (key, value) VALUES (?, ?) ON CONFLICT(key)"
                   " DO UPDATE SET value = value + excluded.value", sorted(amounts.items()))


# ---------------------------------------------------------------- kept up to date

def game_started(db: sqlite3.Connection, game_id: int | None, rules_json: str) -> None:
    """A new game files its rule set in the audits (played or not)."""
    if game_id is not None and game_id > since(db):
        _add(db, {f"rules:{preset_of(rules_json)}:games": 0})


class _Audits:
    """The audits as a tally (:mod:`.tally`): only games after the last reset count."""

    def add_turn(self, db: sqlite3.Connection, turn: ScoredTurn) -> None:
        """A turn has just ended with a score: it counts."""
        if turn.game_id <= since(db):
            return
        preset = preset_of(turn.rules)
        _add(db, {"boxes_shut": int(turn.shut), f"rules:{preset}:turns": 1,
                  f"rules:{preset}:score_sum": turn.score})
        db.execute("INSERT OR REPLACE INTO audit_best (turn_id, score, game_id)"
                   " VALUES (?, ?, ?)", (turn.id, turn.score, turn.game_id))
        db.execute("DELETE FROM audit_best WHERE turn_id NOT IN (SELECT turn_id FROM"
                   " audit_best ORDER BY score, game_id, turn_id LIMIT ?)", (BEST,))

    def add_game(self, db: sqlite3.Connection, game: PlayedGame) -> None:
        """A game has just been played to its end (not abandoned)."""
        if game.id > since(db):
            _add(db, {"games": 1, f"rules:{preset_of(game.rules)}:games": 1})

    def rebuild(self, db: sqlite3.Connection) -> None:
        rebuild(db)


AUDITS = _Audits()
"""The audits' tally (the writer's ``KEPT``)."""


def round_ended(db: sqlite3.Connection, game_id: int | None) -> None:
    if game_id is not None and game_id > since(db):
        _add(db, {"rounds": 1})


def clear(db: sqlite3.Connection) -> None:
    """The audits were reset: nothing counted yet (inside the caller's transaction)."""
    db.execute("DELETE FROM audit_figures")
    db.execute("DELETE FROM audit_best")


# ---------------------------------------------------------------- reading

def read(db: sqlite3.Connection) -> AuditFigures:
    """The maintained figures: a few small rows, whatever the record's size."""
    figures = AuditFigures(since=since(db))
    for key, value in db.execute("SELECT key, value FROM audit_figures"):
        if key in TOTALS:
            setattr(figures, key, int(value))
        elif key.startswith("rules:"):
            preset, _, what = key[len("rules:"):].rpartition(":")
            setattr(figures.rules.setdefault(preset, RulesFigures()), what, int(value))
    figures.best = [t for t, in db.execute(
        "SELECT turn_id FROM audit_best ORDER BY score, game_id, turn_id LIMIT ?", (BEST,))]
    return figures


def recount(db: sqlite3.Connection, after: int | None = None) -> AuditFigures:
    """The same figures counted from the rows, in SQL (one pass over the games since
    the reset: for the migration and for readers of an older schema, never the loop)."""
    db.create_function("preset_of", 1, preset_of, deterministic=True)
    first = since(db) if after is None else after
    figures = AuditFigures(since=first)
    for preset, games in db.execute(
            f"SELECT preset_of(rules), SUM({finished_sql()}) FROM games"
            " WHERE id > ? GROUP BY 1", (first,)):
        figures.rules[preset] = RulesFigures(games=int(games))
        figures.games += int(games)
    figures.rounds, = db.execute("SELECT COUNT(*) FROM rounds WHERE game_id > ?",
                                 (first,)).fetchone()
    scored = f"{SCORED} AND t.game_id > ?"      # the turns a tally counts (.tally)
    for preset, turns, score_sum, shut in db.execute(
            f"SELECT preset_of(g.rules), COUNT(*), SUM(t.score), SUM(COALESCE(t.shut, 0) != 0)"
            f"{scored} GROUP BY 1", (first,)):
        row = figures.rules.setdefault(preset, RulesFigures())
        row.turns, row.score_sum = int(turns), int(score_sum)
        figures.boxes_shut += int(shut)
    figures.best = [t for t, in db.execute(
        f"SELECT t.id{scored} ORDER BY t.score, t.game_id, t.id LIMIT ?", (first, BEST))]
    return figures


def rebuild(db: sqlite3.Connection) -> None:
    """Write :func:`recount`'s figures in place of the kept ones (the migration to
    schema 5, inside its transaction)."""
    figures = recount(db)
    clear(db)
    amounts = {key: getattr(figures, key) for key in TOTALS}
    for preset, row in figures.rules.items():
        amounts |= {f"rules:{preset}:games": row.games, f"rules:{preset}:turns": row.turns,
                    f"rules:{preset}:score_sum": row.score_sum}
    _add(db, amounts)
    db.executemany("INSERT INTO audit_best (turn_id, score, game_id) SELECT id, score, game_id"
                   " FROM turns WHERE id = ?", [(t,) for t in figures.best])


def migrate_to_5(db: sqlite3.Connection) -> None:
    """Schema 4 to 5: the figures' tables, built once from the rows."""
    for statement in CREATE:
        db.execute(statement)
    rebuild(db)
