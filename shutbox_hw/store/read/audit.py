"""Audits: what the person who runs the box wants to know, read from the record.

Games, rounds, boxes shut, average and best scores are kept up to date by
every game write (:mod:`.figures`), so reading them costs the same at 100,000
games as at 10; switch actuations (microswitch wear) and faults per device
are counted in memory by :class:`Tally` and added to the ``counters`` table in
one small write now and then, never one write per edge. "Reset audits" keeps
every game (``history`` still shows them) and only moves the point audits
count from (``since:game``) and clears the counters.
"""

from __future__ import annotations

import sqlite3
import time
from collections import Counter
from typing import Any

from ...base.events import Tonight
from ..tables import figures
from ..tables.capability import Capability, offers
from ..tables.figures import SINCE
from ..tables.finished import finished_sql
from ..tables.outbox import DROPPED, outbox_figures
from ..tables.schema import VERSION
from .tonight import (
    TONIGHT_S,
    TONIGHT_WHERE,
    clock_state,
    started_since_sql,
    tonight_games,
    tonight_since,
)

__all__ = ["TONIGHT_S", "tonight_since"]   # (kept here too for their older callers)

FLUSH_EVERY = 50       # pending changes that force a write even without a game write


class Tally:
    """Counts switch changes and faults in memory until they are written."""

    def __init__(self) -> None:
        self.pending: Counter[str] = Counter()

    def switch(self, name: str) -> None:
        self.pending[f"switch:{name}"] += 1

    def fault(self, device: str) -> None:
        self.pending[f"fault:{device}"] += 1

    def due(self) -> bool:
        """Worth a write of its own (the step wrote nothing else)."""
        return sum(self.pending.values()) >= FLUSH_EVERY

    def add_to(self, db: sqlite3.Connection) -> None:
        """Add the pending counts inside the transaction the caller holds (the
        step's own: its commit is their one sync); :meth:`written` once it committed."""
        db.executemany("INSERT INTO counters (key, count) VALUES (?, ?) ON CONFLICT(key)"
                       " DO UPDATE SET count = count + excluded.count",
                       sorted(self.pending.items()))

    def written(self) -> None:
        """The transaction that carried the counts committed: nothing is pending."""
        self.pending.clear()


def reset_audits(db: sqlite3.Connection) -> None:
    """Start the audits afresh from now, in a transaction of its own."""
    with db:
        reset_counters(db)


def reset_counters(db: sqlite3.Connection) -> None:
    """Counters cleared, games before now not counted (inside the caller's transaction)."""
    last, = db.execute("SELECT COALESCE(MAX(id), 0) FROM games").fetchone()
    db.execute("DELETE FROM counters")
    figures.clear(db)
    db.execute("INSERT INTO counters (key, count) VALUES (?, ?)", (SINCE, last))


def tonight(db: sqlite3.Connection, now: float) -> Tonight:
    """Games finished, boxes shut and the best (lowest) turn score of tonight's games
    (the definition, and the clock they are counted by: :mod:`.tonight`).

    Read through the index on ``games.started_at`` and the turns' own index on
    ``game_id`` (CROSS JOIN keeps SQLite to that order): it costs tonight's
    games, never the whole record.
    """
    since = tonight_since(now)
    # (the two counts in one statement: each its own query, as it was read alone)
    games, shut = db.execute(
        f"SELECT (SELECT COUNT(*) FROM games WHERE {TONIGHT_WHERE} AND {finished_sql()}),"
        " (SELECT COUNT(*) FROM games g CROSS JOIN turns t ON t.game_id = g.id"
        f" WHERE {started_since_sql('g')} AND t.shut)", (since, since)).fetchone()
    best = db.execute("SELECT p.name, t.score FROM games g CROSS JOIN turns t ON"
                      " t.game_id = g.id CROSS JOIN players p ON p.game_id = t.game_id"
                      " AND p.seat = t.seat"
                      f" WHERE {started_since_sql('g')} AND t.score IS NOT NULL"
                      " ORDER BY t.score, t.id LIMIT 1", (since,)).fetchone()
    return Tonight(games=games, boxes_shut=shut, best=(best[0], best[1]) if best else None,
                   clock=clock_state(synced for _, synced in tonight_games(db, now)))


def audits(db: sqlite3.Connection, version: int = VERSION) -> dict[str, Any]:
    """The audit figures as plain data (``audit --json`` prints exactly this).

    From schema 5 the game figures are the ones kept up to date by every write
    (:mod:`.figures`: a few rows, whatever the record's size); an older file,
    read as it is, has them recounted from its rows.
    """
    counters: dict[str, int] = {}
    if offers(version, Capability.COUNTERS):
        counters = dict(db.execute("SELECT key, count FROM counters"))
    since = counters.pop(SINCE, 0)
    kept = figures.read(db) if offers(version, Capability.KEPT_FIGURES) \
        else figures.recount(db, since)
    return {
        "since_game": since, "games": kept.games, "rounds": kept.rounds,
        "boxes_shut": kept.boxes_shut,
        "average_score": {p: round(r.score_sum / r.turns, 1)
                          for p, r in sorted(kept.rules.items()) if r.turns},
        "games_per_rules": {p: r.games for p, r in sorted(kept.rules.items())},
        "best": _best(db, kept.best, version),
        "switches": {k.split(":", 1)[1]: v for k, v in sorted(counters.items())
                     if k.startswith("switch:")},
        "faults": {k.split(":", 1)[1]: v for k, v in sorted(counters.items())
                   if k.startswith("fault:")},
        **({"outbox": outbox_figures(db)} if offers(version, Capability.OUTBOX) else {}),
        "database_bytes": database_bytes(db),
    }


def _best(db: sqlite3.Connection, turns: list[int], version: int) -> list[dict[str, Any]]:
    """The best turns by id: who, when (only a date the clock was sure of), which rules."""
    synced = "g.started_synced" if offers(version, Capability.CLOCK_SYNC) else "NULL"
    best = []
    for turn in turns:
        row = db.execute(f"SELECT t.score, p.name, t.game_id, g.rules, g.started_at, {synced}"
                         " FROM turns t JOIN games g ON g.id = t.game_id JOIN players p"
                         " ON p.game_id = t.game_id AND p.seat = t.seat WHERE t.id = ?",
                         (turn,)).fetchone()
        if row is None:
            continue
        score, name, game_id, rules, started, started_synced = row
        best.append({"score": score, "name": name, "game": game_id,
                     "rules": figures.preset_of(rules),
                     "date": None if not started_synced
                     else time.strftime("%Y-%m-%d", time.localtime(started))})
    return best


OUTBOX_DROPPED = DROPPED
"""The audit counter (table ``counters``) of the outbox's events dropped past its limits."""


def database_bytes(db: sqlite3.Connection) -> int:
    """The database file's size as SQLite has it (pages times page size)."""
    pages, = db.execute("PRAGMA page_count").fetchone()
    size, = db.execute("PRAGMA page_size").fetchone()
    return int(pages) * int(size)
