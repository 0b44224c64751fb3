"""What can go wrong with the disk, in the box's words.

A disk that is full, failing, read-only (ext4 remounts an SD card read-only
after an I/O error), locked by another program, or a record the disk has
damaged is not the player's problem: a write then raises
:class:`StorageFault` (after waiting at most :data:`BUSY_TIMEOUT_S` for a
lock) and the box plays on with the events held in memory, in order. A
database that cannot be opened or is not the box's is a :class:`StoreError`,
a user's problem named in one line.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

from ...base.errors import UserError

# a locked database is waited for this long, then the write is a storage fault:
# two waits in one step stay well under half of systemd's 10 s watchdog
BUSY_TIMEOUT_S = 0.3
# failures that may pass: a full or failing disk, another program's lock
TRANSIENT = {sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_BUSY,
             sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PROTOCOL}
# the disk's, not the code's: a card remounted read-only, a record it damaged
# (SQLITE_CORRUPT, or a header no longer SQLite's: SQLITE_NOTADB); the events are
# held and tried again as for a full disk (the card may come back after fsck, the
# publican may swap it), never dropped as a bug's would be
DISK = TRANSIENT | {sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}
DAMAGED = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}
READONLY_DBMOVED = 1032   # SQLite: the file was unlinked or renamed since it was opened
SHM_MIN_BYTES = 32768  # a usable -shm file is at least one 32 KiB region

# the words the box shows after "cannot save: " (and the fault log keeps)
READ_ONLY = "SD card read-only"
DAMAGED_WORDS = "record damaged"
NOT_A_DATABASE = "record no longer a database"   # its header overwritten
FOLDER_GONE = "record's folder gone"
FILE_GONE = "record file gone"
# faults a lock's wait does not end: the store opens the file afresh before its next write
LASTING = frozenset((READ_ONLY, DAMAGED_WORDS, NOT_A_DATABASE, FOLDER_GONE, FILE_GONE))


def _no_room(path: Path) -> bool:
    try:
        return os.statvfs(path.parent).f_bavail == 0
    except OSError:
        return False


def read_only(path: Path) -> bool:
    """Whether the file system holding ``path`` refuses every write now.

    An ext4 emergency read-only remount (``errors=remount-ro``) shows neither in
    ``statvfs`` nor in ``access()``; opening for writing (which writes nothing)
    is refused with EROFS. Where the file does not exist yet, an unnamed
    temporary file in its folder is asked for instead (only after a failure).
    """
    try:
        if os.statvfs(path.parent).f_flag & os.ST_RDONLY:
            return True
        if path.exists():
            os.close(os.open(path, os.O_RDWR))
        else:
            os.close(os.open(path.parent, os.O_TMPFILE | os.O_RDWR, 0o600))
    except OSError as error:
        return error.errno == errno.EROFS
    return False


class StoreError(UserError):
    """The database cannot be opened or is not ours."""


class StorageFault(Exception):
    """The disk did not take a write now (full, failing, read-only, locked, damaged);
    try again later. The message is short enough for the box's screen.
    """


def disk_error(error: BaseException) -> bool:
    """Whether an error is the disk's (a storage fault), not a bug in the code:
    SQLite's full, I/O, busy, locked, cannot-open, protocol, read-only, corrupt and
    not-a-database errors, and the operating system's refusals of the disk."""
    if isinstance(error, OSError):
        return error.errno in (errno.EIO, errno.EROFS, errno.ENOSPC, errno.ENOENT,
                               errno.EDQUOT, errno.ENODEV, errno.ENXIO)
    code = getattr(error, "sqlite_errorcode", None)
    return isinstance(error, sqlite3.Error) and isinstance(code, int) and code & 0xFF in DISK


def damaged(error: BaseException) -> bool:
    """Whether SQLite says the record itself is damaged (corrupt, or not SQLite's any more)."""
    code = getattr(error, "sqlite_errorcode", None)
    return isinstance(error, sqlite3.Error) and isinstance(code, int) \
        and code & 0xFF in DAMAGED


def fault_text(error: BaseException, path: Path | None = None) -> str:
    """A few words for the screen: what is wrong with the disk.

    SQLite reports a ``-shm`` file it cannot grow as an I/O error; the file
    system says whether that is a full disk, or a card ext4 made read-only.
    """
    code = getattr(error, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    if primary == sqlite3.SQLITE_FULL or isinstance(error, OSError) and error.errno == 28:
        return "disk full"
    if primary == sqlite3.SQLITE_NOTADB:
        return NOT_A_DATABASE
    if primary == sqlite3.SQLITE_CORRUPT:
        return DAMAGED_WORDS
    if primary in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return "database locked"
    if path is not None and not path.parent.is_dir():
        return FOLDER_GONE   # a USB stick pulled out, a folder removed under the box
    if code == READONLY_DBMOVED:
        return FILE_GONE     # removed or renamed while the box had it open
    if isinstance(error, OSError) and error.errno == errno.ENOENT:
        return FILE_GONE
    if isinstance(error, OSError) and error.errno == errno.EROFS:
        return READ_ONLY
    if primary == sqlite3.SQLITE_READONLY:
        return READ_ONLY
    if path is not None and primary in (sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN,
                                        None):
        if _no_room(path):
            return "disk full"
        if read_only(path):
            return READ_ONLY
    return "disk error"
