"""Copies of the record that leave the card (issue 38, point 5).

``[backup] place`` names a folder on another disk (a USB stick's mount, a
network share). Every night at ``when`` (the box's clock) a worker thread,
off the box's loop, takes a consistent copy of the record with SQLite's
backup API (a read transaction: the box keeps writing throws meanwhile) into
``place/shutbox-YYYYMMDD-HHMMSS.db``, written as ``.part`` and renamed when
whole, and keeps the newest ``keep`` copies. A place on the same disk as the
record (a USB stick that is not mounted leaves its empty mount folder on the
card) is refused: that copy would die with the card. A failed copy is a
fault of the part ``backup`` on the box; the next one that passes puts it
right.

``shutbox-hw restore FILE`` (:func:`restore`) brings a box back from a copy.
The ``[backup]`` table itself is read in :mod:`shutbox_hw.config.config_file`.
"""

from __future__ import annotations

import logging
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from ...base.errors import UserError, shown_path
from ...base.events import InputFault
from ..tables.capability import Capability, offers
from ..tables.schema import SchemaError, version_of

log = logging.getLogger("shutbox_hw")

PART = "backup"        # the part the box names in its faults
PREFIX = "shutbox-"
NAME = re.compile(r"shutbox-\d{8}-\d{6}(-\d+)?\.db")


def next_due(now: float, when: str) -> float:
    """The next time of day ``when`` after ``now`` (local time, the box's clock)."""
    hour, minute = (int(part) for part in when.split(":"))
    today = time.localtime(now)
    due = time.mktime((today.tm_year, today.tm_mon, today.tm_mday, hour, minute, 0, 0, 0, -1))
    day = 1
    while due <= now:   # tomorrow's (a day is not always 86,400 s: summer time)
        due = time.mktime((today.tm_year, today.tm_mon, today.tm_mday + day, hour, minute,
                           0, 0, 0, -1))
        day += 1
    return due


def same_disk(place: Path, db: Path) -> bool:
    try:
        return place.stat().st_dev == Path(os.path.abspath(db)).parent.stat().st_dev
    except OSError:
        return False


def copy_record(source: Path, target: Path) -> None:
    """A consistent copy of ``source`` at ``target`` (SQLite's backup API, written to
    ``target.part`` and synced, then renamed): whole or not there."""
    part = target.with_name(target.name + ".part")
    part.unlink(missing_ok=True)
    uri = f"file:{os.path.abspath(source)}?mode=ro"
    src = sqlite3.connect(uri, uri=True)
    try:
        dst = sqlite3.connect(part)
        try:
            src.backup(dst)
            dst.execute("PRAGMA journal_mode=DELETE")   # one file, whatever the source had
        finally:
            dst.close()
    finally:
        src.close()
    fd = os.open(part, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(part, target)


def taken_at(copy: Path) -> float:
    """When a copy was taken, from its name (the box's clock then)."""
    stamp = copy.name[len(PREFIX):len(PREFIX) + 15]
    return time.mktime(time.strptime(stamp, "%Y%m%d-%H%M%S"))


def newest(place: Path) -> float | None:
    """When the newest copy in ``place`` was taken (None: none there, or the place
    cannot be read)."""
    try:
        found = copies(place)
        return taken_at(found[-1]) if found else None
    except (OSError, ValueError):
        return None


def stamp(at: float | None) -> str | None:
    """A copy's time as ISO 8601 with the box's UTC offset ("2026-12-05T04:00:00+01:00":
    Home Assistant's timestamp sensor wants the offset), None for none."""
    if at is None:
        return None
    return datetime.fromtimestamp(at).astimezone().isoformat(timespec="seconds")


def copies(place: Path) -> list[Path]:
    """The box's copies in ``place``, oldest first (their names sort by time)."""
    return sorted(p for p in place.iterdir() if NAME.fullmatch(p.name))


def take(db: Path, place: Path, now: float, keep: int) -> Path:
    """One copy of the record into ``place``, the oldest beyond ``keep`` removed.

    Raises UserError when the place is not usable (missing, on the record's disk)
    and OSError or sqlite3.Error when the copy fails."""
    if not place.is_dir():
        raise UserError(f"the backup place {shown_path(place)} is not there (not mounted?)")
    if same_disk(place, db):
        raise UserError(f"the backup place {shown_path(place)} is on the record's own disk "
                        "(is the USB stick mounted?)")
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    target, n = place / f"{PREFIX}{stamp}.db", 1
    while target.exists():
        n += 1
        target = place / f"{PREFIX}{stamp}-{n}.db"
    copy_record(db, target)
    for old in copies(place)[:-keep]:
        old.unlink()
    return target


class BackupWorker:
    """Takes the nightly copy on a thread of its own; the box's loop collects the
    outcome as faults (:meth:`faults`, polled by the daemon like the outbox's)."""

    def __init__(self, db: Path, place: Path, when: str = "04:00", keep: int = 14,
                 wake_box: Callable[[], None] = lambda: None,
                 clock: Callable[[], float] = time.time,
                 on_copy: Callable[[], None] = lambda: None) -> None:
        self.db, self.place, self.when, self.keep = Path(db), Path(place), when, keep
        self.wake_box, self.clock = wake_box, clock
        self.on_copy = on_copy   # told after each copy (the MQTT state's last backup)
        # when the last copy was taken: the copies already there (taken before this start)
        self.last: float | None = newest(self.place)
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._reports: list[tuple[str, bool]] = []
        self._failing = False
        self._thread: threading.Thread | None = None

    def start(self) -> BackupWorker:
        self._thread = threading.Thread(target=self._run, name="backup", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(max(0.0, next_due(self.clock(), self.when)
                                      - self.clock())):
            self.run_once()

    def run_once(self) -> Path | None:
        """Take one copy now; its outcome is reported to the box."""
        try:
            target = take(self.db, self.place, self.clock(), self.keep)
        except (UserError, OSError, sqlite3.Error) as error:
            log.error("backup: %s", error)
            self._report(f"failed: {_short(error)}", ok=False)
            return None
        self.last = self.clock()
        log.info("backup: %s", target)
        self._report("copy taken", ok=True)
        self.on_copy()
        return target

    def _report(self, text: str, ok: bool) -> None:
        with self._lock:
            if ok and not self._failing:
                return    # nothing to put right
            self._failing = not ok
            self._reports.append((text, ok))
        self.wake_box()

    def faults(self, now_ms: int) -> list[InputFault]:
        with self._lock:
            reports, self._reports = self._reports, []
        return [InputFault(PART, text, now_ms, ok=ok) for text, ok in reports]


def _short(error: BaseException) -> str:
    if isinstance(error, UserError):
        text = str(error)
        return "place not there" if "not there" in text else \
            "place on the record's disk" if "own disk" in text else text
    if isinstance(error, OSError) and error.strerror:
        return error.strerror.lower()
    return str(error)


# ------------------------------------------------------------------ restore

def check_copy(file: Path) -> tuple[int, int]:
    """A copy fit to bring back: (its schema, its games). Raises UserError naming why
    not: not there, not SQLite, damaged, another program's, a newer schema, empty."""
    name = shown_path(file)
    if not file.is_file():
        raise UserError(f"{name}: no such file")
    try:
        db = sqlite3.connect(f"file:{os.path.abspath(file)}?mode=ro", uri=True)
    except sqlite3.Error as error:
        raise UserError(f"{name}: cannot be opened ({error})") from None
    try:
        try:
            version = version_of(db, file)
            check, = db.execute("PRAGMA quick_check(1)").fetchone()
        except SchemaError as error:
            raise UserError(f"refused: {error}") from None
        except sqlite3.Error as error:
            raise UserError(f"refused: {name} is not a shutbox-hw record ({error})") from None
        if check != "ok":
            raise UserError(f"refused: {name} is damaged ({check})")
        if not offers(version, Capability.GAMES):
            raise UserError(f"refused: {name} holds no record (an empty database)")
        games, = db.execute("SELECT COUNT(*) FROM games").fetchone()
    finally:
        db.close()
    return version, int(games)


def restore(file: Path, db: Path, now: float) -> tuple[Path | None, int, int]:
    """Bring the record at ``db`` back from the copy ``file`` (checked first: see
    :func:`check_copy`). The current record, if any, is moved aside (never deleted)
    to ``NAME.before-restore-STAMP``. Returns (where it went, schema, games).
    The caller holds the database's lock (no box plays on it)."""
    version, games = check_copy(file)
    db = Path(os.path.abspath(db))
    db.parent.mkdir(parents=True, exist_ok=True)
    building = db.with_name(db.name + ".restoring")
    copy_record(file, building)
    aside = None
    if db.exists():
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
        aside, n = db.with_name(f"{db.name}.before-restore-{stamp}"), 1
        while any(Path(f"{aside}{s}").exists() for s in ("", "-wal", "-shm")):
            n += 1
            aside = db.with_name(f"{db.name}.before-restore-{stamp}-{n}")
        st = db.stat()
        for suffix in ("", "-wal", "-shm"):
            if Path(f"{db}{suffix}").exists():
                Path(f"{db}{suffix}").rename(f"{aside}{suffix}")
        os.chmod(building, st.st_mode & 0o777)
        if os.geteuid() == 0:
            os.chown(building, st.st_uid, st.st_gid)   # the service's user keeps its record
    else:
        os.chmod(building, 0o600)
    os.replace(building, db)
    return aside, version, games
