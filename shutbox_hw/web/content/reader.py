"""The web process's view of the database: read-only, reopened when it must be.

The box may not have made its database yet, or be stopped (no ``-shm`` file:
the file is then read ``immutable`` and reopened as soon as a ``-wal`` file
shows the box writing again). :meth:`Reader.version` changes whenever the box
has committed something: ``PRAGMA data_version`` on a live connection, the
files' sizes and times on an immutable one.

The web process reads in worker threads, never on its event loop: a
:class:`Reader` belongs to one thread, and :class:`Readers` gives each worker
thread its own (kept for the thread's life: opening costs more than a read).
"""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path
from typing import Any

from ...base.errors import UserError
from ...base.i18n import N_
from ...base.textfile import os_problem
from ...store.read.readonly import connect_readonly
from ...store.read.shown import stamp
from ...store.tables.schema import SchemaError, sqlite_problem, version_of

LOCK_WAIT_S = 1.0


NO_DATABASE = N_("no games yet: the box has not made its database")
"""What the pages and the TV say before the box's first start (translated where shown)."""


class Unavailable(Exception):
    """The database cannot be read now (message: one line for the page)."""


class Reader:
    """One read-only connection, used by one thread at a time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.db: sqlite3.Connection | None = None
        self.schema = 0
        self.immutable = False

    def _open(self) -> sqlite3.Connection:
        if self.db is not None and self.immutable and Path(f"{self.path}-wal").exists():
            self.close()   # the box writes again: a live connection sees its changes
        if self.db is None:
            try:
                found = self.path.exists()
            except OSError as error:
                raise Unavailable(f"the database {os_problem(error, 'database')}") from None
            if not found:
                raise Unavailable(NO_DATABASE)
            try:
                db, immutable = connect_readonly(self.path, LOCK_WAIT_S)
                schema = version_of(db, self.path)
            except (UserError, SchemaError) as error:
                raise Unavailable(str(error)) from None
            except sqlite3.Error as error:
                raise Unavailable(f"the database {sqlite_problem(error)}") from None
            self.db, self.immutable, self.schema = db, immutable, schema
        return self.db

    def connection(self) -> sqlite3.Connection:
        """The open connection (Unavailable with the reason otherwise)."""
        return self._open()

    def version(self) -> Any:
        """Changes whenever the box has committed (None: nothing to read yet)."""
        try:
            db = self._open()
        except Unavailable:
            return None
        # the screen's mirror (store/read/shown.py, in RAM) changes without a commit
        mirror = stamp(self.path)
        if self.immutable:
            return (*(_stamp(Path(f"{self.path}{end}")) for end in ("", "-wal")), mirror)
        try:
            return db.execute("PRAGMA data_version").fetchone()[0], mirror
        except sqlite3.Error:
            self.close()
            return None

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
        self.db = None

    def backup(self, target: Path) -> None:
        """A consistent copy through SQLite's backup API (its own connection: a thread)."""
        db = connect_readonly(self.path, LOCK_WAIT_S)[0]
        try:
            out = sqlite3.connect(target)
            try:
                db.backup(out)
            finally:
                out.close()
        finally:
            db.close()


class Readers:
    """A :class:`Reader` per thread, all on one database."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()

    def here(self) -> Reader:
        """This thread's reader (made on first use)."""
        reader: Reader | None = getattr(self._local, "reader", None)
        if reader is None:
            reader = self._local.reader = Reader(self.path)
        return reader


def _stamp(path: Path) -> tuple[int, int]:
    try:
        st = os.stat(path)
        return st.st_mtime_ns, st.st_size
    except OSError:
        return 0, 0
