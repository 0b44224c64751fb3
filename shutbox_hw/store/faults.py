"""What can go wrong with the disk, in the box's words.

A disk that is full, failing or locked by another program is not the
player's problem: a write then raises :class:`StorageFault` (after waiting at
most :data:`BUSY_TIMEOUT_S` for a lock) and the box plays on. A database that
cannot be opened or is not the box's is a :class:`StoreError`, a user's
problem named in one line.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from ..errors import UserError

# a locked database is waited for this long, then the write is a storage fault:
# two waits in one step stay well under half of systemd's 10 s watchdog
BUSY_TIMEOUT_S = 0.3
# failures that pass: a full or failing disk, another program's lock
TRANSIENT = {sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_BUSY,
             sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PROTOCOL}
SHM_MIN_BYTES = 32768  # a usable -shm file is at least one 32 KiB region


def _no_room(path: Path) -> bool:
    try:
        return os.statvfs(path.parent).f_bavail == 0
    except OSError:
        return False


class StoreError(UserError):
    """The database cannot be opened or is not ours."""


class StorageFault(Exception):
    """The disk did not take a write now (full, failing, locked); try again later.

    The message is short enough for the box's screen.
    """


def transient_disk_error(error: BaseException) -> bool:
    """Whether an SQLite error may pass by itself (so the box plays on)."""
    code = getattr(error, "sqlite_errorcode", None)
    return isinstance(error, sqlite3.Error) and isinstance(code, int) \
        and code & 0xFF in TRANSIENT


def fault_text(error: BaseException, path: Path | None = None) -> str:
    """A few words for the screen: what is wrong with the disk.

    SQLite reports a ``-shm`` file it cannot grow as an I/O error; the file
    system says whether that is a full disk.
    """
    code = getattr(error, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    if primary == sqlite3.SQLITE_FULL or isinstance(error, OSError) and error.errno == 28:
        return "disk full"
    if primary == sqlite3.SQLITE_IOERR and path is not None and _no_room(path):
        return "disk full"
    if primary in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return "database locked"
    return "disk error"
