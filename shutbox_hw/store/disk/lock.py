"""One database, one box: a daemon or simulator holds its database alone.

Two processes playing on one file would share a game (the second marks it
abandoned while the first goes on writing throws into it). So ``run`` and
``sim`` take an exclusive ``flock`` on ``<db>.lock`` for as long as they
live. The kernel drops the lock when its holder ends, however it ends (even
SIGKILL or a power cut), so the file's mere presence means nothing: a
leftover one is simply locked again. An orderly release removes it.

Readers (``history``, ``audit``) take no lock: SQLite lets them read while
the box plays.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from types import TracebackType

from ...base.errors import UserError, shown_path


class DatabaseInUse(UserError):
    """Another live process plays on this database."""


def lock_path(db: Path) -> Path:
    return Path(f"{db}.lock")


class DatabaseLock:
    """The exclusive lock on one database, held until :meth:`release` (or exit)."""

    def __init__(self, db: Path) -> None:
        self.db = Path(db)
        self.path = lock_path(self.db)
        self._fd: int | None = None

    def acquire(self) -> DatabaseLock:
        """Take the lock now or raise :class:`DatabaseInUse`; never waits."""
        while True:
            fd = self._open()
            if fd is None:
                return self
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder(fd)
                os.close(fd)
                who = f"another shutbox-hw (process {holder})" if holder else \
                    "another shutbox-hw"
                raise DatabaseInUse(
                    f"the database {shown_path(self.db)} is in use by {who}: one database, "
                    "one box; stop that one first or name another --db") from None
            if self._still_ours(fd):
                break
            os.close(fd)  # released and removed while we waited for it: lock the new one
        self._fd = fd
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        except OSError:
            pass  # the pid is only for the message; the lock is what counts
        return self

    def _open(self) -> int | None:
        """The lock file, opened; None where there can be none.

        A folder that cannot hold it (a full or read-only disk, a path that
        is no folder) goes unguarded: the database beside it then names its
        own problem (``Store``), or the box plays on a full disk as it must.
        """
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        except PermissionError:
            pass
        except OSError:
            return None
        try:  # a lock file of another user (root ran the box once): flock needs no write
            return os.open(self.path, os.O_RDONLY)
        except OSError:
            return None

    def _still_ours(self, fd: int) -> bool:
        """Whether the file we locked is still the one at :attr:`path`."""
        try:
            return os.stat(self.path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            return False

    def release(self) -> None:
        if self._fd is None:
            return
        try:
            self.path.unlink()  # removed while still held: nobody can lock a stale file
        except OSError:
            pass
        os.close(self._fd)
        self._fd = None

    def __enter__(self) -> DatabaseLock:
        return self.acquire()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.release()


def _holder(fd: int) -> int | None:
    """The pid the holder wrote into the lock file, if it could."""
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None
