"""Power cuts between any two database writes, or between a write and its commit.

``cut-after-writes N`` pulls the plug right after the daemon's N-th write
(every event written and every commit counts), in the middle of a step if
that is where it falls; a new daemon then boots on the same database with the
flaps as they physically are. For every N of a three-player game of up to
three rounds on each match format, the game resumes and ends as the
uninterrupted one did: the same throws, turns, rounds, totals and winners.

The short form (the default) cuts at a spread of N; ``pytest --long`` at
every N (see tests/README.md for the figures).
"""

from __future__ import annotations

import functools
import shutil
import tempfile
from pathlib import Path

import pytest
from steady_player import SteadyPlayer, record_of

from shutbox_hw.config.config_file import load_config
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script_commands import CutAfterWrites, Step
from shutbox_hw.store import Store

FORMATS = {
    "single-round": {"match": "single-round"},
    "elimination": {"match": "elimination", "threshold": 100},
    "race": {"match": "race"},
    "pool": {"match": "pool"},
}
SHORT_CUTS = 8    # cut points per format in the short form


@pytest.fixture
def fast_dir(tmp_path):
    """A folder in memory when there is one: fsync is free there, and these
    tests commit thousands of times (the disk's speed is not what they test)."""
    shm = Path("/dev/shm")
    if not shm.is_dir():
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="shutbox-cuts-", dir=shm))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def play(config, db, cut_after: int | None = None) -> tuple[SimRunner, list[dict]]:
    events: list[dict] = []
    runner = SimRunner(config, db, on_event=events.append)
    if cut_after is not None:
        runner.run(Step(0, CutAfterWrites(cut_after)))
    SteadyPlayer(runner, players=3, rounds=3, seed=7).play()
    return runner, events


def cut_points(total: int, full: bool) -> list[int]:
    if full or total <= SHORT_CUTS:
        return list(range(1, total + 1))
    step = total / (SHORT_CUTS - 2)
    return sorted({1, 2, total - 1, total, *(round(1 + i * step) for i in range(SHORT_CUTS - 2))})


@pytest.mark.parametrize("name", FORMATS)
def test_a_power_cut_after_any_write_resumes_the_same_game(name, fast_dir, long_run):
    tmp_path = fast_dir
    config = load_config(rule_overrides=FORMATS[name])
    total, expected, _ = _uninterrupted(name)
    assert expected["games"][0][2] == 1 and expected["integrity"] == "ok"
    tried = survived = 0
    failures = []
    for n in cut_points(total, long_run):
        db = tmp_path / f"cut{n}.db"
        runner, events = play(config, db, cut_after=n)
        tried += 1
        got = record_of(db)
        if runner.power_cuts == 1 and got == expected:
            survived += 1
        else:
            failures.append((n, runner.power_cuts, {k: v for k, v in got.items()
                                                    if v != expected[k]}))
        db.unlink()
    print(f"{name}: {total} writes, cuts tried {tried}, survived {survived}")
    assert not failures, failures[:3]


def _played(config, db) -> tuple[SimRunner, list]:
    """The uninterrupted game played on ``db``: its runner, and its game events in the
    order they were stored."""
    kept: list = []
    runner = SimRunner(config, db)
    store = runner.daemon.store
    real = store.record_all

    def record_all(events, *args, **kwargs):
        events = list(events)
        real(events, *args, **kwargs)   # the tally and the happened times too
        kept.extend(events)

    store.record_all = record_all
    SteadyPlayer(runner, players=3, rounds=3, seed=7).play()
    return runner, kept


@functools.cache
def _uninterrupted(name: str) -> tuple[int, dict, tuple]:
    """The uninterrupted game of a format, played once for both sweeps of cuts (the
    same player, seed and rules: the same game): the daemon's writes, the record
    every cut game must end with, and the game events in the order they were stored."""
    folder = Path(tempfile.mkdtemp(prefix="shutbox-plain-", dir=_ram()))
    try:
        runner, events = _played(load_config(rule_overrides=FORMATS[name]),
                                 folder / "plain.db")
        played = runner.disk.writes, record_of(folder / "plain.db"), tuple(events)
        runner.daemon.store.close()
        return played
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _ram() -> Path | None:
    """/dev/shm when there is one (as ``fast_dir``)."""
    shm = Path("/dev/shm")
    return shm if shm.is_dir() else None


def _old_database(db: Path, events: list) -> None:
    """A database as the box wrote it before one step was one transaction."""
    old = Store(db)
    for event in events:
        old.record(event)           # each in a transaction of its own
    old.close()


def test_a_person_at_a_resumed_box_counts_the_rounds_ended_before_it_booted(fast_dir):
    """The steady player stops after three rounds: on a new process it reads the
    rounds already ended from the box's record (it saw none of them printed)."""
    config = load_config(rule_overrides=FORMATS["pool"])
    events = _uninterrupted("pool")[2]
    ends = [i for i, e in enumerate(events) if e.name == "round_ended"]
    assert len(ends) == 3
    _old_database(fast_dir / "old.db", events[:ends[1] + 2])   # into the third round
    runner = SimRunner(config, fast_dir / "old.db")
    try:
        assert runner.sim.view.rounds_ended() == 2
    finally:
        runner.daemon.store.close()


@pytest.mark.parametrize("name", FORMATS)
def test_a_database_cut_between_two_events_of_one_step_is_finished_on_resume(
        name, fast_dir, long_run):
    """Databases written before one step was one transaction: each event on its own.

    A cut between any two of them (after a throw with no move, after a round's
    last turn, after the round that decides the match) resumes, and the game
    ends as the uninterrupted one: the restored record is finished on start.
    """
    tmp_path = fast_dir
    config = load_config(rule_overrides=FORMATS[name])
    _, expected, events = _uninterrupted(name)
    assert expected["games"][0][2] == 1 and expected["integrity"] == "ok"
    assert len(events) > 1, "the uninterrupted game stored no events: nothing to cut"
    cuts = cut_points(len(events), long_run)
    assert cuts, "no cut point tried"
    failures = []
    for k in cuts:
        db = tmp_path / f"old{k}.db"
        _old_database(db, events[:k])
        runner = SimRunner(config, db)  # every flap open, as if all were lifted
        try:
            SteadyPlayer(runner, players=3, rounds=3, seed=7).play(limit=2000)
        except AssertionError as stuck:
            failures.append((k, events[k - 1].name, str(stuck)))
            continue
        got = record_of(db)
        # booted with every flap open, the next turn may start before the player
        # stops the game (as it would had they lifted the flaps): unscored, ignored
        got["turns"] = [t for t in got["turns"] if t[3] is not None]
        if got != expected:
            failures.append((k, events[k - 1].name, {key: v for key, v in got.items()
                                                      if v != expected[key]}))
        runner.daemon.store.close()
        db.unlink()
    print(f"{name}: {len(events)} events, cuts tried {len(cuts)}, "
          f"survived {len(cuts) - len(failures)}")
    assert not failures, failures[:3]
