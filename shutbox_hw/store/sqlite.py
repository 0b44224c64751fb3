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

import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, assert_never

from ..errors import UserError, shown_path
from ..events import Tonight
from ..game.events import (AnyGameEvent, AuditsReset, Chances, Fault, FlapRejected, FlapReopened,
                           GameEnded, GameStarted, Hint, Recovered, Resumed, Rolled, RoundEnded,
                           ServiceEntered, ServiceExited, SettingChanged, ThrowCommitted,
                           TurnEnded, TurnStarted)
from ..game.saved import SavedGame, SavedTurn
from ..lifecycle import Closable
from ..rules import mask_of, rules_from_dict
from ..textfile import os_problem
from .schema import SchemaError, migrate, not_a_regular_file, sqlite_problem, version_of
from .audit import Tally, audit_lines, reset_audits, reset_counters, tonight
from .settings import clear_settings, load_settings, save_setting
from .outbox import queue

# systemd-timesyncd creates this once the clock has been synchronised since boot
TIMESYNC_FLAG = Path("/run/systemd/timesync/synchronized")


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


def transient(error: BaseException) -> bool:
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


def _dice_json(dice: tuple[int, ...] | None) -> str | None:
    return json.dumps(list(dice)) if dice else None


class Store(Closable):
    """One SQLite file. ``record`` takes the controller's game events."""

    def __init__(self, path: str | Path, clock: Callable[[], float] = time.time,
                 sync_flag: str | Path = TIMESYNC_FLAG,
                 check_write: Callable[[], None] | None = None) -> None:
        self.path = Path(path)
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
        # [network] mqtt: every event is also queued in the outbox (store/outbox.py) in
        # the same transaction, and this is called after the commit (the publisher's wake)
        self.outbox: Callable[[], None] | None = None
        name = shown_path(self.path)
        problem = not_a_regular_file(self.path)
        if problem:
            raise StoreError(f"cannot open the database {name}: {problem}")
        shm = Path(f"{self.path}-shm")
        had_shm = shm.exists()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._open()
        except SchemaError as error:
            raise StoreError(str(error)) from None
        except sqlite3.Error as error:
            if not transient(error):
                raise StoreError(f"cannot open the database {name}: it "
                                 f"{sqlite_problem(error)}") from None
            self._open_degraded(error, None if had_shm else shm)
        except OSError as error:
            if error.errno != 28:  # ENOSPC: a full disk must not stop the game
                raise StoreError(f"cannot open the database {name}: "
                                 f"{os_problem(error, 'database')}") from None
            self._open_degraded(error, None if had_shm else shm)

    def _open(self) -> None:
        """Open for writing: migrate, WAL, the unfinished game (raises on failure)."""
        db = sqlite3.connect(self.path, isolation_level=None, timeout=BUSY_TIMEOUT_S)
        try:
            if self._check_write is not None:
                self._check_write()
            migrate(db, self.path)  # reads the schema before changing anything
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA foreign_keys=ON")
            row = db.execute("SELECT id FROM games WHERE ended_at IS NULL"
                             " ORDER BY id DESC LIMIT 1").fetchone()
        except BaseException:
            db.close()  # a refused file is not held open
            raise
        self.db, self.fault = db, None
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
        try:
            db = sqlite3.connect(self.path, isolation_level=None, timeout=BUSY_TIMEOUT_S)
        except sqlite3.Error:
            return
        try:
            db.execute("PRAGMA locking_mode=EXCLUSIVE")
            if version_of(db, self.path) >= 1:
                row = db.execute("SELECT id FROM games WHERE ended_at IS NULL"
                                 " ORDER BY id DESC LIMIT 1").fetchone()
                self.db = db
                if row:
                    self.game_id = int(row[0])
                return
        except (sqlite3.Error, SchemaError):
            pass
        db.close()

    def _reopen(self) -> None:
        """Leave the degraded state if the disk takes writes again (else StorageFault)."""
        if self.db is not None:
            self.db.close()
            self.db = None
        try:
            self._open()
        except (sqlite3.Error, OSError, SchemaError) as error:
            raise StorageFault(fault_text(error, self.path)) from None

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

    def record_all(self, events: Iterable[AnyGameEvent], tally: Tally | None = None) -> None:
        """Write the events of one step, in order, in one transaction: all or none;
        the audit counts of ``tally`` ride in the same transaction (one sync).

        Raises :class:`StorageFault` when the disk does not take them now; the
        store is then as it was before (the caller keeps the events, the tally
        its counts).
        """
        events = list(events)
        kept = [e for e in events
                if not isinstance(e, (FlapReopened, Resumed, Hint, Chances, Fault,
                                      Recovered, ServiceEntered, ServiceExited))]
        if self.fault is not None:
            self._reopen()  # even with nothing to write: the fault may be over
        if not kept and not (self.outbox and events):
            return  # nothing to keep: they follow from what is stored
        counts = tally if tally is not None and tally.pending else None
        with self._transaction(kept):
            now = self._clock()
            for event in kept:
                self._write(event, now)
                self._wrote()
            if counts is not None:
                counts.add_to(self._conn())
            if self.outbox is not None:
                queue(self._conn(), events, now)
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
            db.execute("COMMIT")
        except BaseException as error:
            self.game_id = game_id  # as the disk has it
            try:
                if db.in_transaction:
                    db.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # SQLite rolled back by itself
            if isinstance(error, sqlite3.OperationalError) and transient(error):
                raise StorageFault(fault_text(error, self.path)) from error
            raise
        self._wrote(events)

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

    def _write(self, event: AnyGameEvent, now: float) -> None:
        match event:
            case GameStarted():
                self._game_started(event, now)
            case TurnStarted():
                self._conn().execute("INSERT INTO turns (game_id, round, seat, started_at)"
                                " VALUES (?, ?, ?, ?)",
                                (self.game_id, event.round, event.seat, now))
            case Rolled():
                self._conn().execute(
                    "INSERT OR REPLACE INTO throws (turn_id, number, dice, rolled_at)"
                    " VALUES (?, ?, ?, ?)", (self._turn_id(event.round, event.seat),
                                             event.throw, _dice_json(event.dice), now))
            case ThrowCommitted():
                self._throw_committed(event, now)
            case FlapRejected():
                turn_id = self._turn_id(event.round, event.seat)
                if turn_id is not None:
                    self._conn().execute("INSERT INTO rejected_flaps (turn_id, flap, reason, at)"
                                    " VALUES (?, ?, ?, ?)",
                                    (turn_id, event.flap, event.reason, now))
            case TurnEnded():
                self._conn().execute(
                    "UPDATE turns SET ended_at = ?, open_tiles = ?, score = ?, shut = ?"
                    " WHERE id = ?", (now, json.dumps(list(event.open)), event.score,
                                      int(event.shut), self._turn_id(event.round, event.seat)))
            case RoundEnded():
                self._round_ended(event, now)
            case GameEnded():
                self._conn().execute("UPDATE games SET ended_at = ?, ended_synced = ?, winners = ?,"
                                " abandoned = ? WHERE id = ?",
                                (now, int(self.clock_synced()),
                                 json.dumps(event.winner_names()), int(event.abandoned),
                                 self.game_id))
                self.game_id = None
            case SettingChanged():
                if event.value is None:
                    clear_settings(self._conn())
                else:
                    save_setting(self._conn(), event.key, event.value, now)
            case AuditsReset():
                reset_counters(self._conn())
            case FlapReopened() | Resumed() | Hint() | Chances() | Fault() | Recovered() \
                    | ServiceEntered() | ServiceExited():
                pass  # filtered out by record_all
            case _:
                assert_never(event)  # a new event type: decide what the store keeps

    def _turn_id(self, round_number: int, seat: int) -> int | None:
        row = self._conn().execute(
            "SELECT id FROM turns WHERE game_id = ? AND round = ? AND seat = ?",
            (self.game_id, round_number, seat)).fetchone()
        return int(row[0]) if row else None

    def _game_started(self, event: GameStarted, now: float) -> None:
        # a new game abandons any unfinished one
        synced = int(self.clock_synced())
        self._conn().execute("UPDATE games SET ended_at = ?, ended_synced = ?, abandoned = 1"
                        " WHERE ended_at IS NULL", (now, synced))
        cur = self._conn().execute(
            "INSERT INTO games (started_at, started_synced, rules, dice_mode)"
            " VALUES (?, ?, ?, ?)", (now, synced, json.dumps(dict(event.rules)), event.dice))
        game_id = cur.lastrowid
        self._conn().executemany("INSERT INTO players (game_id, seat, name) VALUES (?, ?, ?)",
                            [(game_id, seat, name) for seat, name in enumerate(event.players)])
        self.game_id = game_id

    def _throw_committed(self, event: ThrowCommitted, now: float) -> None:
        turn_id = self._turn_id(event.round, event.seat)
        closed = json.dumps(list(event.closed))
        updated = self._conn().execute(
            "UPDATE throws SET closed = ?, committed_at = ? WHERE turn_id = ? AND number = ?",
            (closed, now, turn_id, event.throw)).rowcount
        if not updated:
            self._conn().execute(
                "INSERT INTO throws (turn_id, number, dice, closed, rolled_at, committed_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (turn_id, event.throw, _dice_json(event.dice), closed, now, now))

    def _round_ended(self, event: RoundEnded, now: float) -> None:
        self._conn().execute("INSERT INTO rounds (game_id, number, ended_at, result)"
                        " VALUES (?, ?, ?, ?)",
                        (self.game_id, event.round, now, json.dumps(event.as_json())))
        for seat, final in enumerate(event.final):
            if final is not None:
                self._conn().execute("UPDATE turns SET final_score = ? WHERE game_id = ? AND round = ?"
                                " AND seat = ?", (final, self.game_id, event.round, seat))

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
            saved = self._saved_game()
            rules_from_dict(saved.rules)
        except (ValueError, TypeError, KeyError, AttributeError, UserError):
            try:
                with self._transaction():
                    self._conn().execute("UPDATE games SET ended_at = ?, ended_synced = ?,"
                                    " abandoned = 1 WHERE id = ?",
                                    (self._clock(), int(self.clock_synced()), self.game_id))
            except StorageFault:
                pass  # the next game_started abandons it
            self.game_id = None
            return None
        return saved

    def _saved_game(self) -> SavedGame:
        rules_json, = self._conn().execute("SELECT rules FROM games WHERE id = ?",
                                      (self.game_id,)).fetchone()
        players = [name for name, in self._conn().execute(
            "SELECT name FROM players WHERE game_id = ? ORDER BY seat", (self.game_id,))]
        ended_rounds = {n for n, in self._conn().execute(
            "SELECT number FROM rounds WHERE game_id = ?", (self.game_id,))}
        by_round: dict[int, dict[int, int]] = {}
        current: tuple[int, int] | None = None  # (turn id, seat)
        for turn_id, rnd, seat, open_json, ended in self._conn().execute(
                "SELECT id, round, seat, open_tiles, ended_at FROM turns WHERE game_id = ?"
                " ORDER BY round, id", (self.game_id,)):
            if ended is None:
                current = (turn_id, seat)
            else:
                by_round.setdefault(rnd, {})[seat] = mask_of(json.loads(open_json))
        rounds = tuple(tuple(by_round.get(r, {}).get(seat) for seat in range(len(players)))
                       for r in sorted(ended_rounds))
        open_round = max(ended_rounds, default=0) + 1
        played = tuple(sorted(by_round.get(open_round, {}).items()))
        turn = None
        if current is not None:
            turn_id, seat = current
            closed, dice, started = [], None, False
            for dice_json, closed_json in self._conn().execute(
                    "SELECT dice, closed FROM throws WHERE turn_id = ? ORDER BY number",
                    (turn_id,)):
                if closed_json is not None:
                    closed.append(mask_of(json.loads(closed_json)))
                else:
                    dice = tuple(json.loads(dice_json)) if dice_json else None
                    started = True
            turn = SavedTurn(player=seat, closed=tuple(closed), dice=dice,
                             throw_started=started)
        return SavedGame(rules=json.loads(rules_json), players=tuple(players), rounds=rounds,
                         played=played, turn=turn)

    # ------------------------------------------------------------------ audits
    # (kept apart from the game's write path: shutbox_hw/store/audit.py)

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

    def audit_lines(self) -> list[str]:
        """The audits as short lines for the operator menu (reads every game:
        asked for when the menu opens, not after each game)."""
        try:
            return audit_lines(self._conn())
        except sqlite3.Error as error:
            raise StorageFault(fault_text(error, self.path)) from error

    def tonight(self) -> Tonight:
        """Tonight's figures for the idle screen (three counts, read after each game)."""
        try:
            return tonight(self._conn(), self._clock())
        except sqlite3.Error as error:
            raise StorageFault(fault_text(error, self.path)) from error

    def settings(self) -> dict[str, Any]:
        """The adjustments made on the box (none if they cannot be read: the
        config file alone then, and the box still starts)."""
        try:
            return load_settings(self._conn())
        except (sqlite3.Error, StorageFault, ValueError):
            return {}
