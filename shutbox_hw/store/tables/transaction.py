"""One transaction for work that may run inside another's or on its own connection."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def immediate(db: sqlite3.Connection, wait_s: float | None = None) -> Iterator[None]:
    """The work inside is part of the transaction already open on ``db`` (the
    box's step), or else of one of its own: ``BEGIN IMMEDIATE`` (waiting up to
    ``wait_s`` for the write lock when given), committed at the end, rolled
    back on any error (whatever the connection's isolation level)."""
    began = not db.in_transaction
    if began:
        if wait_s is not None:
            db.execute(f"PRAGMA busy_timeout = {int(wait_s * 1000)}")
        db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        if began and db.in_transaction:
            db.execute("ROLLBACK")
        raise
    if began:
        db.execute("COMMIT")
