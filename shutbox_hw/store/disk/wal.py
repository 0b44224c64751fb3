"""The record's write-ahead log kept at one size, so that a throw's sync writes data only.

Every step's events are one transaction, synced (``synchronous=FULL``) before the
box shows them: SQLite appends the step's pages to the ``-wal`` file and
``fdatasync``\\ s it. On ext4 (the SD card), an ``fdatasync`` that follows a write
past the file's end also has to commit the new size and blocks to ext4's journal:
its descriptor, the inode's block, the commit block and a second flush, about five
4 KiB blocks beside the step's own two or three. A write inside the file's size
commits nothing of the kind (measured in issue 38: 8 blocks and 2 flushes against
3 blocks and 1 flush per sync, on a loop-mounted ext4).

So the box keeps the WAL inside a size it reaches once per start:

- :data:`CHECKPOINT_PAGES`: SQLite copies the WAL's pages into the record once the
  WAL holds this many (``wal_autocheckpoint``; SQLite's default is 1,000 pages, 4 MB,
  which at a few pages a step left the WAL growing for the first hundreds of throws
  after every start). The next transaction then starts the WAL again from its
  beginning, over the old pages, without changing the file's size;
- :func:`make_room`: at start, the WAL file is given :data:`ROOM_PAGES` pages'
  worth of frames (more than a checkpoint's share plus a game's end) by a
  transaction that writes that much and is rolled back: SQLite writes the pages of
  a transaction larger than its cache into the WAL, uncommitted, and a rollback
  leaves them there, ignored (no frame of it is a commit, so no reader and no
  recovery after a power cut ever takes one). Nothing in the record changes, and
  no sync is asked for (``synchronous=OFF`` for that transaction alone, FULL again
  before anything else: about 1 ms here, not a sync of the disk): the next real
  commit writes the WAL's header again and its frames over them, synced;
- ``journal_size_limit``: a WAL that one big transaction (a migration, a player
  removed) grew past the room is cut back to it when it starts again.

Nothing here changes what is durable when: every commit is still synced before
it returns, and a checkpoint only copies pages already synced in the WAL.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from pathlib import Path

log = logging.getLogger("shutbox_hw")

CHECKPOINT_PAGES = 128  # a checkpoint every ~40 throws with their turns' ends (SQLite: 1,000)
ROOM_PAGES = 192        # the checkpoint's pages, plus the biggest step of a game (its end)
ROOM_FREE = 16          # room is made only on a disk with 16 times as much free
WAL_HEADER = 32         # bytes before the first frame
FRAME_HEADER = 24       # bytes before each page in a frame


def frames_bytes(page_size: int, pages: int) -> int:
    """The size of a WAL file holding ``pages`` frames."""
    return WAL_HEADER + pages * (page_size + FRAME_HEADER)


def _plenty(path: Path, wanted: int) -> bool:
    """Whether the disk holding ``path`` has ``wanted`` bytes free (a nearly full
    disk is not brought nearer its end for a saving)."""
    try:
        st = os.statvfs(path.parent)
    except OSError:
        return False
    return st.f_bavail * st.f_frsize >= wanted


def tune(db: sqlite3.Connection) -> None:
    """The checkpoint's size and the WAL's bound, on the box's writing connection
    (in WAL mode)."""
    page_size = int(db.execute("PRAGMA page_size").fetchone()[0])
    db.execute(f"PRAGMA wal_autocheckpoint={CHECKPOINT_PAGES}")
    db.execute(f"PRAGMA journal_size_limit={frames_bytes(page_size, ROOM_PAGES)}")


def make_room(db: sqlite3.Connection, path: Path) -> int:
    """Give the WAL of the record at ``path`` its working size, once per start (the
    WAL is deleted when the box closes the record). Returns the bytes it grew by
    (0: it was big enough, or the disk said no: room is a saving, never a fault)."""
    wal = Path(f"{path}-wal")
    page_size = int(db.execute("PRAGMA page_size").fetchone()[0])
    want = frames_bytes(page_size, ROOM_PAGES)
    try:
        have = wal.stat().st_size
    except OSError:
        have = 0
    if have >= want or db.in_transaction or not _plenty(path, ROOM_FREE * want):
        return 0
    cache = db.execute("PRAGMA cache_size").fetchone()[0]
    synchronous = int(db.execute("PRAGMA synchronous").fetchone()[0])
    try:
        db.execute("PRAGMA cache_size=1")   # every page past the first goes to the WAL
        # nothing of it is to last: no sync of the WAL's header (the next commit
        # writes the header again and syncs it with its frames)
        db.execute("PRAGMA synchronous=OFF")
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("CREATE TABLE wal_room (room BLOB)")
            db.execute("INSERT INTO wal_room VALUES (zeroblob(?))", (want - have,))
        finally:
            db.execute("ROLLBACK")
    except sqlite3.Error as error:   # a full disk, another program's lock: no room made
        log.info("storage: the WAL keeps its size (%s)", error)
        return 0
    finally:
        # the record's own setting back (FULL): every later commit synced as before
        db.execute(f"PRAGMA synchronous={synchronous}")
        db.execute(f"PRAGMA cache_size={int(cache)}")
    try:
        return max(0, wal.stat().st_size - have)
    except OSError:
        return 0
