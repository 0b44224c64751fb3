"""A disk that is full, locked or refuses to start: the box shows it at once,
plays on, keeps the unsaved events in order and writes them when it can.

The failures are real ones: a tiny tmpfs filled to the last block (needs root
to mount; skipped otherwise), a second connection holding the write lock.
"""

from __future__ import annotations

import sqlite3
import subprocess
import uuid
from pathlib import Path

import pytest
from sim_play import game_events, play_script
from steady_player import record_of
from storage_box import OPENING, play, recoveries, storage_faults, throws_on_disk

from shutbox_hw.config.config_file import load_config
from shutbox_hw.daemon.journal import STORE_RETRY_MS
from shutbox_hw.game.model.events import GameStarted
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import ScriptError, Step, parse_script
from shutbox_hw.sim.script_commands import CutAfterWrites, DiskFull
from shutbox_hw.store import StorageFault, Store
from shutbox_hw.store.disk.faults import BUSY_TIMEOUT_S


class Disk:
    """A tmpfs of a few hundred KiB that a test can fill and empty again."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.filler = root / "filler"

    def fill(self) -> None:
        with open(self.filler, "ab", buffering=0) as out:
            for size in (65536, 4096, 512, 1):
                try:
                    while True:
                        out.write(b"\0" * size)
                except OSError:
                    pass
        with pytest.raises(OSError):  # really full
            (self.root / "probe").write_bytes(b"\0" * 4096)

    def free(self) -> None:
        self.filler.unlink()


@pytest.fixture
def disk(tmp_path):
    root = tmp_path / "disk"
    root.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=384k",
                           f"sbhw-{uuid.uuid4().hex[:8]}", str(root)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield Disk(root)
    finally:
        subprocess.run(["umount", "-l", str(root)], capture_output=True)


def test_a_full_disk_mid_game_is_shown_at_once_and_the_game_goes_on(disk):
    db = disk.root / "box.db"
    events: list[dict] = []
    runner = SimRunner(load_config(), db, on_event=events.append)
    play(runner, OPENING)
    assert throws_on_disk(db) == [(1, "[3, 4]", "[3, 4]")]
    disk.fill()
    play(runner, "dice 6 2\nroll\n")
    # the very step that failed shows it: red LED, the message on the screen
    assert len(storage_faults(events)) == 1
    lamps = runner.sim.lamp_states()
    assert lamps.red and not lamps.green
    assert "disk full" in runner.sim.view.screen.message
    play(runner, "close 8\ndice 1 1\nroll\nclose 2\n")
    assert [e["closed"] for e in events if e["event"] == "throw_committed"] == [[3, 4], [8], [2]]
    assert throws_on_disk(db) == [(1, "[3, 4]", "[3, 4]")]   # nothing written ...
    # the disk's own fault waits with them, for the outbox (the store keeps none of it)
    assert [e.name for e in runner.daemon.unsaved][:3] == ["rolled", "fault", "throw_committed"]
    assert len(storage_faults(events)) == 1                  # ... and said once
    disk.free()
    play(runner, f"wait {STORE_RETRY_MS / 1000 + 0.1}\n")
    assert len(recoveries(events)) == 1 and runner.daemon.unsaved == []
    lamps = runner.sim.lamp_states()
    assert not lamps.red
    assert runner.sim.view.screen.message is None
    assert throws_on_disk(db) == [(1, "[3, 4]", "[3, 4]"), (2, "[6, 2]", "[8]"),
                                  (3, "[1, 1]", "[2]")]
    # and a power cut now resumes the whole turn
    runner.restart()
    turn = runner.daemon.controller.state.turn
    assert turn is not None and turn.throws == 3


def test_a_full_disk_at_boot_starts_the_box_degraded_and_resumes_the_game(disk):
    db = disk.root / "box.db"
    events: list[dict] = []
    runner = SimRunner(load_config(), db, on_event=events.append)
    play(runner, OPENING)
    runner.daemon.store.close()          # a clean shutdown: no -wal, no -shm left
    assert not Path(f"{db}-shm").exists()
    disk.fill()
    with pytest.raises(sqlite3.OperationalError):  # what used to stop the box
        con = sqlite3.connect(db)
        try:
            con.execute("SELECT count(*) FROM games").fetchone()
        finally:
            con.close()
    runner.restart()
    assert runner.daemon.store.fault == "disk full"
    assert runner.sim.lamp_states().red
    assert "disk full" in runner.sim.view.screen.message
    turn = runner.daemon.controller.state.turn
    assert turn is not None and turn.committed == 0b1100   # the game was read back
    play(runner, "dice 5 5\nroll\nclose 1 9\n")
    assert [e["closed"] for e in events if e["event"] == "throw_committed"][-1] == [1, 9]
    disk.free()
    play(runner, f"wait {STORE_RETRY_MS / 1000 + 0.1}\n")
    assert recoveries(events) and runner.daemon.store.fault is None
    assert throws_on_disk(db)[-1] == (2, "[5, 5]", "[1, 9]")
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    con.close()


def test_a_full_disk_with_no_database_yet_starts_and_creates_it_later(disk):
    disk.fill()
    db = disk.root / "new.db"
    events: list[dict] = []
    runner = SimRunner(load_config(), db, on_event=events.append)
    assert runner.daemon.store.fault == "disk full"
    play(runner, OPENING)
    disk.free()
    play(runner, f"wait {STORE_RETRY_MS / 1000 + 0.1}\n")
    assert recoveries(events)
    assert throws_on_disk(db) == [(1, "[3, 4]", "[3, 4]")]


def test_a_locked_database_is_a_storage_fault_not_a_stall(tmp_path):
    db = tmp_path / "box.db"
    events: list[dict] = []
    runner = SimRunner(load_config(), db, on_event=events.append)
    play(runner, OPENING)
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")          # another program holds the write lock
    try:
        play(runner, "dice 6 2\nroll\nclose 8\n")
        assert len(storage_faults(events)) == 1
        assert "locked" in runner.sim.view.screen.message
        assert runner.sim.lamp_states().red
    finally:
        other.execute("ROLLBACK")
        other.close()
    play(runner, f"wait {STORE_RETRY_MS / 1000 + 0.1}\n")
    assert recoveries(events)
    assert throws_on_disk(db)[-1] == (2, "[6, 2]", "[8]")


def test_a_lock_is_waited_for_a_bounded_time(tmp_path):
    # a write waits at most BUSY_TIMEOUT_S for a lock: well under half the
    # watchdog's 10 s even with a retry and a step's write in one loop turn
    assert 2 * BUSY_TIMEOUT_S < 10 / 2
    db = tmp_path / "box.db"
    store = Store(db)
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StorageFault, match="locked"):
            store.record_all([GameStarted(players=("A",), rules={}, dice="software")])
        timeout_ms, = store.db.execute("PRAGMA busy_timeout").fetchone()
        assert timeout_ms == BUSY_TIMEOUT_S * 1000
    finally:
        other.execute("ROLLBACK")
    assert store.game_id is None    # the failed write left nothing behind, not even in memory


def test_the_dice_are_on_disk_before_the_box_shows_them(tmp_path):
    db = tmp_path / "box.db"
    runner = SimRunner(load_config(), db)
    play(runner, "start 1\n")
    frames: list[tuple] = []
    display = runner.daemon.box.display
    real_show = display.show

    def show(image, now, activity=True):
        turn = runner.daemon.controller.state.turn
        frames.append((turn.dice if turn else None, throws_on_disk(db)))
        return real_show(image, now, activity)

    display.show = show
    play(runner, "dice 2 5\nroll\n")
    with_dice = [rows for dice, rows in frames if dice == (2, 5)]
    assert with_dice, "no frame showed the throw"
    assert all(rows == [(1, "[2, 5]", None)] for rows in with_dice)


def test_one_step_is_one_transaction(tmp_path):
    """A throw with no move ends the turn and the round: one commit for all of it."""
    db = tmp_path / "box.db"
    events: list[dict] = []
    runner = SimRunner(load_config(), db, on_event=events.append)
    play(runner, OPENING)
    commits: list[int] = []
    store = runner.daemon.store
    store.on_write = lambda committed: commits.append(len(events))
    seen = len(events)
    play(runner, "dice 2 2\nroll\n")     # 4 with 3 and 4 shut: no move
    kinds = [e["event"] for e in events[seen:]]
    assert kinds[:3] == ["rolled", "turn_ended", "round_ended"]
    # on_write runs after each event written and after the commit; every event
    # of the step was written before the one commit, and before any was reported
    written = [c for c in commits]
    assert len(written) == len([k for k in kinds if k in ("rolled", "turn_ended", "round_ended",
                                                          "game_ended")]) + 1
    assert set(written) == {seen}


# ---------------------------------------------------------------- sim script commands

GAME = ("start 2\ndice 3 4\nroll\nclose 3 4\ndice 6 6\nroll\nclose 12\ndice 2 2\nroll\n"
        "open 3 4 12\ndice 5 4\nroll\nclose 9\ndice 1 1\nroll\nclose 2\ndice 6 5\nroll\n"
        "close 11\ndice 1 2\nroll\nhold-next\nroll\n")
CRAFTHOUSE = {"match": "race"}


def test_storage_commands_parse_and_bad_ones_name_the_line():
    assert parse_script("disk-full\ndisk-ok\ncut-after-writes 7\n", 9) == [
        Step(1, DiskFull(full=True)), Step(2, DiskFull(full=False)), Step(3, CutAfterWrites(7))]
    for line, word in (("disk-full now", "takes no arguments"), ("disk-ok 1", "no arguments"),
                       ("cut-after-writes", "number of writes"),
                       ("cut-after-writes 0", "number of writes"),
                       ("cut-after-writes 2 3", "number of writes"),
                       ("cut-after-writes x", "whole number")):
        with pytest.raises(ScriptError) as error:
            parse_script(f"start 1\n{line}\n", 9, name="s.txt")
        assert str(error.value).startswith("s.txt:2: ") and word in str(error.value)


def scripted(tmp_path, text, name):
    config = load_config(preset="crafthouse-12", rule_overrides=CRAFTHOUSE)
    return play_script(config, text, tmp_path / f"{name}.db")


def test_disk_full_in_a_script_is_the_same_game_saved_late(tmp_path):
    _, plain = scripted(tmp_path, GAME, "plain")
    faulty = GAME.replace("dice 6 6\n", "disk-full\ndice 6 6\n").replace(
        "open 3 4 12\n", "open 3 4 12\nwait 1.1\ndisk-ok\nwait 1.1\n")
    runner, events = scripted(tmp_path, faulty, "full")
    assert game_events(events) == game_events(plain)
    assert [e["event"] for e in events if e["event"] in ("fault", "recovered")] == \
        ["fault", "recovered"]
    assert storage_faults(events)[0]["detail"] == "cannot save: disk full"
    assert record_of(tmp_path / "full.db") == record_of(tmp_path / "plain.db")


def test_cut_after_writes_in_a_script_gives_the_same_game_for_every_n(tmp_path):
    """A scripted game with the plug pulled after any one of its writes: the
    simulated person presses again what the box lost, shuts again the flaps it
    asks for, and the game events and the record are those of the plain run."""
    plain_runner, plain = scripted(tmp_path, GAME, "plain")
    expected = record_of(tmp_path / "plain.db")
    total = plain_runner.disk.writes
    assert total > 20
    for n in range(1, total + 1):
        runner, events = scripted(tmp_path, f"cut-after-writes {n}\n{GAME}", f"cut{n}")
        assert runner.power_cuts == 1, n
        assert game_events(events) == game_events(plain), n
        assert record_of(tmp_path / f"cut{n}.db") == expected, n


def test_a_scripts_end_saves_what_the_disk_refused_a_moment_ago(tmp_path, capsys):
    from shutbox_hw.commands.cli import main
    script = tmp_path / "s.txt"
    # the throw is refused by the full disk; the disk is fine again as the script ends
    script.write_text("start 1\ndisk-full\ndice 3 4\nroll\ndisk-ok\n")
    db = tmp_path / "box.db"
    assert main(["sim", "--db", str(db), "--script", str(script)]) == 0
    assert capsys.readouterr().err == ""
    assert throws_on_disk(db) == [(1, "[3, 4]", None)]


def test_events_the_disk_never_took_are_reported_at_the_scripts_end(tmp_path, capsys):
    from shutbox_hw.commands.cli import main
    script = tmp_path / "s.txt"
    script.write_text("start 1\ndisk-full\ndice 3 4\nroll\n")
    db = tmp_path / "box.db"
    assert main(["sim", "--db", str(db), "--script", str(script)]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    # the throw, and the storage fault itself: the record keeps each fault (the faults page)
    assert len(err) == 1 and "2 event(s) not saved at the script's end" in err[0]
    assert "full" in err[0]
    assert throws_on_disk(db) == []

