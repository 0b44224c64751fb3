"""The MQTT outbox: events waiting for the broker, in the database that records them.

With ``[network] mqtt`` set, :meth:`Store.record_all` queues every event of a
step (faults and the rest the store itself does not keep included) in the
same transaction as the step's own writes: an event is either on disk *and*
queued, or neither. The publisher (:mod:`shutbox_hw.network.publisher`)
reads the queue in ``seq`` order on its own connection and deletes the rows
the broker has acknowledged (PUBACK, with a success reason under MQTT 5), a
batch in one transaction, so a broker away for a week or a power cut between
PUBLISH and PUBACK loses nothing; a message may then arrive twice, with the
same ``seq``, and consumers drop the second.

Rows leave the queue only from its head (the oldest), so the queue is always
one run of sequence numbers. A broker away for longer than the limits
(``[network] outbox_max`` events, ``outbox_max_days`` days) costs the
oldest rows: they are dropped as new ones come, and counted in the audit
counter ``outbox_dropped`` (the game's own record keeps every event). The
database is incremental-vacuum (:func:`make_shrinkable`): the pages a sent
backlog leaves are handed back to the file system by the publisher
(:func:`shrink`), off the box's loop.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .transaction import immediate

DROPPED = "outbox_dropped"   # the audit counter (table counters) of rows dropped unsent
SHRINK_PAGES = 256           # free pages that make the publisher shrink the file
TRIM_EVERY = 64              # events between two looks at the limits (the cap holds within)


class Reportable(Protocol):
    """An event as the outbox takes it (every game event has ``as_json``)."""

    def as_json(self) -> dict[str, object]: ...


@dataclass(frozen=True)
class Limits:
    """How much the outbox keeps while the broker is away."""
    max_rows: int = 100_000        # a month of heavy play: 50 games x ~60 events x 31
    max_age_s: float = 31 * 86400.0


def limits_of(hook: Any) -> Limits:
    """The limits the store's outbox hook carries (network/hookup.py's
    :class:`~shutbox_hw.network.hookup.Outbox`); the defaults for a bare callable."""
    limits = getattr(hook, "limits", None)
    return limits if isinstance(limits, Limits) else Limits()


def queue(db: sqlite3.Connection, events: Iterable[Reportable], now: float,
          limits: Limits = Limits(), happened: Sequence[float] | None = None) -> int:
    """Add the events in order (inside the caller's transaction), each with the
    time it happened (``happened``, one per event) or ``now``; then, once every
    :data:`TRIM_EVERY` events, the oldest rows past the limits dropped. How
    many were dropped."""
    rows = [(now if happened is None else happened[i],
             json.dumps(e.as_json(), separators=(",", ":"))) for i, e in enumerate(events)]
    if not rows:
        return 0
    db.executemany("INSERT INTO outbox (at, event) VALUES (?, ?)", rows)
    newest, = db.execute("SELECT last_insert_rowid()").fetchone()
    if (newest - len(rows)) // TRIM_EVERY == newest // TRIM_EVERY:
        return 0    # the limits are looked at once every TRIM_EVERY events (the loop's time)
    return trim(db, now, limits)


def trim(db: sqlite3.Connection, now: float, limits: Limits) -> int:
    """Drop the oldest rows past ``limits`` and count them (inside the caller's
    transaction). Costs one look at each end of the queue when nothing is due."""
    newest, = db.execute("SELECT MAX(seq) FROM outbox").fetchone()
    if newest is None:
        return 0
    cut = newest - limits.max_rows   # the queue is one run of seq: this keeps max_rows
    cutoff = now - limits.max_age_s
    for seq, at in db.execute("SELECT seq, at FROM outbox WHERE seq > ? ORDER BY seq",
                              (cut,)):
        if at >= cutoff:
            break
        cut = seq   # old: dropped too, and so on from the head
    if cut <= 0:
        return 0
    dropped = db.execute("DELETE FROM outbox WHERE seq <= ?", (cut,)).rowcount
    if dropped:
        db.execute("INSERT INTO counters (key, count) VALUES (?, ?) ON CONFLICT(key)"
                   " DO UPDATE SET count = count + excluded.count", (DROPPED, dropped))
    return int(dropped)


def oldest(db: sqlite3.Connection, after: int,
           limit: int) -> list[tuple[int, float, str, str | None]]:
    """Up to ``limit`` queued messages with ``seq > after``, oldest first: seq, time,
    text, and topic (None: an event; ``game``: a whole game, store/tables/game_record.py)."""
    return db.execute("SELECT seq, at, event, topic FROM outbox WHERE seq > ? ORDER BY seq"
                      " LIMIT ?", (after, limit)).fetchall()


def sent(db: sqlite3.Connection, seqs: Sequence[int]) -> None:
    """Forget the events the broker acknowledged, in one transaction (whatever
    the connection's isolation level: one commit, one WAL sync, per batch)."""
    if not seqs:
        return
    with immediate(db):
        db.executemany("DELETE FROM outbox WHERE seq = ?", [(s,) for s in seqs])


def waiting(db: sqlite3.Connection) -> int:
    """How many events are still queued."""
    count, = db.execute("SELECT COUNT(*) FROM outbox").fetchone()
    return int(count)


def newest_seq(db: sqlite3.Connection) -> int:
    """The sequence number of the newest event ever queued (0: none yet)."""
    row = db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'outbox'").fetchone()
    return 0 if row is None else int(row[0])


def outbox_figures(db: sqlite3.Connection) -> dict[str, int]:
    """``{"queued": N, "dropped": M}``: what waits for the broker and what the
    limits dropped since the audits were reset (``audit --json``'s ``outbox``,
    the menu's audits, Home Assistant, the web's faults page). Zeros for a
    database older than the outbox."""
    tables = {t for t, in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"
                                     " AND name IN ('outbox', 'counters')")}
    queued = waiting(db) if "outbox" in tables else 0
    dropped = 0
    if "counters" in tables:
        row = db.execute("SELECT count FROM counters WHERE key = ?", (DROPPED,)).fetchone()
        dropped = 0 if row is None else int(row[0])
    return {"queued": queued, "dropped": dropped}


def make_shrinkable(db: sqlite3.Connection) -> bool:
    """Switch the database to ``auto_vacuum=INCREMENTAL`` if it is not yet (an
    existing file needs a VACUUM for that: done once, outside any transaction,
    when the store opens; a disk that refuses it is tried at the next start).
    Whether the file is incremental now."""
    mode, = db.execute("PRAGMA auto_vacuum").fetchone()
    if mode == 2:
        return True
    if db.in_transaction:
        return False
    try:
        db.execute("PRAGMA auto_vacuum=INCREMENTAL")
        db.execute("VACUUM")
    except sqlite3.Error:
        return False
    mode, = db.execute("PRAGMA auto_vacuum").fetchone()
    return bool(mode == 2)


def shrink(db: sqlite3.Connection, least: int = SHRINK_PAGES) -> int:
    """Hand the free pages back to the file system once there are ``least`` of
    them (the publisher, after a batch: never on the box's loop); how many."""
    free, = db.execute("PRAGMA freelist_count").fetchone()
    if free < least:
        return 0
    mode, = db.execute("PRAGMA auto_vacuum").fetchone()
    if mode != 2:
        return 0
    # stepped to its end by executescript (execute steps once: one page)
    db.executescript(f"PRAGMA incremental_vacuum({int(free)});")
    return int(free)
