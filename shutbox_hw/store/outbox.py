"""The MQTT outbox: events waiting for the broker, in the database that records them.

With ``[network] mqtt`` set, :meth:`Store.record_all` queues every event of a
step (faults and the rest the store itself does not keep included) in the
same transaction as the step's own writes: an event is either on disk *and*
queued, or neither. The publisher (:mod:`shutbox_hw.network.publisher`)
reads the queue in ``seq`` order on its own connection and deletes each row
once the broker has acknowledged it (PUBACK), so a broker away for a week or
a power cut between PUBLISH and PUBACK loses nothing; a message may then
arrive twice, with the same ``seq``, and consumers drop the second.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Protocol


class Reportable(Protocol):
    """An event as the outbox takes it (every game event has ``as_json``)."""

    def as_json(self) -> dict[str, object]: ...


def queue(db: sqlite3.Connection, events: Iterable[Reportable], now: float) -> None:
    """Add the events in order (inside the caller's transaction)."""
    db.executemany("INSERT INTO outbox (at, event) VALUES (?, ?)",
                   [(now, json.dumps(e.as_json(), separators=(",", ":"))) for e in events])


def oldest(db: sqlite3.Connection, after: int, limit: int) -> list[tuple[int, float, str]]:
    """Up to ``limit`` queued events with ``seq > after``, oldest first."""
    return db.execute("SELECT seq, at, event FROM outbox WHERE seq > ? ORDER BY seq LIMIT ?",
                      (after, limit)).fetchall()


def sent(db: sqlite3.Connection, seqs: Sequence[int]) -> None:
    """Forget the events the broker acknowledged, in one small transaction."""
    with db:
        db.executemany("DELETE FROM outbox WHERE seq = ?", [(s,) for s in seqs])


def waiting(db: sqlite3.Connection) -> int:
    """How many events are still queued."""
    count, = db.execute("SELECT COUNT(*) FROM outbox").fetchone()
    return int(count)
