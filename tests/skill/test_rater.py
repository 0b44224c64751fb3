"""The rater thread on a real database: new turns, the older record backfilled, and
what brings it back after a locked or full disk, no solver, and SIGKILL mid-batch."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from recorded import end, expected, random_turn, start, turn

from shutbox_hw.skill.rater import RatingWorker, _connect
from shutbox_hw.store.tables import ratings, roster
from shutbox_hw.store.tables.ratings import player_accuracy, turn_accuracy
from shutbox_hw.store.write.sqlite import Store
from shutbox_hw.strategy import solver_for
from shutbox_hw.strategy.rating import rater_for_record

WAIT_S = 60.0   # how long a test waits for the thread (a condition, not a timing)
TILES = {"klappenspiel": 9, "pub": 9, "crafthouse-12": 12}


def _until(condition, what):
    end_at = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < end_at, f"the rater never {what}"
        time.sleep(0.02)


@pytest.fixture
def tables_for(tmp_path):
    return lambda rules: solver_for(rules, cache_dir=tmp_path / "cache")


def _night(path: Path, seed: int, games: int, presets=("klappenspiel", "pub", "crafthouse-12")):
    """Games of two named players and a seat label; each turn's expected tally."""
    rng = random.Random(seed)
    store = Store(path)
    want: dict[int, tuple[str, tuple[int, int, float]]] = {}
    try:
        for game in range(games):
            preset = presets[game % len(presets)]
            names = ("Anna", "Ben", "P3")
            start(store, preset, *names)
            for seat, name in enumerate(names):
                throws = random_turn(rng, preset)
                want[turn(store, TILES[preset], seat, name, throws)] = (name, expected(
                    throws, preset))
            end(store, *names)
    finally:
        store.close()
    return want


def _check(path: Path, want) -> None:
    """Every turn's tally and both players' totals equal the brute force's."""
    db = sqlite3.connect(path)
    try:
        totals: dict[str, list[float]] = {}
        for turn_id, (name, (moves, best, lost)) in want.items():
            got = turn_accuracy(db, turn_id)
            assert got is not None, f"turn {turn_id} not rated"
            assert (got.moves, got.best) == (moves, best)
            assert got.lost == pytest.approx(lost, abs=1e-6)
            t = totals.setdefault(name, [0, 0, 0.0])
            t[0], t[1], t[2] = t[0] + moves, t[1] + best, t[2] + lost
        for name in ("Anna", "Ben"):
            acc = player_accuracy(db, roster.find(db, name).id)
            assert (acc.all_time.moves, acc.all_time.best) == tuple(totals[name][:2])
            assert acc.all_time.lost == pytest.approx(totals[name][2], abs=1e-6)
        assert db.execute("SELECT count(*) FROM turn_ratings").fetchone() == (len(want),)
    finally:
        db.close()


def _all_rated(path, want):
    def done():
        db = sqlite3.connect(path)
        try:
            return db.execute("SELECT count(*) FROM turn_ratings").fetchone()[0] == len(want)
        finally:
            db.close()
    return done


def _as_old_record(path: Path) -> None:
    """As the migration to schema 7 leaves a record played before the rater: all of
    it the backlog."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("DELETE FROM rating_mark")
    ratings.start_mark(db)
    assert ratings.mark(db)[0] > 1
    db.close()


def test_new_turns_and_the_older_record_are_rated_once_each(tmp_path, tables_for):
    path = tmp_path / "box.db"
    want = _night(path, seed=1, games=12)
    _as_old_record(path)
    woke = threading.Event()
    worker = RatingWorker(path, tables_for, wake_box=woke.set, backfill_pause_s=0.01).start()
    try:
        _until(_all_rated(path, want), "backfilled the old record")
        store = Store(path)   # the box plays on: two new turns, and the daemon's wake
        try:
            start(store, "klappenspiel", "Anna", "Ben")
            throws = [((1, 2), [1, 2]), ((6, 6), [3, 9]), ((1, 1), None)]
            want[turn(store, 9, 0, "Anna", throws)] = ("Anna", expected(throws, "klappenspiel"))
            worker.wake()
        finally:
            store.close()
        _until(_all_rated(path, want), "rated the new turn")
        _until(woke.is_set, "woke the box")
        assert [r.seat for r in worker.reports()][-1] == 0
    finally:
        worker.stop()
    _check(path, want)


def test_a_locked_then_a_full_disk_then_no_solver_lose_nothing(tmp_path, tables_for):
    path = tmp_path / "box.db"
    want = _night(path, seed=2, games=50)   # ratings that need more pages than it has
    full = threading.Event()
    full.set()

    def connect(p):
        db = _connect(p)
        if full.is_set():   # SQLite's own "database or disk is full"
            pages, = db.execute("PRAGMA page_count").fetchone()
            db.execute(f"PRAGMA max_page_count = {pages}")
        return db

    solver_ok = threading.Event()

    def flaky_tables(rules):
        if not solver_ok.is_set():
            raise OSError("no space left to solve the tables")
        return tables_for(rules)

    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")   # another program holds the file
    worker = RatingWorker(path, flaky_tables, connect=connect).start()
    try:
        solver_ok.set()
        _until(lambda: worker.problem is not None and "locked" in worker.problem,
               "met the lock")
        assert holder.execute("SELECT count(*) FROM turn_ratings").fetchone() == (0,)
        holder.execute("ROLLBACK")
        worker.wake()
        _until(lambda: worker.problem is not None and "full" in worker.problem,
               "met the full disk")
        solver_ok.clear()
        full.clear()
        worker.wake()
        _until(lambda: worker.problem is not None and "solve" in worker.problem,
               "missed its solver")
        db = sqlite3.connect(path)
        rated, = db.execute("SELECT count(*) FROM turn_ratings").fetchone()
        low, high = ratings.mark(db)   # nothing marked that was not rated, nor the reverse
        assert rated < len(want) and (low, high) == (1, 1 + rated)
        db.close()
        solver_ok.set()
        worker.wake()
        _until(_all_rated(path, want), "came back")
        _until(lambda: worker.problem is None, "said it works again")
    finally:
        holder.close()
        worker.stop()
    _check(path, want)


CHILD = """
import sys
from shutbox_hw.skill.rater import _connect
from shutbox_hw.store import ratings
from shutbox_hw.strategy import solver_for
from shutbox_hw.strategy.rating import rater_for_record
db = _connect(sys.argv[1])
tables = lambda rules: solver_for(rules, cache_dir=sys.argv[2])
rater_for = lambda rules_json: rater_for_record(rules_json, tables)
while ratings.backfill(db, rater_for, 3):
    print("batch", flush=True)
print("done", flush=True)
"""


def _marked(path: Path) -> tuple[int, int]:
    """Turns rated, and turns the mark says are rated."""
    db = sqlite3.connect(path)
    low, high = ratings.mark(db)
    rated = db.execute("SELECT count(*) FROM turn_ratings").fetchone()[0]
    marked = db.execute("SELECT count(*) FROM turns WHERE id >= ? AND id < ?",
                        (low, high)).fetchone()[0]
    db.close()
    return rated, marked


def test_a_sigkill_in_the_middle_of_backfilling_is_undone_and_finished(tmp_path, tables_for):
    path = tmp_path / "box.db"
    want = _night(path, seed=3, games=30)
    _as_old_record(path)
    for _ in range(3):   # killed three times, each two batches further on, mid-way
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(path), str(tmp_path / "c")],
                                 stdout=subprocess.PIPE, text=True)
        assert [child.stdout.readline().strip() for _ in range(2)] == ["batch", "batch"]
        os.kill(child.pid, signal.SIGKILL)   # in its next batch's transaction, or between
        child.wait()
        assert child.returncode == -signal.SIGKILL
        rated, marked = _marked(path)
        assert rated == marked   # what the mark says is rated, and nothing more
    assert 0 < rated < len(want)
    db = _connect(str(path))
    rater_for = lambda rules_json: rater_for_record(rules_json, tables_for)  # noqa: E731
    while ratings.backfill(db, rater_for, 7):
        pass
    db.close()
    _check(path, want)
