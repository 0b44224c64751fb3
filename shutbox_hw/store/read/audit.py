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
from ...rules.ruleset import PRESET_TITLES
from ..tables import figures
from ..tables.figures import SINCE
from ..tables.outbox import DROPPED, outbox_figures
from ..tables.schema import VERSION
from .tonight import TONIGHT_S, clock_state, tonight_games, tonight_since

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
    games, = db.execute("SELECT COUNT(*) FROM games WHERE started_at >= ? AND ended_at IS NOT"
                        " NULL AND NOT abandoned", (since,)).fetchone()
    shut, = db.execute("SELECT COUNT(*) FROM games g CROSS JOIN turns t ON t.game_id = g.id"
                       " WHERE g.started_at >= ? AND t.shut", (since,)).fetchone()
    best = db.execute("SELECT p.name, t.score FROM games g CROSS JOIN turns t ON"
                      " t.game_id = g.id CROSS JOIN players p ON p.game_id = t.game_id"
                      " AND p.seat = t.seat"
                      " WHERE g.started_at >= ? AND t.score IS NOT NULL"
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
    if version >= 3:
        counters = dict(db.execute("SELECT key, count FROM counters"))
    since = counters.pop(SINCE, 0)
    kept = figures.read(db) if version >= 5 else figures.recount(db, since)
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
        **({"outbox": outbox_figures(db)} if version >= 4 else {}),
        "database_bytes": database_bytes(db),
    }


def _best(db: sqlite3.Connection, turns: list[int], version: int) -> list[dict[str, Any]]:
    """The best turns by id: who, when (only a date the clock was sure of), which rules."""
    synced = "g.started_synced" if version >= 2 else "NULL"
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


ROW_SEP = "\t"   # a box line "label<TAB>value"; a line without one is a heading


def audit_rows(a: dict[str, Any]) -> list[tuple[str, str | None]]:
    """The audits under headings that give their units: ``(heading, None)``
    then ``(label, value)`` rows. A button's count sits under "button presses"
    ("NEXT 8812"), never as "NEXT: 8812", which read as a button prompt."""
    rows: list[tuple[str, str | None]] = [
        ("games", None), ("played", str(a["games"])), ("rounds", str(a["rounds"])),
        ("boxes shut", str(a["boxes_shut"]))]
    if a["average_score"]:
        rows.append(("avg score a turn", None))
        rows += [(PRESET_TITLES.get(p, p), f"{v:g}") for p, v in a["average_score"].items()]
    if a["best"]:
        rows.append(("best turns", None))
        rows += [(b["name"] + (f" {b['date']}" if b["date"] else ""), str(b["score"]))
                 for b in a["best"]]
    flaps = {k: v for k, v in a["switches"].items() if k.startswith("flap")}
    buttons = {k: v for k, v in a["switches"].items() if k not in flaps}
    if flaps:
        rows.append(("flap moves", None))
        rows += [(name, str(n)) for name, n in flaps.items()]
    if buttons:
        rows.append(("button presses", None))
        rows += [(name, str(n)) for name, n in buttons.items()]
    if a["faults"]:
        rows.append(("faults", None))
        rows += [(device, str(n)) for device, n in a["faults"].items()]
    rows += storage_rows(a)
    return rows


def storage_rows(a: dict[str, Any]) -> list[tuple[str, str | None]]:
    """The database's size and the MQTT outbox's backlog (what a broker away for
    long leaves waiting, and what its cap dropped)."""
    rows: list[tuple[str, str | None]] = [("storage", None),
                                          ("database", f"{a['database_bytes'] / 1e6:.1f} MB")]
    outbox = a.get("outbox")
    if outbox and (outbox["queued"] or outbox["dropped"]):
        rows.append(("outbox queued", str(outbox["queued"])))
        if outbox["dropped"]:
            rows.append(("outbox dropped", str(outbox["dropped"])))
    return rows


def audit_lines(store_or_db: Any) -> list[str]:
    """The audits as the box's menu shows them: a heading, or "label<TAB>value"
    (the menu draws the value at the right of its line).

    Takes a :class:`~shutbox_hw.store.write.sqlite.Store` (the operator menu) or an open
    connection.
    """
    db = store_or_db if isinstance(store_or_db, sqlite3.Connection) else store_or_db._conn()
    return [label if value is None else f"{label}{ROW_SEP}{value}"
            for label, value in audit_rows(audits(db))]


def format_lines(a: dict[str, Any],
                 extra: list[tuple[str, str | None]] | None = None) -> list[str]:
    """``shutbox-hw audit``: the box's headings and rows, the values in a column
    (``extra`` rows after the last heading, "storage")."""
    rows = audit_rows(a) + (extra or [])
    width = max((len(label) for label, value in rows if value is not None), default=0)
    return [f"{label}:" if value is None else f"  {label.ljust(width)}  {value}"
            for label, value in rows]
