"""Opening the box's database read-only, as ``history`` and ``shutbox-hw web`` do.

A reader never writes the file. In WAL mode it needs the ``-shm`` file: a
read-only one beside a running box is enough (SQLite reads the WAL index from
it). With the box stopped there may be no ``-shm`` and, in a directory the
reader cannot write, none can be made: then the file is read as it is
(``immutable``), which is only right when there is no ``-wal`` file either.
"""

from __future__ import annotations

import sqlite3
import urllib.parse
from pathlib import Path

from ...base.errors import UserError, shown_path


def connect_readonly(path: Path, timeout: float) -> tuple[sqlite3.Connection, bool]:
    """A read-only connection and whether it is ``immutable`` (sees no later change).

    Raises sqlite3.Error for SQLite's own refusals, UserError when the last writes
    are in a ``-wal`` file this reader cannot use.
    """
    uri = "file:" + urllib.parse.quote(str(path.absolute()))  # "#" and "?" are not URI text
    try:
        db = sqlite3.connect(uri + "?mode=ro", uri=True, timeout=timeout,
                             isolation_level=None, check_same_thread=False)
        db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()   # opens it for real
        return db, False
    except sqlite3.Error as error:
        # a copy in a read-only directory: SQLite cannot make its -shm file; without a
        # -wal file there is nothing in it to miss, so read the file as it is
        code = getattr(error, "sqlite_errorcode", 0) & 0xFF
        if code not in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN):
            raise
        if Path(f"{path}-wal").exists():
            raise UserError(f"{shown_path(path)} is read-only here and its last writes are "
                            f"still in its -wal file: copy both somewhere writable") from None
        return sqlite3.connect(uri + "?mode=ro&immutable=1", uri=True, timeout=timeout,
                               isolation_level=None, check_same_thread=False), True
