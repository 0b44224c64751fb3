"""The rater: move accuracy written into the record off the box's loop.

A thread with its own SQLite connection. The daemon wakes it after every step
that ends a turn; it then rates the turns ended since its mark
(:func:`~shutbox_hw.store.tables.ratings.rate_new`, one transaction with the mark) and
hands what it rated back through :meth:`RatingWorker.reports` (the daemon takes
them on its next step; ``wake_box`` wakes the loop for it). While nothing new
waits it backfills the older record, :data:`BACKFILL_BATCH` turns a transaction
with :data:`BACKFILL_PAUSE_S` between them.

What brings it back, whatever happened meanwhile: the mark is in the record and
moves only in the transaction that wrote the ratings, so

- a locked database (the daemon's or a reader's transaction), a full disk or an
  unreadable one: the transaction is rolled back, nothing is half written; the
  thread backs off (:data:`BACKOFF_S`, up to five minutes) and tries again, at
  once when woken by the next turn's end;
- a restart (a power cut, SIGKILL) in the middle of a batch: SQLite's journal
  undoes the batch, and the next start rates it again from the same mark;
- no solver (tables that cannot be solved or loaded): nothing is marked, the
  turns wait; the box plays on with no ratings and loses nothing else;
- a bug in the rating: logged once, backed off, tried again (a month later too).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ..rules import RuleSet
from ..store.tables import ratings
from ..strategy.rating import Rater, Tables, Tally, rater_for_record

log = logging.getLogger("shutbox_hw.rater")

NEW_BATCH = 50            # turns a transaction when catching up with new turns
BACKFILL_BATCH = 20       # turns a transaction when backfilling the older record
BACKFILL_PAUSE_S = 1.0    # between backfill batches: the box's loop goes first
BACKOFF_S = (1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 300.0)
BUSY_TIMEOUT_S = 0.5      # the rater waits briefly for the daemon's writes, then backs off
IDLE_S = 300.0            # looked again this often even when not woken


def solver_tables(rules: RuleSet) -> Tables:
    """The rule set's solver with its rated objective's table made: solved in a child
    process (as the hints are), so this thread never holds the GIL for a solve."""
    from ..strategy.rating import objective_for
    from .hints import _solver
    solver = _solver(rules, (objective_for(rules),))
    solver.solution(objective_for(rules))
    return solver


@dataclass(frozen=True)
class RatedTurn:
    """A turn the rater has just rated, for the box (the OLED's turn-end screen)."""

    turn_id: int
    game_id: int
    round: int
    seat: int
    tally: Tally


class RaterPort(Protocol):
    """What the daemon needs of a rater: woken after a turn ends, then asked what it rated."""

    def wake(self) -> None: ...

    def reports(self) -> list[RatedTurn]: ...


class RatingWorker:
    """The thread; :meth:`start`, :meth:`wake` after a turn ends, :meth:`stop`."""

    def __init__(self, db_path: str | Path,
                 tables_for: Callable[[RuleSet], Tables] = solver_tables, *,
                 wake_box: Callable[[], None] | None = None,
                 connect: Callable[[str], sqlite3.Connection] | None = None,
                 backfill_pause_s: float = BACKFILL_PAUSE_S) -> None:
        self.db_path = str(db_path)
        self.tables_for = tables_for
        self.wake_box = wake_box
        self._connect = connect or _connect
        self.backfill_pause_s = backfill_pause_s
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._rated: list[RatedTurn] = []
        self.problem: str | None = None   # the last failure (None: working)
        self.failures = 0                 # attempts failed in a row
        self.backlog_done = False
        self._thread = threading.Thread(target=self._run, name="rater", daemon=True)

    def start(self) -> RatingWorker:
        self._thread.start()
        return self

    def wake(self) -> None:
        """A turn has ended (the daemon, after the step's commit): never blocks."""
        self._wake.set()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def reports(self) -> list[RatedTurn]:
        """The turns rated since the last call (the daemon's loop takes them)."""
        with self._lock:
            rated, self._rated = self._rated, []
        return rated

    def _rater_for(self, rules_json: str) -> Rater | None:
        return rater_for_record(rules_json, self.tables_for)

    # ------------------------------------------------------------------ the thread

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._work()
            except Exception as error:   # the box plays on; the rater tries again later
                text = f"{type(error).__name__}: {error}"
                if text != self.problem:
                    log.warning("rater: %s (it tries again)", text)
                self.problem = text
                pause = BACKOFF_S[min(self.failures, len(BACKOFF_S) - 1)]
                self.failures += 1
                self._wake.wait(pause)
                self._wake.clear()

    def _work(self) -> None:
        db = self._connect(self.db_path)
        try:
            while not self._stop.is_set():
                self._wake.clear()
                new = self._rate_new(db)
                backfilled = 0
                if not new and not self.backlog_done:
                    backfilled = ratings.backfill(db, self._rater_for, BACKFILL_BATCH)
                    self.backlog_done = backfilled == 0
                if self.problem is not None:
                    log.info("rater: working again")
                self.problem, self.failures = None, 0
                if not new:
                    self._wake.wait(self.backfill_pause_s if backfilled else IDLE_S)
        finally:
            db.close()

    def _rate_new(self, db: sqlite3.Connection) -> int:
        """The new turns rated (and passed: rules that cannot be rated); the count."""
        count, rated = rate_and_report(db, self._rater_for)
        if rated:
            with self._lock:
                self._rated += rated
            if self.wake_box is not None:
                self.wake_box()
        return count


def rate_and_report(db: sqlite3.Connection, rater_for: ratings.RaterFor,
                    limit: int = NEW_BATCH) -> tuple[int, list[RatedTurn]]:
    """Rate the turns ended since the mark (one transaction): how many the mark passed,
    and those given a rating."""
    _, high = ratings.mark(db)
    count = ratings.rate_new(db, rater_for, limit)
    if not count:
        return 0, []
    return count, [
        RatedTurn(int(t), int(g), int(r), int(s), ratings.turn_accuracy(db, t) or Tally())
        for t, g, r, s in db.execute(
                "SELECT t.id, t.game_id, t.round, t.seat FROM turns t"
                " JOIN turn_ratings r ON r.turn_id = t.id WHERE t.id >= ? ORDER BY t.id"
                " LIMIT ?", (high, count))]


class InlineRater:
    """The simulator's rater: rates in the step that woke it, on the virtual clock
    (no thread, so a scripted night's record has its ratings when the script ends).
    A failure is logged and tried again at the next wake: the game never sees it."""

    def __init__(self, db_path: str | Path,
                 tables_for: Callable[[RuleSet], Tables] = solver_tables) -> None:
        self.db_path = str(db_path)
        self.tables_for = tables_for
        self._db: sqlite3.Connection | None = None
        self._rated: list[RatedTurn] = []
        self.problem: str | None = None

    def wake(self) -> None:
        try:
            if self._db is None:
                self._db = _connect(self.db_path)
            while True:
                count, rated = rate_and_report(
                    self._db, lambda rules: rater_for_record(rules, self.tables_for))
                self._rated += rated
                if not count:
                    break
            self.problem = None
        except Exception as error:   # the box plays on; the next wake tries again
            text = f"{type(error).__name__}: {error}"
            if text != self.problem:
                log.warning("rater: %s (it tries again)", text)
            self.problem = text
            self.stop()

    def reports(self) -> list[RatedTurn]:
        rated, self._rated = self._rated, []
        return rated

    def stop(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None


def _connect(path: str) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    db.execute("PRAGMA foreign_keys=ON")
    return db
