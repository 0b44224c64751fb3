"""The crash rehearsal's judgement, without a VM: what counts as shown, what counts as lost,
and that the manual-dice player finishes the same game from a cut."""

from __future__ import annotations

import shutil
import sqlite3
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
sys.path[:0] = [str(HERE / "guest"), str(HERE.parent)]

from crash_game import boot_events, game_config, play_on, play_reference, record_of  # noqa: E402
from crash_replay import check_db, lost_shown, shown_marks  # noqa: E402

ROOT = HERE.parent.parent


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory):
    """The rehearsal's game (gpio-9, manual dice, no display) played once on the simulated box."""
    tmp = tmp_path_factory.mktemp("crash")
    text = (ROOT / "hardware/gpio-9/shutbox.toml").read_text()
    text = text.replace('dice = "software"', 'dice = "manual"').replace(
        'driver = "ssd1306"', 'driver = "none"')
    (tmp / "shutbox.toml").write_text(text)
    config = game_config(tmp / "shutbox.toml")
    db = tmp / "game.db"
    played = play_reference(config, db, seed=2)
    return config, db, played


def test_marks_give_the_events_shown_and_the_last_flaps() -> None:
    assert shown_marks([]) == (0, None)
    assert shown_marks(["start", "a0:0", "e2", "a1:5", "e3", "a2:4"]) == (3, 4)


def test_the_whole_game_is_on_its_disk_and_a_throw_it_never_made_is_lost(game) -> None:
    _, db, played = game
    events = played.events
    assert [e["event"] for e in events].count("round_ended") >= 3
    assert check_db(db, events) == []
    committed = next(e for e in events if e["event"] == "throw_committed")
    other = dict(committed, closed=[9] if committed["closed"] != [9] else [8])
    lost = lost_shown(db, events + [other])
    assert len(lost) == 1 and "throw_committed" in lost[0]


def test_a_disk_from_before_a_throw_loses_it_once_shown(game, tmp_path: Path) -> None:
    """The database with its last committed throw taken out: fine while that
    throw was not shown, lost once it was."""
    _, db, played = game
    cut = tmp_path / "cut.db"
    shutil.copy(db, cut)
    events = played.events
    last = max(i for i, e in enumerate(events) if e["event"] == "throw_committed")
    e = events[last]
    con = sqlite3.connect(cut)
    con.execute("UPDATE throws SET closed = NULL, committed_at = NULL WHERE number = ? AND"
                " turn_id = (SELECT id FROM turns WHERE round = ? AND seat ="
                " (SELECT seat FROM players WHERE name = ?))",
                (e["throw"], e["round"], e["player"]))
    con.commit()
    con.close()
    assert lost_shown(cut, events[:last]) == []
    assert len(lost_shown(cut, events[:last + 1])) == 1


def cut_after_round_1(db: Path, cut: Path) -> None:
    """A copy of the game's database as it was after round 1 (what came later deleted)."""
    shutil.copy(db, cut)
    con = sqlite3.connect(cut)
    con.execute("DELETE FROM throws WHERE turn_id IN (SELECT id FROM turns WHERE round > 1)")
    con.execute("DELETE FROM turns WHERE round > 1")
    con.execute("DELETE FROM rounds WHERE number > 1")
    con.execute("UPDATE games SET ended_at = NULL, winners = NULL")
    con.commit()
    con.close()


def test_the_player_finishes_the_same_game_after_a_cut(game, tmp_path: Path) -> None:
    """The game's database as it was after its first round (a later state
    rebuilt by deleting what came after), the flaps all open: played on, the
    same record as the uninterrupted game."""
    config, db, _ = game
    cut = tmp_path / "cut.db"
    cut_after_round_1(db, cut)
    events = play_on(config, cut, (), seed=2)
    assert events[0]["event"] == "resumed"
    assert record_of(cut) == record_of(db)


def test_the_simulated_boot_the_real_daemon_is_held_to_resumes_where_the_disk_is(
        game, tmp_path: Path) -> None:
    """boot_events (what the real daemon's boot at each replay point must equal):
    on a disk cut after round 1 it resumes round 2's first player, with the flaps
    as given; the disk it was given is left as it was."""
    config, db, played = game
    found = tmp_path / "found"
    found.mkdir()
    cut_after_round_1(db, found / "shutbox.db")
    before = (found / "shutbox.db").read_bytes()
    events = boot_events(config, found, tmp_path / "work", ())
    first = next(e for e in played.events if e["event"] == "turn_started" and e["round"] == 2)
    assert events[0] == {"event": "resumed", "player": first["player"], "round": 2}
    assert (found / "shutbox.db").read_bytes() == before
    assert boot_events(config, found, tmp_path / "work", ()) == events   # the same boot again


SYNC_PROBE = """
import sys
from shutbox_hw.store.read.shown import publish
from shutbox_hw.store.write.sqlite import Store
store = Store(sys.argv[1])
before = store.db.execute("PRAGMA synchronous").fetchone()[0]
assert publish(store, {"screen": "probe"})
after = store.db.execute("PRAGMA synchronous").fetchone()[0]
print(before, after)
"""


@pytest.mark.parametrize("shim, level", [(False, "2 2"), (True, "0 0")])
def test_the_self_checks_synchronous_off_stays_off_through_the_screens_mirror(
        tmp_path: Path, shim: bool, level: str) -> None:
    """The rehearsal's drop-in makes the store's FULL into OFF, and the mirror of
    the screen (written through a cursor, at NORMAL for itself) must not put FULL
    back: it once did, and the check found 0 of 30 points lost."""
    import os
    import subprocess
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if shim:
        env["PYTHONPATH"] = str(HERE / "guest" / "sync_off")
    out = subprocess.run([sys.executable, "-c", SYNC_PROBE, str(tmp_path / "box.db")],
                         env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == level.split()
    assert ("synchronous forced OFF" in out.stderr) is shim
