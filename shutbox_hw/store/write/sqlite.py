"""The box's memory: games, players, rounds, turns, throws and rejected flaps.

The controller's events are written here as they happen, all those of one
step in one transaction (WAL, synchronous=FULL), so a throw is durable before
the box shows it and a power cut never leaves half a step on disk. After a
power cut :meth:`Store.unfinished_game` rebuilds exactly what the rules need
to carry on.

A disk that is full, failing or locked by another program is not the
player's problem: a write then raises :class:`StorageFault` (after waiting at
most :data:`BUSY_TIMEOUT_S` for a lock, well under half the watchdog's 10 s)
and the daemon keeps the events until a later write succeeds. A store that
cannot even open normally at boot (a full disk cannot create the ``-shm``
file) opens *degraded*: it reads the unfinished game through an exclusive
connection, which keeps its WAL index in memory, and reopens properly once
the disk takes writes again.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ...base.errors import UserError, shown_path
from ...base.events import HighScores, Tonight
from ...base.lifecycle import Closable
from ...base.textfile import os_problem
from ...game.model.events import AnyGameEvent, GameEnded, GameStarted
from ...game.model.saved import SavedGame
from ...players.names import name_key
from ...rules import rules_from_dict
from ..disk.backup import BackupWorker
from ..disk.faults import (
    BUSY_TIMEOUT_S,
    FILE_GONE,
    FOLDER_GONE,
    LASTING,
    READ_ONLY,
    SHM_MIN_BYTES,
    StorageFault,
    StoreError,
    damaged,
    disk_error,
    fault_text,
    read_only,
)
from ..disk.mounts import forgets
from ..disk.salvage import Salvage, quick_check, salvage
from ..disk.wal import make_room, tune
from ..read.audit import Tally, audits, reset_audits, tonight
from ..read.highscores import high_scores
from ..read.readonly import connect_readonly
from ..tables.capability import Capability, offers
from ..tables.game_record import queue_games, unfinished
from ..tables.league import league_keys
from ..tables.outbox import limits_of, make_shrinkable, queue
from ..tables.roster import recent
from ..tables.schema import SchemaError, migrate, not_a_regular_file, sqlite_problem, version_of
from .game_rows import NOT_STORED, read_saved_game, write_event
from .settings import load_settings

log = logging.getLogger("shutbox_hw")
# systemd-timesyncd creates this once the clock has been synchronised since boot
TIMESYNC_FLAG = Path("/run/systemd/timesync/synchronized")


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino


class Store(Closable):
    """One SQLite file. ``record`` takes the controller's game events."""

    def __init__(self, path: str | Path, clock: Callable[[], float] = time.time,
                 sync_flag: str | Path = TIMESYNC_FLAG,
                 check_write: Callable[[], None] | None = None,
                 mountinfo: Path | None = None) -> None:
        self.path = Path(path)
        # why the record would not survive a power-off (the box's start reads its
        # own /proc/self/mountinfo: store/disk/mounts.py); None: it would, or not asked
        self.forgets: str | None = None
        if mountinfo is not None:
            try:
                self.forgets = forgets(self.path, mountinfo.read_text(
                    encoding="utf-8", errors="replace"), here=True)
            except OSError:
                pass
        # called before opening for writing and before every commit: the
        # simulator's full disk raises SQLite's own error from here
        self._check_write = check_write
        self._clock = clock
        self._sync_flag = Path(sync_flag)
        self.game_id: int | None = None
        self.db: sqlite3.Connection | None = None
        # why the store is degraded (None: it writes normally)
        self.fault: str | None = None
        # called after every event written (with None) and every commit (with
        # the events it made durable): the simulator's power cuts
        self.on_write: Callable[[Sequence[AnyGameEvent] | None], None] | None = None
        # [network] mqtt: every event is also queued in the outbox (store/tables/outbox.py) in
        # the same transaction, and this is called after the commit (the publisher's wake)
        self.outbox: Callable[[], None] | None = None
        # [backup]: the nightly copies' worker (store/disk/backup.py), whose faults the box shows
        self.backups: BackupWorker | None = None
        self._ident: tuple[int, int] | None = None   # the open file's device and inode
        name = shown_path(self.path)
        problem = not_a_regular_file(self.path)
        if problem:
            raise StoreError(f"cannot open the database {name}: {problem}")
        shm = Path(f"{self.path}-shm")
        had_shm = shm.exists()
        # a damaged record found at start: moved aside, what can be read recovered
        self.salvaged: Salvage | None = None
        self._salvage_failed = False
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._salvage()
            self._open()
        except SchemaError as error:
            raise StoreError(str(error)) from None
        except sqlite3.Error as error:
            # damaged: opened degraded only when the salvage could not move it (a
            # read-only card); a file that is no record at all is refused by name
            if not disk_error(error) or damaged(error) and not self._salvage_failed:
                raise StoreError(f"cannot open the database {name}: it "
                                 f"{sqlite_problem(error)}") from None
            self._open_degraded(error, None if had_shm else shm)
        except OSError as error:
            if error.errno != 28:  # ENOSPC: a full disk must not stop the game
                raise StoreError(f"cannot open the database {name}: "
                                 f"{os_problem(error, 'database')}") from None
            self._open_degraded(error, None if had_shm else shm)

    def _salvage(self) -> None:
        """SQLite's quick check before the record is opened for writing; a damaged
        record is moved aside and what can be read recovered (:mod:`.salvage`). Where
        even that fails (a read-only card) the record stays, opened degraded."""
        problem = quick_check(self.path)
        if problem is None:
            return
        try:
            self.salvaged = salvage(self.path, problem, self._clock())
        except (OSError, sqlite3.Error) as error:
            self._salvage_failed = True
            log.error("storage: %s is damaged (%s) and cannot be moved aside: %s",
                      self.path, problem, error)

    def _open(self) -> None:
        """Open for writing: migrate, WAL, the unfinished game (raises on failure)."""
        db = sqlite3.connect(self.path, isolation_level=None, timeout=BUSY_TIMEOUT_S)
        try:
            if self._check_write is not None:
                self._check_write()
            migrate(db, self.path)  # reads the schema before changing anything
            make_shrinkable(db)     # once per file: the outbox's pages can be given back
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA foreign_keys=ON")
            tune(db)   # a WAL of one size: a throw's sync writes no metadata (store/disk/wal.py)
            row = db.execute("SELECT id FROM games WHERE ended_at IS NULL"
                             " ORDER BY id DESC LIMIT 1").fetchone()
            # a card ext4 remounted read-only still opens and reads (with its -shm file
            # left from before): said now, from the first frame, not at the first write
            fault = READ_ONLY if read_only(self.path) else None
            if fault is None:
                make_room(db, self.path)   # the WAL's size for the night (store/disk/wal.py)
        except BaseException:
            db.close()  # a refused file is not held open
            raise
        self.db, self.fault = db, fault
        self._ident = _identity(self.path)
        if row:
            self.game_id = int(row[0])

    def _open_degraded(self, error: BaseException, made_shm: Path | None) -> None:
        """Boot on a disk that takes no writes: read what can be read, write nothing yet.

        A ``-shm`` file this boot created and could not fill is useless; an
        exclusive connection never uses one, but refuses to start beside it.
        """
        self.fault = fault_text(error, self.path)
        if made_shm is not None:
            try:
                if made_shm.stat().st_size < SHM_MIN_BYTES:
                    made_shm.unlink()
            except OSError:
                pass
        for connect in (self._exclusive, self._read_only):
            try:
                db = connect()
            except (sqlite3.Error, UserError):
                continue
            try:
                if offers(version_of(db, self.path), Capability.GAMES):
                    row = db.execute("SELECT id FROM games WHERE ended_at IS NULL"
                                     " ORDER BY id DESC LIMIT 1").fetchone()
                    self.db = db
                    if row:
                        self.game_id = int(row[0])
                    return
            except (sqlite3.Error, SchemaError):
                pass
            db.close()

    def _exclusive(self) -> sqlite3.Connection:
        """A connection that keeps its WAL index in memory (a full disk: no -shm)."""
        db = sqlite3.connect(self.path, isolation_level=None, timeout=BUSY_TIMEOUT_S)
        db.execute("PRAGMA locking_mode=EXCLUSIVE")
        return db

    def _read_only(self) -> sqlite3.Connection:
        """A read-only connection (a read-only file system takes no lock files either:
        the file read as it is when no -wal file was left)."""
        if not self.path.exists():
            raise UserError("no record yet")
        return connect_readonly(self.path, BUSY_TIMEOUT_S)[0]

    def _reopen(self) -> None:
        """Leave the degraded state if the disk takes writes again (else StorageFault)."""
        if self._ident is not None and not self.path.exists():
            # the record the box had is gone: a new empty one would take the held
            # events under game ids it does not have (the next start makes one)
            raise StorageFault(FOLDER_GONE if not self.path.parent.is_dir() else FILE_GONE)
        if self.db is not None:
            self.db.close()
            self.db = None
        try:
            self._open()
        except (sqlite3.Error, OSError, SchemaError) as error:
            raise StorageFault(fault_text(error, self.path)) from None
        if self.fault is not None:
            raise StorageFault(self.fault)   # opened, but read-only still

    def now(self) -> float:
        """The store's wall clock (what it writes as the time of an event)."""
        return self._clock()

    def clock_synced(self) -> bool:
        """Whether the system clock is set (no RTC: before NTP it is not to be trusted)."""
        return self._sync_flag.exists()

    def _close(self) -> None:
        if self.db is not None:
            self.db.close()

    # ------------------------------------------------------------------ writing

    def record(self, event: AnyGameEvent) -> None:
        """Write one game event durably, in a transaction of its own."""
        self.record_all([event])

    def record_all(self, events: Iterable[AnyGameEvent], tally: Tally | None = None,
                   happened: Sequence[float] | None = None) -> None:
        """Write the events of one step, in order, in one transaction: all or none;
        the audit counts of ``tally`` ride in the same transaction (one sync).
        ``happened``: when each event happened (:meth:`now` then), for the outbox
        (events kept in memory while the disk refused them).

        Raises :class:`StorageFault` when the disk does not take them now; the
        store is then as it was before (the caller keeps the events, the tally
        its counts).
        """
        events = list(events)
        kept = [e for e in events if not isinstance(e, NOT_STORED)]
        if self.fault is not None:
            self._reopen()  # even with nothing to write: the fault may be over
        if not kept and not (self.outbox and events):
            return  # nothing to keep: they follow from what is stored
        counts = tally if tally is not None and tally.pending else None
        with self._transaction(kept):
            now = self._clock()
            ended: list[int] = []   # games this step ends (the league's game messages)
            for event in kept:
                before = self.game_id
                if self.outbox is not None and isinstance(event, GameStarted):
                    ended += unfinished(self._conn())   # a new game abandons them
                self.game_id = write_event(self._conn(), self.game_id, event, now,
                                           self.clock_synced)
                if isinstance(event, GameEnded) and before is not None:
                    ended.append(before)
                self._wrote()
            if counts is not None:
                counts.add_to(self._conn())
            if self.outbox is not None:
                queue(self._conn(), events, now, limits_of(self.outbox), happened)
                queue_games(self._conn(), ended, now)
        if counts is not None:
            counts.written()
        if self.outbox is not None and events:
            self.outbox()

    @contextmanager
    def _transaction(self, events: Sequence[AnyGameEvent] | None = None) -> Iterator[None]:
        self._check_open()
        db = self.db
        assert db is not None
        game_id = self.game_id
        try:
            db.execute("BEGIN IMMEDIATE")
            yield
            if self._check_write is not None:
                self._check_write()
            self._still_there()
            db.execute("COMMIT")
        except BaseException as error:
            self.game_id = game_id  # as the disk has it
            try:
                if db.in_transaction:
                    db.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # SQLite rolled back by itself
            if disk_error(error):   # full, failing, read-only, locked, damaged
                text = fault_text(error, self.path)
                if text in LASTING:
                    self.fault = text   # the next write opens the file afresh first
                raise StorageFault(text) from error
            raise
        self._wrote(events)

    def _still_there(self) -> None:
        """Raise ENOENT if the file written is no longer the record's (its folder removed,
        a USB stick pulled, the file renamed): SQLite in WAL mode would go on writing to
        the unlinked file, lost at the next start. One ``stat``, no write."""
        if self._ident is not None and _identity(self.path) != self._ident:
            raise FileNotFoundError(2, "the record's file is gone", str(self.path))

    def _conn(self) -> sqlite3.Connection:
        """The open connection (a store degraded at boot may have none: a fault)."""
        self._check_open()
        if self.db is None:
            raise StorageFault(self.fault or "disk error")
        return self.db

    def _wrote(self, committed: Sequence[AnyGameEvent] | None = None) -> None:
        """After each event written and each commit (``committed``: its events)."""
        if self.on_write is not None:
            self.on_write(committed)

    # ------------------------------------------------------------------ resuming

    def unfinished_game(self) -> SavedGame | None:
        """The game a power cut interrupted, as the controller needs it.

        A game whose record cannot be read back (damaged JSON, rules this version
        does not know) is closed as abandoned, where it stays for ``history``: the
        box starts a new game instead of failing at every boot.
        """
        if self.game_id is None:
            return None
        try:
            saved = read_saved_game(self._conn(), self.game_id)
            rules_from_dict(saved.rules)
        except (ValueError, TypeError, KeyError, AttributeError, UserError):
            try:
                with self._transaction():
                    self._conn().execute("UPDATE games SET ended_at = ?, ended_synced = ?,"
                                    " abandoned = 1 WHERE id = ?",
                                    (self._clock(), int(self.clock_synced()), self.game_id))
                    if self.outbox is not None:
                        queue_games(self._conn(), [self.game_id], self._clock())
            except StorageFault:
                pass  # the next game_started abandons it
            self.game_id = None
            return None
        return saved

    # ------------------------------------------------------------------ audits
    # (kept apart from the game's write path: shutbox_hw/store/read/audit.py)

    def write_counts(self, tally: Tally) -> None:
        """Add the switch and fault counts gathered in memory in one transaction
        of their own (a fault if the disk refuses; they then stay pending)."""
        if not tally.pending:
            return
        try:
            self._conn()
            with self._transaction():
                tally.add_to(self._conn())
        except sqlite3.Error as error:
            raise StorageFault(fault_text(error, self.path)) from error
        tally.written()

    def reset_audits(self) -> None:
        """The operator menu's "reset audits": counters cleared, games kept for history."""
        try:
            reset_audits(self._conn())
        except sqlite3.Error as error:
            raise StorageFault(fault_text(error, self.path)) from error

    def audit_figures(self) -> dict[str, Any]:
        """The audits for the operator menu, as plain figures (``audit --json``'s; the
        figures every write keeps up to date: a few rows, whatever the record's size).
        With ``[backup]``, ``last_backup``: the newest copy's age in seconds (None: none
        yet). The menu's lines are made of them by :mod:`~shutbox_hw.words.audits`."""
        try:
            figures = audits(self._conn())
        except sqlite3.Error as error:
            raise StorageFault(fault_text(error, self.path)) from error
        if self.backups is not None:
            last = self.backups.last
            figures["last_backup"] = {"age_s": None if last is None else self._clock() - last}
        return figures

    def tonight(self) -> Tonight:
        """Tonight's figures for the idle screen (read after each game, through the
        index on ``started_at``: they cost tonight's games, not the record's)."""
        try:
            return tonight(self._conn(), self._clock())
        except sqlite3.Error as error:
            raise StorageFault(fault_text(error, self.path)) from error

    def high_scores(self) -> tuple[HighScores, ...]:
        """The high-score tables for the idle screen (read after each game; tonight's
        and this week's cost their games, all time's the kept statistics: never the
        record's size, see store/read/highscores.py)."""
        try:
            return tuple(HighScores(t.period, t.kind, t.entries)
                         for t in high_scores(self._conn(), self._clock()))
        except sqlite3.Error as error:
            raise StorageFault(fault_text(error, self.path)) from error

    def roster(self) -> tuple[str, ...]:
        """The players the record knows, most recently seen first (the setup
        screen's roster and the menu's; read through ``roster_last_seen``), without
        the league's players: their seat is claimed with their secret, from a phone
        (store/tables/league.py)."""
        try:
            conn = self._conn()
            league = league_keys(conn)
            return tuple(p.name for p in recent(conn) if name_key(p.name) not in league)
        except sqlite3.Error as error:
            raise StorageFault(fault_text(error, self.path)) from error

    def settings(self) -> dict[str, Any]:
        """The adjustments made on the box (none if they cannot be read: the
        config file alone then, and the box still starts)."""
        try:
            return load_settings(self._conn())
        except (sqlite3.Error, StorageFault, ValueError):
            return {}
